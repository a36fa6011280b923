package linproj

import (
	"bufio"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/internal/shared/sharedtest"
	"github.com/lowdim/lowdim/modelio"
	"github.com/lowdim/lowdim/modelio/modeliotest"
)

// readMatrix reads a whitespace-separated numeric text file; lines starting with '#' are
// comments (np.savetxt headers). skip drops that many further leading lines (SOM_PAK's
// dimension line).
func readMatrix(t testing.TB, path string, skip int) *mat.Dense {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var data []float64
	rows, cols := 0, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if skip > 0 {
			skip--
			continue
		}
		fs := strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' || r == ',' })
		if cols == 0 {
			cols = len(fs)
		} else if len(fs) != cols {
			t.Fatalf("%s: row %d has %d fields, want %d", path, rows+1, len(fs), cols)
		}
		for _, s := range fs {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			data = append(data, v)
		}
		rows++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return mat.NewDense(rows, cols, data)
}

// iris reads scikit-learn's iris.csv (first line is metadata; last column is the class).
func iris(t testing.TB) *mat.Dense {
	m := readMatrix(t, filepath.Join(sharedtest.Dir(t), "data", "sklearn_small", "iris.csv"), 1)
	n, _ := m.Dims()
	return mat.DenseCopyOf(m.Slice(0, n, 0, 4))
}

// maxAbsDiff returns max |a−b| / max(1, |b|) over all entries.
func maxRelDiff(t testing.TB, a, b mat.Matrix) float64 {
	t.Helper()
	ar, ac := a.Dims()
	br, bc := b.Dims()
	if ar != br || ac != bc {
		t.Fatalf("shapes %d×%d and %d×%d differ", ar, ac, br, bc)
	}
	worst := 0.0
	for i := 0; i < ar; i++ {
		for j := 0; j < ac; j++ {
			worst = math.Max(worst, math.Abs(a.At(i, j)-b.At(i, j))/math.Max(1, math.Abs(b.At(i, j))))
		}
	}
	return worst
}

func TestPCAGoldenSklearn(t *testing.T) {
	// Golden files: testdata/gen_golden.py, scikit-learn 1.2.1 PCA(svd_solver="full").
	// 1e-9: both sides are backward-stable decompositions of well-separated leading
	// eigenvalues; differences are rounding, measured ≤ 5e-13 (digits) and 2e-15 (iris).
	const tol = 1e-9
	sets := map[string]func(testing.TB) *mat.Dense{
		"digits": func(testing.TB) *mat.Dense { return dataset.Digits().X },
		"iris":   iris,
	}
	for name, load := range sets {
		x := load(t)
		for _, dim := range []int{2, 3} {
			base := filepath.Join("testdata", name+"_pca"+strconv.Itoa(dim)+"_")
			wantY := readMatrix(t, base+"embedding.txt", 0)
			wantV := readMatrix(t, base+"components.txt", 0)
			wantVar := readMatrix(t, base+"variance.txt", 0).RawMatrix().Data
			for _, route := range []pcaRoute{routeAuto, routeCov, routeSVD} {
				m, err := fitPCA(context.Background(), x, dim, nil, route)
				if err != nil {
					t.Fatal(err)
				}
				if d := maxRelDiff(t, m.Embedding(), wantY); d > tol {
					t.Errorf("%s D=%d route %d: embedding differs from sklearn by %g", name, dim, route, d)
				}
				if d := maxRelDiff(t, m.Components, wantV); d > tol {
					t.Errorf("%s D=%d route %d: components differ from sklearn by %g", name, dim, route, d)
				}
				got := append(append([]float64(nil), m.Variance...), m.TotalVariance)
				if !floats.EqualApprox(got, wantVar, tol*wantVar[0]) {
					t.Errorf("%s D=%d route %d: variances %v, sklearn %v", name, dim, route, got, wantVar)
				}
			}
		}
	}
}

