package nervpaper

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/nerv"
	"github.com/lowdim/lowdim/posterior"
	"github.com/lowdim/lowdim/reproduce"
	"github.com/lowdim/lowdim/reproduce/internal/reprotest"
)

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
	dir := reprotest.DataDir(t)
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
	a, b := reproduce.RandomSubset(ls, 100, 3), reproduce.RandomSubset(ls, 100, 3)
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
	dir := reprotest.DataDir(t)
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
		// SNeRV at two λ, PE, PCA, NCA, S-Isomap and MRE (with their settings per fold).
		if len(s.Methods) != 7 || s.Methods[2].Method != "PE" || s.Methods[4].Method != "NCA" || s.Methods[5].Method != "S-Isomap" || s.Methods[6].Method != "MRE" || len(s.SIsomap) != 3 || len(s.MRE) != 3 || len(s.Skipped) != 0 {
			t.Errorf("%s: methods %v (S-Isomap %v, MRE %v, skipped %v), want SNeRV ×2, PE, PCA, NCA, S-Isomap, MRE and 3 settings each", s.Data, s.Methods, s.SIsomap, s.MRE, s.Skipped)
		}
		checkChoices(t, s)
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
		"Machine:", "Seed 1", "Command: `go test`", "total wall time", "13 most frequent", "p-value", "| PE |", "| MRE |", "Setup checked against the paper", "internal 3-fold cross-validation",
		"Letter S-Isomap: α, K by one inner split (1/3 of the training rows held out): chosen α = ", "Landsat MRE: σ_MRE by one inner split (1/3 of the training rows held out): chosen perplexity ", "| S-Isomap α | S-Isomap K | MRE perplexity | σ_MRE |"} {
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
	reprotest.CheckFiguresAndNumbers(t, out, text, 3+3+2+4, 50)
}

// TestOnlySupervised: Parts selects the experiments — §5 alone loads only its two data sets and
// writes neither §1 nor §3 — and an unknown or empty selection is refused before any data are
// read.
func TestOnlySupervised(t *testing.T) {
	for _, parts := range [][]string{{"table3"}, {}} {
		_, err := Run(context.Background(), Config{DataDir: t.TempDir(), Quick: true, Parts: parts}, "go test")
		if !errors.Is(err, dataset.ErrInvalid) {
			t.Errorf("parts %q: error %v, want ErrInvalid", parts, err)
		}
	}
	for _, c := range []Config{{Methods: []string{"isomap"}}, {Methods: []string{}}, {Methods: []string{"mre", "mre"}}, {InnerFolds: 1}, {InnerFolds: 3, InnerRounds: 4}} {
		c.DataDir, c.Quick = t.TempDir(), true
		if _, err := Run(context.Background(), c, "go test"); !errors.Is(err, dataset.ErrInvalid) {
			t.Errorf("methods %q, inner folds %d, rounds %d: error %v, want ErrInvalid", c.Methods, c.InnerFolds, c.InnerRounds, err)
		}
	}
	if testing.Short() {
		t.Skip("runs §5 on small subsets; skipped under -short")
	}
	// §5 with two of its methods, and full 3-fold inner cross-validation: only those rows run,
	// and the report says which were left out.
	c := Config{DataDir: reprotest.DataDir(t), Seed: 1, Quick: true, N: 100, Folds: 2, Parts: []string{"supervised"}, Methods: []string{"mre", "sisomap"}, InnerRounds: 3}
	r, err := Run(context.Background(), c, "go test")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Unsupervised) != 0 || len(r.Supervised) != 2 || r.SCurve != nil {
		t.Fatalf("%d unsupervised, %d supervised results, S-curve %v; want §5 alone", len(r.Unsupervised), len(r.Supervised), r.SCurve != nil)
	}
	for _, s := range r.Supervised {
		if len(s.Methods) != 2 || s.Methods[0].Method != "S-Isomap" || s.Methods[1].Method != "MRE" || len(s.Skipped) != 5 || s.Example != nil || len(s.Metrics) != 0 {
			t.Errorf("%s: methods %v, skipped %v, example %v, %d mixtures; want S-Isomap and MRE alone", s.Data, s.Methods, s.Skipped, s.Example != nil, len(s.Metrics))
		}
		if len(s.SIsomap) != 2 || len(s.MRE) != 2 {
			t.Errorf("%s: %d S-Isomap and %d MRE settings, want one per fold (2)", s.Data, len(s.SIsomap), len(s.MRE))
		}
		checkChoices(t, s)
	}
	var b strings.Builder
	if err := r.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	if strings.Contains(text, "## 1.") || strings.Contains(text, "## 3.") || !strings.Contains(text, "## 2. Supervised") {
		t.Error("the report of §5 alone has the wrong sections")
	}
	for _, want := range []string{"Not run (`-methods`): SNeRV (λ = 0.1), SNeRV (λ = 0.3), PE, PCA, NCA.", "3-fold inner cross-validation of its training rows", "Letter S-Isomap: α, K by 3-fold inner cross-validation: chosen"} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, bad := range []string{"NaN", "Inf", "%!", "snerv-"} {
		if strings.Contains(text, bad) {
			t.Errorf("report contains %q", bad)
		}
	}
}

