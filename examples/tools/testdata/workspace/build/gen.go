package build

func Greet() {}