// dredviz's pca (golden/dredviz/scurve1000_pca.dat) projects the centred data on the leading
// eigenvectors, like ours, so the scales agree; it fixes no sign convention, and on this
// file both of its components have the opposite sign to scikit-learn's (and ours). The
// comparison therefore allows a sign per component. Its output has 6 significant digits.
func TestPCADredviz(t *testing.T) {
	dir := filepath.Join(sharedtest.Dir(t), "golden", "dredviz")
	x := readMatrix(t, filepath.Join(dir, "scurve1000.dat"), 1)
	want := readMatrix(t, filepath.Join(dir, "scurve1000_pca.dat"), 1)
	m, err := PCA{}.Fit(context.Background(), &dataset.Set{X: x})
	if err != nil {
		t.Fatal(err)
	}
	y := m.Embedding()
	n, _ := y.Dims()
	for k := 0; k < 2; k++ {
		sign := 1.0
		if y.At(0, k)*want.At(0, k) < 0 {
			sign = -1
		}
		worst := 0.0
		for i := 0; i < n; i++ {
			worst = math.Max(worst, math.Abs(sign*y.At(i, k)-want.At(i, k)))
		}
		// 1e-5: values |y| < 3 printed with 6 significant digits round by ≤ 5e-6.
		if worst > 1e-5 {
			t.Errorf("component %d (sign %v): max difference from dredviz %g", k, sign, worst)
		}
	}
}

func randomData(n, h int, seed uint64) *mat.Dense {
	r := rand.New(rand.NewPCG(seed, 1))
	x := mat.NewDense(n, h, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < h; j++ {
			// Decreasing scales per column, an offset, so components are well separated.
			x.Set(i, j, 100+r.NormFloat64()*float64(h-j))
		}
	}
	return x
}

func TestPCAProperties(t *testing.T) {
	ctx := context.Background()
	for _, shape := range [][2]int{{200, 5}, {30, 40}, {3, 3}, {2, 7}} {
		n, h := shape[0], shape[1]
		x := randomData(n, h, uint64(n*h))
		dim := min(3, n, h)
		m, err := fitPCA(ctx, x, dim, nil, routeAuto)
		if err != nil {
			t.Fatalf("%d×%d: %v", n, h, err)
		}
		// Orthonormal columns.
		var g mat.Dense
		g.Mul(m.Components.T(), m.Components)
		if d := maxRelDiff(t, &g, eye(dim)); d > 1e-12 {
			t.Errorf("%d×%d: VᵀV differs from I by %g", n, h, d)
		}
		// Embedding columns have mean 0 and variance Variance[k]; decreasing variances.
		y := m.Embedding()
		for k := 0; k < dim; k++ {
			col := mat.Col(nil, k, y)
			mu := floats.Sum(col) / float64(n)
			ss := 0.0
			for _, v := range col {
				ss += (v - mu) * (v - mu)
			}
			if math.Abs(mu) > 1e-9 || math.Abs(ss/float64(n-1)-m.Variance[k]) > 1e-9*m.Variance[0] {
				t.Errorf("%d×%d comp %d: mean %g, variance %g, Variance %g", n, h, k, mu, ss/float64(n-1), m.Variance[k])
			}
			if k > 0 && m.Variance[k] > m.Variance[k-1]*(1+1e-12) {
				t.Errorf("%d×%d: variances not decreasing: %v", n, h, m.Variance)
			}
			// Sign convention: the largest-|value| entry is positive.
			if floats.Max(col) < -floats.Min(col) {
				t.Errorf("%d×%d comp %d: largest |value| is negative", n, h, k)
			}
		}
		// Transform of the training data reproduces the embedding.
		var tr mat.Dense
		if err := m.Transform(&tr, x); err != nil {
			t.Fatal(err)
		}
		if d := maxRelDiff(t, &tr, y); d > 1e-10 {
			t.Errorf("%d×%d: Transform differs from Embedding by %g", n, h, d)
		}
		// …also for a matrix that offers no raw rows (a transposed transpose).
		tr.Reset()
		if err := m.Transform(&tr, mat.DenseCopyOf(x.T()).T()); err != nil {
			t.Fatal(err)
		}
		if d := maxRelDiff(t, &tr, y); d > 1e-10 {
			t.Errorf("%d×%d: Transform(T) differs from Embedding by %g", n, h, d)
		}
	}
}

