package hope

import (
	"math"

	"gonum.org/v1/gonum/blas/blas64"

	iblas "github.com/lowdim/lowdim/internal/blas"
	"github.com/lowdim/lowdim/internal/minibatch"
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
// are allocated once. Every large product is C = A·Bᵀ of row-major blocks (internal/blas
// DgemmNT: AVX-512 assembly or gonum's Dgemm, OpenBLAS with -tags openblas), with transposed copies made
// where the natural product has another form; the products with the D output columns are plain
// loops.
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

	// transposed copies: Wᵀ (m×f), Cᵀ (cols×f), hᵀ (f×rows), gsᵀ (m×rows), ghᵀ (f×rows),
	// xᵀ (cols×rows)
	wt, ct, ht, gst, ght, xt []float64

	pool *minibatch.Pool // splits the products' rows (OpenBLAS runs single-threaded); nil: one call
	g    gemmArgs
	job  func(int)
}

// gemmArgs are the operands of the product being split over the pool.
type gemmArgs struct {
	m, n, k       int
	a, b, c       []float64
	lda, ldb, ldc int
	beta          float64
}

func newNet(s shape, rows int, p *minibatch.Pool) *net {
	n := &net{shape: s, rows: rows, pool: p}
	n.x = make([]float64, rows*s.cols())
	n.u = make([]float64, rows*s.f)
	n.h = make([]float64, rows*s.f)
	n.s = make([]float64, rows*s.m)
	n.y = make([]float64, rows*s.dim)
	n.gy = make([]float64, rows*s.dim)
	n.gs = make([]float64, rows*s.m)
	n.gh = make([]float64, rows*s.f)
	n.gx = make([]float64, rows*s.cols())
	n.wt = make([]float64, s.m*s.f)
	n.ct = make([]float64, s.cols()*s.f)
	n.ht = make([]float64, s.f*rows)
	n.gst = make([]float64, s.m*rows)
	n.ght = make([]float64, s.f*rows)
	n.xt = make([]float64, s.cols()*rows)
	n.job = n.gemmBlock
	return n
}

// splitProducts is true when each product should be split over the pool's workers by rows of
// C: OpenBLAS and the assembly kernel run on one thread, while gonum's Dgemm spreads its blocks
// over the cores itself.
var splitProducts = !iblas.Threaded

// nblocks is the number of row blocks a product is split into (the cost's passes use
// tcollapse.Blocks).
const nblocks = 16

// gemm sets C = A·Bᵀ + beta·C for row-major A (m×k), B (n×k), C (m×n).
func (n *net) gemm(m, nn, k int, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	// The split does not depend on the number of workers, so neither do the bytes.
	if !splitProducts || n.pool == nil || m < 2*nblocks {
		iblas.DgemmNT(m, nn, k, 1, a, lda, b, ldb, beta, c, ldc)
		return
	}
	n.g = gemmArgs{m: m, n: nn, k: k, a: a, b: b, c: c, lda: lda, ldb: ldb, ldc: ldc, beta: beta}
	n.pool.Run(nblocks, n.job)
}

func (n *net) gemmBlock(blk int) {
	g := &n.g
	lo, hi := minibatch.Span(blk, nblocks, g.m)
	if hi > lo {
		iblas.DgemmNT(hi-lo, g.n, g.k, 1, g.a[lo*g.lda:], g.lda, g.b, g.ldb, g.beta, g.c[lo*g.ldc:], g.ldc)
	}
}

// forward maps the first r rows of n.x to n.y with parameters θ.
func (n *net) forward(theta []float64, r int) {
	c, w, b, p := n.blocks(theta)
	f, cols, d := n.f, n.cols(), n.dim
	n.gemm(r, f, cols, n.x, cols, c.Data, cols, 0, n.u, f)
	powInto(n.h[:r*f], n.u[:r*f], n.order)
	if n.m == 0 {
		rowsTimes(n.y, n.h, p.Data, r, f, d)
		return
	}
	m := n.m
	iblas.Transpose(n.wt, w.Data, f, m)
	for i := range r {
		copy(n.s[i*m:(i+1)*m], b)
	}
	n.gemm(r, m, f, n.h, f, n.wt, f, 1, n.s, m)
	for i, v := range n.s[:r*m] {
		n.s[i] = sigmoid(v)
	}
	rowsTimes(n.y, n.s, p.Data, r, m, d)
}