// checkChoices: every fold's S-Isomap and MRE settings lie in their validation grids, and the
// chosen candidate's inner error is a fraction.
func checkChoices(t *testing.T, s *Supervised) {
	t.Helper()
	for f, ch := range s.SIsomap {
		if !slices.Contains(SIsomapAlphas, ch.Alpha) || !slices.Contains(SIsomapKs, ch.K) || !(ch.Error >= 0 && ch.Error <= 1) {
			t.Errorf("%s fold %d: S-Isomap chose %+v, outside α ∈ %v, K ∈ %v", s.Data, f+1, ch, SIsomapAlphas, SIsomapKs)
		}
	}
	for f, ch := range s.MRE {
		if !slices.Contains(MREPerplexities, ch.Perplexity) || !(ch.Sigma > 0) || !(ch.Error >= 0 && ch.Error <= 1) {
			t.Errorf("%s fold %d: MRE chose %+v, outside perplexity ∈ %v", s.Data, f+1, ch, MREPerplexities)
		}
	}
}

// TestTally: the settings summary lists the most common value first, then by first appearance.
func TestTally(t *testing.T) {
	got := tally([]string{"a", "b", "b", "c", "a", "b"})
	if want := "b in 3 folds; a in 2 folds; c in 1 fold"; got != want {
		t.Errorf("tally = %q, want %q", got, want)
	}
}

