package engine

import "testing"

// TestInstallOnce: no engine until one is installed (a program with no grammar), then that
// one; a second Install is a set-up mistake and panics, keeping the first.
func TestInstallOnce(t *testing.T) {
	if Installed() != nil {
		t.Fatal("an engine is installed in a program that imports no grammar")
	}
	first := &Engine{Languages: func() []string { return []string{"go"} }}
	Install(first)
	if Installed() != first {
		t.Fatal("Installed() is not the engine installed")
	}
	defer func() {
		if recover() == nil {
			t.Error("a second Install did not panic")
		}
		if Installed() != first {
			t.Error("a second Install replaced the first engine")
		}
	}()
	Install(&Engine{})
}