// rowsTimes sets y (r×d) = a (r×k) · p (k×d) for small d.
func rowsTimes(y, a, p []float64, r, k, d int) {
	for i := range r {
		yi := y[i*d : i*d+d]
		clear(yi)
		for j, v := range a[i*k : i*k+k] {
			pj := p[j*d : j*d+d]
			for c := range yi {
				yi[c] += v * pj[c]
			}
		}
	}
}

// timesT sets g (r×k) = gy (r×d) · pᵀ for p (k×d) and small d.
func timesT(g, gy, p []float64, r, k, d int) {
	for i := range r {
		gyi := gy[i*d : i*d+d]
		gi := g[i*k : i*k+k]
		for j := range gi {
			pj := p[j*d : j*d+d]
			var s float64
			for c, v := range gyi {
				s += v * pj[c]
			}
			gi[j] = s
		}
	}
}

// addTTimes adds aᵀ (k×r) · gy (r×d) to gp (k×d) for small d.
func addTTimes(gp, a, gy []float64, r, k, d int) {
	for i := range r {
		gyi := gy[i*d : i*d+d]
		for j, v := range a[i*k : i*k+k] {
			gpj := gp[j*d : j*d+d]
			for c, g := range gyi {
				gpj[c] += v * g
			}
		}
	}
}

// backward adds to grad (laid out like θ) the gradient of ℓ given ∂ℓ/∂y of the first r rows in
// n.gy, after forward on the same rows. With wantX it also writes ∂ℓ/∂x into n.gx; with
// !wantTheta it leaves grad alone (the exemplar-only step).
func (n *net) backward(theta, grad []float64, r int, wantTheta, wantX bool) {
	c, w, _, p := n.blocks(theta)
	var (
		gc, gw, gp blas64.General
		gb         []float64
	)
	if wantTheta {
		gc, gw, gb, gp = n.blocks(grad)
	}
	f, cols, d := n.f, n.cols(), n.dim
	if n.m == 0 {
		if wantTheta {
			addTTimes(gp.Data, n.h, n.gy, r, f, d)
		}
		timesT(n.gh, n.gy, p.Data, r, f, d)
	} else {
		m := n.m
		if wantTheta {
			addTTimes(gp.Data, n.s, n.gy, r, m, d)
		}
		timesT(n.gs, n.gy, p.Data, r, m, d)
		for i, v := range n.s[:r*m] {
			n.gs[i] *= v * (1 - v)
		}
		if wantTheta {
			// ∂W = hᵀ·∂a: (f×r)·(r×m) as hᵀ · (∂aᵀ)ᵀ.
			iblas.Transpose(n.ht, n.h, r, f)
			iblas.Transpose(n.gst, n.gs, r, m)
			n.gemm(f, m, r, n.ht, r, n.gst, r, 1, gw.Data, max(m, 1))
			for i := range r {
				for k, v := range n.gs[i*m : (i+1)*m] {
					gb[k] += v
				}
			}
		}
		n.gemm(r, f, m, n.gs, m, w.Data, m, 0, n.gh, f)
	}
	// ∂h/∂u = O·u^(O−1).
	dpowMul(n.gh[:r*f], n.u[:r*f], n.order)
	if wantTheta {
		// ∂C = ∂uᵀ·x: (f×r)·(r×cols) as ∂uᵀ · (xᵀ)ᵀ.
		iblas.Transpose(n.ght, n.gh, r, f)
		iblas.Transpose(n.xt, n.x, r, cols)
		n.gemm(f, cols, r, n.ght, r, n.xt, r, 1, gc.Data, cols)
	}
	if wantX {
		// ∂x = ∂u·C = ∂u · (Cᵀ)ᵀ.
		iblas.Transpose(n.ct, c.Data, f, cols)
		n.gemm(r, cols, f, n.gh, f, n.ct, f, 0, n.gx, cols)
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
