package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lowdim/lowdim/hope"
	"github.com/lowdim/lowdim/modelio"
)

// blobFile writes n rows of h features in k separated classes (deterministic) as CSV with a
// label column; with noLabel the column is left out.
func blobFile(t *testing.T, dir, name string, n, h, k int, noLabel bool) string {
	t.Helper()
	var b strings.Builder
	for j := range h {
		fmt.Fprintf(&b, "f%d,", j)
	}
	b.WriteString("label\n")
	for i := range n {
		c := i % k
		for j := range h {
			// class c is bright in feature c (mod h), plus a small deterministic ripple
			v := 0.1 * float64((i*7+j*3)%11) / 11
			if j%k == c {
				v += 1
			}
			fmt.Fprintf(&b, "%g,", v)
		}
		if noLabel {
			b.WriteString("\n")
		} else {
			fmt.Fprintf(&b, "c%d\n", c)
		}
	}
	s := b.String()
	if noLabel {
		s = strings.Replace(s, ",label\n", "\n", 1)
		s = strings.ReplaceAll(s, ",\n", "\n")
	}
	p := filepath.Join(dir, name)
	writeFile(t, p, s)
	return p
}

// -method shope saves a model that transforms its training rows to the same bytes, reports
// validation errors per epoch, and the same seed gives the same output.
func TestHOPEEmbedTransform(t *testing.T) {
	dir := t.TempDir()
	in := blobFile(t, dir, "train.csv", 90, 6, 3, false)
	model := filepath.Join(dir, "m.lowdim")
	out := filepath.Join(dir, "y.csv")
	args := []string{"embed", "-method", "shope", "-factors", "6", "-hidden", "5", "-epochs", "3", "-batch", "30",
		"-exemplars", "2", "-model", model, "-o", out, "-plot", filepath.Join(dir, "p.png"), in}
	_, stderr, status := runCLI(t, "", args...)
	if status != 0 {
		t.Fatalf("status %d: %s", status, stderr)
	}
	if strings.Count(stderr, "validation 5-NN error") != 3 {
		t.Errorf("expected 3 epoch lines on stderr, got %q", stderr)
	}
	y1, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	header, rows := readCSV(t, string(y1))
	if strings.Join(header, ",") != "x,y,label" || len(rows) != 90 {
		t.Fatalf("header %v, %d rows", header, len(rows))
	}
	y2, stderr, status := runCLI(t, "", "transform", "-model", model, in)
	if status != 0 {
		t.Fatalf("transform status %d: %s", status, stderr)
	}
	if !strings.Contains(stderr, "5-NN among the 6 embedded exemplars: error") {
		t.Errorf("transform did not report the exemplar error: %q", stderr)
	}
	if y2 != string(y1) {
		t.Error("transform of the training rows differs from the embedding")
	}
	if _, err := os.Stat(filepath.Join(dir, "p.png")); err != nil {
		t.Error(err)
	}
	base := []string{"embed", "-method", "shope", "-factors", "6", "-hidden", "5", "-epochs", "3", "-batch", "30", "-exemplars", "2", in}
	o1, _, s1 := runCLI(t, "", base...)
	o2, _, s2 := runCLI(t, "", base...)
	if s1 != 0 || s2 != 0 || o1 != o2 || o1 != string(y1) {
		t.Error("the same seed gave different output")
	}
}

// -augment-shift trains on shifted rows: the same seed gives the same output, which differs
// from the output without augmentation; -image gives a non-square shape.
func TestHOPEAugment(t *testing.T) {
	dir := t.TempDir()
	in := blobFile(t, dir, "train.csv", 90, 9, 3, false) // rows of 9 features: 3×3 images
	base := []string{"embed", "-method", "shope", "-factors", "6", "-hidden", "5", "-epochs", "3", "-batch", "30"}
	plain, stderr, status := runCLI(t, "", append(base, in)...)
	if status != 0 {
		t.Fatalf("status %d: %s", status, stderr)
	}
	aug := append(append([]string(nil), base...), "-augment-shift", "1", "-augment-rotate", "10", in)
	a1, stderr, s1 := runCLI(t, "", aug...)
	a2, _, s2 := runCLI(t, "", aug...)
	if s1 != 0 || s2 != 0 {
		t.Fatalf("status %d, %d: %s", s1, s2, stderr)
	}
	if a1 != a2 {
		t.Error("the same seed gave different output with augmentation")
	}
	if a1 == plain {
		t.Error("-augment-shift 1 gave the output of a fit without augmentation")
	}
	if _, stderr, status := runCLI(t, "", append(append([]string(nil), base...), "-augment-shift", "2", "-image", "9x1", in)...); status != 2 || !strings.Contains(stderr, "less than the image's side") {
		t.Errorf("shift 2 on 9×1 images: status %d, %q", status, stderr)
	}
	if _, stderr, status := runCLI(t, "", append(append([]string(nil), base...), "-augment-rotate", "5", "-image", "9x1", in)...); status != 0 {
		t.Errorf("turns of 9×1 images: status %d, %q", status, stderr)
	}
}

