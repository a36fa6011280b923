package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReliabilityHostileInputsExitTwo: issue 18's hostile inputs through the command line —
// the 0.9 MB labelled-text file whose counts would take 80 GB, a Matrix Market header
// declaring a 16384×16384 array and no values, a PGM directory whose width × height overflows
// int, and a cut gzip stream. Each exits 2 with FILE:…: expected …, found … and writes nothing.
func TestReliabilityHostileInputsExitTwo(t *testing.T) {
	var big strings.Builder
	for i := range 100_000 {
		fmt.Fprintf(&big, "c%d\tw%05d\n", i%2, i)
	}
	cases := []struct {
		name, file, content string
		format              string
		want                string // the error line after the input's path
	}{
		{"labeltext 80 GB", "big.txt", big.String(), "labeltext", ": expected a matrix of at most 2.0 GiB"},
		{"mtx 16384²", "big.mtx", "%%MatrixMarket matrix array real general\n16384 16384\n", "", ":2: expected 268435456 values, found 0"},
		{"pgm overflow", "faces/s1/1.pgm", "P5\n4611686018427387904 2\n255\n\x00", "", ": expected 4611686018427387904×2×1 bytes of pixels, found 1"},
		{"cut gzip", "cut.csv.gz", "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff\x32\xd4\x31", "", ": expected a whole gzip stream, found unexpected EOF"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, filepath.FromSlash(c.file))
			if err := os.MkdirAll(filepath.Dir(in), 0o755); err != nil {
				t.Fatal(err)
			}
			writeFile(t, in, c.content)
			arg := in
			if strings.HasSuffix(c.file, ".pgm") {
				arg = filepath.Join(dir, "faces")
			}
			out := filepath.Join(dir, "out.csv")
			args := []string{"embed", "-o", out}
			if c.format != "" {
				args = append(args, "-format", c.format)
			}
			_, stderr, status := runCLI(t, "", append(args, arg)...)
			if status != 2 {
				t.Errorf("status %d, want 2; stderr %q", status, stderr)
			}
			if !strings.Contains(stderr, in+c.want) {
				t.Errorf("stderr %q does not contain %q", stderr, in+c.want)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("%s written (%v)", out, err)
			}
		})
	}
}
