package mre

import (
	"context"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// objective evaluates E and its gradient at x = (y_1, …, y_n, r²) (row-major latent points,
// then the class relation's scales). It keeps the last point's value and gradient, since
// gonum/optimize asks for them separately.
//
// The feature relation's P¹ enters only through S = P¹ + P¹ᵀ: because d_ij = d_ji,
// Σ_ij P¹_ij d_ij = ½ Σ_ij S_ij d_ij, and the gradient needs P¹_ij + P¹_ji; so S replaces P¹
// in memory and every pass reads rows only.
type objective struct {
	s       *mat.Dense // P¹ + P¹ᵀ
	c1      float64    // Σ_ij P¹_ij log P¹_ij
	labels  []int      // class of each row in the class relation, −1 outside it; nil: no relation
	size    []float64  // n_c − 1 for the class of each row in the relation
	c2      float64    // Σ_i Σ_j P²_ij log P²_ij over the rows in the relation
	w       float64
	n, dim  int
	workers int

	x, grad           []float64
	f                 float64
	err               error
	logZ1, logZ2      []float64
	invZ1, invZ2      []float64 // exp(−log Z): pass 2's q_ij = exp(−d_ij)·invZ_i when nothing overflows
	rowCost, rowScale []float64 // per row: cost terms; class-scale gradient terms (n×dim)
	// e1 and e2 hold exp(−d¹_ij) and exp(−d²_ij) at the current point, n×n with both
	// triangles (e2 only between rows in the class relation): each pair's two exponentials
	// once, where the passes would take eight. d_ij = d_ji to the bit ((−t)² = t²), so the
	// stored values are those the passes computed before, and E and its gradient are
	// unchanged to the bit.
	e1, e2 []float64
	ones   []float64 // dim ones: rowSq's weights for the feature relation
	// general turns off the 2-D loops (rowSq, pass2Row2), for the test that they agree with
	// the general ones to the bit.
	general bool
}

// newObjective takes over p (P¹, overwritten by S).
func newObjective(p *mat.Dense, labels []int, w float64, dim, workers int) *objective {
	n, _ := p.Dims()
	o := &objective{s: p, labels: labels, w: w, n: n, dim: dim, workers: workers,
		grad: make([]float64, n*dim+dim), logZ1: make([]float64, n), logZ2: make([]float64, n),
		invZ1: make([]float64, n), invZ2: make([]float64, n),
		rowCost: make([]float64, n), rowScale: make([]float64, n*dim), e1: make([]float64, n*n),
		ones: make([]float64, dim)}
	for a := range o.ones {
		o.ones[a] = 1
	}
	if labels != nil {
		o.e2 = make([]float64, n*n)
	}
	for i := range n {
		for _, v := range p.RawRowView(i) {
			if v > 0 {
				o.c1 += v * math.Log(v)
			}
		}
	}
	for i := range n {
		for j := i + 1; j < n; j++ {
			v := p.At(i, j) + p.At(j, i)
			p.Set(i, j, v)
			p.Set(j, i, v)
		}
	}
	if labels != nil {
		count := map[int]int{}
		for _, l := range labels {
			if l >= 0 {
				count[l]++
			}
		}
		o.size = make([]float64, n)
		for i, l := range labels {
			if l >= 0 {
				o.size[i] = float64(count[l] - 1)
				o.c2 -= math.Log(o.size[i])
			}
		}
	}
	return o
}

// cost returns E at x and leaves its gradient in o.grad.
func (o *objective) cost(ctx context.Context, x []float64) (float64, error) {
	if o.x != nil && slices.Equal(o.x, x) {
		return o.f, o.err
	}
	o.x = append(o.x[:0], x...)
	o.f, o.err = o.eval(ctx, x)
	return o.f, o.err
}

func (o *objective) eval(ctx context.Context, x []float64) (float64, error) {
	n, dim := o.n, o.dim
	y, r := x[:n*dim], x[n*dim:]
	r2 := make([]float64, dim)
	for a, v := range r {
		r2[a] = v * v
	}
	// Pass 0: the kernels, each pair (i, j > i) once, in tiles of the blocks of rows that
	// parallel hands out (the tile and its mirror image written a row at a time); the values
	// do not depend on the workers.
	in2 := func(i int) bool { return o.labels != nil && o.labels[i] >= 0 }
	err := parallel(ctx, n, o.workers, func(lo, hi int) {
		var t1, t2 [tile * tile]float64
		for jlo := lo; jlo < n; jlo += tile {
			jhi := min(jlo+tile, n)
			w := jhi - jlo
			for i := lo; i < hi; i++ {
				yi := y[i*dim : i*dim+dim]
				both := in2(i)
				for j := max(jlo, i+1); j < jhi; j++ {
					var d1, d2 float64
					for a, v := range yi {
						t := v - y[j*dim+a]
						d1 += t * t
						d2 += r2[a] * t * t
					}
					t1[(i-lo)*w+j-jlo] = expOrZero(-d1)
					if both && in2(j) {
						t2[(i-lo)*w+j-jlo] = expOrZero(-d2)
					}
				}
			}
			// Row i of the tile holds j ≥ max(jlo, i+1): copy those, and mirror them.
			put := func(e []float64, t *[tile * tile]float64) {
				for i := lo; i < hi; i++ {
					for j := max(jlo, i+1); j < jhi; j++ {
						e[i*n+j] = t[(i-lo)*w+j-jlo]
					}
				}
				for j := jlo; j < jhi; j++ {
					for i := lo; i < min(hi, j); i++ {
						e[j*n+i] = t[(i-lo)*w+j-jlo]
					}
				}
			}
			put(o.e1, &t1)
			if o.e2 != nil {
				put(o.e2, &t2)
			}
		}
	})
	if err != nil {
		return 0, err
	}
	// Pass 1: the normalisers log Z_i of both relations and each row's cost terms.
	err = parallel(ctx, n, o.workers, func(lo, hi int) {
		d := make([]float64, n)
		for i := lo; i < hi; i++ {
			srow := o.s.RawRowView(i)
			o.rowSq(i, y, nil, d)
			var half float64
			for j, s := range d {
				half += srow[j] * s
			}
			o.logZ1[i] = logSumExpNeg(d, o.e1[i*n:i*n+n], i, nil, -1)
			o.rowCost[i] = half/2 + o.logZ1[i]
			if o.labels == nil || o.labels[i] < 0 {
				continue
			}
			ci := o.labels[i]
			o.rowSq(i, y, r2, d)
			var same float64
			for j, s := range d {
				if j != i && o.labels[j] == ci {
					same += s
				}
			}
			o.logZ2[i] = logSumExpNeg(d, o.e2[i*n:i*n+n], i, o.labels, 0)
			o.rowCost[i] += o.w * (same/o.size[i] + o.logZ2[i])
		}
	})
	if err != nil {
		return 0, err
	}
	for i := range n {
		o.invZ1[i], o.invZ2[i] = math.Exp(-o.logZ1[i]), math.Exp(-o.logZ2[i])
	}
	// Pass 2: each row's gradient, from its own and its neighbours' normalisers.
	g := o.grad
	err = parallel(ctx, n, o.workers, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if dim == 2 && !o.general {
				o.pass2Row2(i, y, r2)
				continue
			}
			yi := y[i*dim : i*dim+dim]
			gi := g[i*dim : i*dim+dim]
			clear(gi)
			rs := o.rowScale[i*dim : i*dim+dim]
			clear(rs)
			srow := o.s.RawRowView(i)
			e1, e2 := o.e1[i*n:i*n+n], o.e2
			in2 := o.labels != nil && o.labels[i] >= 0
			if in2 {
				e2 = e2[i*n : i*n+n]
			}
			for j := range n {
				if j == i {
					continue
				}
				var d1, d2 float64
				for a, v := range yi {
					t := v - y[j*dim+a]
					d1 += t * t
					d2 += r2[a] * t * t
				}
				qij, qji := qPair(e1[j], d1, o.logZ1[i], o.logZ1[j], o.invZ1[i], o.invZ1[j])
				c := 2 * (srow[j] - qij - qji)
				var c2, own float64
				if in2 && o.labels[j] >= 0 {
					var p float64
					if o.labels[j] == o.labels[i] {
						p = 1 / o.size[i]
					}
					qij, qji := qPair(e2[j], d2, o.logZ2[i], o.logZ2[j], o.invZ2[i], o.invZ2[j])
					c2 = 2 * o.w * (2*p - qij - qji)
					own = 2 * o.w * (p - qij)
				}
				for a, v := range yi {
					t := v - y[j*dim+a]
					gi[a] += (c + c2*r2[a]) * t
					rs[a] += own * t * t
				}
			}
		}
	})
	if err != nil {
		return 0, err
	}
	f := o.c1
	if o.labels != nil {
		f += o.w * o.c2
	}
	gr := g[n*dim:]
	clear(gr)
	for i := range n {
		f += o.rowCost[i]
		for a := range dim {
			gr[a] += o.rowScale[i*dim+a]
		}
	}
	for a := range dim {
		gr[a] *= r[a]
	}
	return f, nil
}

