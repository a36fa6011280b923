package hope

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// shape fixes the sizes of a (S-)HOPE map: in input features H (the bias is an extra input
// column), f factors, m sigmoid units (0 for linear HOPE), dim output dimensions and the order.
type shape struct {
	in, f, m, dim, order int
}

// cols is the width of an input row with its trailing bias 1.
func (s shape) cols() int { return s.in + 1 }

// Offsets of the parameter blocks in the flat vector θ = [C | W | b | P]:
// C is f×(in+1), W f×m, b m, P f×dim (HOPE) or m×dim (S-HOPE); all row-major.
func (s shape) sizeC() int { return s.f * s.cols() }
func (s shape) sizeW() int { return s.f * s.m }
func (s shape) sizeB() int { return s.m }
func (s shape) rowsP() int {
	if s.m > 0 {
		return s.m
	}
	return s.f
}
func (s shape) sizeP() int { return s.rowsP() * s.dim }
func (s shape) params() int {
	return s.sizeC() + s.sizeW() + s.sizeB() + s.sizeP()
}

// blocks returns the views of θ (or of a gradient laid out like θ).
func (s shape) blocks(theta []float64) (c, w blas64.General, b []float64, p blas64.General) {
	o := 0
	c = blas64.General{Rows: s.f, Cols: s.cols(), Stride: s.cols(), Data: theta[o : o+s.sizeC()]}
	o += s.sizeC()
	w = blas64.General{Rows: s.f, Cols: s.m, Stride: max(s.m, 1), Data: theta[o : o+s.sizeW()]}
	o += s.sizeW()
	b = theta[o : o+s.sizeB()]
	o += s.sizeB()
	p = blas64.General{Rows: s.rowsP(), Cols: s.dim, Stride: s.dim, Data: theta[o : o+s.sizeP()]}
	return
}

// net holds the work buffers of forward and backward passes over up to rows input rows; all
// are allocated once.
type net struct {
	shape
	rows int
	x    []float64 // rows×(in+1): normalised inputs, last column 1
	u    []float64 // rows×f: Cx
	h    []float64 // rows×f: (Cx)^O
	s    []float64 // rows×m: σ(Wᵀh + b) (S-HOPE)
	y    []float64 // rows×dim
	gy   []float64 // rows×dim: ∂ℓ/∂y
	gs   []float64 // rows×m
	gh   []float64 // rows×f
	gx   []float64 // rows×(in+1): ∂ℓ/∂x (for exemplars)
}

func newNet(s shape, rows int) *net {
	n := &net{shape: s, rows: rows}
	n.x = make([]float64, rows*s.cols())
	n.u = make([]float64, rows*s.f)
	n.h = make([]float64, rows*s.f)
	n.s = make([]float64, rows*s.m)
	n.y = make([]float64, rows*s.dim)
	n.gy = make([]float64, rows*s.dim)
	n.gs = make([]float64, rows*s.m)
	n.gh = make([]float64, rows*s.f)
	n.gx = make([]float64, rows*s.cols())
	return n
}

func gen(r, c int, d []float64) blas64.General {
	return blas64.General{Rows: r, Cols: c, Stride: max(c, 1), Data: d[:r*c]}
}

// forward maps the first r rows of n.x to n.y with parameters θ.
func (n *net) forward(theta []float64, r int) {
	c, w, b, p := n.blocks(theta)
	u := gen(r, n.f, n.u)
	blas64.Gemm(blas.NoTrans, blas.Trans, 1, gen(r, n.cols(), n.x), c, 0, u)
	h := n.h[:r*n.f]
	powInto(h, n.u[:r*n.f], n.order)
	y := gen(r, n.dim, n.y)
	if n.m == 0 {
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, gen(r, n.f, n.h), p, 0, y)
		return
	}
	s := gen(r, n.m, n.s)
	for i := range r {
		copy(n.s[i*n.m:(i+1)*n.m], b)
	}
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, gen(r, n.f, n.h), w, 1, s)
	for i, v := range n.s[:r*n.m] {
		n.s[i] = sigmoid(v)
	}
	blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, s, p, 0, y)
}

// backward adds to grad (laid out like θ) the gradient of ℓ given ∂ℓ/∂y of the first r rows in
// n.gy, after forward on the same rows. With wantX it also writes ∂ℓ/∂x into n.gx; with
// !wantTheta it leaves grad alone (the exemplar-only step).
func (n *net) backward(theta, grad []float64, r int, wantTheta, wantX bool) {
	_, w, _, p := n.blocks(theta)
	var (
		gc, gw, gp blas64.General
		gb         []float64
	)
	if wantTheta {
		gc, gw, gb, gp = n.blocks(grad)
	}
	gy := gen(r, n.dim, n.gy)
	gh := gen(r, n.f, n.gh)
	if n.m == 0 {
		if wantTheta {
			blas64.Gemm(blas.Trans, blas.NoTrans, 1, gen(r, n.f, n.h), gy, 1, gp)
		}
		blas64.Gemm(blas.NoTrans, blas.Trans, 1, gy, p, 0, gh)
	} else {
		s := gen(r, n.m, n.s)
		if wantTheta {
			blas64.Gemm(blas.Trans, blas.NoTrans, 1, s, gy, 1, gp)
		}
		gs := gen(r, n.m, n.gs)
		blas64.Gemm(blas.NoTrans, blas.Trans, 1, gy, p, 0, gs)
		for i, v := range n.s[:r*n.m] {
			n.gs[i] *= v * (1 - v)
		}
		if wantTheta {
			blas64.Gemm(blas.Trans, blas.NoTrans, 1, gen(r, n.f, n.h), gs, 1, gw)
			for i := range r {
				row := n.gs[i*n.m : (i+1)*n.m]
				for k, v := range row {
					gb[k] += v
				}
			}
		}
		blas64.Gemm(blas.NoTrans, blas.Trans, 1, gs, w, 0, gh)
	}
	// ∂h/∂u = O·u^(O−1).
	dpowMul(n.gh[:r*n.f], n.u[:r*n.f], n.order)
	if wantTheta {
		blas64.Gemm(blas.Trans, blas.NoTrans, 1, gh, gen(r, n.cols(), n.x), 1, gc)
	}
	if wantX {
		c, _, _, _ := n.blocks(theta)
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, gh, c, 0, gen(r, n.cols(), n.gx))
	}
}

func sigmoid(v float64) float64 {
	if v >= 0 {
		return 1 / (1 + math.Exp(-v))
	}
	e := math.Exp(v)
	return e / (1 + e)
}

// powInto sets h = u^o elementwise.
func powInto(h, u []float64, o int) {
	switch o {
	case 1:
		copy(h, u)
	case 2:
		for i, v := range u {
			h[i] = v * v
		}
	case 3:
		for i, v := range u {
			h[i] = v * v * v
		}
	default:
		for i, v := range u {
			h[i] = ipow(v, o)
		}
	}
}

// dpowMul multiplies g by the derivative o·u^(o−1) elementwise.
func dpowMul(g, u []float64, o int) {
	switch o {
	case 1:
	case 2:
		for i, v := range u {
			g[i] *= 2 * v
		}
	case 3:
		for i, v := range u {
			g[i] *= 3 * v * v
		}
	default:
		for i, v := range u {
			g[i] *= float64(o) * ipow(v, o-1)
		}
	}
}

func ipow(v float64, o int) float64 {
	r := 1.0
	for o > 0 {
		if o&1 == 1 {
			r *= v
		}
		v *= v
		o >>= 1
	}
	return r
}
