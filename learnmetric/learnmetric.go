// Package learnmetric computes Fisher learning-metric distances (NeRV paper §5.1; Kaski et
// al. 2001; Peltonen et al. 2004), the input distances of supervised NeRV.
//
// The local squared length of a small step Δ at x is ΔᵀJ(x)Δ with the Fisher information
// J(x) = Σ_c p̂(c|x) ∇log p̂(c|x) ∇log p̂(c|x)ᵀ of a class posterior p̂ (here the
// discriminative mixture of package posterior). The distance of two points is approximated
// along the straight segment cut into T pieces (T = 10 in the paper):
//
//	d_L(x_a, x_b) ≈ Σ_{t=1..T} sqrt(Δᵀ J(z_t) Δ),   Δ = (x_b − x_a)/T,   z_t the piece midpoints.
//
// J is never formed. For the mixture, ∇_z log p̂(c|z) = Σ_g (w_cg − r_g)(m_g − z)/s² with
// r_g = g_g/Σ g and w_cg = β_cg r_g/p̂(c|z), and since Σ_g (w_cg − r_g) = 0 every term that
// is the same for all g cancels:
//
//	Δᵀ J(z) Δ = (1/s⁴) Σ_c p̂(c|z) (u_c/p̂(c|z) − ē)²,   u_c = Σ_g β_cg r_g ε_g,   ē = Σ_g r_g ε_g,
//
// with ε_g = m_g·Δ. Along the segment z = x_a + t(x_b − x_a) the exponents are, up to terms
// common to all g, a_g(t) = (−‖m_g‖²/2 + (1−t) m_g·x_a + t m_g·x_b)/s², and ε_g is constant.
// With the products P = X·Mᵀ computed once for all rows (one matrix product), a pair costs
// O(G) to set up and each midpoint O(G·K), independent of the input dimension H. Distances
// stacks the midpoint weights of 64 pairs and multiplies them by β in one DgemmNT
// (lowdim/internal/blas: OpenBLAS when built with -tags openblas) and advances the weights
// along a segment by a recurrence instead of exponentials; the per-pair Metric.Distance
// recomputes them and skips Gaussians whose weight is below e^−40 ≈ 4·10⁻¹⁸ of the largest.
package learnmetric

import (
	"context"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/dataset"
	lblas "github.com/lowdim/lowdim/internal/blas"
	"github.com/lowdim/lowdim/internal/membudget"
	"github.com/lowdim/lowdim/posterior"
)

// DefaultPieces is the number T of straight pieces a segment is cut into (the paper's value).
const DefaultPieces = 10

// activeCut: Gaussians whose exponent lies more than this below the largest are skipped.
const activeCut = 40

// Options are the settings of the learning-metric distances.
type Options struct {
	// Pieces is the number T of pieces of the segment; 0 means 10.
	Pieces int
	// Progress, if not nil, receives ("learnmetric", rows done, rows) reports.
	Progress lowdim.Progress
}

// Metric is the learning metric of a fitted mixture. It is safe for concurrent use.
type Metric struct {
	pieces  int
	g, h, k int
	s2      float64
	shift   []float64 // H: the mean of the centres; coordinates are taken relative to it
	centers []float64 // G×H, shifted
	halfSq  []float64 // G: ‖m_g‖²/2 of the shifted centres
	beta    []float64 // G×K: row g is β_·g
	betaT   []float64 // K×G: row c is β_c·
}

// New returns the learning metric of m.
func New(m *posterior.Mixture, opt Options) (*Metric, error) {
	if opt.Pieces < 0 {
		return nil, dataset.Invalidf("learnmetric: Pieces %d is negative", opt.Pieces)
	}
	beta, err := m.Beta() // checks the model
	if err != nil {
		return nil, err
	}
	g, h, k := m.Dims()
	lm := &Metric{pieces: opt.Pieces, g: g, h: h, k: k, s2: m.Width * m.Width,
		shift: make([]float64, h), centers: make([]float64, g*h), halfSq: make([]float64, g), beta: make([]float64, g*k),
		betaT: make([]float64, k*g)}
	if lm.pieces == 0 {
		lm.pieces = DefaultPieces
	}
	for j := 0; j < g; j++ {
		floats.Add(lm.shift, m.Centers.RawRowView(j))
	}
	floats.Scale(1/float64(g), lm.shift)
	for j := 0; j < g; j++ {
		c := lm.centers[j*h : j*h+h]
		floats.SubTo(c, m.Centers.RawRowView(j), lm.shift)
		lm.halfSq[j] = floats.Dot(c, c) / 2
		for c := 0; c < k; c++ {
			lm.beta[j*k+c] = beta.At(c, j)
			lm.betaT[c*g+j] = beta.At(c, j)
		}
	}
	return lm, nil
}

