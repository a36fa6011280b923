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
		{"reproduce", "pe", "-quick", "extra"},
		{"reproduce", "-n", "-1", "nerv"},
		{"reproduce", "-folds", "1", "nerv"},
		{"reproduce", "-n", "10", "nerv"},
		// -n, -folds and -scurve belong to nerv.
		{"reproduce", "-n", "500", "pe"},
		{"reproduce", "pe", "-folds", "5"},
		{"reproduce", "-scurve", "x.dat", "pe"},
		// nerv takes one -n; the scale flags belong to scale, nerv's and hope's not to it.
		{"reproduce", "-n", "10,20", "nerv"},
		{"reproduce", "-runs", "3", "pe"},
		{"reproduce", "nerv", "-max-n", "1000"},
		{"reproduce", "scale", "-folds", "3"},
		{"reproduce", "scale", "-budget", "2"},
		{"reproduce", "scale", "-n", "ten"},
		{"reproduce", "scale", "-runs", "-1"},
		{"reproduce", "scale", "-parts", "mnist,speed", "-lowdim", "/nonexistent"},
		{"reproduce", "scale", "-n", "80000", "-lowdim", "/nonexistent"},
		// -only names nerv's experiments, or hope's comparison rows (baselines).
		{"reproduce", "nerv", "-only", "table3"},
		{"reproduce", "nerv", "-only", "supervised,"},
		{"reproduce", "pe", "-only", "supervised"},
		{"reproduce", "scale", "-only", "supervised"},
		{"reproduce", "hope", "-only", "supervised"},
		{"reproduce", "hope", "-only", "baselines,table2"},
		{"reproduce", "nerv", "-only", "baselines"},
		// -methods names §5's methods; it and the inner validation's flags belong to nerv.
		{"reproduce", "nerv", "-methods", "isomap"},
		{"reproduce", "nerv", "-methods", "mre,mre"},
		{"reproduce", "nerv", "-inner-folds", "1"},
		{"reproduce", "nerv", "-inner-rounds", "-1"},
		{"reproduce", "pe", "-methods", "mre"},
		// For hope, -methods names comparison rows: not HOPE itself, not twice.
		{"reproduce", "hope", "-methods", "HOPE"},
		{"reproduce", "hope", "-methods", "LDA,LDA"},
		{"reproduce", "hope", "-inner-folds", "5"},
		// The epoch counts of hope's deep rows: 0 or more, and only for hope.
		{"reproduce", "hope", "-deepae-epochs", "-1"},
		{"reproduce", "hope", "-ptsne-epochs", "-2"},
		{"reproduce", "nerv", "-ptsne-epochs", "3"},
		// CG iterations a batch: 0 (the default) or 2 and more (1 takes no line search).
		{"reproduce", "hope", "-cg-iterations", "-1"},
		{"reproduce", "hope", "-cg-iterations", "1"},
		{"reproduce", "nerv", "-cg-iterations", "4"},
	} {
		if _, stderr, status := runCLI(t, "", args...); status != 2 {
			t.Errorf("%v: status %d, want 2 (stderr %q)", args, status, stderr)
		}
	}
	_, stderr, _ := runCLI(t, "", "reproduce", "-n", "500", "pe")
	if !strings.Contains(stderr, "-n") || !strings.Contains(stderr, "nerv") {
		t.Errorf("-n with pe: stderr %q should say that -n is for nerv", stderr)
	}
	stdout, _, status := runCLI(t, "", "reproduce", "-h")
	if status != 0 {
		t.Fatalf("reproduce -h: status %d", status)
	}
	for _, want := range []string{"-o DIR", "reproduce-nerv", "reproduce-pe", "pe (Iwata", "scale (issue 16", "-max-n N", "-methods methods", "-inner-folds", "-quick", "-seed", "(default 1)", "nerv only", "Exit status"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("reproduce -h lacks %q", want)
		}
	}
}

func TestReproduceMissingDataIsNamed(t *testing.T) {
	for _, tc := range []struct{ paper, file string }{{"nerv", "letter-recognition.data"}, {"pe", "bbc.mtx.gz"}} {
		dir := t.TempDir()
		out := filepath.Join(dir, "out")
		// Flags after the paper's name are accepted too.
		_, stderr, status := runCLI(t, "", "reproduce", tc.paper, "-quick", "-data", dir, "-o", out)
		if status == 0 || !strings.Contains(stderr, tc.file) {
			t.Errorf("%s: status %d, stderr %q: want a failure naming the missing %s", tc.paper, status, stderr, tc.file)
		}
		if got := listDir(t, dir); len(got) != 0 {
			t.Errorf("%s: output written despite the failure: %v", tc.paper, got)
		}
	}
}
