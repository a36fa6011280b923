// Package sharedtest gives tests the project's shared directory, or skips them with a message
// saying where it was looked for.
package sharedtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/lowdim/lowdim/internal/shared"
)

// Dir returns ../shared next to the module root, skipping t when it (or its data/) is absent.
func Dir(t testing.TB) string {
	t.Helper()
	dir, err := shared.Dir()
	if err != nil {
		t.Skip(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "data")); err != nil {
		t.Skipf("shared data directory %s is absent: %v", filepath.Join(dir, "data"), err)
	}
	return dir
}

// Data returns Dir(t)/data.
func Data(t testing.TB) string { return filepath.Join(Dir(t), "data") }
