package main

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestReproduceUsage(t *testing.T) {
	for _, args := range [][]string{
		{"reproduce"},
		{"reproduce", "tsne"},
		{"reproduce", "nerv", "extra"},
		{"reproduce", "-n", "-1", "nerv"},
		{"reproduce", "-folds", "1", "nerv"},
		{"reproduce", "-n", "10", "nerv"},
	} {
		if _, stderr, status := runCLI(t, "", args...); status != 2 {
			t.Errorf("%v: status %d, want 2 (stderr %q)", args, status, stderr)
		}
	}
	stdout, _, status := runCLI(t, "", "reproduce", "-h")
	if status != 0 {
		t.Fatalf("reproduce -h: status %d", status)
	}
	for _, want := range []string{"-o DIR", `(default "reproduce-nerv")`, "-quick", "-seed", "(default 1)", "Exit status"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("reproduce -h lacks %q", want)
		}
	}
}

func TestReproduceMissingDataIsNamed(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	_, stderr, status := runCLI(t, "", "reproduce", "-quick", "-data", dir, "-o", out, "nerv")
	if status == 0 || !strings.Contains(stderr, "letter-recognition.data") {
		t.Errorf("status %d, stderr %q: want a failure naming the missing Letter file", status, stderr)
	}
	if got := listDir(t, dir); len(got) != 0 {
		t.Errorf("output written despite the failure: %v", got)
	}
}
