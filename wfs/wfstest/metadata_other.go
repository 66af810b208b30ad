//go:build !unix

package wfstest

// systemCases has no rows here: owners, extended attributes, link counts, setuid and FIFOs
// are Unix's.
func systemCases() []metaCase { return nil }
