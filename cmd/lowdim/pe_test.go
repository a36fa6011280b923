package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// posteriorFile writes n posterior rows over 3 classes (named a, b, c) with a class column.
func posteriorFile(t *testing.T, dir string, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("a,b,c,label\n")
	for i := range n {
		c := i % 3
		row := []float64{0.1, 0.1, 0.1}
		row[c] = 0.8
		// vary the rows a little so that objects differ
		d := 0.05 * float64(i%7) / 7
		row[c] -= d
		row[(c+1)%3] += d
		fmt.Fprintf(&b, "%g,%g,%g,%s\n", row[0], row[1], row[2], []string{"a", "b", "c"}[c])
	}
	p := filepath.Join(dir, "post.csv")
	writeFile(t, p, b.String())
	return p
}

// -method pe embeds a posterior file, writes the class points, saves a model that transforms
// the same posteriors to the same coordinates, and the same seed gives the same bytes.
func TestPEEmbedsPosteriors(t *testing.T) {
	dir := t.TempDir()
	post := posteriorFile(t, dir, 90)
	out, classes, model := filepath.Join(dir, "y.csv"), filepath.Join(dir, "cls.csv"), filepath.Join(dir, "pe.ldm")
	args := []string{"embed", "-method", "pe", "-posteriors", post, "-o", out, "-classes-out", classes, "-model", model, "-plot", filepath.Join(dir, "pe.png")}
	if _, stderr, status := runCLI(t, "", args...); status != 0 {
		t.Fatalf("status %d: %s", status, stderr)
	}
	y, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	header, rows := readCSV(t, string(y))
	if strings.Join(header, ",") != "x,y,label" || len(rows) != 90 {
		t.Fatalf("embedding header %v, %d rows", header, len(rows))
	}
	cb, err := os.ReadFile(classes)
	if err != nil {
		t.Fatal(err)
	}
	ch, crows := readCSV(t, string(cb))
	if strings.Join(ch, ",") != "x,y,label" || len(crows) != 3 || crows[0][2] != "a" || crows[2][2] != "c" {
		t.Fatalf("class points %v %v", ch, crows)
	}
	// Objects of class a lie nearer φ_a than φ_b.
	phi := func(k int) (float64, float64) {
		x, _ := strconv.ParseFloat(crows[k][0], 64)
		yy, _ := strconv.ParseFloat(crows[k][1], 64)
		return x, yy
	}
	ax, ay := phi(0)
	bx, by := phi(1)
	for _, r := range rows {
		if r[2] != "a" {
			continue
		}
		x, _ := strconv.ParseFloat(r[0], 64)
		yy, _ := strconv.ParseFloat(r[1], 64)
		if math.Hypot(x-ax, yy-ay) >= math.Hypot(x-bx, yy-by) {
			t.Fatalf("object (%g, %g) of class a is not nearer φ_a", x, yy)
		}
	}
	tr, stderr, status := runCLI(t, "", "transform", "-model", model, post)
	if status != 0 {
		t.Fatalf("transform: status %d: %s", status, stderr)
	}
	_, trows := readCSV(t, tr)
	for i := range rows {
		for j := range 2 {
			a, _ := strconv.ParseFloat(rows[i][j], 64)
			b, _ := strconv.ParseFloat(trows[i][j], 64)
			if math.Abs(a-b) > 1e-6 { // Newton stops at ‖∂J/∂r‖ ≤ 1e-7, curvature ≥ 2η_r
				t.Fatalf("row %d: fit %g, transform %g", i, a, b)
			}
		}
	}
	again, _, _ := runCLI(t, "", "embed", "-method", "pe", "-posteriors", post)
	once, _, _ := runCLI(t, "", "embed", "-method", "pe", "-posteriors", post)
	if again != once {
		t.Error("the same seed gave different output")
	}
}

// -classifier dgm produces the posteriors from labelled features and embeds them in one run.
func TestPEClassifier(t *testing.T) {
	dir := t.TempDir()
	in := smallSet(t, dir, 60)
	out, stderr, status := runCLI(t, "", "embed", "-method", "pe", "-classifier", "dgm", in)
	if status != 0 {
		t.Fatalf("status %d: %s", status, stderr)
	}
	if _, rows := readCSV(t, out); len(rows) != 60 {
		t.Fatalf("%d rows", len(rows))
	}
}

// Bad posteriors and bad pe flags exit 2, point at the file's line and column, and write nothing.
func TestPEBadInput(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		writeFile(t, p, content)
		return p
	}
	good := posteriorFile(t, dir, 9)
	negative := file("neg.csv", "a,b\n0.5,0.5\n1.2,-0.2\n")
	nan := file("nan.csv", "a,b\n0.5,0.5\n0.5,NaN\n")
	sum := file("sum.csv", "a,b\n0.5,0.5\n\n0.5,0.4\n")
	one := file("one.csv", "a\n1\n1\n")
	ragged := file("ragged.csv", "a,b\n0.5,0.5\n0.5\n")
	text := file("text.csv", "a,b\n0.5,0.5\n0.5,half\n")
	priors := file("pri.csv", "1,2\n")
	unlabelled := file("unl.csv", "a,b\n1,2\n3,4\n5,7\n")
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"negative", []string{"-posteriors", negative}, "neg.csv:3:2: expected a non-negative probability, found -0.2"},
		{"NaN", []string{"-posteriors", nan}, "nan.csv:3:2: expected a finite"},
		{"row sum", []string{"-posteriors", sum}, "sum.csv:4: expected probabilities summing to 1"},
		{"one class", []string{"-posteriors", one}, "at least 2 classes"},
		{"ragged", []string{"-posteriors", ragged}, "ragged.csv:3"},
		{"text", []string{"-posteriors", text}, "text.csv:3:2: expected a number"},
		{"priors count", []string{"-posteriors", good, "-priors", priors}, "expected 3 priors"},
		{"no source", nil, "-posteriors FILE"},
		{"two sources", []string{"-posteriors", good, "-classifier", "nb"}, "not both"},
		{"bad classifier", []string{"-classifier", "svm"}, "-classifier"},
		{"classifier without labels", []string{"-classifier", "dgm", unlabelled}, "learns from labels"},
		{"pe flag on pca", []string{"-posteriors", good, "-method", "pca"}, "only -method pe"},
		{"per-class without softnn", []string{"-classifier", "nb", "-per-class", "3"}, "-per-class"},
		{"eta", []string{"-posteriors", good, "-eta-r", "-1"}, "-eta-r"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.csv")
			args := append([]string{"embed", "-method", "pe", "-o", out}, c.args...)
			_, stderr, status := runCLI(t, "", args...)
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
	// -normalize accepts the row that does not sum to 1.
	if _, stderr, status := runCLI(t, "", "embed", "-method", "pe", "-normalize", "-posteriors", sum); status != 0 {
		t.Errorf("-normalize: status %d: %s", status, stderr)
	}
}
