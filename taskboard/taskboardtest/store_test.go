package taskboardtest_test

import (
	"context"
	"testing"

	"github.com/harnesskit/harnesskit/taskboard/taskboardtest"
)

func TestStoreConformance(t *testing.T) {
	if err := taskboardtest.TestStore(context.Background(), taskboardtest.NewStore()); err != nil {
		t.Fatal(err)
	}
}
