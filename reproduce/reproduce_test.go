package reproduce

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"lowdim/nerv"
	"lowdim/posterior"
)

// dataDir returns ../shared/data next to the module root, or skips the test.
func dataDir(t *testing.T) string {
	t.Helper()
	shared, err := FindShared()
	if err != nil {
		t.Skipf("shared data not available: %v", err)
	}
	return filepath.Join(shared, "data")
}

func TestPairedTTestClosedForm(t *testing.T) {
	// Differences 1, 2, 3: mean 2, sd 1, t = 2√3 on 2 degrees of freedom, whose CDF is
	// F(t) = 1/2 + t/(2√(2+t²)), so p = 1 − t/√(2+t²).
	r, err := PairedTTest([]float64{3, 5, 7}, []float64{2, 3, 4})
	if err != nil {
		t.Fatal(err)
	}
	wantT := 2 * math.Sqrt(3)
	wantP := 1 - wantT/math.Sqrt(2+wantT*wantT)
	if r.DF != 2 || math.Abs(r.T-wantT) > 1e-12 || math.Abs(r.P-wantP) > 1e-12 {
		t.Errorf("got t=%v df=%d p=%v, want t=%v df=2 p=%v", r.T, r.DF, r.P, wantT, wantP)
	}
	// Two pairs: 1 degree of freedom (Cauchy), F(t) = 1/2 + atan(t)/π. Differences −1, −3:
	// mean −2, sd √2, t = −2/(√2/√2) = −2.
	r, err = PairedTTest([]float64{0, 0}, []float64{1, 3})
	if err != nil {
		t.Fatal(err)
	}
	wantP = 1 - 2*math.Atan(2)/math.Pi
	if r.DF != 1 || math.Abs(r.T+2) > 1e-12 || math.Abs(r.P-wantP) > 1e-12 {
		t.Errorf("got t=%v df=%d p=%v, want t=-2 df=1 p=%v", r.T, r.DF, r.P, wantP)
	}
	// Swapping the samples flips t and keeps p.
	s, _ := PairedTTest([]float64{1, 3}, []float64{0, 0})
	if s.T != -r.T || s.P != r.P {
		t.Errorf("swapped: t=%v p=%v, want %v and %v", s.T, s.P, -r.T, r.P)
	}
	if r, _ := PairedTTest([]float64{1, 2}, []float64{1, 2}); r.T != 0 || r.P != 1 {
		t.Errorf("identical samples: t=%v p=%v, want 0 and 1", r.T, r.P)
	}
	if r, _ := PairedTTest([]float64{2, 3}, []float64{1, 2}); !math.IsInf(r.T, 1) || r.P != 0 {
		t.Errorf("constant difference: t=%v p=%v, want +Inf and 0", r.T, r.P)
	}
	for _, bad := range [][2][]float64{{{1}, {2}}, {{1, 2}, {1}}, {{1, math.NaN()}, {1, 2}}} {
		if _, err := PairedTTest(bad[0], bad[1]); err == nil {
			t.Errorf("PairedTTest(%v, %v): no error", bad[0], bad[1])
		}
	}
}

func TestHeldOutKNNError(t *testing.T) {
	// Two clusters on a line: class 0 near 0, class 1 near 10. Rows 6 and 7 are test rows.
	y := mat.NewDense(8, 1, []float64{0, 1, 2, 10, 11, 12, 0.5, 10.5})
	labels := []int{0, 0, 0, 1, 1, 1, 0, 1}
	train, test := []int{0, 1, 2, 3, 4, 5}, []int{6, 7}
	if e, err := HeldOutKNNError(y, labels, train, test, 3); err != nil || e != 0 {
		t.Errorf("separated clusters: error %v, %v; want 0", e, err)
	}
	// Mislabel the test rows: both are then wrong.
	wrong := []int{0, 0, 0, 1, 1, 1, 1, 0}
	if e, _ := HeldOutKNNError(y, wrong, train, test, 3); e != 1 {
		t.Errorf("mislabelled test rows: error %v, want 1", e)
	}
	// k = 2 with one voter of each class: the tie goes to the nearer one.
	y2 := mat.NewDense(3, 1, []float64{0, 3, 1})
	if e, _ := HeldOutKNNError(y2, []int{0, 1, 0}, []int{0, 1}, []int{2}, 2); e != 0 {
		t.Errorf("tie: error %v, want 0 (nearest voter is class 0)", e)
	}
	// Unlabelled training rows do not vote; unlabelled test rows do not count.
	if e, _ := HeldOutKNNError(y2, []int{-1, 1, 0}, []int{0, 1}, []int{2}, 1); e != 1 {
		t.Errorf("unlabelled voter: error %v, want 1 (only class 1 votes)", e)
	}
	if _, err := HeldOutKNNError(y2, []int{0, 1, -1}, []int{0, 1}, []int{2}, 1); err == nil {
		t.Error("no labelled test row: no error")
	}
	if _, err := HeldOutKNNError(y2, []int{0, 1, 0}, []int{0, 1}, []int{2}, 3); err == nil {
		t.Error("k larger than the training rows: no error")
	}
}

