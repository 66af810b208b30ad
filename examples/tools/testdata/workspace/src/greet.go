package main

// Greet returns a greeting for name.
func Greet(name string) string {
	return "Hello, " + name
}
