package main

import (
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/pe"
)

// fuzzEnv is a CLI environment whose streams lead nowhere.
func fuzzEnv() *env {
	return &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
}

// checkFileError: a failure caused by the file wraps ErrInvalid and starts with its name
// (FILE:LINE:COLUMN: expected …, found …, or FILE: … for the whole file).
func checkFileError(t *testing.T, err error, path string) {
	t.Helper()
	if !errors.Is(err, dataset.ErrInvalid) {
		t.Fatalf("error %q does not wrap ErrInvalid", err)
	}
	if !strings.HasPrefix(err.Error(), path+":") {
		t.Fatalf("error %q does not start with the file name", err)
	}
}

// FuzzReadPosteriors: the -posteriors file of -method pe (any table format, detected by content)
// is refused with a located error, or gives posteriors that pe.Check accepts as rows of
// probabilities summing to 1, class names for every column and labels in range.
func FuzzReadPosteriors(f *testing.F) {
	for _, s := range []string{
		"a,b\n0.5,0.5\n0.2,0.8\n",
		"0.3\t0.7\n1\t0\n",
		"x y z\n1 2 3\n0 0 1e308\n",
		"p,q\n0.5,0.6\n",
		"a,b\n1e308,1e308\n",
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, data []byte, normalize bool) {
		path := filepath.Join(t.TempDir(), "posteriors")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		pf := &peFlags{posteriors: path, normalize: normalize}
		d, names, err := pf.readPosteriors(fuzzEnv(), &inputFlags{header: "auto", missing: "error"}, "")
		if err != nil {
			checkFileError(t, err, path)
			return
		}
		n, k := d.Posteriors.Dims()
		p, err := pe.Check(d.Posteriors, normalize)
		if err != nil {
			t.Fatalf("accepted posteriors fail pe.Check: %v", err)
		}
		for i := range n {
			var s float64
			for _, v := range p[i*k : i*k+k] {
				if !(v >= 0 && v <= 1+pe.SumTolerance) {
					t.Fatalf("row %d: probability %v", i+1, v)
				}
				s += v
			}
			if math.Abs(s-1) > pe.SumTolerance {
				t.Fatalf("row %d sums to %v", i+1, s)
			}
		}
		if len(names) != k || len(d.Labels) != n {
			t.Fatalf("%d names and %d labels for %d×%d posteriors", len(names), len(d.Labels), n, k)
		}
		// −1 is a row whose label is unknown (dataset.Set): a labelled-text file may leave a
		// row's label empty (found by this target: "\tA 0\n0\t0", detected as labelled text).
		for _, l := range d.Labels {
			if l < -1 || l >= len(d.ClassNames) {
				t.Fatalf("label %d of %d classes", l, len(d.ClassNames))
			}
		}
	})
}

// FuzzReadPriors: the -priors file is refused with a located error, or gives k finite positive
// priors that pe can normalise without one vanishing.
func FuzzReadPriors(f *testing.F) {
	for _, s := range []string{"0.2,0.3,0.5\n", "1\n2\n3\n", "a b c\n1 1 1\n", "1e308 1e308 1\n", "5e-324 1e308 1\n", "0 1 2\n"} {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, kk uint8) {
		k := 2 + int(kk%6)
		path := filepath.Join(t.TempDir(), "priors")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		pf := &peFlags{priors: path}
		pri, err := pf.readPriors(fuzzEnv(), k)
		if err != nil {
			checkFileError(t, err, path)
			return
		}
		if len(pri) != k {
			t.Fatalf("%d priors for %d classes", len(pri), k)
		}
		for _, v := range pri {
			if !(v > 0) || math.IsInf(v, 0) {
				t.Fatalf("prior %v", v)
			}
		}
		// Relative to the largest, each stays a positive float64 (pe then normalises by the sum).
		mx := slices.Max(pri)
		for _, v := range pri {
			if v/mx == 0 {
				t.Fatalf("prior %v vanishes next to %v", v, mx)
			}
		}
	})
}
