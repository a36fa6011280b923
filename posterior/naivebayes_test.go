package posterior

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/internal/shared/sharedtest"
)

type nbGolden struct {
	Classes int         `json:"classes"`
	XTrain  [][]float64 `json:"x_train"`
	YTrain  []int       `json:"y_train"`
	XTest   [][]float64 `json:"x_test"`
	Cases   []struct {
		Alpha    float64     `json:"alpha"`
		Priors   []float64   `json:"priors"`
		LogTheta [][]float64 `json:"log_theta"`
		LogPrior []float64   `json:"log_prior"`
		Proba    [][]float64 `json:"proba"`
	} `json:"cases"`
}

func denseRows(rows [][]float64) *mat.Dense {
	m := mat.NewDense(len(rows), len(rows[0]), nil)
	for i, r := range rows {
		m.SetRow(i, r)
	}
	return m
}

// TestNaiveBayesGolden compares the model with fixed smoothing to scikit-learn 1.2.1's
// MultinomialNB (testdata/gen_nb_golden.py). Two unlabelled rows are appended to the training
// data: the fit must ignore them.
func TestNaiveBayesGolden(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "nb_golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g nbGolden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	rows := append([][]float64{}, g.XTrain...)
	labels := append([]int{}, g.YTrain...)
	for _, r := range g.XTest[:2] {
		rows = append(rows, r)
		labels = append(labels, -1)
	}
	x, xt := denseRows(rows), denseRows(g.XTest)
	const tol = 1e-10 // the brief's agreement with scikit-learn
	for _, c := range g.Cases {
		m, err := NaiveBayes{Smoothing: c.Alpha, Priors: c.Priors}.Fit(context.Background(), x, labels, g.Classes)
		if err != nil {
			t.Fatal(err)
		}
		lt := m.LogTheta()
		for k, row := range c.LogTheta {
			for j, want := range row {
				if got := lt.At(k, j); math.Abs(got-want) > tol {
					t.Fatalf("alpha %v: log θ[%d][%d] = %v, sklearn %v", c.Alpha, k, j, got, want)
				}
			}
		}
		for k, want := range c.LogPrior {
			if got := m.LogPrior()[k]; math.Abs(got-want) > tol {
				t.Errorf("alpha %v: log π[%d] = %v, sklearn %v", c.Alpha, k, got, want)
			}
		}
		var p mat.Dense
		if err := m.Posteriors(&p, xt); err != nil {
			t.Fatal(err)
		}
		for i, row := range c.Proba {
			for k, want := range row {
				if got := p.At(i, k); math.Abs(got-want) > tol {
					t.Errorf("alpha %v: p(%d|x_%d) = %v, sklearn %v", c.Alpha, k, i, got, want)
				}
			}
		}
	}
}

// synthCounts draws n documents over v words from k classes, each with its own
// Dirichlet(conc) word distribution and a random length in [minLen, maxLen); labels are i mod k.
func synthCounts(n, v, k int, conc float64, minLen, maxLen int, seed uint64) (*mat.Dense, []int) {
	rng := rand.New(rand.NewPCG(seed, 7))
	theta := make([][]float64, k)
	for c := range theta {
		theta[c] = dirichlet(rng, v, conc)
	}
	x := mat.NewDense(n, v, nil)
	labels := make([]int, n)
	for i := range labels {
		labels[i] = i % k
	}
	for i := 0; i < n; i++ {
		l := minLen + rng.IntN(maxLen-minLen)
		for range l {
			j := categorical(rng, theta[labels[i]])
			x.Set(i, j, x.At(i, j)+1)
		}
	}
	return x, labels
}

// dirichlet draws from a symmetric Dirichlet(conc) in v dimensions (normalised Gamma draws by
// Marsaglia–Tsang, boosted for conc < 1).
func dirichlet(rng *rand.Rand, v int, conc float64) []float64 {
	p := make([]float64, v)
	var s float64
	for j := range p {
		p[j] = gammaDraw(rng, conc)
		s += p[j]
	}
	for j := range p {
		p[j] /= s
	}
	return p
}

func gammaDraw(rng *rand.Rand, a float64) float64 {
	if a < 1 {
		return gammaDraw(rng, a+1) * math.Pow(rng.Float64(), 1/a)
	}
	d := a - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if math.Log(u) < 0.5*x*x+d-d*v+d*math.Log(v) {
			return d * v
		}
	}
}

func categorical(rng *rand.Rand, p []float64) int {
	u := rng.Float64()
	for j, q := range p {
		u -= q
		if u < 0 {
			return j
		}
	}
	return len(p) - 1
}

