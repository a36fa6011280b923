package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/modelio"
)

// inMemory is the path transform took before it streamed: the whole input read, transformed at
// once and written by dataset.WriteEmbeddingCSV.
func inMemory(t *testing.T, model, input string) string {
	t.Helper()
	m, err := modelio.Load(model)
	if err != nil {
		t.Fatal(err)
	}
	d, err := dataset.Load(input, dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var y mat.Dense
	if err := m.(lowdim.Transformer).Transform(&y, d.X); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := dataset.WriteEmbeddingCSV(&b, &y, d); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// transform streams, in blocks of 256 rows from a file, from standard input and into a file
// named by -o, the bytes of the in-memory path for every kind of parametric model.
func TestTransformStreamsSameBytes(t *testing.T) {
	dir := t.TempDir()
	const n = 700 // blocks of 256, 256 and 188 rows
	blobs := blobFile(t, dir, "blobs.csv", n, 6, 3, false)
	post := posteriorFile(t, dir, n)
	models := []struct {
		name  string
		input string
		embed []string
	}{
		{"pca", blobs, []string{"-method", "pca"}},
		{"shope", blobs, []string{"-method", "shope", "-factors", "6", "-hidden", "5", "-epochs", "2", "-batch", "50", "-exemplars", "2"}},
		{"pe", post, []string{"-method", "pe", "-posteriors", post}},
		{"tsne map", blobs, []string{"-method", "tsne", "-approx", "-neighbors", "8", "-iterations", "30"}},
	}
	for _, mc := range models {
		model := filepath.Join(dir, mc.name+".lowdim")
		args := append([]string{"embed", "-model", model, "-o", filepath.Join(dir, "fit.csv")}, mc.embed...)
		if mc.name != "pe" {
			args = append(args, mc.input)
		}
		if _, stderr, status := runCLI(t, "", args...); status != 0 {
			t.Fatalf("%s: embed: status %d: %s", mc.name, status, stderr)
		}
		want := inMemory(t, model, mc.input)
		if strings.Count(want, "\n") != n+1 {
			t.Fatalf("%s: in-memory path wrote %d lines", mc.name, strings.Count(want, "\n"))
		}
		got, stderr, status := runCLI(t, "", "transform", "-model", model, "-chunk", "256", mc.input)
		if status != 0 || got != want {
			t.Errorf("%s: streamed from a file (status %d, %s) differs from the in-memory path", mc.name, status, stderr)
		}
		raw, err := os.ReadFile(mc.input)
		if err != nil {
			t.Fatal(err)
		}
		got, stderr, status = runCLI(t, string(raw), "transform", "-model", model, "-chunk", "512")
		if status != 0 || got != want {
			t.Errorf("%s: streamed from standard input (status %d, %s) differs from the in-memory path", mc.name, status, stderr)
		}
		out := filepath.Join(dir, mc.name+".csv")
		if _, stderr, status := runCLI(t, "", "transform", "-model", model, "-o", out, mc.input); status != 0 {
			t.Fatalf("%s: -o: status %d: %s", mc.name, status, stderr)
		}
		if b, _ := os.ReadFile(out); string(b) != want {
			t.Errorf("%s: -o file differs from the in-memory path", mc.name)
		}
	}
}

// A bad row part way: standard output holds exactly the rows before it, the error names its
// line and column, exit status 2; a file named by -o is not written at all.
func TestTransformBadRowMidStream(t *testing.T) {
	dir := t.TempDir()
	in := blobFile(t, dir, "blobs.csv", 600, 4, 2, false)
	model := filepath.Join(dir, "pca.lowdim")
	if _, stderr, status := runCLI(t, "", "embed", "-model", model, "-o", filepath.Join(dir, "y.csv"), in); status != 0 {
		t.Fatalf("embed: %d %s", status, stderr)
	}
	raw, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(raw), "\n")
	const bad = 400 // line 401 of the file: header + 399 rows before it
	for _, tc := range []struct{ row, msg string }{
		{"1,2,3\n", "stdin:401:4: expected 5 fields, found 3"},
		{"1,2,x,3,0\n", `stdin:401:3: expected a number, found "x"`},
	} {
		input := strings.Join(lines[:bad], "") + tc.row + strings.Join(lines[bad:], "")
		got, stderr, status := runCLI(t, input, "transform", "-model", model, "-chunk", "256")
		if status != 2 || !strings.Contains(stderr, tc.msg) {
			t.Errorf("status %d, stderr %q; want 2 and %q", status, stderr, tc.msg)
		}
		whole, _, _ := runCLI(t, string(raw), "transform", "-model", model)
		want := strings.Join(strings.SplitAfter(whole, "\n")[:bad], "")
		if got != want {
			t.Errorf("wrote %d lines before the bad row, want the %d before it", strings.Count(got, "\n"), bad)
		}
		badFile := filepath.Join(dir, "bad.csv")
		if err := os.WriteFile(badFile, []byte(input), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out.csv")
		if _, _, status := runCLI(t, "", "transform", "-model", model, "-o", out, badFile); status != 2 {
			t.Errorf("-o: status %d, want 2", status)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("-o wrote %s despite the bad row (%v)", out, err)
		}
	}
}

// -o out.npy, out.npz and out.parquet hold the coordinates transform writes as CSV (and the
// labels, for the archive and Parquet), read back by dataset.Load.
func TestTransformWritesNumPyAndParquet(t *testing.T) {
	dir := t.TempDir()
	in := blobFile(t, dir, "blobs.csv", 300, 4, 3, false)
	model := filepath.Join(dir, "pca.lowdim")
	if _, stderr, status := runCLI(t, "", "embed", "-model", model, "-o", filepath.Join(dir, "y.csv"), in); status != 0 {
		t.Fatalf("embed: %d %s", status, stderr)
	}
	csvOut, _, _ := runCLI(t, "", "transform", "-model", model, in)
	want, err := dataset.Read(strings.NewReader(csvOut), "want.csv", dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"y.npy", "y.npz", "y.parquet"} {
		out := filepath.Join(dir, name)
		if _, stderr, status := runCLI(t, "", "transform", "-model", model, "-chunk", "256", "-o", out, in); status != 0 {
			t.Fatalf("%s: %d %s", name, status, stderr)
		}
		got, err := dataset.Load(out, dataset.Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !mat.Equal(got.X, want.X) {
			t.Errorf("%s: coordinates differ from the CSV's", name)
		}
		if name != "y.npy" && strings.Join(got.ClassNames, ",") != strings.Join(want.ClassNames, ",") {
			t.Errorf("%s: classes %v, want %v", name, got.ClassNames, want.ClassNames)
		}
	}
}

// cancelOnWrite cancels a context at its first write: Ctrl-C arriving while a filter is
// streaming its rows out.
type cancelOnWrite struct {
	bytes.Buffer
	cancel context.CancelFunc
}

func (w *cancelOnWrite) Write(p []byte) (int, error) {
	w.cancel()
	return w.Buffer.Write(p)
}

// A streaming transform interrupted after rows reached standard output says how many, not
// "no output was written" (which it used to say, although the rows were already out).
func TestTransformInterruptedSaysWhatWasWritten(t *testing.T) {
	dir := t.TempDir()
	train := blobFile(t, dir, "train.csv", 90, 6, 3, false)
	model := filepath.Join(dir, "pca.lowdim")
	if _, stderr, status := runCLI(t, "", "embed", "-model", model, "-o", filepath.Join(dir, "y.csv"), train); status != 0 {
		t.Fatal(stderr)
	}
	rows := blobFile(t, dir, "new.csv", 4000, 6, 3, false)
	in, err := os.Open(rows)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &cancelOnWrite{cancel: cancel}
	err = run(ctx, []string{"transform", "-model", model, "-chunk", "256", "-"}, in, out, io.Discard)
	var stderr bytes.Buffer
	if status := exitStatus(err, &stderr); status != 1 {
		t.Fatalf("exit status %d (%v)", status, err)
	}
	lines := strings.Count(out.String(), "\n")
	msg := stderr.String()
	if lines < 2 || strings.Contains(msg, "no output was written") || !strings.Contains(msg, fmt.Sprintf("the header and %d rows had been written to standard output", lines-1)) {
		t.Errorf("%d lines written, stderr %q", lines, msg)
	}
}
