package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// The default deep autoencoder on the 1,797 digits takes minutes: TestEmbedSameSeedSameBytes
// leaves it out and TestDeepAE checks it on 90 rows.
func init() { smallOnly["deepae"] = true }

// TestDeepAE: -method deepae embeds the 90 rows (labels unused) and saves its model, and lowdim
// transform places unlabelled rows with that model. One fit: the package's tests check same seed, same bytes.
func TestDeepAE(t *testing.T) {
	if testing.Short() {
		t.Skip("the default 500–500–2000 autoencoder: about 45 s on the loaded 2-core machine")
	}
	if raceEnabled {
		t.Skip("the default 500–500–2000 network's fits take minutes under the race detector; .ci/run runs this test without it")
	}
	in, bare := blobsCSV(t, true), blobsCSV(t, false)
	model := filepath.Join(t.TempDir(), "a.lowdim")
	emb, stderr, s := runCLI(t, "", "embed", "-method", "deepae", "-seed", "7", "-model", model, in)
	if s != 0 || strings.Count(emb, "\n") != 91 {
		t.Fatalf("embed: status %d, %d lines: %s", s, strings.Count(emb, "\n"), stderr)
	}
	out, stderr, s := runCLI(t, "", "transform", "-model", model, bare)
	if s != 0 || strings.Count(out, "\n") != 91 {
		t.Fatalf("transform: status %d, %d lines: %s", s, strings.Count(out, "\n"), stderr)
	}
}
