package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"sort"

	"gonum.org/v1/gonum/mat"

	"lowdim/affinity"
	"lowdim/dataset"
	"lowdim/linproj"
)

const dblMin = 0x1p-1022

func search(f func(float64) float64) float64 {
	const (
		grow   = 2.0
		golden = 0.61803399
		width  = 1e-2
		maxIt  = 40
	)
	at := func(x float64) float64 { return f(dblMin + x) }
	a, b, c := 0.0, 1.0, 0.0
	fa := at(a)
	fb := at(b)
	var best, fc float64
	it := 0
	if fa < fb {
		c, best, fc = b, fa, fb
		step := b / grow
		var fx float64
		for {
			it++
			b = step
			step /= grow
			fx = at(b)
			if !(fx > fa && it < maxIt) {
				break
			}
		}
		if fx < best {
			best = fx
		} else {
			b = 0x1p-52
		}
		fb = fx
	} else {
		best = fb
		step := b * grow
		var fx float64
		for {
			it++
			c = step
			step *= grow
			fx = at(c)
			if !(fx < best && it < maxIt) {
				break
			}
		}
		if it == maxIt && fx < fb {
			fc = fb
			c = b
			b = (a + c) / 2
		} else {
			fc = fx
		}
	}
	if fa < fc && fa < fb {
		return dblMin
	}
	tol := width
	if c < width {
		tol = width * c
	}
	for it = 0; c-a > tol && it < maxIt; it++ {
		if c-b > b-a {
			x := b + golden*(c-b)
			if fx := at(x); fx < best {
				a, fa = b, best
				b, best = x, fx
			} else {
				c, fc = x, fx
			}
		} else {
			x := a + golden*(b-a)
			if fx := at(x); fx < best {
				c, fc = b, best
				b, best = x, fx
			} else {
				a, fa = x, fc
			}
		}
	}
	mid := (a + c) / 2
	fm := at(mid)
	if fa < fc {
		if fm > fa {
			return dblMin + a
		}
	} else if fm > fc {
		return dblMin + c
	}
	return dblMin + mid
}

func load(dir string, n int) (*mat.Dense, []int) {
	var rows [][]float64
	var labels []int
	for _, part := range []string{"train", "t10k"} {
		s, err := dataset.LoadIDX(filepath.Join(dir, part+"-images-idx3-ubyte.gz"), filepath.Join(dir, part+"-labels-idx1-ubyte.gz"))
		if err != nil {
			panic(err)
		}
		r, _ := s.X.Dims()
		for i := 0; i < r && len(rows) < n; i++ {
			rows = append(rows, s.X.RawRowView(i))
			labels = append(labels, s.Labels[i])
		}
	}
	x := mat.NewDense(n, 784, nil)
	for i, r := range rows {
		x.SetRow(i, r)
	}
	return x, labels
}

func row(x *mat.Dense, i int, d []float64) {
	n, _ := x.Dims()
	xi := x.RawRowView(i)
	for j := 0; j < n; j++ {
		xj := x.RawRowView(j)
		var s float64
		for k, v := range xi {
			t := v - xj[k]
			s += t * t
		}
		d[j] = s
	}
}

func main() {
	n := 70000
	x, labels := load("../shared/data/mnist", n)
	m, err := linproj.PCA{Dim: 2}.Fit(context.Background(), &dataset.Set{X: x, Labels: labels})
	if err != nil {
		panic(err)
	}
	y := m.Embedding()
	rng := rand.New(rand.NewPCG(1, 2))
	d := make([]float64, n)
	dy := make([]float64, n)
	var sx, sy float64
	samp := 100
	for s := 0; s < samp; s++ {
		i := rng.IntN(n)
		row(x, i, d)
		row(y, i, dy)
		for j := range d {
			sx += math.Sqrt(d[j])
			sy += math.Sqrt(dy[j])
		}
	}
	mx := sx / float64(samp*(n-1))
	my := sy / float64(samp*(n-1))
	fmt.Println("meanX", mx, "meanY", my)
	scx, scy := 1/(mx*mx), 1/(my*my)
	a := make([]float64, 0, n)
	b := make([]float64, 0, n)
	for s := 0; s < 12; s++ {
		i := rng.IntN(n)
		row(x, i, d)
		row(y, i, dy)
		a, b = a[:0], b[:0]
		for j := range d {
			if j != i {
				a = append(a, d[j]*scx)
				b = append(b, dy[j]*scy)
			}
		}
		amin := affinity.Min(a)
		var evals []float64
		s2 := search(func(s2 float64) float64 {
			evals = append(evals, s2)
			if s2 <= 0 {
				return math.MaxFloat64
			}
			return math.Abs(affinity.EntropyBits(a, amin, s2) - math.Log2(20))
		})
		s2 = math.Max(s2, 1e-10)
		sa := append([]float64(nil), a...)
		sort.Float64s(sa)
		cnt := func(lim float64) int { return sort.SearchFloat64s(sa, lim) }
		bmin := affinity.Min(b)
		cb := 0
		for _, v := range b {
			if (v-bmin)/s2 <= 60 {
				cb++
			}
		}
		fmt.Printf("row %d: s2=%.5g amin=%.4g a20=%.4g med=%.4g  n60=%d n450=%d outSig=%d evals=%d\n", i, s2, amin, sa[19], sa[len(sa)/2], cnt(amin+60*s2), cnt(450*s2), cb, len(evals))
		fmt.Printf("   evals %.4g\n", evals)
	}
}