func eye(n int) *mat.Dense {
	m := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		m.Set(i, i, 1)
	}
	return m
}

func TestPCAConstantColumns(t *testing.T) {
	x := randomData(50, 6, 3)
	for i := 0; i < 50; i++ {
		x.Set(i, 1, 7) // constant column
		x.Set(i, 4, 0)
	}
	m, err := fitPCA(context.Background(), x, 4, nil, routeAuto)
	if err != nil {
		t.Fatal(err)
	}
	pm := m
	for k := 0; k < 4; k++ {
		if math.Abs(pm.Components.At(1, k)) > 1e-9 || math.Abs(pm.Components.At(4, k)) > 1e-9 {
			t.Errorf("component %d loads on a constant column: %v", k, mat.Col(nil, k, pm.Components))
		}
	}
	// All rows equal: fine, zero variance.
	c := mat.NewDense(5, 3, []float64{1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3})
	m, err = fitPCA(context.Background(), c, 2, nil, routeAuto)
	if err != nil {
		t.Fatal(err)
	}
	if m.TotalVariance != 0 || floats.Norm(m.Embedding().RawMatrix().Data, 2) != 0 {
		t.Errorf("constant data: total variance %g, embedding %v", m.TotalVariance, m.Embedding())
	}
}

func TestPCAErrors(t *testing.T) {
	ctx := context.Background()
	x := randomData(10, 4, 1)
	bad := []struct {
		name string
		p    PCA
		d    *dataset.Set
	}{
		{"nil set", PCA{}, nil},
		{"one row", PCA{Dim: 1}, &dataset.Set{X: mat.NewDense(1, 4, nil)}},
		{"dim > H", PCA{Dim: 5}, &dataset.Set{X: x}},
		{"dim > n", PCA{Dim: 4}, &dataset.Set{X: mat.NewDense(3, 6, nil)}},
		{"dim < 0", PCA{Dim: -1}, &dataset.Set{X: x}},
		{"NaN", PCA{}, &dataset.Set{X: mat.NewDense(3, 2, []float64{1, 2, 3, math.NaN(), 5, 6})}},
		{"Inf", PCA{}, &dataset.Set{X: mat.NewDense(3, 2, []float64{1, 2, 3, math.Inf(-1), 5, 6})}},
	}
	for _, c := range bad {
		if _, err := c.p.Fit(ctx, c.d); !errors.Is(err, dataset.ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrInvalid", c.name, err)
		}
	}
	mdl, err := PCA{}.Fit(ctx, &dataset.Set{X: x})
	if err != nil {
		t.Fatal(err)
	}
	m := mdl.(*PCAModel)
	var dst mat.Dense
	if err := m.Transform(&dst, mat.NewDense(2, 3, nil)); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("wrong column count: %v", err)
	}
	wrong := mat.NewDense(2, 3, nil)
	if err := m.Transform(wrong, mat.NewDense(2, 4, nil)); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("wrong dst shape: %v", err)
	}
	if err := m.Transform(&dst, mat.NewDense(1, 4, []float64{0, math.NaN(), 0, 0})); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("NaN row: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := (PCA{}).Fit(cctx, &dataset.Set{X: randomData(5000, 10, 2)}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

func TestPCASaveLoad(t *testing.T) {
	mdl, err := PCA{Dim: 3}.Fit(context.Background(), dataset.Digits())
	if err != nil {
		t.Fatal(err)
	}
	m := mdl.(*PCAModel)
	path := filepath.Join(t.TempDir(), "digits.pca")
	if err := modelio.Save(path, m); err != nil {
		t.Fatal(err)
	}
	got, err := modelio.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	g, ok := got.(*PCAModel)
	if !ok {
		t.Fatalf("Load returned %T", got)
	}
	if !floats.Equal(g.Mean, m.Mean) || !mat.Equal(g.Components, m.Components) || !floats.Equal(g.Variance, m.Variance) ||
		g.TotalVariance != m.TotalVariance || !mat.Equal(g.Embedding(), m.Embedding()) {
		t.Fatal("loaded model differs from the saved one")
	}
	// A payload that decodes but is inconsistent is refused.
	var e modelio.Encoder
	e.Float64s([]float64{1, 2})
	e.Dense(mat.NewDense(3, 1, nil))
	e.Float64s([]float64{1})
	e.Float64(1)
	e.Dense(mat.NewDense(2, 1, nil))
	if _, err := decodePCA(1, e.Bytes()); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("inconsistent payload: %v", err)
	}
	// A model assembled from its exported fields (lowdim/beam's distributed fit) has no
	// training embedding; it saves, loads and transforms like a fitted one.
	bare := &PCAModel{Mean: m.Mean, Components: m.Components, Variance: m.Variance, TotalVariance: m.TotalVariance}
	path = filepath.Join(t.TempDir(), "bare.pca")
	if err := modelio.Save(path, bare); err != nil {
		t.Fatal(err)
	}
	got, err = modelio.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var y mat.Dense
	if err := got.(*PCAModel).Transform(&y, dataset.Digits().X); err != nil {
		t.Fatal(err)
	}
	if got.(*PCAModel).Embedding() != nil || !mat.Equal(&y, m.Embedding()) {
		t.Error("the bare model's transform differs from the fitted embedding, or it has an embedding")
	}
}

