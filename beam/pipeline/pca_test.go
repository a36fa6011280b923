package pipeline

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/linproj"
	"github.com/lowdim/lowdim/modelio"
)

func TestMain(m *testing.M) {
	beam.Init()
	os.Exit(m.Run())
}

// run executes p on the in-process prism runner.
func run(t testing.TB, p *beam.Pipeline) error {
	t.Helper()
	_, err := prism.Execute(context.Background(), p)
	return err
}

// writeShards splits s into parts consecutive CSV shards (uneven sizes on purpose) under dir
// and returns their glob.
func writeShards(t testing.TB, dir string, s *dataset.Set, parts int) string {
	t.Helper()
	n := s.Len()
	bounds := []int{0}
	for p := 1; p < parts; p++ {
		bounds = append(bounds, n*p*p/(parts*parts)) // growing shard sizes
	}
	bounds = append(bounds, n)
	for p := 0; p < parts; p++ {
		idx := make([]int, 0, bounds[p+1]-bounds[p])
		for i := bounds[p]; i < bounds[p+1]; i++ {
			idx = append(idx, i)
		}
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("part-%03d.csv", p)))
		if err != nil {
			t.Fatal(err)
		}
		if err := dataset.WriteCSV(f, s.Subset(idx)); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "part-*.csv")
}

// synthetic returns n rows of H columns with decreasing, well separated variances and a label.
func synthetic(n, h int, seed uint64) *dataset.Set {
	rng := rand.New(rand.NewPCG(seed, 1))
	x := mat.NewDense(n, h, nil)
	labels := make([]int, n)
	for i := 0; i < n; i++ {
		labels[i] = rng.IntN(3)
		for j := 0; j < h; j++ {
			x.Set(i, j, 100+float64(labels[i])+rng.NormFloat64()*float64(h-j))
		}
	}
	return &dataset.Set{X: x, Labels: labels, ClassNames: []string{"a", "b", "c"}}
}

func fitPCAPipeline(t *testing.T, glob string, dim int) *linproj.PCAModel {
	t.Helper()
	shards, err := ListShards(context.Background(), glob)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "model.lowdim")
	p, s := beam.NewPipelineWithRoot()
	WriteBytes(s, FitPCA(s, shards, ReadOptions{}, dim), out)
	if err := run(t, p); err != nil {
		t.Fatal(err)
	}
	m, err := modelio.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	return m.(*linproj.PCAModel)
}

func maxDiff(a, b []float64) float64 {
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
	}
	return d
}

// TestFitPCAEqualsSingleMachine: the distributed fit equals linproj.PCA on the same rows to
// 1e-9 (the bound), on the digits in 4 shards and on a larger synthetic set in 7.
func TestFitPCAEqualsSingleMachine(t *testing.T) {
	for _, c := range []struct {
		name        string
		set         *dataset.Set
		parts, dims int
	}{
		{"digits", dataset.Digits(), 4, 2},
		{"synthetic", synthetic(20000, 24, 3), 7, 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "synthetic" && testing.Short() {
				t.Skip("the larger set under -short")
			}
			glob := writeShards(t, t.TempDir(), c.set, c.parts)
			got := fitPCAPipeline(t, glob, c.dims)
			m, err := linproj.PCA{Dim: c.dims}.Fit(context.Background(), c.set)
			if err != nil {
				t.Fatal(err)
			}
			want := m.(*linproj.PCAModel)
			rel := func(a, b []float64, scale float64) float64 { return maxDiff(a, b) / scale }
			if d := rel(got.Mean, want.Mean, 1); d > 1e-9 {
				t.Errorf("means differ by %g", d)
			}
			if d := rel(got.Components.RawMatrix().Data, want.Components.RawMatrix().Data, 1); d > 1e-9 {
				t.Errorf("components differ by %g", d)
			}
			if d := rel(got.Variance, want.Variance, want.Variance[0]); d > 1e-9 {
				t.Errorf("variances differ by %g relative", d)
			}
			if d := math.Abs(got.TotalVariance-want.TotalVariance) / want.TotalVariance; d > 1e-9 {
				t.Errorf("total variance differs by %g relative", d)
			}
			if got.Embedding() != nil {
				t.Error("a distributed fit carries a training embedding")
			}
		})
	}
}

// TestFitPCAWidthError: a shard with another column count fails naming the shard and line.
func TestFitPCAWidthError(t *testing.T) {
	dir := t.TempDir()
	glob := writeShards(t, dir, synthetic(300, 4, 1), 3)
	bad := "x1,x2,x3,label\n1,2,3,a\n4,5,6,b\n"
	if err := os.WriteFile(filepath.Join(dir, "part-001.csv"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	shards, err := ListShards(context.Background(), glob)
	if err != nil {
		t.Fatal(err)
	}
	p, s := beam.NewPipelineWithRoot()
	WriteBytes(s, FitPCA(s, shards, ReadOptions{}, 2), filepath.Join(dir, "m.lowdim"))
	err = run(t, p)
	want := filepath.Join(dir, "part-001.csv") + ":2: expected 4 feature columns"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want an error containing %q", err, want)
	}
}