// Bad input: the message says what is wrong, the status is 2 and no output file appears.
func TestHOPEBadInput(t *testing.T) {
	dir := t.TempDir()
	good := blobFile(t, dir, "good.csv", 60, 4, 3, false)
	noLabel := blobFile(t, dir, "nolabel.csv", 60, 4, 3, true)
	oneClass := blobFile(t, dir, "one.csv", 30, 4, 1, false)
	wide := blobFile(t, dir, "wide.csv", 30, 5, 3, false)
	model := filepath.Join(dir, "m.lowdim")
	if _, stderr, status := runCLI(t, "", "embed", "-method", "hope", "-factors", "4", "-epochs", "1", "-batch", "20", "-model", model, good); status != 0 {
		t.Fatalf("status %d: %s", status, stderr)
	}
	out := filepath.Join(dir, "out.csv")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"labels missing", []string{"embed", "-method", "shope", "-o", out, noLabel}, "supervised"},
		{"one class", []string{"embed", "-method", "shope", "-o", out, oneClass}, "at least 2"},
		{"order < 1", []string{"embed", "-method", "hope", "-order", "0", "-o", out, good}, "-order"},
		{"too many exemplars", []string{"embed", "-method", "shope", "-exemplars", "21", "-o", out, good}, "only 20 rows"},
		{"hidden for hope", []string{"embed", "-method", "hope", "-hidden", "5", "-o", out, good}, "-hidden"},
		{"joint without exemplars", []string{"embed", "-method", "shope", "-joint", "-o", out, good}, "-joint"},
		{"hope flag for pca", []string{"embed", "-method", "pca", "-order", "2", "-o", out, good}, "-order"},
		{"feature count", []string{"transform", "-model", model, "-o", out, wide}, "5 features but the model was fitted on 4"},
		{"augment a non-square row", []string{"embed", "-method", "shope", "-augment-shift", "1", "-o", out, wide}, "not a square image"},
		{"shift ≥ side", []string{"embed", "-method", "shope", "-augment-shift", "2", "-o", out, good}, "less than the image's side"},
		{"image of another size", []string{"embed", "-method", "shope", "-augment-shift", "1", "-image", "3x3", "-o", out, good}, "9 pixels"},
		{"bad -image", []string{"embed", "-method", "shope", "-augment-shift", "1", "-image", "4by1", "-o", out, good}, "-image"},
		{"-image alone", []string{"embed", "-method", "shope", "-image", "2x2", "-o", out, good}, "-image"},
		{"negative shift", []string{"embed", "-method", "shope", "-augment-shift", "-1", "-o", out, good}, "-augment-shift"},
		{"rotation beyond 45", []string{"embed", "-method", "shope", "-augment-rotate", "90", "-o", out, good}, "-augment-rotate"},
		{"augment for pca", []string{"embed", "-method", "pca", "-augment-shift", "1", "-o", out, good}, "-augment-shift"},
	} {
		_, stderr, status := runCLI(t, "", c.args...)
		if status != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: status %d, stderr %q (want 2 and %q)", c.name, status, stderr, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: output file written", c.name)
			os.Remove(out)
		}
	}
}

// cancelAfter is a writer that cancels a context once what it received contains a string.
type cancelAfter struct {
	bytes.Buffer
	what   string
	cancel context.CancelFunc
}

func (c *cancelAfter) Write(p []byte) (int, error) {
	n, err := c.Buffer.Write(p)
	if strings.Contains(c.String(), c.what) {
		c.cancel()
	}
	return n, err
}

// Interrupting a fit (Ctrl-C cancels run's context) after an epoch keeps the best model so
// far: the command succeeds, writes its outputs and says so.
func TestHOPEInterruptKeepsBest(t *testing.T) {
	dir := t.TempDir()
	in := blobFile(t, dir, "train.csv", 90, 6, 3, false)
	model := filepath.Join(dir, "m.lowdim")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &cancelAfter{what: "map epoch 2:", cancel: cancel}
	var stdout bytes.Buffer
	err := run(ctx, []string{"embed", "-method", "shope", "-factors", "6", "-hidden", "5", "-epochs", "500", "-batch", "30", "-model", model, in},
		strings.NewReader(""), &stdout, stderr)
	if err != nil {
		t.Fatalf("interrupted fit: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "keeping the best model so far") || strings.Contains(stderr.String(), "map epoch 3:") {
		t.Errorf("stderr %q", stderr.String())
	}
	m, err := modelio.Load(model)
	if err != nil {
		t.Fatal(err)
	}
	if h := m.(*hope.Model).History; len(h) != 2 {
		t.Errorf("saved model has %d epochs, want 2", len(h))
	}
	if _, rows := readCSV(t, stdout.String()); len(rows) != 90 {
		t.Errorf("%d embedded rows", len(rows))
	}
}

// -no-augment belongs to reproduce hope.
func TestReproduceNoAugmentOnlyHOPE(t *testing.T) {
	_, stderr, status := runCLI(t, "", "reproduce", "-no-augment", "pe")
	if status != 2 || !strings.Contains(stderr, "-no-augment: only for reproduce hope") {
		t.Errorf("reproduce -no-augment pe: status %d, stderr %q", status, stderr)
	}
	stdout, _, _ := runCLI(t, "", "reproduce", "-h")
	if !strings.Contains(stdout, "-no-augment") {
		t.Error("reproduce -h does not list -no-augment")
	}
}
