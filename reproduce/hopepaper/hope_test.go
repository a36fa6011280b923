package hopepaper

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/reproduce"
	"github.com/lowdim/lowdim/reproduce/internal/reprotest"
)

// TestHOPEQuick runs the quick HOPE reproduction on USPS and checks the report: every method
// row with the paper's number, the unaugmented S-HOPE baseline row, the nine comparison rows
// (LDA … pt-SNE, deep-AE, dt-NCA, dt-MCML) and their nine k-means rows, 25 embeddings and the
// curve, and test errors
// far better than chance (90 % for 10 digits; 80 % for the comparison rows, whose quick fits stop
// after 10 iterations). The exemplar rows of Tables 2 and 4 (k-means + each map, HOPE and S-HOPE
// with joint exemplars) must have finite errors in [0, 1] and vote among exactly 20 embedded
// exemplars, the k-means ones among the same 20 labelled centres.
func TestHOPEQuick(t *testing.T) {
	r, out, text := runQuickUSPS(t, false)
	rows := append(append([]string{HOPEBaseline}, HOPEMethods...), HOPEBaselines...)
	for _, m := range HOPEBaselines {
		rows = append(rows, KMeansRow(m))
	}
	for _, m := range rows {
		if !strings.Contains(text, "| "+m+" |") {
			t.Errorf("no row for %s", m)
		}
	}
	if !strings.Contains(text, "Table 3)") || !strings.Contains(text, "Table 4)") {
		t.Error("the report does not head USPS's tables as the paper's Tables 3 and 4")
	}
	if i, j := strings.Index(text, "Table 4)"), strings.Index(text, "| k-means + LDA |"); j < i {
		t.Error("the k-means + LDA row is not in the exemplar table")
	}
	if !strings.Contains(text, "shifted by up to 1 px") || !strings.Contains(text, "shift of up to 1 pixel") {
		t.Error("the report does not say that S-HOPE was trained on shifted rows")
	}
	// 26 figures: 25 embeddings and the curve; 6 rows × (paper, test), 3 of them also with a
	// validation error, the unaugmented row's test and validation errors, 9 comparison rows ×
	// (paper, test) and 9 k-means rows × test (6 with the paper's).
	reprotest.CheckFiguresAndNumbers(t, out, text, 26, 53)
	s := r.Sets[0]
	if s.NTrain != 800 || s.NTest != 400 || len(s.Results) != 25 {
		t.Fatalf("quick USPS: %d/%d rows, %d results", s.NTrain, s.NTest, len(s.Results))
	}
	byName := map[string]*HOPEResult{}
	for _, res := range s.Results {
		byName[res.Method] = res
		if res.Reference == ExemplarReference {
			if !(res.TestError >= 0 && res.TestError <= 1) {
				t.Errorf("%s: test error %g, want a fraction", res.Method, res.TestError)
			}
			if z, _ := res.Exemplars.Dims(); z != 20 || len(res.ExLabels) != 20 {
				t.Errorf("%s: %d exemplars with %d labels, want 20", res.Method, z, len(res.ExLabels))
			}
			continue
		}
		// Quick fits are tiny, but every map must learn something: chance is 90 %.
		limit := 0.8
		if res.Seconds > 0 && len(res.History) > 0 {
			limit = 0.6 // HOPE and S-HOPE
		}
		if !(res.TestError < limit) {
			t.Errorf("%s: test error %.3f", res.Method, res.TestError)
		}
	}
	if s.Results[1].Method != HOPEBaseline || s.Results[2].Method != "S-HOPE" {
		t.Errorf("rows %q, %q: want the baseline before S-HOPE", s.Results[1].Method, s.Results[2].Method)
	}
	// The k-means rows of the comparison maps and of HOPE embed S-HOPE's own 20 centres.
	km := byName["k-means + S-HOPE"]
	for _, m := range append([]string{"k-means + HOPE"}, rows[len(rows)-len(HOPEBaselines):]...) {
		res := byName[m]
		if res == nil {
			t.Errorf("no result %s", m)
			continue
		}
		if res.Reference != ExemplarReference || fmt.Sprint(res.ExLabels) != fmt.Sprint(km.ExLabels) {
			t.Errorf("%s: 5-NN against %q with labels %v, want S-HOPE's 20 k-means centres %v", m, res.Reference, res.ExLabels, km.ExLabels)
		}
	}
	// Every k-means row says where its map carries the centres. A linear map carries each to
	// its members' mean embedding, up to the members being all training rows where the centres
	// average the k-means split's 90 % (and k-means' last step): a median offset under a tenth
	// of a cluster radius (0.05 in this run). HOPE's cubes of its factors do not (0.62).
	if !strings.Contains(text, "| k-means row |") {
		t.Error("the report has no table of where the maps carry the k-means centres")
	}
	for _, m := range rows {
		res := byName[m]
		if res == nil || !strings.HasPrefix(m, "k-means + ") {
			continue
		}
		o := res.Centres
		if o == nil || !(o.MembersError >= 0 && o.MembersError <= 1) || !(o.Median >= 0) {
			t.Errorf("%s: centre offsets %+v", m, o)
			continue
		}
		linear := slices.Contains([]string{"LDA", "LPP", "NCA", "MCML", "LMNN"}, strings.TrimPrefix(m, "k-means + "))
		if linear && o.Median > 0.1 || m == "k-means + HOPE" && o.Median < 0.1 {
			t.Errorf("%s: the centres lie a median %.3f cluster radii from their members' mean embedding", m, o.Median)
		}
	}
	// Joint learning moves the exemplars away from the k-means start.
	if h := byName["HOPE + joint exemplars"]; h == nil || mat.Equal(h.Exemplars, byName["k-means + HOPE"].Exemplars) {
		t.Error("HOPE's joint exemplars did not move from the k-means centres")
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

// TestHOPEComparisonOnly: `-only baselines` fits the nine comparison maps and maps 20 k-means
// centres with each, and nothing else: no HOPE or S-HOPE row, no curve.
func TestHOPEComparisonOnly(t *testing.T) {
	r, _, text := runQuickUSPS(t, true)
	s := r.Sets[0]
	if len(s.Results) != 2*len(HOPEBaselines) {
		t.Fatalf("%d results, want the %d comparison and k-means rows", len(s.Results), 2*len(HOPEBaselines))
	}
	for _, res := range s.Results {
		if res.Reference == ExemplarReference && res.Method != KMeansRow(strings.TrimPrefix(res.Method, "k-means + ")) {
			t.Errorf("unexpected exemplar row %s", res.Method)
		}
		if z := res.Exemplars; z != nil {
			if n, _ := z.Dims(); n != 20 {
				t.Errorf("%s: %d exemplars, want 20", res.Method, n)
			}
		}
	}
	for _, m := range HOPEMethods {
		if strings.Contains(text, "| "+m+" |") {
			t.Errorf("the comparison-only report has a %s row", m)
		}
	}
	if !strings.Contains(text, "Comparison rows only") || strings.Contains(text, hopeCurvePlot(s.Data)) {
		t.Error("the report does not say it ran the comparison rows only, or links a training curve")
	}
}

// TestHOPEMethods: -methods keeps the named comparison rows and their k-means rows, and the
// report names the rows left out; an unknown or repeated name is refused before any data are
// read.
func TestHOPEMethods(t *testing.T) {
	for _, bad := range [][]string{{"HOPE"}, {"LDA", "LDA"}, {"lda"}} {
		_, err := RunHOPE(context.Background(), HOPEConfig{DataDir: "/nonexistent", Methods: bad}, "test")
		if !errors.Is(err, dataset.ErrInvalid) {
			t.Errorf("Methods %q: error %v, want an invalid-input error", bad, err)
		}
	}
	r, _, text := runQuickUSPS(t, true, "LPP", "LDA")
	var got []string
	for _, res := range r.Sets[0].Results {
		got = append(got, res.Method)
	}
	if want := []string{"LDA", "LPP", KMeansRow("LDA"), KMeansRow("LPP")}; !slices.Equal(got, want) {
		t.Errorf("rows %q, want %q", got, want)
	}
	if !strings.Contains(text, "Left out, with their k-means rows: NCA, MCML, LMNN") {
		t.Error("the report does not name the rows left out")
	}
}

// runQuickUSPS runs the quick USPS reproduction (the comparison rows alone if comparisonOnly;
// only the comparison rows methods, if any) and writes its report, returning the report, its
// directory and its text; it skips under -short and -race and without the shared data.
func runQuickUSPS(t *testing.T, comparisonOnly bool, methods ...string) (*HOPEReport, string, string) {
	t.Helper()
	if testing.Short() || reprotest.RaceEnabled {
		t.Skip("a few seconds of fits; skipped under -short and -race")
	}
	shared, err := reproduce.FindShared()
	if err != nil {
		t.Skipf("shared data not available: %v", err)
	}
	c := HOPEConfig{DataDir: filepath.Join(shared, "data"), Quick: true, Seed: 1, Sets: []string{"USPS"}, ComparisonOnly: comparisonOnly, Methods: methods}
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
	return r, out, string(b)
}

// TestHOPEEpochCurves: DeepAEEpochs sets deep-AE's epochs and CGIterations its CG iterations
// a batch, the row keeps the test error after each epoch, the last of which is the row's own
// (the same weights encode the same rows), and the report prints the curve and the iterations
// (2, one line search: neither network default, so a setting that failed to arrive would show).
func TestHOPEEpochCurves(t *testing.T) {
	if testing.Short() || reprotest.RaceEnabled {
		t.Skip("a few seconds of fits; skipped under -short and -race")
	}
	shared, err := reproduce.FindShared()
	if err != nil {
		t.Skipf("shared data not available: %v", err)
	}
	c := HOPEConfig{DataDir: filepath.Join(shared, "data"), Quick: true, Seed: 1, Sets: []string{"USPS"}, ComparisonOnly: true,
		Methods: []string{"deep-AE"}, DeepAEEpochs: 3, CGIterations: 2}
	r, err := RunHOPE(context.Background(), c, "test")
	if err != nil {
		t.Fatal(err)
	}
	res := r.Sets[0].Results[0]
	if res.Method != "deep-AE" || len(res.Curve) != 3 {
		t.Fatalf("%s: curve %v, want 3 epochs of deep-AE", res.Method, res.Curve)
	}
	if !strings.Contains(res.Settings, "CG (2 iterations a batch)") {
		t.Errorf("settings %q do not carry CGIterations 2", res.Settings)
	}
	if res.Curve[2] != res.TestError {
		t.Errorf("the last epoch's error %v differs from the row's %v", res.Curve[2], res.TestError)
	}
	if !(res.CurveSeconds > 0 && res.CurveSeconds < res.Seconds) {
		t.Errorf("the curve took %v s of the row's %v s: want a positive part of it", res.CurveSeconds, res.Seconds)
	}
	var b strings.Builder
	if err := r.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("after each fine-tuning epoch (read off, not used to choose anything; its encodings and 5-NN passes took %s of the row's %s): 1: %.2f,", secs2(res.CurveSeconds), secs2(res.Seconds), 100*res.Curve[0]); !strings.Contains(b.String(), want) {
		t.Errorf("the report lacks %q", want)
	}
	if want := "with 2 conjugate-gradient iterations (one line search, gonum counting the start as the first iteration) per mini-batch of 100 rows"; !strings.Contains(b.String(), want) {
		t.Errorf("the report lacks %q", want)
	}
}
