package demo

func Broken() {
	return 1 +
