package sisomap

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/linproj"
	"github.com/lowdim/lowdim/modelio"
	"github.com/lowdim/lowdim/modelio/modeliotest"
)

// TestLeaveOneOut: the closed-form leave-one-out error of the chosen width and ridge equals the
// brute-force one — n ridge fits by the normal equations (ΦᵀΦ + μI)W = ΦᵀY, each without one
// row, predicting it — to 1e-6 relative (the two solve differently conditioned systems).
func TestLeaveOneOut(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	n, h, dim := 40, 3, 2
	x, y := mat.NewDense(n, h, nil), mat.NewDense(n, dim, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < h; j++ {
			x.Set(i, j, r.NormFloat64())
		}
		y.Set(i, 0, math.Sin(x.At(i, 0))+0.1*r.NormFloat64())
		y.Set(i, 1, x.At(i, 1)*x.At(i, 2))
	}
	for _, maxC := range []int{n, 25} { // every row a centre, and a subset
		nw, err := trainNetwork(context.Background(), x, y, 1, maxC, 9)
		if err != nil {
			t.Fatal(err)
		}
		m, _ := nw.centers.Dims()
		phi := func(i int) []float64 {
			p := make([]float64, m)
			for a := 0; a < m; a++ {
				s := 0.0
				for t, v := range nw.centers.RawRowView(a) {
					e := x.At(i, t) - v
					s += e * e
				}
				p[a] = math.Exp(-s / (2 * nw.width * nw.width))
			}
			return p
		}
		loo := 0.0
		for out := 0; out < n; out++ {
			a := mat.NewDense(n-1, m, nil)
			b := mat.NewDense(n-1, dim, nil)
			row := 0
			for i := 0; i < n; i++ {
				if i == out {
					continue
				}
				a.SetRow(row, phi(i))
				b.SetRow(row, y.RawRowView(i))
				row++
			}
			var ata, atb, w mat.Dense
			ata.Mul(a.T(), a)
			for k := 0; k < m; k++ {
				ata.Set(k, k, ata.At(k, k)+nw.ridge)
			}
			atb.Mul(a.T(), b)
			if err := w.Solve(&ata, &atb); err != nil {
				t.Fatal(err)
			}
			p := mat.NewVecDense(m, phi(out))
			var yhat mat.VecDense
			yhat.MulVec(w.T(), p)
			for c := 0; c < dim; c++ {
				e := y.At(out, c) - yhat.AtVec(c)
				loo += e * e
			}
		}
		loo /= float64(n)
		t.Logf("%d centres: σ %.3g, μ %.3g, LOO closed form %.6g, brute force %.6g", m, nw.width, nw.ridge, nw.loo, loo)
		if math.Abs(loo-nw.loo) > 1e-6*loo {
			t.Errorf("%d centres: closed-form LOO %.10g, brute force %.10g", m, nw.loo, loo)
		}
	}
}

// digitsSplit returns the first 300 digits (S-Isomap's training rows, as TestSeparates) and the
// next 200 (new rows).
func digitsSplit() (train, test *dataset.Set) {
	idx := func(lo, hi int) []int {
		s := make([]int, 0, hi-lo)
		for i := lo; i < hi; i++ {
			s = append(s, i)
		}
		return s
	}
	d := dataset.Digits()
	return d.Subset(idx(0, 300)), d.Subset(idx(300, 500))
}

// knnError is the 5-NN error of the rows yt (labels lt) among the rows y (labels l).
func knnError(y *mat.Dense, l []int, yt *mat.Dense, lt []int) float64 {
	n, _ := y.Dims()
	wrong := 0
	for i := range lt {
		type nb struct {
			d float64
			c int
		}
		var best []nb
		for j := 0; j < n; j++ {
			d := 0.0
			for c, v := range y.RawRowView(j) {
				e := yt.At(i, c) - v
				d += e * e
			}
			best = append(best, nb{d, l[j]})
			for p := len(best) - 1; p > 0 && best[p].d < best[p-1].d; p-- {
				best[p], best[p-1] = best[p-1], best[p]
			}
			if len(best) > 5 {
				best = best[:5]
			}
		}
		votes := map[int]int{}
		top, arg := 0, -1
		for _, b := range best {
			votes[b.c]++
			if votes[b.c] > top {
				top, arg = votes[b.c], b.c
			}
		}
		if arg != lt[i] {
			wrong++
		}
	}
	return float64(wrong) / float64(len(lt))
}