func TestFoldsPartition(t *testing.T) {
	n, k := 103, 10
	f := Folds(n, k, 7)
	seen := make([]int, n)
	for _, fold := range f {
		if len(fold) < n/k || len(fold) > n/k+1 {
			t.Errorf("fold of %d rows, want %d or %d", len(fold), n/k, n/k+1)
		}
		for _, i := range fold {
			seen[i]++
		}
	}
	for i, c := range seen {
		if c != 1 {
			t.Fatalf("row %d in %d folds", i, c)
		}
	}
	g := Folds(n, k, 7)
	for i := range f {
		for j := range f[i] {
			if f[i][j] != g[i][j] {
				t.Fatal("same seed, different folds")
			}
		}
	}
}

func TestLoaders(t *testing.T) {
	dir := dataDir(t)
	ph, err := LoadPhoneme(dir)
	if err != nil {
		t.Fatal(err)
	}
	// SOURCES.md: 1,962 rows per file, the same label counts in both; the 7 rarest labels
	// (J 39, H 34, Y 28, D 15, & 13, \ 4, F 1 = 134 rows per file) are dropped.
	if ph.Len() != 2*(1962-134) || len(ph.ClassNames) != 13 || ph.Dim() != 20 {
		t.Errorf("Phoneme: %d rows, %d classes, %d features; want %d, 13, 20", ph.Len(), len(ph.ClassNames), ph.Dim(), 2*(1962-134))
	}
	for _, c := range ph.ClassNames {
		if strings.ContainsAny(c, "JHYD&\\F") {
			t.Errorf("Phoneme keeps the rare class %q", c)
		}
	}
	ls, err := LoadLandsat(dir)
	if err != nil {
		t.Fatal(err)
	}
	// SOURCES.md / UCI: 4,435 training + 2,000 test rows, 36 features, 6 classes.
	if ls.Len() != 6435 || ls.Dim() != 36 || len(ls.ClassNames) != 6 {
		t.Errorf("Landsat: %d×%d, %d classes; want 6435×36, 6", ls.Len(), ls.Dim(), len(ls.ClassNames))
	}
	a, b := RandomSubset(ls, 100, 3), RandomSubset(ls, 100, 3)
	if !mat.Equal(a.X, b.X) {
		t.Error("same seed, different subsets")
	}
	if _, err := LoadLetter(t.TempDir()); err == nil || !strings.Contains(err.Error(), "letter-recognition.data") {
		t.Errorf("missing file: error %v should name letter-recognition.data", err)
	}
}

