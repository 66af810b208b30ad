package taskboard_test

import (
	"github.com/google/go-cmp/cmp"
	"github.com/harnesskit/harnesskit/taskboard"
)

func equalRecords(a, b taskboard.Record) bool { return cmp.Equal(a, b) }

func diffRecords(a, b taskboard.Record) string { return cmp.Diff(a, b) }
