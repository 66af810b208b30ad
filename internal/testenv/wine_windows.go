package testenv

import "syscall"

// wine looks for wine_get_version, which Wine's ntdll exports and Windows' does not.
func wine() bool {
	return syscall.NewLazyDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}
