package neighbors

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/internal/blas"
)

// naive returns the k nearest other rows of row i by sorting all exact distances.
func naive(x *mat.Dense, i, k int) ([]int32, []float64) {
	n, _ := x.Dims()
	type p struct {
		d float64
		j int32
	}
	ps := make([]p, 0, n-1)
	for j := 0; j < n; j++ {
		if j != i {
			ps = append(ps, p{dist2(x.RawRowView(i), x.RawRowView(j)), int32(j)})
		}
	}
	sort.Slice(ps, func(a, b int) bool { return less(ps[a].d, ps[a].j, ps[b].d, ps[b].j) })
	idx, d := make([]int32, k), make([]float64, k)
	for m := 0; m < k; m++ {
		idx[m], d[m] = ps[m].j, ps[m].d
	}
	return idx, d
}

// randData returns n×d data; with grid set the coordinates are small integers, so that many
// distances tie exactly and the tie rule is exercised.
func randData(n, d int, grid bool, seed uint64) *mat.Dense {
	r := rand.New(rand.NewPCG(seed, 7))
	x := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for c := 0; c < d; c++ {
			if grid {
				x.Set(i, c, float64(r.IntN(4))+100) // offset: the BLAS path must cope with large norms
			} else {
				x.Set(i, c, r.NormFloat64())
			}
		}
	}
	return x
}

func TestKNNMatchesNaive(t *testing.T) {
	for _, d := range []int{1, 2, 3, 5, 12, 40} {
		for _, grid := range []bool{false, true} {
			x := randData(300, d, grid, uint64(d))
			for _, k := range []int{1, 7, 50} {
				g, err := KNN(context.Background(), x, k, Options{Workers: 3})
				if err != nil {
					t.Fatal(err)
				}
				for i := 0; i < 300; i++ {
					wi, wd := naive(x, i, k)
					gi, gd := g.Row(i)
					for m := range wi {
						if gi[m] != wi[m] || gd[m] != wd[m] {
							t.Fatalf("d=%d grid=%v k=%d row %d neighbour %d: got (%d, %g), want (%d, %g)", d, grid, k, i, m, gi[m], gd[m], wi[m], wd[m])
						}
					}
				}
			}
		}
	}
}

