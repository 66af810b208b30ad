package testenv

import (
	"os"
	"syscall"
	"unicode/utf16"
)

// Junction creates the directory link as a junction (a mount point) to the absolute
// directory target, as "mklink /J" does. It fails under Wine, which cannot set reparse
// points.
func Junction(link, target string) error {
	if err := os.Mkdir(link, 0o755); err != nil {
		return err
	}
	p, err := syscall.UTF16PtrFromString(link)
	if err != nil {
		return err
	}
	h, err := syscall.CreateFile(p, syscall.GENERIC_WRITE, 0, nil, syscall.OPEN_EXISTING,
		syscall.FILE_FLAG_BACKUP_SEMANTICS|syscall.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		os.Remove(link)
		return &os.PathError{Op: "open", Path: link, Err: err}
	}
	// REPARSE_DATA_BUFFER with a MountPointReparseBuffer: the NT substitute name and the
	// printed name, each NUL-terminated, lengths without the NUL.
	sub := utf16.Encode([]rune(`\??\` + target))
	prn := utf16.Encode([]rune(target))
	var b []byte
	le16 := func(v int) { b = append(b, byte(v), byte(v>>8)) }
	le16(0x0003) // IO_REPARSE_TAG_MOUNT_POINT, 0xA0000003, little-endian
	le16(0xA000)
	le16(8 + 2*(len(sub)+1+len(prn)+1)) // ReparseDataLength
	le16(0)                             // Reserved
	le16(0)                             // SubstituteNameOffset
	le16(2 * len(sub))                  // SubstituteNameLength
	le16(2 * (len(sub) + 1))            // PrintNameOffset
	le16(2 * len(prn))                  // PrintNameLength
	for _, c := range append(append(append(sub, 0), prn...), 0) {
		le16(int(c))
	}
	const fsctlSetReparsePoint = 0x000900A4
	var n uint32
	err = syscall.DeviceIoControl(h, fsctlSetReparsePoint, &b[0], uint32(len(b)), nil, 0, &n, nil)
	syscall.CloseHandle(h)
	if err != nil {
		os.Remove(link)
		return &os.PathError{Op: "set junction", Path: link, Err: err}
	}
	return nil
}