// TestSNeRVMatchesNervSupervised checks that the composed SNeRV gives nerv.Supervised's embedding.
func TestSNeRVMatchesNervSupervised(t *testing.T) {
	if testing.Short() {
		t.Skip("fits two mixtures and two NeRV embeddings; skipped under -short")
	}
	d, err := LoadLandsat(reprotest.DataDir(t))
	if err != nil {
		t.Fatal(err)
	}
	s := reproduce.RandomSubset(d, 200, 2)
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

// TestTwoBestAcrossFamilies: the t-test pits the best method against the best of another
// family, as the paper's Table 3 does (issue 17: our Letter run had tested SNeRV λ 0.1 against
// SNeRV λ 0.3, p = 0.76, where the paper tests SNeRV against PE).
func TestTwoBestAcrossFamilies(t *testing.T) {
	ms := []CVScore{{Method: "SNeRV (λ = 0.1)", Mean: 0.247}, {Method: "SNeRV (λ = 0.3)", Mean: 0.250}, {Method: "PE", Mean: 0.254}, {Method: "PCA", Mean: 0.6}}
	if b, s := twoBest(ms); b != 0 || s != 2 {
		t.Errorf("twoBest = %d, %d; want 0 (SNeRV λ 0.1) and 2 (PE)", b, s)
	}
	ms[2].Mean = 0.1
	if b, s := twoBest(ms); b != 2 || s != 0 {
		t.Errorf("PE best: twoBest = %d, %d; want 2 and 0 (the better SNeRV)", b, s)
	}
}

// TestRandomStartsKeepBestF: with random starts every λ keeps the fit of largest F among the PCA
// start and the random ones (the paper's protocol, §4.5), so its F is at least the PCA start's,
// and λ is chosen among the kept fits.
func TestRandomStartsKeepBestF(t *testing.T) {
	d := reproduce.RandomSubset(dataset.Digits(), 120, 1)
	c := Config{Seed: 1, Quick: true, Lambdas: []float64{0.2, 0.8}, RandomStarts: 2, Workers: 2}
	u, err := RunUnsupervised(context.Background(), c, d)
	if err != nil {
		t.Fatal(err)
	}
	if len(u.Restarts) != 2 {
		t.Fatalf("%d restart results, want one per λ (2)", len(u.Restarts))
	}
	random := 0
	for i, s := range u.Restarts {
		if s.F < u.Sweep[i].F || s.Lambda != u.Sweep[i].Lambda || s.Start < 0 || s.Start > 2 {
			t.Errorf("λ=%g: kept F %v (start %d) against the PCA start's %v", s.Lambda, s.F, s.Start, u.Sweep[i].F)
		}
		if s.Start > 0 {
			random++
		}
		if s.F > u.Restarts[u.RestartBest].F {
			t.Errorf("λ=%g has F %v above the chosen one's %v", s.Lambda, s.F, u.Restarts[u.RestartBest].F)
		}
	}
	t.Logf("kept a random start at %d of 2 λ", random)
	c.RandomStarts = -1
	if u, err := RunUnsupervised(context.Background(), c, d); err != nil || u.Restarts != nil {
		t.Fatalf("RandomStarts −1: restarts %v, err %v; want none", u.Restarts, err)
	}
}

// TestSIsomapValidationWorkers: the α are fitted concurrently, and the choice and its score do
// not depend on how many at a time.
func TestSIsomapValidationWorkers(t *testing.T) {
	d := reproduce.RandomSubset(dataset.Digits(), 150, 1)
	train := seq(120)
	var got []SIsomapChoice
	for _, w := range []int{1, 3} {
		c := Config{Seed: 1, Workers: w}
		c.defaults()
		ch, err := c.validateSIsomap(context.Background(), d, train, 2)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ch)
	}
	if got[0] != got[1] || !slices.Contains(SIsomapAlphas, got[0].Alpha) || !(got[0].Error >= 0 && got[0].Error <= 1) {
		t.Errorf("1 worker chose %+v, 3 workers %+v; want the same setting in the grid", got[0], got[1])
	}
}

// TestInnerDefaults: S-Isomap's and MRE's settings are chosen by full 3-fold inner
// cross-validation unless asked otherwise; -quick keeps one split; no validation has no rounds.
func TestInnerDefaults(t *testing.T) {
	for _, c := range []struct {
		in           Config
		folds, round int
		text         string
	}{
		{Config{}, 3, 3, "3-fold inner cross-validation"},
		{Config{Quick: true}, 3, 1, "one inner split (1/3 of the training rows held out)"},
		{Config{InnerRounds: 1}, 3, 1, "one inner split (1/3 of the training rows held out)"},
		{Config{InnerFolds: 5, InnerRounds: 2}, 5, 2, "2 of 5 inner folds held out in turn"},
		{Config{InnerFolds: -1}, -1, 0, ""},
	} {
		c.in.defaults()
		if c.in.InnerFolds != c.folds || c.in.InnerRounds != c.round {
			t.Errorf("%+v: %d folds, %d rounds; want %d, %d", c.in, c.in.InnerFolds, c.in.InnerRounds, c.folds, c.round)
		}
		if c.text != "" && innerText(c.in) != c.text {
			t.Errorf("%d folds, %d rounds: %q, want %q", c.folds, c.round, innerText(c.in), c.text)
		}
	}
}
