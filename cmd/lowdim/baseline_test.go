package main

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Every baseline of issue 17 embeds a curved 60-point sheet through the CLI, the graph
// methods with -graph-k, twice with the same bytes; a graph that falls apart exits 2 naming
// its components.
func TestEmbedBaselines(t *testing.T) {
	in := "a,b,c\n"
	for i := 0; i < 60; i++ {
		// A gently curved 2-D sheet in 3-D, 6 rows of 10.
		x, y := float64(i%10), float64(i/10)
		in += strings.Join([]string{ftoa(x), ftoa(y), ftoa(0.05 * x * x)}, ",") + "\n"
	}
	covered := []string{"isomap", "laplacian", "lle", "hlle", "ltsa", "cda", "smacof", "sammon", "cca", "lmds"}
	for m := range baselineMethods {
		if methods[m] == nil || !slices.Contains(covered, m) {
			t.Errorf("baseline %q: registered %v, covered here %v", m, methods[m] != nil, slices.Contains(covered, m))
		}
	}
	for _, m := range covered[:6] {
		out, errOut, st := runCLI(t, in, "embed", "-method", m, "-graph-k", "8", "-seed", "7", "-")
		if st != 0 {
			t.Fatalf("%s: status %d: %s", m, st, errOut)
		}
		if again, _, _ := runCLI(t, in, "embed", "-method", m, "-graph-k", "8", "-seed", "7", "-"); again != out {
			t.Errorf("%s: two runs with the same seed differ", m)
		}
		if _, rows := readCSV(t, out); len(rows) != 60 {
			t.Errorf("%s: %d rows", m, len(rows))
		}
	}
	for _, m := range covered[6:] {
		out, errOut, st := runCLI(t, in, "embed", "-method", m, "-seed", "7", "-")
		if st != 0 {
			t.Fatalf("%s: status %d: %s", m, st, errOut)
		}
		if again, _, _ := runCLI(t, in, "embed", "-method", m, "-seed", "7", "-"); again != out {
			t.Errorf("%s: two runs with the same seed differ", m)
		}
		if _, rows := readCSV(t, out); len(rows) != 60 {
			t.Errorf("%s: %d rows", m, len(rows))
		}
	}
	// Two far clusters: the 3-NN graph has 2 components.
	far := "a,b\n"
	for i := 0; i < 20; i++ {
		far += ftoa(float64(i%10)+1000*float64(i/10)) + "," + ftoa(float64(i%3)) + "\n"
	}
	_, errOut, st := runCLI(t, far, "embed", "-method", "isomap", "-graph-k", "3", "-")
	if st != 2 || !strings.Contains(errOut, "2 connected components") {
		t.Errorf("disconnected: status %d, stderr %q", st, errOut)
	}
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