// bruteNB fits θ and π from scratch on the labelled rows other than exclude (−1: none), with
// smoothing lambda[k] per class and class-frequency priors, and returns the posteriors of row r.
func bruteNB(x *mat.Dense, labels []int, lambda []float64, exclude, r int) []float64 {
	n, v := x.Dims()
	k := len(lambda)
	counts := make([][]float64, k)
	for c := range counts {
		counts[c] = make([]float64, v)
	}
	tokens := make([]float64, k)
	docs := make([]float64, k)
	for i := 0; i < n; i++ {
		if labels[i] < 0 || i == exclude {
			continue
		}
		docs[labels[i]]++
		for j := 0; j < v; j++ {
			counts[labels[i]][j] += x.At(i, j)
			tokens[labels[i]] += x.At(i, j)
		}
	}
	p := make([]float64, k)
	for c := range p {
		p[c] = math.Log(docs[c])
		for j := 0; j < v; j++ {
			p[c] += x.At(r, j) * math.Log((counts[c][j]+lambda[c])/(tokens[c]+lambda[c]*float64(v)))
		}
	}
	softmaxLog(p)
	return p
}

// TestNaiveBayesLeaveOneOut checks the leave-one-out posteriors against a refit without the
// document: through Fit itself (the row's label set to −1) with one fixed λ, and against a
// from-scratch computation with the per-class λ chosen by cross-validation.
func TestNaiveBayesLeaveOneOut(t *testing.T) {
	x, labels := synthCounts(36, 25, 3, 0.5, 3, 30, 1)
	labels[5] = -1 // an unlabelled row: ordinary posteriors
	ctx := context.Background()

	const lambda = 0.7 // any fixed smoothing
	m, err := NaiveBayes{Smoothing: lambda}.Fit(ctx, x, labels, 3)
	if err != nil {
		t.Fatal(err)
	}
	var loo, plain mat.Dense
	if err := m.LeaveOneOutPosteriors(&loo, x, labels); err != nil {
		t.Fatal(err)
	}
	if err := m.Posteriors(&plain, x); err != nil {
		t.Fatal(err)
	}
	n, _ := x.Dims()
	const tol = 1e-12 // rounding of sums of a few dozen logs
	differs := 0
	for i := 0; i < n; i++ {
		want := plain.RawRowView(i)
		if labels[i] >= 0 {
			l2 := append([]int{}, labels...)
			l2[i] = -1
			r, err := NaiveBayes{Smoothing: lambda}.Fit(ctx, x, l2, 3)
			if err != nil {
				t.Fatal(err)
			}
			var p mat.Dense
			if err := r.Posteriors(&p, x.Slice(i, i+1, 0, 25)); err != nil {
				t.Fatal(err)
			}
			want = p.RawRowView(0)
		}
		for c, w := range want {
			if got := loo.At(i, c); math.Abs(got-w) > tol {
				t.Errorf("row %d class %d: LOO posterior %v, refit %v", i, c, got, w)
			}
		}
		if l := labels[i]; l >= 0 && math.Abs(loo.At(i, l)-plain.At(i, l)) > 1e-6 {
			differs++
		}
	}
	if differs == 0 {
		t.Error("leaving documents out never changed a posterior")
	}

	m, err = NaiveBayes{}.Fit(ctx, x, labels, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.LeaveOneOutPosteriors(&loo, x, labels); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		want := bruteNB(x, labels, m.Lambda, i, i)
		for c, w := range want {
			if got := loo.At(i, c); math.Abs(got-w) > tol {
				t.Errorf("λ %v row %d class %d: LOO posterior %v, brute force %v", m.Lambda, i, c, got, w)
			}
		}
	}
}

// bruteLOO returns Σ_{i∈C_k} log p(x_i | θ_k^{(−i)}) with θ refitted from scratch without each
// document (full multinomial log-probability).
func bruteLOO(x *mat.Dense, labels []int, k int, lambda float64) float64 {
	n, v := x.Dims()
	var ll float64
	for i := 0; i < n; i++ {
		if labels[i] != k {
			continue
		}
		counts := make([]float64, v)
		var tokens float64
		for r := 0; r < n; r++ {
			if labels[r] != k || r == i {
				continue
			}
			for j := 0; j < v; j++ {
				counts[j] += x.At(r, j)
				tokens += x.At(r, j)
			}
		}
		var l float64
		for j := 0; j < v; j++ {
			c := x.At(i, j)
			if c == 0 {
				continue
			}
			lg, _ := math.Lgamma(c + 1)
			ll += c*math.Log((counts[j]+lambda)/(tokens+lambda*float64(v))) - lg
			l += c
		}
		lg, _ := math.Lgamma(l + 1)
		ll += lg
	}
	return ll
}