// Pieces returns the number T of pieces a segment is cut into.
func (lm *Metric) Pieces() int { return lm.pieces }

// work is the scratch of one goroutine.
type work struct {
	pa, pb []float64 // G: m_g·x_a, m_g·x_b
	a, e   []float64 // G
	act    []int     // active Gaussians
	p, u   []float64 // K
	x      []float64 // H
}

func (lm *Metric) newWork() *work {
	return &work{pa: make([]float64, lm.g), pb: make([]float64, lm.g), a: make([]float64, lm.g), e: make([]float64, lm.g),
		act: make([]int, 0, lm.g), p: make([]float64, lm.k), u: make([]float64, lm.k), x: make([]float64, lm.h)}
}

// products writes m_g·(x − shift) for every centre into dst.
func (lm *Metric) products(dst, x, scratch []float64) {
	floats.SubTo(scratch, x, lm.shift)
	for j := range dst {
		dst[j] = floats.Dot(lm.centers[j*lm.h:j*lm.h+lm.h], scratch)
	}
}

// segment returns, for the given number of pieces, Σ_t sqrt(ΔᵀJ(z_t)Δ) for the segment from a to b given pa_g = m_g·x_a and
// pb_g = m_g·x_b (shifted coordinates).
func (lm *Metric) segment(w *work, pa, pb []float64, pieces int) float64 {
	invT := 1 / float64(pieces)
	inv := 1 / lm.s2
	k := lm.k
	var sum float64
	for piece := 0; piece < pieces; piece++ {
		t := (float64(piece) + 0.5) * invT
		mx := math.Inf(-1)
		for j, hs := range lm.halfSq {
			v := ((1-t)*pa[j] + t*pb[j] - hs) * inv
			w.a[j] = v
			if v > mx {
				mx = v
			}
		}
		act := w.act[:0]
		var z float64
		for j, v := range w.a {
			if v-mx > -activeCut {
				e := math.Exp(v - mx)
				w.e[j] = e
				z += e
				act = append(act, j)
			}
		}
		clear(w.p)
		clear(w.u)
		var ebar float64
		invZ := 1 / z
		for _, j := range act {
			r := w.e[j] * invZ
			re := r * (pb[j] - pa[j]) * invT // r_g ε_g with ε_g = m_g·Δ
			ebar += re
			b := lm.beta[j*k : j*k+k]
			for c, bc := range b {
				w.p[c] += bc * r
				w.u[c] += bc * re
			}
		}
		var q float64
		for c, pc := range w.p {
			if pc > 0 {
				d := w.u[c]/pc - ebar
				q += pc * d * d
			}
		}
		sum += math.Sqrt(q)
	}
	return sum * inv
}

func (lm *Metric) checkPoint(x []float64, what string) error {
	if len(x) != lm.h {
		return dataset.Invalidf("learnmetric: %s has %d values, the model has %d features", what, len(x), lm.h)
	}
	return nil
}

// Distance returns the learning-metric distance of x_a and x_b along their segment.
func (lm *Metric) Distance(xa, xb []float64) (float64, error) {
	if err := lm.checkPoint(xa, "x_a"); err != nil {
		return 0, err
	}
	if err := lm.checkPoint(xb, "x_b"); err != nil {
		return 0, err
	}
	w := lm.newWork()
	lm.products(w.pa, xa, w.x)
	lm.products(w.pb, xb, w.x)
	return lm.segment(w, w.pa, w.pb, lm.pieces), nil
}

// LocalSquared returns ΔᵀJ(z)Δ, the squared learning-metric length of the step Δ at z,
// without forming J: O(G·H + G·K).
func (lm *Metric) LocalSquared(z, delta []float64) (float64, error) {
	if err := lm.checkPoint(z, "z"); err != nil {
		return 0, err
	}
	if err := lm.checkPoint(delta, "Δ"); err != nil {
		return 0, err
	}
	w := lm.newWork()
	lm.products(w.pa, z, w.x)
	// m_g·Δ: the products of the shifted centres with Δ itself (no shift for a direction).
	for j := range w.pb {
		w.pb[j] = floats.Dot(lm.centers[j*lm.h:j*lm.h+lm.h], delta)
	}
	// The one piece of the segment z − Δ/2 … z + Δ/2 has its midpoint at z and step Δ.
	for j := range w.pa {
		w.pb[j], w.pa[j] = w.pa[j]+w.pb[j]/2, w.pa[j]-w.pb[j]/2
	}
	l := lm.segment(w, w.pa, w.pb, 1)
	return l * l, nil
}

