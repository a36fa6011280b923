package hopepaper

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/reproduce"
	"github.com/lowdim/lowdim/reproduce/internal/reprotest"
)

// TestHOPEQuick runs the quick HOPE reproduction on USPS and checks the report: every method
// row with the paper's number, the unaugmented S-HOPE baseline row, the six comparison rows
// (LDA … pt-SNE), eleven embeddings and the curve, and test errors far better than chance (90 %
// for 10 digits; 80 % for the comparison rows, whose quick fits stop after 10 iterations).
func TestHOPEQuick(t *testing.T) {
	if testing.Short() || reprotest.RaceEnabled {
		t.Skip("a few seconds of fits; skipped under -short and -race")
	}
	shared, err := reproduce.FindShared()
	if err != nil {
		t.Skipf("shared data not available: %v", err)
	}
	c := HOPEConfig{DataDir: filepath.Join(shared, "data"), Quick: true, Seed: 1, Sets: []string{"USPS"}}
	r, err := RunHOPE(context.Background(), c, "test")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := r.WriteDir(out); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, HOPEReportFile))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, m := range append(append([]string{HOPEBaseline}, HOPEMethods...), HOPEBaselines...) {
		if !strings.Contains(text, "| "+m+" |") {
			t.Errorf("no row for %s", m)
		}
	}
	if !strings.Contains(text, "shifted by up to 1 px") || !strings.Contains(text, "shift of up to 1 pixel") {
		t.Error("the report does not say that S-HOPE was trained on shifted rows")
	}
	// 12 figures: 11 embeddings and the curve; 4 rows × (paper, test, validation) numbers, the
	// unaugmented row's test and validation errors and 6 comparison rows × (paper, test).
	reprotest.CheckFiguresAndNumbers(t, out, text, 12, 24)
	s := r.Sets[0]
	if s.NTrain != 800 || s.NTest != 400 || len(s.Results) != 11 {
		t.Fatalf("quick USPS: %d/%d rows, %d results", s.NTrain, s.NTest, len(s.Results))
	}
	for i, res := range s.Results {
		// Quick fits are tiny, but every one must learn something: chance is 90 %.
		if limit := map[bool]float64{false: 0.6, true: 0.8}[i >= 5]; !(res.TestError < limit) {
			t.Errorf("%s: test error %.3f", res.Method, res.TestError)
		}
	}
	if s.Results[1].Method != HOPEBaseline || s.Results[2].Method != "S-HOPE" {
		t.Errorf("rows %q, %q: want the baseline before S-HOPE", s.Results[1].Method, s.Results[2].Method)
	}
	if z, _ := s.Results[4].Exemplars.Dims(); z != 20 {
		t.Errorf("%d joint exemplars, want 20", z)
	}
}

// LoadUSPSMixed re-splits USPS's 9,298 rows into 7,291 and 2,007 that together hold every row
// once (matched by their pixel sums, as multisets), with each class's test share within one row of
// 2,007/9,298 of its rows, the same split for the same seed and another for another seed.
func TestLoadUSPSMixed(t *testing.T) {
	shared, err := reproduce.FindShared()
	if err != nil {
		t.Skipf("shared data not available: %v", err)
	}
	dir := filepath.Join(shared, "data")
	tr, te, err := LoadUSPS(dir)
	if err != nil {
		t.Fatal(err)
	}
	mtr, mte, err := LoadUSPSMixed(dir, 1)
	if err != nil {
		t.Fatal(err)
	}
	if mtr.Len() != tr.Len() || mte.Len() != te.Len() {
		t.Fatalf("sizes %d/%d, want %d/%d", mtr.Len(), mte.Len(), tr.Len(), te.Len())
	}
	type key struct {
		sum   float64
		label string
	}
	count := map[key]int{}
	for _, s := range []*dataset.Set{tr, te} {
		for r := range s.Len() {
			count[key{rowSum(s.X.RawRowView(r)), s.ClassNames[s.Labels[r]]}]++
		}
	}
	perClass, testPerClass := map[string]int{}, map[string]int{}
	for m, s := range []*dataset.Set{mtr, mte} {
		for r := range s.Len() {
			name := s.ClassNames[s.Labels[r]]
			count[key{rowSum(s.X.RawRowView(r)), name}]--
			perClass[name]++
			if m == 1 {
				testPerClass[name]++
			}
		}
	}
	for k, c := range count {
		if c != 0 {
			t.Fatalf("row with pixel sum %g (class %s) appears %d times more in the original split", k.sum, k.label, c)
		}
	}
	for name, n := range perClass {
		share := float64(n) * float64(te.Len()) / float64(tr.Len()+te.Len())
		if d := float64(testPerClass[name]) - share; d < -1 || d > 1 {
			t.Errorf("class %s: %d test rows of %d, want %.1f", name, testPerClass[name], n, share)
		}
	}
	again, _, err := LoadUSPSMixed(dir, 1)
	if err != nil {
		t.Fatal(err)
	}
	other, _, err := LoadUSPSMixed(dir, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(again.X, mtr.X) || mat.Equal(other.X, mtr.X) {
		t.Error("the split does not follow the seed")
	}
}

// rowSum is the sum of a row's values.
func rowSum(r []float64) float64 {
	var s float64
	for _, v := range r {
		s += v
	}
	return s
}