// rowSq writes row i's squared latent distances d_j = Σ_a w_a (y_ia − y_ja)² into d (w nil: all
// weights 1). In 2-D the coordinates stay in registers; each d_j is computed by the same
// operations in the same order as the general loop (0 + t₀² = t₀² exactly; Go fuses no
// multiply–add on amd64 before GOAMD64=v3), so E is unchanged to the bit
// (TestTwoDimLoopsSameBits).
func (o *objective) rowSq(i int, y, w, d []float64) {
	n, dim := o.n, o.dim
	d = d[:n]
	if dim == 2 && !o.general {
		y = y[:2*n]
		yi0, yi1 := y[2*i], y[2*i+1]
		if w == nil {
			for j := range d {
				t0, t1 := yi0-y[2*j], yi1-y[2*j+1]
				d[j] = t0*t0 + t1*t1
			}
			return
		}
		w0, w1 := w[0], w[1]
		for j := range d {
			t0, t1 := yi0-y[2*j], yi1-y[2*j+1]
			d[j] = w0*t0*t0 + w1*t1*t1
		}
		return
	}
	if w == nil {
		w = o.ones // (1·t)·t = t·t exactly: the unweighted sum, without a branch per term
	}
	yi := y[i*dim : i*dim+dim]
	for j := range d {
		var s float64
		for a, v := range yi {
			t := v - y[j*dim+a]
			s += w[a] * t * t
		}
		d[j] = s
	}
}