func TestRowsMatchDirect(t *testing.T) {
	for _, d := range []int{2, 30} {
		x := randData(150, d, false, 3)
		err := Rows(context.Background(), x, Options{}, func(_, i int, row []float64) error {
			for j, v := range row {
				want := dist2(x.RawRowView(i), x.RawRowView(j))
				if diff := v - want; diff > 1e-12*(1+want) || diff < -1e-12*(1+want) {
					t.Errorf("d=%d (%d,%d): %g, want %g", d, i, j, v, want)
				}
			}
			if row[i] != 0 {
				t.Errorf("diagonal %d = %g", i, row[i])
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func TestKNNBadInput(t *testing.T) {
	x := randData(10, 2, false, 1)
	for _, k := range []int{0, 10, -1} {
		if _, err := KNN(context.Background(), x, k, Options{}); !errors.Is(err, dataset.ErrInvalid) {
			t.Errorf("k=%d: err = %v, want ErrInvalid", k, err)
		}
	}
	if _, err := KNN(context.Background(), nil, 1, Options{}); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("nil data: err = %v", err)
	}
	x.Set(3, 1, 0.0/zero)
	if _, err := KNN(context.Background(), x, 2, Options{}); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("NaN: err = %v", err)
	}
}

var zero float64

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, d := range []int{2, 20} {
		if _, err := KNN(ctx, randData(2000, d, false, 1), 5, Options{}); !errors.Is(err, context.Canceled) {
			t.Errorf("d=%d: err = %v, want context.Canceled", d, err)
		}
	}
}

func benchKNN(b *testing.B, n, d, k int) {
	x := randData(n, d, false, 1)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := KNN(context.Background(), x, k, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkKNN2D_n10000(b *testing.B)  { benchKNN(b, 10000, 2, 20) }
func BenchmarkKNN2D_n70000(b *testing.B)  { benchKNN(b, 70000, 2, 20) }
func BenchmarkKNN784D_n2000(b *testing.B) { benchKNN(b, 2000, 784, 20) }
func BenchmarkKNN50D_n10000(b *testing.B) { benchKNN(b, 10000, 50, 20) }

// TestConstantColumns: integer data with constant columns (like MNIST's always-black border
// pixels) and more rows than one block — the BLAS path must give exactly the direct distances, and
// KNN exactly the naive neighbours.
func TestConstantColumns(t *testing.T) {
	const n, d = 700, 20
	x := randData(n, d, true, 11)
	for i := 0; i < n; i++ {
		x.Set(i, 0, 0)
		x.Set(i, 7, 255)
		x.Set(i, d-1, 3)
	}
	if keep := varyingColumns(x); len(keep) != d-3 {
		t.Fatalf("varyingColumns kept %d columns, want %d", len(keep), d-3)
	}
	err := Rows(context.Background(), x, Options{}, func(_, i int, row []float64) error {
		for j, v := range row {
			if want := dist2(x.RawRowView(i), x.RawRowView(j)); v != want {
				t.Errorf("(%d,%d): %g, want exactly %g", i, j, v, want)
				return nil
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	g, err := KNN(context.Background(), x, 9, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i += 37 {
		wi, wd := naive(x, i, 9)
		gi, gd := g.Row(i)
		for m := range wi {
			if gi[m] != wi[m] || gd[m] != wd[m] {
				t.Fatalf("row %d neighbour %d: got (%d, %g), want (%d, %g)", i, m, gi[m], gd[m], wi[m], wd[m])
			}
		}
	}
	// An all-constant matrix keeps one column: every distance is 0.
	c := mat.NewDense(40, 12, nil)
	if err := Rows(context.Background(), c, Options{}, func(_, i int, row []float64) error {
		for j, v := range row {
			if v != 0 {
				t.Errorf("constant data (%d,%d) = %g", i, j, v)
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// TestIntegerPathsExact: integer data takes an exact path whatever its range — int8 products when
// every column spans at most 255 (pixel values 0..255 over 717 columns, MNIST's shape) and the
// int8 path is allowed (it is by default when blas.I8Native), single precision products when
// Σ_c max|x_c − shift_c|² < 2²⁴ (bound 717·128²), double precision otherwise (values up to 4095)
// — and every distance equals the direct one exactly.
func TestIntegerPathsExact(t *testing.T) {
	for _, c := range []struct {
		top        int
		allowI8    bool
		i8, wide32 bool
	}{{256, false, false, true}, {256, true, true, false}, {4096, true, false, false}} {
		const n, d = 300, 717
		r := rand.New(rand.NewPCG(uint64(c.top), 9))
		x := mat.NewDense(n, d, nil)
		for i := 0; i < n; i++ {
			for k := 0; k < d; k++ {
				x.Set(i, k, float64(r.IntN(c.top)))
			}
		}
		src := prepareWith(x, c.allowI8)
		if (src.i8 != nil) != c.i8 || (src.f32 != nil) != c.wide32 {
			t.Fatalf("values 0..%d, int8 allowed %v: int8 path %v, single precision path %v; want %v, %v",
				c.top-1, c.allowI8, src.i8 != nil, src.f32 != nil, c.i8, c.wide32)
		}
		if c.allowI8 && c.top == 256 && (prepare(x).i8 != nil) != blas.I8Native {
			t.Fatalf("prepare: int8 path %v with blas.I8Native %v", prepare(x).i8 != nil, blas.I8Native)
		}
		err := rows(context.Background(), x, src, Options{}, "test", func(_, i int, row []float64) error {
			for j, v := range row {
				if want := dist2(x.RawRowView(i), x.RawRowView(j)); v != want {
					t.Errorf("values 0..%d (%d,%d): %g, want exactly %g", c.top-1, i, j, v, want)
					return nil
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// rowsOf returns every row of squared distances of x computed from src.
func rowsOf(t *testing.T, x *mat.Dense, src *source) [][]float64 {
	n, _ := x.Dims()
	out := make([][]float64, n)
	err := rows(context.Background(), x, src, Options{Workers: 2}, "test", func(_, i int, row []float64) error {
		out[i] = append([]float64(nil), row...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameRows compares two sets of rows bit for bit.
func sameRows(t *testing.T, what string, a, b [][]float64) {
	for i := range a {
		for j := range a[i] {
			if math.Float64bits(a[i][j]) != math.Float64bits(b[i][j]) {
				t.Fatalf("%s (%d,%d): int8 path %v, single precision path %v", what, i, j, a[i][j], b[i][j])
			}
		}
	}
}

// TestI8RowsBitIdentical: the int8 path (blas.I8NT, natively or by its Go loop) gives bit for bit
// the rows of the single precision path, on random small integers (columns of range 255 and
// narrower, negative and offset ones, more rows than a block, a block size that is not a multiple
// of the kernel's 8 rows) and on a sample of MNIST; MeanDistance agrees to rounding and does not
// depend on the number of workers.
func TestI8RowsBitIdentical(t *testing.T) {
	const n, d = 700, 37
	r := rand.New(rand.NewPCG(21, 22))
	x := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for c := 0; c < d; c++ {
			switch c % 4 {
			case 0:
				x.Set(i, c, float64(r.IntN(256))) // 0..255, the full int8 span
			case 1:
				x.Set(i, c, float64(r.IntN(256)-1000)) // offset and negative
			case 2:
				x.Set(i, c, float64(r.IntN(3))) // narrow
			default:
				x.Set(i, c, float64(r.IntN(256)+7)*float64(1-2*(c%2))) // −262..−7 or 7..262
			}
		}
	}
	a, b := prepareWith(x, true), prepareWith(x, false)
	if a.i8 == nil || b.f32 == nil {
		t.Fatalf("paths: int8 %v, single precision %v; want both", a.i8 != nil, b.f32 != nil)
	}
	sameRows(t, "random", rowsOf(t, x, a), rowsOf(t, x, b))
	for _, w := range []int{1, 3} {
		m8, err := meanDistance(context.Background(), x, Options{Workers: w}, true)
		if err != nil {
			t.Fatal(err)
		}
		m32, err := meanDistance(context.Background(), x, Options{Workers: w}, false)
		if err != nil {
			t.Fatal(err)
		}
		// 1e-14: the same correctly rounded square roots summed in different orders (n² terms).
		if math.Abs(m8-m32) > 1e-14*m32 {
			t.Errorf("workers %d: mean distance %v on the int8 path, %v on the single precision path", w, m8, m32)
		}
	}

	x = mnistSample(t, map[bool]int{true: 1500, false: 400}[blas.I8Native])
	a, b = prepareWith(x, true), prepareWith(x, false)
	if a.i8 == nil || b.f32 == nil {
		t.Fatalf("MNIST paths: int8 %v, single precision %v; want both", a.i8 != nil, b.f32 != nil)
	}
	sameRows(t, "MNIST", rowsOf(t, x, a), rowsOf(t, x, b))
}

// mnistSample returns n MNIST training images, evenly spaced (skipping the test when the shared
// data directory is absent).
func mnistSample(t *testing.T, n int) *mat.Dense {
	p := filepath.Join("..", "..", "shared", "data", "mnist", "train-images-idx3-ubyte.gz")
	if _, err := os.Stat(p); err != nil {
		t.Skip("MNIST (../shared/data/mnist beside the repository) is absent")
	}
	s, err := dataset.LoadIDX(p, "")
	if err != nil {
		t.Fatal(err)
	}
	all, d := s.X.Dims()
	x := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		x.SetRow(i, s.X.RawRowView(i*(all/n)))
	}
	return x
}

// MeanDistance agrees with the mean of the square roots of the direct distances, on every path
// (plain loops for 2-D, double precision products for Gaussian data, single precision for small
// integers), and does not depend on the number of workers.
func TestMeanDistance(t *testing.T) {
	for _, c := range []struct {
		d    int
		grid bool
	}{{2, false}, {30, false}, {30, true}} {
		x := randData(2300, c.d, c.grid, 5) // 2300 rows: more than one block and one column chunk
		n, _ := x.Dims()
		var want float64
		for i := 0; i < n; i++ { // row sums first: a serial sum of 5e6 terms would drift by 1e-12
			var r float64
			for j := 0; j < n; j++ {
				if j != i {
					r += math.Sqrt(dist2(x.RawRowView(i), x.RawRowView(j)))
				}
			}
			want += r
		}
		want /= float64(n * (n - 1))
		got1, err := MeanDistance(context.Background(), x, Options{Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		got3, err := MeanDistance(context.Background(), x, Options{Workers: 3})
		if err != nil {
			t.Fatal(err)
		}
		if got1 != got3 {
			t.Errorf("d=%d: %v with one worker, %v with three", c.d, got1, got3)
		}
		// 1e-12: sums of 5e6 terms in different orders, far above double rounding.
		if math.Abs(got1-want) > 1e-12*want {
			t.Errorf("d=%d grid=%v: mean %.15g, direct %.15g", c.d, c.grid, got1, want)
		}
	}
}