// TestQuickReport runs the quick variant end to end and checks that the report has every
// section, finite numbers and its plots.
func TestQuickReport(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every experiment on small subsets (about a minute); skipped under -short")
	}
	dir := dataDir(t)
	c := Config{DataDir: dir, Seed: 1, Quick: true, N: 150, Folds: 3}
	r, err := Run(context.Background(), c, "go test")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Unsupervised) != 3 || len(r.Supervised) != 2 || r.SCurve == nil {
		t.Fatalf("%d unsupervised, %d supervised results, S-curve %v", len(r.Unsupervised), len(r.Supervised), r.SCurve != nil)
	}
	for _, u := range r.Unsupervised {
		best := u.Sweep[u.Best]
		for _, s := range u.Sweep {
			if s.F > best.F {
				t.Errorf("%s: λ=%g has F %v above the chosen λ=%g's %v", u.Data, s.Lambda, s.F, best.Lambda, best.F)
			}
		}
		for _, s := range append(u.Sweep, u.Methods...) {
			for _, v := range []float64{s.KNNError, s.RankPrecision, s.RankRecall, s.F} {
				if !(v >= 0 && v <= 1) {
					t.Errorf("%s %s λ=%g: value %v outside [0, 1]", u.Data, s.Method, s.Lambda, v)
				}
			}
		}
	}
	for _, s := range r.Supervised {
		// SNeRV at two λ, PE and PCA.
		if len(s.Methods) != 4 || s.Methods[2].Method != "PE" {
			t.Errorf("%s: methods %v, want SNeRV ×2, PE, PCA", s.Data, s.Methods)
		}
		if s.Best == s.Second || !(s.Test.P >= 0 && s.Test.P <= 1) {
			t.Errorf("%s: best %d second %d p %v", s.Data, s.Best, s.Second, s.Test.P)
		}
		for _, m := range s.Methods {
			if len(m.Errors) != 3 {
				t.Errorf("%s %s: %d fold errors, want 3", s.Data, m.Method, len(m.Errors))
			}
		}
	}
	out := t.TempDir()
	if err := r.WriteDir(out); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(out, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	text := string(md)
	for _, want := range []string{"## 1. Unsupervised", "## 2. Supervised", "## 3. The precision–recall trade-off",
		"Machine:", "Seed 1", "Command: `go test`", "total wall time", "13 most frequent", "p-value", "| PE |"} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, bad := range []string{"NaN", "Inf", "%!"} {
		if strings.Contains(text, bad) {
			t.Errorf("report contains %q", bad)
		}
	}
	// Every linked figure exists and is a PNG.
	checkFiguresAndNumbers(t, out, text, 3+3+2+4, 50)
}

// TestSNeRVMatchesNervSupervised checks that the composed SNeRV gives nerv.Supervised's embedding.
func TestSNeRVMatchesNervSupervised(t *testing.T) {
	if testing.Short() {
		t.Skip("fits two mixtures and two NeRV embeddings; skipped under -short")
	}
	d, err := LoadLandsat(dataDir(t))
	if err != nil {
		t.Fatal(err)
	}
	s := RandomSubset(d, 200, 2)
	for i := 0; i < 20; i++ {
		s.Labels[i] = -1 // held out
	}
	mix := posterior.DiscriminativeMixture{Seed: 5}
	ys, fm, err := SNeRV{Mixture: mix, Lambdas: []float64{0.3}, Seed: 5, Iterations: 20}.Fit(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	m, err := nerv.Supervised{
		Embedder: nerv.Embedder{Lambda: nerv.Lambda(0.3), Perplexity: fm.Perplexity, Seed: 5, Iterations: 20},
		Mixture:  mix,
	}.Fit(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if !mat.EqualApprox(ys[0], m.Embedding(), 1e-12) {
		t.Errorf("composed SNeRV and nerv.Supervised differ:\n%v\n%v", mat.Formatted(ys[0].Slice(0, 3, 0, 2)), mat.Formatted(m.Embedding().Slice(0, 3, 0, 2)))
	}
}

// checkFiguresAndNumbers checks a written report: at least minFigures linked PNG figures, each
// a PNG file in out, and at least minNumbers table numbers, each finite.
func checkFiguresAndNumbers(t *testing.T, out, text string, minFigures, minNumbers int) {
	t.Helper()
	links := regexp.MustCompile(`\]\(([^)]+\.png)\)`).FindAllStringSubmatch(text, -1)
	if len(links) < minFigures {
		t.Errorf("%d figures linked, want at least %d", len(links), minFigures)
	}
	for _, l := range links {
		b, err := os.ReadFile(filepath.Join(out, l[1]))
		if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
			t.Errorf("figure %s: %v", l[1], err)
		}
	}
	nums := regexp.MustCompile(`\| (-?[0-9]+\.[0-9]+) `).FindAllStringSubmatch(text, -1)
	if len(nums) < minNumbers {
		t.Errorf("only %d numbers in the tables", len(nums))
	}
	for _, m := range nums {
		if v, err := strconv.ParseFloat(m[1], 64); err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			t.Errorf("table number %q", m[1])
		}
	}
}