// pairBlock is the number of pairs whose midpoints go through one matrix product.
const pairBlock = 64

// blockWork is the scratch of one goroutine of Distances.
type blockWork struct {
	a, rho []float64 // G
	rm     []float64 // 2·pairBlock·T × G: the rows r (first half) and r∘ε (second half)
	pu     []float64 // 2·pairBlock·T × K: the products with β, p̂(c|z) then u_c
	ebar   []float64 // pairBlock·T
}

func (lm *Metric) newBlockWork() *blockWork {
	bt := pairBlock * lm.pieces
	return &blockWork{a: make([]float64, lm.g), rho: make([]float64, lm.g),
		rm: make([]float64, 2*bt*lm.g), pu: make([]float64, 2*bt*lm.k), ebar: make([]float64, bt)}
}

// block writes into out[i] the distance of the segment from a to b_i, for the pairs whose
// products m_g·x are pa and the rows of pbs (ea, ebs: the per-row factors exp(m_g·x/(s²T)),
// nil where they would leave the safe range). It is segment for many pairs at once: the
// midpoints' weights r and r∘ε are stacked into one matrix and multiplied by β in a single
// product. Along a segment a_g is linear in t, so the weights advance by
// r_g ← r_g·ρ_g / Σ_g' r_g'·ρ_g' with ρ_g = exp(λ_g/T) = exp(m_g·x_b/(s²T)) / exp(m_g·x_a/(s²T)):
// no exponential per midpoint; one is taken afresh only where a weight has fallen out of the
// normal range (below 1e−290), where the recurrence would lose digits, or if a step overflows.
func (lm *Metric) block(w *blockWork, pa, ea, pbs, ebs []float64, ebOK []bool, out []float64) {
	g, k, T := lm.g, lm.k, lm.pieces
	nb := len(out)
	bt := nb * T
	invT := 1 / float64(T)
	inv := 1 / lm.s2
	rows := 0
	for i := 0; i < nb; i++ {
		pb := pbs[i*g : i*g+g]
		if ea != nil && ebOK[i] {
			eb := ebs[i*g : i*g+g]
			for j := range w.rho {
				w.rho[j] = eb[j] / ea[j]
			}
		} else {
			for j := range w.rho {
				if l := (pb[j] - pa[j]) * inv * invT; math.Abs(l) < 700 {
					w.rho[j] = math.Exp(l)
				} else {
					w.rho[j] = 0 // never advance: recompute
				}
			}
		}
		var logNorm float64 // r_g = exp(a_g(t) − logNorm)
		var prev []float64
		for piece := 0; piece < T; piece++ {
			t := (float64(piece) + 0.5) * invT
			r := w.rm[rows*g : rows*g+g]
			z := 0.0
			direct := piece == 0
			if !direct {
				for j, rj := range prev {
					var e float64
					if rj > 1e-290 && w.rho[j] != 0 {
						e = rj * w.rho[j]
					} else {
						e = math.Exp(((1-t)*pa[j]+t*pb[j]-lm.halfSq[j])*inv - logNorm)
					}
					r[j] = e
					z += e
				}
				direct = !(z > 0) || math.IsInf(z, 0)
			}
			if direct {
				mx := math.Inf(-1)
				for j, hs := range lm.halfSq {
					v := ((1-t)*pa[j] + t*pb[j] - hs) * inv
					w.a[j] = v
					mx = math.Max(mx, v)
				}
				z = 0
				for j, v := range w.a {
					r[j] = math.Exp(v - mx)
					z += r[j]
				}
				logNorm = mx
			}
			logNorm += math.Log(z)
			invZ := 1 / z
			re := w.rm[(bt+rows)*g : (bt+rows)*g+g]
			var ebar float64
			for j := range r {
				rj := r[j] * invZ
				r[j] = rj
				re[j] = rj * (pb[j] - pa[j]) * invT // r_g ε_g with ε_g = m_g·Δ
				ebar += re[j]
			}
			w.ebar[rows] = ebar
			prev = r
			rows++
		}
	}
	// [P; U] = [R; R∘E]·β, (2·bt)×K, as dot products of length G with the rows of βᵀ.
	// (OpenBLAS when built with -tags openblas, see lowdim/internal/blas.)
	lblas.DgemmNT(2*bt, k, g, 1, w.rm, g, lm.betaT, g, 0, w.pu, k)
	for i := 0; i < nb; i++ {
		var sum float64
		for piece := 0; piece < T; piece++ {
			row := i*T + piece
			p := w.pu[row*k : row*k+k]
			u := w.pu[(bt+row)*k : (bt+row)*k+k]
			ebar := w.ebar[row]
			var q float64
			for c, pc := range p {
				if pc > 0 {
					d := u[c]/pc - ebar
					q += pc * d * d
				}
			}
			sum += math.Sqrt(q)
		}
		out[i] = sum * inv
	}
}

