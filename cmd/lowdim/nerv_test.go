package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// smallSet writes n labelled 3-D points on a noisy helix (two classes) as CSV.
func smallSet(t *testing.T, dir string, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("a,b,c,label\n")
	for i := range n {
		u := float64(i) / float64(n) * 6
		fmt.Fprintf(&b, "%g,%g,%g,%c\n", u*0.3+0.01*float64(i%7), float64(i%5)*0.2+u*u*0.05, float64(i%3)*0.1-u, 'x'+rune(i%2))
	}
	p := filepath.Join(dir, "set.csv")
	writeFile(t, p, b.String())
	return p
}

// Every NeRV-family method embeds a small labelled set and writes one row per point; the same
// seed gives the same bytes.
func TestNeRVFamilyEmbeds(t *testing.T) {
	dir := t.TempDir()
	in := smallSet(t, dir, 60)
	for _, m := range []string{"nerv", "sne", "tnerv", "tsne", "snerv"} {
		t.Run(m, func(t *testing.T) {
			args := []string{"embed", "-method", m, "-neighbors", "8", "-iterations", "30", "-init", "random", "-seed", "3", in}
			out1, stderr, status := runCLI(t, "", args...)
			if status != 0 {
				t.Fatalf("status %d: %s", status, stderr)
			}
			header, rows := readCSV(t, out1)
			if strings.Join(header, ",") != "x,y,label" || len(rows) != 60 {
				t.Fatalf("header %v, %d rows", header, len(rows))
			}
			out2, _, _ := runCLI(t, "", args...)
			if out1 != out2 {
				t.Error("the same seed gave different output")
			}
		})
	}
}

// Bad settings and inputs of the NeRV family exit 2 with a clear message and write nothing.
func TestNeRVFamilyBadInput(t *testing.T) {
	dir := t.TempDir()
	set := smallSet(t, dir, 30)
	two := filepath.Join(dir, "two.csv")
	writeFile(t, two, "a,b\n1,2\n3,4\n")
	same := filepath.Join(dir, "same.csv")
	writeFile(t, same, "a,b\n1,2\n1,2\n1,2\n1,2\n1,2\n")
	unlabelled := filepath.Join(dir, "unlabelled.csv")
	writeFile(t, unlabelled, "a,b\n1,2\n3,4\n5,7\n8,1\n2,2\n")
	oneClass := filepath.Join(dir, "one.csv")
	writeFile(t, oneClass, "a,b,label\n1,2,x\n3,4,x\n5,7,x\n8,1,x\n2,2,x\n")
	asym := filepath.Join(dir, "asym.csv")
	writeFile(t, asym, "0,1,2,1,1\n1,0,3,1,1\n2,5,0,1,1\n1,1,1,0,1\n1,1,1,1,0\n")
	neg := filepath.Join(dir, "neg.csv")
	writeFile(t, neg, "0,1,-2,1,1\n1,0,3,1,1\n-2,3,0,1,1\n1,1,1,0,1\n1,1,1,1,0\n")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"k_eff ≥ n", []string{"-method", "nerv", "-neighbors", "30", set}, "effective neighbours"},
		{"fewer than 3 points", []string{"-method", "nerv", two}, "at least 3 points"},
		{"all rows identical", []string{"-method", "tsne", "-neighbors", "2", same}, "identical"},
		{"snerv without labels", []string{"-method", "snerv", unlabelled}, "no labels"},
		{"snerv with one class", []string{"-method", "snerv", oneClass}, "one class"},
		{"asymmetric distances", []string{"-method", "nerv", "-neighbors", "2", "-distances", asym}, "not symmetric"},
		{"negative distance", []string{"-method", "nerv", "-neighbors", "2", "-distances", neg}, "negative"},
		{"λ out of range", []string{"-method", "nerv", "-lambda", "1.5", set}, "-lambda"},
		{"λ with sne", []string{"-method", "sne", "-lambda", "0.5", set}, "-method nerv -lambda"},
		{"λ with pca", []string{"-method", "pca", "-lambda", "0.5", set}, "nerv family"},
		{"bad init", []string{"-method", "nerv", "-init", "spectral", set}, "-init"},
		{"snerv on distances", []string{"-method", "snerv", "-distances", asym}, "-distances"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.csv")
			_, stderr, status := runCLI(t, "", append([]string{"embed", "-o", out}, c.args...)...)
			if status != 2 {
				t.Errorf("status %d, want 2; stderr %q", status, stderr)
			}
			if !strings.Contains(stderr, c.want) {
				t.Errorf("stderr %q does not contain %q", stderr, c.want)
			}
			if got := listDir(t, filepath.Dir(out)); len(got) != 0 {
				t.Errorf("wrote %v", got)
			}
		})
	}
}

// Duplicate rows get a warning that says how NeRV treats them, and the embedding still succeeds.
func TestNeRVDuplicateRowsWarn(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "dup.csv")
	writeFile(t, in, "a,b\n1,2\n1,2\n3,4\n5,7\n8,1\n2,2\n4,4\n")
	_, stderr, status := runCLI(t, "", "embed", "-method", "nerv", "-neighbors", "3", "-iterations", "5", in)
	if status != 0 {
		t.Fatalf("status %d: %s", status, stderr)
	}
	if !strings.Contains(stderr, "distance 0") {
		t.Errorf("no duplicate warning in %q", stderr)
	}
}
