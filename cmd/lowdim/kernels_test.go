package main

import (
	"strings"
	"testing"

	"github.com/lowdim/lowdim/internal/blas"
)

// TestVersionPrintsKernels: `lowdim version` names the dispatch level in force and the kernels.
func TestVersionPrintsKernels(t *testing.T) {
	out, errOut, status := runCLI(t, "", "version")
	if status != 0 {
		t.Fatalf("status %d, stderr %q", status, errOut)
	}
	for _, want := range []string{"lowdim " + version, "dispatch level: " + blas.Active.String(), "int8 products", "exp sums"} {
		if !strings.Contains(out, want) {
			t.Errorf("version output lacks %q:\n%s", want, out)
		}
	}
}
