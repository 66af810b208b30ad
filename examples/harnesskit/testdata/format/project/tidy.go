package demo

// Tidy is already formatted.
func Tidy() {}