// pass2Row2 is pass 2 for row i of a 2-D layout: the general loop with the coordinates, the
// gradient and the class-scale terms in registers, the same operations in the same order (see
// rowSq).
func (o *objective) pass2Row2(i int, y, r2 []float64) {
	n := o.n
	y = y[:2*n]
	yi0, yi1 := y[2*i], y[2*i+1]
	r20, r21 := r2[0], r2[1]
	srow := o.s.RawRowView(i)[:n]
	e1 := o.e1[i*n : i*n+n]
	lz1, iz1 := o.logZ1[:n], o.invZ1[:n]
	lzi1, izi1 := lz1[i], iz1[i]
	var g0, g1, rs0, rs1 float64
	in2 := o.labels != nil && o.labels[i] >= 0
	var (
		e2, lz2, iz2      []float64
		labels            []int
		lzi2, izi2, pSame float64
		li                int
	)
	if in2 {
		e2, labels = o.e2[i*n:i*n+n], o.labels[:n]
		lz2, iz2 = o.logZ2[:n], o.invZ2[:n]
		lzi2, izi2, li = lz2[i], iz2[i], labels[i]
		pSame = 1 / o.size[i]
	}
	w2 := 2 * o.w
	for j := range e1 {
		if j == i {
			continue
		}
		t0, t1 := yi0-y[2*j], yi1-y[2*j+1]
		d1 := t0*t0 + t1*t1
		qij, qji := qPair(e1[j], d1, lzi1, lz1[j], izi1, iz1[j])
		c := 2 * (srow[j] - qij - qji)
		var c2, own float64
		if in2 {
			if lj := labels[j]; lj >= 0 {
				var p float64
				if lj == li {
					p = pSame
				}
				d2 := r20*t0*t0 + r21*t1*t1
				qij, qji := qPair(e2[j], d2, lzi2, lz2[j], izi2, iz2[j])
				c2 = w2 * (2*p - qij - qji)
				own = w2 * (p - qij)
			}
		}
		g0 += (c + c2*r20) * t0
		g1 += (c + c2*r21) * t1
		rs0 += own * t0 * t0
		rs1 += own * t1 * t1
	}
	o.grad[2*i], o.grad[2*i+1] = g0, g1
	o.rowScale[2*i], o.rowScale[2*i+1] = rs0, rs1
}

// qPair returns q_ij = exp(−d − log Z_i) and q_ji = exp(−d − log Z_j), given e = exp(−d): one
// stored exponential serves both when neither it nor exp(−log Z) leaves the range of float64
// (log Z ≥ −m, m the row's smallest d, so that holds unless a row's nearest neighbour is more
// than about 26 kernel widths away); otherwise each is computed apart.
func qPair(e, d, lzi, lzj, izi, izj float64) (qij, qji float64) {
	if d < 700 && lzi > -700 && lzj > -700 {
		return e * izi, e * izj
	}
	return expOrZero(-d - lzi), expOrZero(-d - lzj)
}

// expOrZero is math.Exp(x), without the call below −746, where it is 0 (math.Exp returns 0
// below −745.13): once the class scales have grown, most pairs of different classes are
// there, and the call was most of the gradient pass.
func expOrZero(x float64) float64 {
	if x < -746 {
		return 0
	}
	return math.Exp(x)
}

// logSumExpNeg returns log Σ_{j≠i} exp(−d_j), over the j with labels[j] ≥ from when labels
// is not nil. It sums e_j = exp(−d_j) directly when the smallest d_j is below 700 (no
// underflow of the largest term) and shifts by the smallest d_j otherwise.
func logSumExpNeg(d, e []float64, i int, labels []int, from int) float64 {
	var z float64
	m := math.Inf(1)
	for j, v := range d {
		if v < m && j != i && (labels == nil || labels[j] >= from) {
			m = v
		}
	}
	if m < 700 {
		for j, v := range e {
			if j != i && (labels == nil || labels[j] >= from) {
				z += v
			}
		}
		return math.Log(z)
	}
	shift := m
	for j, v := range d {
		if j != i && (labels == nil || labels[j] >= from) {
			z += math.Exp(shift - v)
		}
	}
	return -shift + math.Log(z)
}
