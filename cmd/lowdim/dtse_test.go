package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// The default networks on the 1,797 digits take minutes: TestEmbedSameSeedSameBytes leaves
// them out and TestDtse checks them on 90 rows.
func init() {
	smallOnly["dtmcml"] = true
	smallOnly["dtnca"] = true
}

// TestDtse: -method dtmcml and dtnca refuse unlabelled data with status 2; dtmcml embeds the 90
// labelled rows and saves its model, and lowdim transform places unlabelled rows with it. One
// fit: the package's tests check same seed, same bytes, and dt-NCA's fit.
func TestDtse(t *testing.T) {
	in, bare := blobsCSV(t, true), blobsCSV(t, false)
	for _, method := range []string{"dtmcml", "dtnca"} {
		_, stderr, s := runCLI(t, "", "embed", "-method", method, bare)
		if s != 2 || !strings.Contains(stderr, "no labels") {
			t.Errorf("%s without labels: status %d, %q", method, s, stderr)
		}
	}
	if testing.Short() {
		t.Skip("the default 500–500–2000 network, 30 epochs: about 20 s on the loaded 2-core machine")
	}
	if raceEnabled {
		t.Skip("the default 500–500–2000 network's fits take minutes under the race detector; .ci/run runs this test without it")
	}
	model := filepath.Join(t.TempDir(), "a.lowdim")
	emb, stderr, s := runCLI(t, "", "embed", "-method", "dtmcml", "-seed", "7", "-model", model, in)
	if s != 0 || strings.Count(emb, "\n") != 91 {
		t.Fatalf("embed: status %d, %d lines: %s", s, strings.Count(emb, "\n"), stderr)
	}
	out, stderr, s := runCLI(t, "", "transform", "-model", model, bare)
	if s != 0 || strings.Count(out, "\n") != 91 {
		t.Fatalf("transform: status %d, %d lines: %s", s, strings.Count(out, "\n"), stderr)
	}
}