// Distances returns the n×n matrix of learning-metric distances between the rows of x
// (n×H), each along the straight segment in opt.Pieces pieces. The pairs are split over
// runtime.NumCPU() workers (rows handed out one at a time); ctx is checked between rows.
func Distances(ctx context.Context, m *posterior.Mixture, x mat.Matrix, opt Options) (*mat.SymDense, error) {
	lm, err := New(m, opt)
	if err != nil {
		return nil, err
	}
	return lm.Distances(ctx, x, opt.Progress)
}

// DistancesBytes estimates the memory Distances takes for n rows of h features under a mixture of
// g components: the n×n result (a mat.SymDense stores all n² entries) and the n×H and n×G
// projections, 8·(n² + n·(h + 2g)) bytes; the workers' blocks are O(g) each. Distances checks
// it against the available memory (package lowdim/internal/membudget) before it allocates.
func DistancesBytes(n, h, g int) int64 {
	return membudget.Square(n, 1) + 8*int64(n)*int64(h+2*g)
}

// Distances is the package function Distances for an existing Metric.
func (lm *Metric) Distances(ctx context.Context, x mat.Matrix, progress lowdim.Progress) (*mat.SymDense, error) {
	if x == nil {
		return nil, dataset.Invalidf("learnmetric: nil data")
	}
	n, h := x.Dims()
	if h != lm.h {
		return nil, dataset.Invalidf("learnmetric: data have %d columns, the model has %d features", h, lm.h)
	}
	if n == 0 {
		return nil, dataset.Invalidf("learnmetric: no rows")
	}
	perN := func(n int) int64 { return DistancesBytes(n, h, lm.g) }
	if err := membudget.Check(membudget.Need{Who: "learnmetric", N: n, What: "the n×n learning-metric distances",
		Bytes: perN(n), PerN: perN, Instead: "compute them for a sample of the rows"}); err != nil {
		return nil, err
	}
	// P = (X − shift)·Mᵀ, n×G.
	xs := make([]float64, n*h)
	row := make([]float64, h)
	for i := 0; i < n; i++ {
		mat.Row(row, i, x)
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, dataset.Invalidf("learnmetric: row %d column %d is %v", i+1, j+1, v)
			}
		}
		floats.SubTo(xs[i*h:i*h+h], row, lm.shift)
	}
	g := lm.g
	p := make([]float64, n*g)
	blas64.Gemm(blas.NoTrans, blas.Trans, 1,
		blas64.General{Rows: n, Cols: h, Stride: h, Data: xs},
		blas64.General{Rows: g, Cols: h, Stride: h, Data: lm.centers},
		0, blas64.General{Rows: n, Cols: g, Stride: g, Data: p})

	// E = exp(P/(s²T)) per row, kept only for rows where it stays in a safe range.
	ef := make([]float64, n*g)
	eOK := make([]bool, n)
	scale := 1 / (lm.s2 * float64(lm.pieces))
	for i := 0; i < n; i++ {
		eOK[i] = true
		for j, v := range p[i*g : i*g+g] {
			l := v * scale
			if math.Abs(l) > 300 {
				eOK[i] = false
			}
			ef[i*g+j] = math.Exp(l)
		}
	}

	d := mat.NewSymDense(n, nil)
	raw := d.RawSymmetric()
	var next, done atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.NumCPU(), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := lm.newBlockWork()
			for {
				a := int(next.Add(1) - 1)
				if a >= n || ctx.Err() != nil {
					return
				}
				out := raw.Data[a*raw.Stride : a*raw.Stride+n]
				for lo := a + 1; lo < n; lo += pairBlock {
					hi := min(lo+pairBlock, n)
					var ea []float64
					if eOK[a] {
						ea = ef[a*g : a*g+g]
					}
					lm.block(w, p[a*g:a*g+g], ea, p[lo*g:hi*g], ef[lo*g:hi*g], eOK[lo:hi], out[lo:hi])
				}
				progress.Report("learnmetric", int(done.Add(1)), n)
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return d, nil
}
