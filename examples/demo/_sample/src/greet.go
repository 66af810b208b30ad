package greet

import "fmt"

// Hello returns a greeting for name.
func Hello(name string) string {
	return fmt.Sprintf("Hello, %s!", name)
}

// Goodbye returns a farewell for name.
func Goodbye(name string) string {
	return fmt.Sprintf("Goodbye, %s.", name)
}