// TestNaiveBayesLambdaChoice checks that each λ_k maximises the brute-force leave-one-out
// likelihood over a fine grid of [SmoothingMin, SmoothingMax].
func TestNaiveBayesLambdaChoice(t *testing.T) {
	// Sparse word distributions (Dirichlet 0.1) over 40 words, 3 classes of 12 documents.
	x, labels := synthCounts(36, 40, 3, 0.1, 5, 40, 2)
	m, err := NaiveBayes{}.Fit(context.Background(), x, labels, 3)
	if err != nil {
		t.Fatal(err)
	}
	const steps = 400 // fine grid: 100 points per decade
	interior := 0
	for k := 0; k < 3; k++ {
		bestL, bestLL := 0.0, math.Inf(-1)
		for s := 0; s <= steps; s++ {
			l := SmoothingMin * math.Pow(SmoothingMax/SmoothingMin, float64(s)/steps)
			if ll := bruteLOO(x, labels, k, l); ll > bestLL {
				bestL, bestLL = l, ll
			}
		}
		got := bruteLOO(x, labels, k, m.Lambda[k])
		t.Logf("class %d: λ = %.5g (LOO log-lik %.6f), fine-grid best λ = %.5g (%.6f)", k, m.Lambda[k], got, bestL, bestLL)
		if math.Abs(got-m.LOOLogLikelihood[k]) > 1e-9*math.Abs(got) {
			t.Errorf("class %d: reported LOO log-likelihood %v, brute force %v", k, m.LOOLogLikelihood[k], got)
		}
		if got < bestLL-1e-9*math.Abs(bestLL) {
			t.Errorf("class %d: λ %v has LOO log-likelihood %v below the grid's best %v at λ %v", k, m.Lambda[k], got, bestLL, bestL)
		}
		// One fine-grid step is a factor 10^(1/100).
		if math.Abs(math.Log10(m.Lambda[k]/bestL)) > 0.0101 {
			t.Errorf("class %d: λ %v is more than a grid step from the grid's best %v", k, m.Lambda[k], bestL)
		}
		if bestL > SmoothingMin && bestL < SmoothingMax {
			interior++
		}
	}
	if interior == 0 {
		t.Error("every optimum lies at an end of the range: the test data do not exercise the search")
	}
}

func TestNaiveBayesErrors(t *testing.T) {
	ctx := context.Background()
	x, labels := synthCounts(12, 6, 2, 1, 3, 10, 3)
	bad := func(f func(*mat.Dense)) *mat.Dense {
		y := mat.DenseCopyOf(x)
		f(y)
		return y
	}
	for name, tc := range map[string]struct {
		nb     NaiveBayes
		x      *mat.Dense
		labels []int
		k      int
	}{
		"negative count":   {x: bad(func(y *mat.Dense) { y.Set(3, 2, -1) }), labels: labels, k: 2},
		"fractional count": {x: bad(func(y *mat.Dense) { y.Set(3, 2, 0.5) }), labels: labels, k: 2},
		"NaN":              {x: bad(func(y *mat.Dense) { y.Set(0, 0, math.NaN()) }), labels: labels, k: 2},
		"Inf":              {x: bad(func(y *mat.Dense) { y.Set(0, 0, math.Inf(1)) }), labels: labels, k: 2},
		"one class":        {x: x, labels: make([]int, 12), k: 1},
		"label too large":  {x: x, labels: append(append([]int{}, labels[:11]...), 2), k: 2},
		"label below −1":   {x: x, labels: append(append([]int{}, labels[:11]...), -2), k: 2},
		"empty class":      {x: x, labels: labels, k: 3},
		"short labels":     {x: x, labels: labels[:5], k: 2},
		"negative λ":       {nb: NaiveBayes{Smoothing: -1}, x: x, labels: labels, k: 2},
		"NaN λ":            {nb: NaiveBayes{Smoothing: math.NaN()}, x: x, labels: labels, k: 2},
		"priors length":    {nb: NaiveBayes{Priors: []float64{1}}, x: x, labels: labels, k: 2},
		"zero prior":       {nb: NaiveBayes{Priors: []float64{1, 0}}, x: x, labels: labels, k: 2},
		"all unlabelled":   {x: x, labels: []int{-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}, k: 2},
		"no data":          {x: nil, labels: labels, k: 2},
		"one unused word":  {x: mat.NewDense(12, 1, nil), labels: labels, k: 2},
	} {
		var xm mat.Matrix
		if tc.x != nil {
			xm = tc.x
		}
		_, err := tc.nb.Fit(ctx, xm, tc.labels, tc.k)
		if name == "one unused word" {
			// A vocabulary of one word that never occurs is legal: θ is 1 and posteriors are priors.
			if err != nil {
				t.Errorf("%s: %v", name, err)
			}
			continue
		}
		if !errors.Is(err, dataset.ErrInvalid) {
			t.Errorf("%s: error %v does not wrap dataset.ErrInvalid", name, err)
		}
	}
	m, err := NaiveBayes{}.Fit(ctx, x, labels, 2)
	if err != nil {
		t.Fatal(err)
	}
	var p mat.Dense
	if err := m.Posteriors(&p, mat.NewDense(2, 5, nil)); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("wrong width: %v", err)
	}
	if err := m.Posteriors(mat.NewDense(3, 2, nil), x); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("wrong dst: %v", err)
	}
	big := bad(func(y *mat.Dense) { y.Set(0, 0, 1000) })
	if err := m.LeaveOneOutPosteriors(&p, big, labels); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("not a training document: %v", err)
	}
	if err := (*NaiveBayesModel)(nil).Posteriors(&p, x); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("nil model: %v", err)
	}
}

