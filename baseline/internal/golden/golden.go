// Package golden reads the baselines' golden files (baseline/testdata, written by
// make_golden.py from scikit-learn) and compares embeddings up to an orthogonal transform.
package golden

import (
	"bufio"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
)

// Dir is baseline/testdata, found from this source file.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata")
}

// Read reads a CSV file of numbers with one header line from Dir.
func Read(name string) (*mat.Dense, error) {
	f, err := os.Open(filepath.Join(Dir(), name))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var data []float64
	rows, cols := 0, 0
	sc := bufio.NewScanner(f)
	first := true
	for sc.Scan() {
		if first {
			first = false
			continue
		}
		fs := strings.Split(sc.Text(), ",")
		for _, s := range fs {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, err
			}
			data = append(data, v)
		}
		rows, cols = rows+1, len(fs)
	}
	return mat.NewDense(rows, cols, data), sc.Err()
}

// Set reads the golden input (scurve400.csv) as a data set.
func Set(name string) (*dataset.Set, error) {
	x, err := Read(name)
	if err != nil {
		return nil, err
	}
	return &dataset.Set{X: x}, nil
}

// Procrustes returns min_R ‖A − B R‖_F / ‖A‖_F over orthogonal R (rotations and
// reflections, no scaling, no translation): how far B is from A up to sign and rotation.
func Procrustes(a, b mat.Matrix) float64 {
	var m mat.Dense
	m.Mul(b.T(), a)
	var svd mat.SVD
	if !svd.Factorize(&m, mat.SVDFull) {
		return math.NaN()
	}
	var u, v, r, br, d mat.Dense
	svd.UTo(&u)
	svd.VTo(&v)
	r.Mul(&u, v.T())
	br.Mul(b, &r)
	d.Sub(a, &br)
	return mat.Norm(&d, 2) / mat.Norm(a, 2)
}

// SCurve draws n points of scikit-learn's make_s_curve distribution (t = 3π(u − ½),
// (sin t, 2v, sign(t)(cos t − 1)) plus N(0, noise²) per coordinate) from its own seeded
// generator: the benchmarks' rows, the same distribution as bench_sklearn_manifold.py's.
func SCurve(n int, noise float64, seed uint64) *dataset.Set {
	rng := rand.New(rand.NewPCG(seed, 17))
	x := mat.NewDense(n, 3, nil)
	for i := 0; i < n; i++ {
		t := 3 * math.Pi * (rng.Float64() - 0.5)
		s := 1.0
		if t < 0 {
			s = -1
		}
		x.Set(i, 0, math.Sin(t)+noise*rng.NormFloat64())
		x.Set(i, 1, 2*rng.Float64()+noise*rng.NormFloat64())
		x.Set(i, 2, s*(math.Cos(t)-1)+noise*rng.NormFloat64())
	}
	return &dataset.Set{X: x}
}
