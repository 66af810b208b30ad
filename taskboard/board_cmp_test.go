package taskboard

import (
	"github.com/google/go-cmp/cmp"
)

// recordCmp compares every field of a Record, the unexported context-file list included.
var recordCmp = cmp.AllowUnexported(Record{})

func equalRecords(a, b Record) bool { return cmp.Equal(a, b, recordCmp) }

func diffRecords(a, b Record) string { return cmp.Diff(a, b, recordCmp) }