func TestNaiveBayesCancel(t *testing.T) {
	x, labels := synthCounts(30, 20, 3, 0.5, 3, 30, 4)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (NaiveBayes{}).Fit(ctx, x, labels, 3); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled fit: %v", err)
	}
}

func TestNaiveBayesProgress(t *testing.T) {
	x, labels := synthCounts(30, 20, 3, 0.5, 3, 30, 5)
	var mu sync.Mutex // the classes run on parallel workers
	var calls, last int
	_, err := NaiveBayes{Progress: func(stage string, done, total int) {
		mu.Lock()
		defer mu.Unlock()
		calls++
		if stage != "naive bayes" || total != 3 {
			t.Errorf("progress (%q, %d, %d)", stage, done, total)
		}
		last = max(last, done)
	}}.Fit(context.Background(), x, labels, 3)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 3 || last != 3 {
		t.Errorf("%d progress reports up to %d, want 3 up to 3", calls, last)
	}
}

// bbc loads the BBC news counts (2225 documents × 9635 terms, 5 classes).
func bbc(t testing.TB) *dataset.Set {
	d, err := dataset.Load(filepath.Join(sharedtest.Data(t), "bbc", "bbc.mtx.gz"), dataset.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestNaiveBayesBBC fits the model with leave-one-out λ on BBC news and classifies every
// document by its leave-one-out posterior.
func TestNaiveBayesBBC(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("reads BBC (2225×9635); skipped under -short and -race")
	}
	d := bbc(t)
	start := time.Now()
	m, err := NaiveBayes{}.Fit(context.Background(), d.X, d.Labels, len(d.ClassNames))
	if err != nil {
		t.Fatal(err)
	}
	fit := time.Since(start)
	var p mat.Dense
	start = time.Now()
	if err := m.LeaveOneOutPosteriors(&p, d.X, d.Labels); err != nil {
		t.Fatal(err)
	}
	post := time.Since(start)
	wrong, ent := 0, 0.0
	for i, l := range d.Labels {
		row := p.RawRowView(i)
		best := 0
		for c, v := range row {
			if v > row[best] {
				best = c
			}
			if v > 0 {
				ent -= v * math.Log2(v)
			}
		}
		if best != l {
			wrong++
		}
	}
	n := float64(len(d.Labels))
	t.Logf("fit %v, LOO posteriors %v; λ = %.4g; LOO error %.4f; mean entropy %.4f bits", fit, post, m.Lambda, float64(wrong)/n, ent/n)
	// Naive Bayes on BBC is known to be accurate (Greene & Cunningham report over 95%); a
	// working leave-one-out classifier must be well under 10% error.
	if e := float64(wrong) / n; e > 0.1 {
		t.Errorf("leave-one-out error %.3f, want < 0.1", e)
	}
}

// BenchmarkNaiveBayesBBC times the fit with leave-one-out λ plus the leave-one-out posteriors.
func BenchmarkNaiveBayesBBC(b *testing.B) {
	d := bbc(b)
	var p mat.Dense
	b.ReportAllocs()
	for b.Loop() {
		m, err := NaiveBayes{}.Fit(context.Background(), d.X, d.Labels, len(d.ClassNames))
		if err != nil {
			b.Fatal(err)
		}
		if err := m.LeaveOneOutPosteriors(&p, d.X, d.Labels); err != nil {
			b.Fatal(err)
		}
	}
}
