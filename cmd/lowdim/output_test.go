package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReliabilityEmbedAllOrNothing: the plot, the last output embed stages, cannot be written
// (its directory does not exist); the CSV and the model, staged before it, must not appear and the
// old CSV keeps its contents.
func TestReliabilityEmbedAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	csv, model := filepath.Join(dir, "e.csv"), filepath.Join(dir, "m.model")
	writeFile(t, csv, "old\n")
	_, stderr, status := runCLI(t, "", "embed", "-method", "pca", "-o", csv, "-model", model, "-plot", filepath.Join(dir, "missing", "p.png"))
	if status == 0 {
		t.Fatal("embed succeeded with a plot in a missing directory")
	}
	if !strings.Contains(stderr, "p.png") {
		t.Errorf("stderr does not name the failed output:\n%s", stderr)
	}
	if b, _ := os.ReadFile(csv); string(b) != "old\n" {
		t.Errorf("e.csv holds %.40q…, want the old contents", b)
	}
	if got := listDir(t, dir); len(got) != 1 || got[0] != "e.csv" {
		t.Errorf("directory holds %v, want only the old e.csv (no model, no temporary file)", got)
	}
}

// TestReliabilityStdoutNames: "-o -" and "-o /dev/stdout" both write the CSV to the command's
// standard output (here a buffer: no file named "-" or "stdout" is made).
func TestReliabilityStdoutNames(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	want, _, status := runCLI(t, "", "embed", "-method", "pca")
	if status != 0 || !strings.HasPrefix(want, "x,y,label\n") {
		t.Fatalf("embed to standard output: status %d, output %.40q", status, want)
	}
	for _, name := range []string{"-", "/dev/stdout"} {
		got, stderr, status := runCLI(t, "", "embed", "-method", "pca", "-o", name)
		if status != 0 || got != want {
			t.Errorf("-o %s: status %d, %d bytes on standard output, want the %d of the default (stderr %s)", name, status, len(got), len(want), stderr)
		}
	}
	if got := listDir(t, dir); len(got) != 0 {
		t.Errorf("files made: %v", got)
	}
}

// TestReliabilityDirectoryDestinationIsUsageError: -o naming a directory is bad usage (exit 2).
func TestReliabilityDirectoryDestinationIsUsageError(t *testing.T) {
	dir := t.TempDir()
	_, stderr, status := runCLI(t, "", "embed", "-method", "pca", "-o", dir)
	if status != 2 || !strings.Contains(stderr, "expected a file name, found the directory") {
		t.Errorf("status %d, stderr %q; want 2 and the directory named", status, stderr)
	}
	if got := listDir(t, dir); len(got) != 0 {
		t.Errorf("files made: %v", got)
	}
}
