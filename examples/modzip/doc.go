// Package modzip holds the checks that every module of the repository can be published:
// its tests zip each module as the Go module proxy does (golang.org/x/mod/zip) and refuse
// any file name that a Windows or macOS checkout would lose or open as something else. It
// lives in the examples module so that the root module does not depend on x/mod, and it
// has no API.
package modzip