// FuzzDecodePCA: the pca payload decoder never panics, fails only with ErrInvalid, and what it
// accepts re-encodes to the same bytes.
func FuzzDecodePCA(f *testing.F) {
	m, err := fitPCA(context.Background(), randomData(6, 3, 9), 2, nil, routeAuto)
	if err != nil {
		f.Fatal(err)
	}
	p, _ := m.MarshalBinary()
	modeliotest.FuzzPayload(f, decodePCA, pcaVersion, nil, p)
}

// FuzzDecodeLinear: the same for the linproj (interactive projection) payload, from models
// with and without control points.
func FuzzDecodeLinear(f *testing.F) {
	s, err := Interactive{}.Start(context.Background(), randomData(6, 3, 9))
	if err != nil {
		f.Fatal(err)
	}
	p0, _ := s.Model().MarshalBinary()
	if err := s.SetControl(2, []float64{1, -1}); err != nil {
		f.Fatal(err)
	}
	p1, _ := s.Model().MarshalBinary()
	modeliotest.FuzzPayload(f, decodeLinear, linearVersion, nil, p0, p1)
}

func TestPCADeterministicAndProgress(t *testing.T) {
	x := randomData(5000, 20, 4) // 10 blocks of 512 rows: several summation streams
	var mu sync.Mutex
	var calls int
	var last [2]int
	p := PCA{Progress: func(stage string, done, total int) {
		mu.Lock()
		defer mu.Unlock()
		if stage != "pca" || done > total {
			t.Errorf("progress (%q, %d, %d)", stage, done, total)
		}
		calls++
		last = [2]int{done, total}
	}}
	a, err := p.Fit(context.Background(), &dataset.Set{X: x})
	if err != nil {
		t.Fatal(err)
	}
	if calls < 2 || last[0] != last[1] {
		t.Errorf("progress: %d calls, last %v (want several, ending done = total)", calls, last)
	}
	for i := 0; i < 3; i++ {
		b, err := PCA{}.Fit(context.Background(), &dataset.Set{X: x})
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(a.Embedding(), b.Embedding()) || !mat.Equal(a.(*PCAModel).Components, b.(*PCAModel).Components) {
			t.Fatal("two fits of the same data differ")
		}
	}
}