// TestTransformNewDigits: S-Isomap fitted on 300 digits (K = 40) places 200 new digits by its
// network; their 5-NN error among the training rows is below that of PCA fitted on the same 300
// rows and applied to the new ones (measured: 0.365 against PCA's 0.510; the network chose
// σ = 4·s₀ = 40, inside the width grid, and μ = 1e−4·s_1²).
func TestTransformNewDigits(t *testing.T) {
	train, test := digitsSplit()
	ctx := context.Background()
	m, err := SIsomap{K: 40}.Fit(ctx, train)
	if err != nil {
		t.Fatal(err)
	}
	sm := m.(*Model)
	yt := mat.NewDense(test.Len(), 2, nil)
	if err := sm.Transform(yt, test.X); err != nil {
		t.Fatal(err)
	}
	e := knnError(sm.Y, train.Labels, yt, test.Labels)
	p, err := linproj.PCA{}.Fit(ctx, train)
	if err != nil {
		t.Fatal(err)
	}
	pt := mat.NewDense(test.Len(), 2, nil)
	if err := p.(*linproj.PCAModel).Transform(pt, test.X); err != nil {
		t.Fatal(err)
	}
	e0 := knnError(p.Embedding(), train.Labels, pt, test.Labels)
	t.Logf("new digits' 5-NN error %.3f (σ %.3g, μ %.3g, LOO %.3g), PCA's %.3f", e, sm.Width, sm.Ridge, sm.LOO, e0)
	if !(e < e0) {
		t.Errorf("new digits' 5-NN error %.3f, PCA's %.3f", e, e0)
	}
}

// TestModelFile: a model written and read back places the new digits bit for bit as the fitted
// one, and two fits write the same bytes.
func TestModelFile(t *testing.T) {
	train, test := digitsSplit()
	fit := func() *Model {
		m, err := SIsomap{K: 40, Centers: 120, Seed: 5}.Fit(context.Background(), train)
		if err != nil {
			t.Fatal(err)
		}
		return m.(*Model)
	}
	m := fit()
	var a, b bytes.Buffer
	if err := modelio.Encode(&a, m); err != nil {
		t.Fatal(err)
	}
	if err := modelio.Encode(&b, fit()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two fits write different model files")
	}
	got, err := modelio.Decode(bytes.NewReader(a.Bytes()), "m.lowdim")
	if err != nil {
		t.Fatal(err)
	}
	y1, y2 := mat.NewDense(test.Len(), 2, nil), mat.NewDense(test.Len(), 2, nil)
	if err := m.Transform(y1, test.X); err != nil {
		t.Fatal(err)
	}
	if err := got.(*Model).Transform(y2, test.X); err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(y1, y2) {
		t.Error("the loaded model places new rows differently")
	}
}

// FuzzDecodeSIsomap: the payload decoder never panics, refuses with ErrInvalid or decodes a
// model that re-encodes to the same bytes and transforms a row. Seeds: a 30-centre fit on the
// first 300 built-in digits.
func FuzzDecodeSIsomap(f *testing.F) {
	train, _ := digitsSplit()
	m, err := SIsomap{K: 40, Centers: 30}.Fit(context.Background(), train)
	if err != nil {
		f.Fatal(err)
	}
	p, err := m.(*Model).MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	modeliotest.FuzzPayload(f, decode, version, func(t *testing.T, v any) {
		m := v.(*Model)
		_, h := m.net.centers.Dims()
		_, dim := m.Y.Dims()
		if err := m.Transform(mat.NewDense(1, dim, nil), mat.NewDense(1, h, nil)); err != nil {
			t.Fatal(err)
		}
	}, p)
}
