package taskboard

import (
	"github.com/google/go-cmp/cmp"
)

func equalRecords(a, b Record) bool { return cmp.Equal(a, b) }

func diffRecords(a, b Record) string { return cmp.Diff(a, b) }
