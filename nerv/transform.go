package nerv

import (
	"context"
	"math"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/affinity"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/internal/blas"
	"github.com/lowdim/lowdim/linproj"
	"github.com/lowdim/lowdim/modelio"
	"github.com/lowdim/lowdim/neighbors"
)

// Map is a t-SNE or t-NeRV embedding fitted on the approximate path from feature rows: besides
// the Result it keeps what is needed to place new rows into the fixed map (openTSNE's
// "transform"): the training rows in the space their neighbours were searched in (the principal
// components, when the rows were reduced), the PCA that maps new rows there, and the settings.
//
// A new row x is placed alone against the training layout Y, which does not move. Its
// neighbourhood is the conditional p_j|x over its K nearest training rows, calibrated to the
// map's perplexity as the training rows' were; its position y minimises
//
//	C(y) = Σ_j p_j|x log(p_j|x / q_j|y),  q_j|y = u_j / Z,  u_j = (1 + ‖y − y_j‖²)⁻¹,  Z = Σ_l u_l,
//	∇C = 2 [Σ_j p_j|x u_j (y − y_j) − (1/Z) Σ_l u_l² (y − y_l)],
//
// the training rows' own recall term with the sum over l from the Barnes–Hut tree of Y. For
// t-NeRV the precision term is left out: pricing a new row's false neighbours needs their input
// probabilities, which would need a search of the whole training set per step; the recall term
// alone places a row among the training rows it resembles, which is what a fixed map can show.
// The start is the p-weighted mean of the neighbours' positions; gradient descent with momentum
// and gains (as in the fit) runs TransformIterations steps with step size transformRate.
type Map struct {
	*Result
	variant    Variant
	lambda     float64
	perplexity float64
	k          int     // neighbours of a new row among the training rows
	theta      float64 // Barnes–Hut θ of the repulsion sums
	mean       float64 // mean input distance of the search space (σ² live on the scale 1/mean²)
	pca        *linproj.PCAModel
	ref        *mat.Dense // training rows in the search space, n×h
	// Perplexity is the effective number of neighbours of a new row; 0 means
	// DefaultTransformPerplexity.
	Perplexity float64
	// Workers is the number of goroutines Transform uses; 0 means runtime.NumCPU().
	Workers int
}

// DefaultTransformPerplexity is the new rows' perplexity (openTSNE's default for transform too):
// a new row is placed by its few nearest training rows rather than by the fit's 30. Measured
// (map of the first 10,000 MNIST training digits, perplexity 30; the 10,000 test digits
// placed; 5-NN error of the placed rows against the training map): perplexity 30 6.7 %, 10 6.1 %,
// 5 6.0 %; the training rows' own leave-one-out error is 4.4 %.
const DefaultTransformPerplexity = 5

var (
	_ lowdim.Transformer = (*Map)(nil)
	_ modelio.Model      = (*Map)(nil)
)

// TransformIterations is the number of gradient steps that place a new row: from the mean of its
// neighbours the cost of a row settles within about a hundred.
const TransformIterations = 250

// transformRate is the step size of Transform. The fit's rate n/12 on the joint p_ij ≈ p_j|i/n
// is a step of about 1/12 of the conditional gradient's attraction-weighted distance, doubled by
// the joint gradient's factor 4 against 2 here: 1/6; a little below it the descent does not
// overshoot when a row's neighbours lie in two clusters.
const transformRate = 0.1

// Transform places the rows of x (m×H, the training rows' columns) into the map and writes their
// coordinates to dst (m×Dim, or empty to be resized).
func (m *Map) Transform(dst *mat.Dense, x mat.Matrix) error {
	return m.TransformContext(context.Background(), dst, x)
}

