package crashtest

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
)

// TestMain lets the test binary double as the child processes of the tests: with
// CRASHTEST_CHILD set it runs that child and exits (or is killed).
func TestMain(m *testing.M) {
	switch os.Getenv("CRASHTEST_CHILD") {
	case "":
		os.Exit(m.Run())
	case "commit":
		os.Exit(commitLoop(context.Background(), os.Getenv("CRASHTEST_WRITER"), os.Getenv("CRASHTEST_DIR")))
	case "worker":
		id, _ := strconv.Atoi(os.Getenv("CRASHTEST_ID"))
		ops, _ := strconv.Atoi(os.Getenv("CRASHTEST_OPS"))
		os.Exit(worker(context.Background(), os.Getenv("CRASHTEST_WRITER"), os.Getenv("CRASHTEST_DIR"), id, ops))
	default:
		fmt.Fprintln(os.Stderr, "unknown CRASHTEST_CHILD")
		os.Exit(2)
	}
}

// scale reads a count from the environment, with a default.
func scale(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}
