package dataset

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadNPY and FuzzReadNPZ: numpy's own files (testdata/npy, written by make_npy.py) as
// seeds; every input fails with an error that wraps ErrInvalid and names the file, or gives a
// Set whose shapes agree and whose values are finite, within checkAlloc's bound.

func addNPYSeeds(f *testing.F, pattern string) {
	names, _ := filepath.Glob(filepath.Join("testdata/npy", pattern))
	for _, n := range names {
		if b, err := os.ReadFile(n); err == nil {
			f.Add(b)
		}
	}
}

func FuzzReadNPY(f *testing.F) {
	addNPYSeeds(f, "*.npy")
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, data, "fuzz.npy", Options{})
		fuzzRead(t, data, "fuzz.npy", Options{Missing: "mean"})
	})
}

func FuzzReadNPZ(f *testing.F) {
	addNPYSeeds(f, "*.npz")
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, data, "fuzz.npz", Options{})
		fuzzRead(t, data, "fuzz.npz", Options{Label: "y", Missing: "drop"})
	})
}