// TransformContext is Transform with cancellation.
func (m *Map) TransformContext(ctx context.Context, dst *mat.Dense, x mat.Matrix) error {
	if dst == nil || x == nil {
		return dataset.Invalidf("transform: nil matrix")
	}
	r, c := x.Dims()
	n, dim := m.Y.Dims()
	h := c
	if m.pca != nil {
		h, _ = m.pca.Components.Dims()
	} else {
		_, h = m.ref.Dims()
	}
	if c != h {
		return dataset.Invalidf("transform: the rows have %d columns, the map was fitted on %d", c, h)
	}
	if r == 0 {
		return dataset.Invalidf("transform: no rows")
	}
	for i := range r {
		for j := range c {
			if v := x.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return dataset.Invalidf("transform: row %d, column %d: expected a finite number, found %v", i+1, j+1, v)
			}
		}
	}
	if dst.IsEmpty() {
		dst.ReuseAs(r, dim)
	} else if dr, dc := dst.Dims(); dr != r || dc != dim {
		return dataset.Invalidf("transform: dst is %d×%d, want %d×%d", dr, dc, r, dim)
	}
	z := mat.DenseCopyOf(x)
	if m.pca != nil {
		var p mat.Dense
		if err := m.pca.Transform(&p, x); err != nil {
			return err
		}
		z = &p
	}
	y := make([]float64, n*dim)
	for i := range n {
		copy(y[i*dim:], m.Y.RawRowView(i))
	}
	tree := newSPTree(dim, n, m.theta)
	tree.build(y)
	k := min(m.k, n)
	workers := m.Workers
	if workers <= 0 {
		workers = neighbors.Workers(neighbors.Options{})
	}
	refSq := rowNorms(m.ref)
	perp := m.Perplexity
	if perp == 0 {
		perp = DefaultTransformPerplexity
	}
	if !(perp > 1) || perp >= float64(k) {
		return dataset.Invalidf("transform: perplexity %g: expected more than 1 and fewer than the %d neighbours", perp, k)
	}
	scale := 1 / (m.mean * m.mean)
	const block = 64
	var next int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			prod := make([]float64, block*n)
			var top neighbors.TopK
			idx, d2 := make([]int32, k), make([]float64, k)
			a, p := make([]float64, k), make([]float64, k)
			var stack []int32
			for {
				mu.Lock()
				lo := next
				next += block
				mu.Unlock()
				if lo >= r || ctx.Err() != nil {
					return
				}
				hi := min(lo+block, r)
				zb := z.Slice(lo, hi, 0, z.RawMatrix().Cols).(*mat.Dense)
				m.products(prod, zb)
				for q := lo; q < hi; q++ {
					zq := z.RawRowView(q)
					qs := dot(zq, zq)
					row := prod[(q-lo)*n : (q-lo+1)*n]
					top.Reset(k)
					for j, v := range row {
						top.Push(math.Max(qs+refSq[j]-2*v, 0), int32(j))
					}
					top.Sorted(idx, d2)
					// The products lose digits when ‖z‖ ≫ the distance: recompute the kept ones.
					for t, j := range idx {
						d2[t] = dist2(zq, m.ref.RawRowView(int(j)))
					}
					neighbors.SortPairs(d2, idx)
					for t, v := range d2 {
						a[t] = v * scale
					}
					s2 := sigma2(a, perp, affinity.Exact)
					amin := affinity.Min(a)
					var zs float64
					for t, v := range a {
						p[t] = math.Exp(-math.Min((v-amin)/s2, affinity.MaxExp))
						zs += p[t]
					}
					for t := range p {
						p[t] /= zs
					}
					stack = m.place(dst.RawRowView(q), tree, y, idx, p, stack)
				}
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// products writes the inner products of the rows of zb with every training row to prod.
func (m *Map) products(prod []float64, zb *mat.Dense) {
	rb, h := zb.Dims()
	n, _ := m.ref.Dims()
	zr, rr := zb.RawMatrix(), m.ref.RawMatrix()
	blas.DgemmNT(rb, n, h, 1, zr.Data, zr.Stride, rr.Data, rr.Stride, 0, prod, n)
}

// place optimises one new row's position (see Map) and writes it to out.
func (m *Map) place(out []float64, tree *spTree, y []float64, idx []int32, p []float64, stack []int32) []int32 {
	dim := tree.dim
	var pos, upd, gains, g [3]float64
	for t, j := range idx {
		for d := range dim {
			pos[d] += p[t] * y[int(j)*dim+d]
		}
	}
	for d := range dim {
		gains[d] = 1
	}
	var s tSums
	for it := range TransformIterations {
		stack = tree.studentQuery(pos[:dim], -1, false, stack, &s)
		for d := range dim {
			g[d] = -s.r[d] / s.z
		}
		for t, j := range idx {
			yj := y[int(j)*dim : int(j+1)*dim]
			var e float64
			for d := range dim {
				v := pos[d] - yj[d]
				e += v * v
			}
			c := p[t] / (1 + e)
			for d := range dim {
				g[d] += c * (pos[d] - yj[d])
			}
		}
		mom := momentumEarly
		if it >= 20 {
			mom = momentumLate
		}
		for d := range dim {
			gd := 2 * g[d]
			if (gd > 0) != (upd[d] > 0) {
				gains[d] += 0.2
			} else {
				gains[d] = math.Max(gains[d]*0.8, minGain)
			}
			upd[d] = mom*upd[d] - transformRate*gains[d]*gd
			pos[d] += upd[d]
		}
	}
	copy(out, pos[:dim])
	return stack
}

func rowNorms(x *mat.Dense) []float64 {
	n, _ := x.Dims()
	s := make([]float64, n)
	for i := range n {
		r := x.RawRowView(i)
		s[i] = dot(r, r)
	}
	return s
}

func dot(a, b []float64) float64 {
	var s float64
	for k, v := range a {
		s += v * b[k]
	}
	return s
}

// mapKind is the modelio kind of Map; mapVersion its payload layout version.
const (
	mapKind    = "nerv-map"
	mapVersion = 1
)

func init() { modelio.Register(mapKind, mapVersion, decodeMap) }

// ModelKind returns "nerv-map".
func (m *Map) ModelKind() string { return mapKind }

// MarshalBinary encodes the map: settings, PCA (if any), training rows in the search space and
// the training layout.
func (m *Map) MarshalBinary() ([]byte, error) {
	var e modelio.Encoder
	e.Int(int(m.variant))
	for _, v := range []float64{m.lambda, m.perplexity, m.theta, m.mean, m.Cost, m.Precision, m.Recall} {
		e.Float64(v)
	}
	e.Int(m.k)
	if m.pca != nil {
		e.Int(1)
		e.Float64s(m.pca.Mean)
		e.Dense(m.pca.Components)
	} else {
		e.Int(0)
	}
	e.Dense(m.ref)
	e.Dense(m.Y)
	return e.Bytes(), nil
}

func decodeMap(_ uint16, payload []byte) (any, error) {
	d := modelio.NewDecoder(payload)
	m := &Map{Result: &Result{}}
	m.variant = Variant(d.Int())
	vals := []*float64{&m.lambda, &m.perplexity, &m.theta, &m.mean, &m.Cost, &m.Precision, &m.Recall}
	for _, v := range vals {
		*v = d.Float64()
	}
	m.k = d.Int()
	hasPCA := d.Int()
	if hasPCA == 1 {
		m.pca = &linproj.PCAModel{Mean: d.Float64s(), Components: d.Dense()}
	}
	m.ref = d.Dense()
	m.Y = d.Dense()
	if err := d.Finish(); err != nil {
		return nil, err
	}
	bad := func(format string, args ...any) error {
		return dataset.Invalidf("nerv-map payload: "+format, args...)
	}
	switch {
	case m.variant != StudentT:
		return nil, bad("variant %d: only Student-t maps (t-SNE, t-NeRV) place new rows", m.variant)
	case hasPCA != 0 && hasPCA != 1:
		return nil, bad("PCA flag %d, expected 0 or 1", hasPCA)
	case m.ref == nil || m.Y == nil:
		return nil, bad("no training rows or no layout")
	}
	for _, v := range vals[:4] {
		if math.IsNaN(*v) || math.IsInf(*v, 0) {
			return nil, bad("non-finite setting %v", *v)
		}
	}
	n, h := m.ref.Dims()
	ny, dim := m.Y.Dims()
	switch {
	case !(m.lambda >= 0 && m.lambda <= 1):
		return nil, bad("λ = %g outside [0, 1]", m.lambda)
	case ny != n:
		return nil, bad("%d training rows but a layout of %d", n, ny)
	case dim < 1 || dim > 3:
		return nil, bad("layout dimension %d, expected 1 to 3", dim)
	case !(m.perplexity > 1) || m.k <= int(m.perplexity) || m.k > n:
		return nil, bad("%g effective neighbours with %d neighbours per row among %d rows", m.perplexity, m.k, n)
	case !(m.mean > 0) || m.theta < 0:
		return nil, bad("mean distance %g, θ %g", m.mean, m.theta)
	}
	if m.pca != nil {
		if m.pca.Components == nil {
			return nil, bad("PCA without components")
		}
		ph, pd := m.pca.Components.Dims()
		if len(m.pca.Mean) != ph || pd != h {
			return nil, bad("PCA of %d means and %d×%d components for %d-column rows", len(m.pca.Mean), ph, pd, h)
		}
	}
	all := [][]float64{m.ref.RawMatrix().Data, m.Y.RawMatrix().Data}
	if m.pca != nil {
		all = append(all, m.pca.Mean, m.pca.Components.RawMatrix().Data)
	}
	for _, s := range all {
		for _, v := range s {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, bad("non-finite value %v", v)
			}
		}
	}
	return m, nil
}
