// Package tcollapse is the class-collapsing costs on embedded rows that package hope (HOPE and
// S-HOPE, Min, Guo and Song) and package baseline/dtse (dt-MCML and dt-NCA, Min et al., ICML
// 2010) share: one implementation of each cost and its gradient with respect to the embedded
// rows, in parallel over row blocks, with buffers allocated once.
//
// Every cost measures similarities in the map with a Student-t kernel of α degrees of freedom,
//
//	u_ij = 1 + ‖y_i − y_j‖²/α,  w_ij = u_ij^{−(α+1)/2},
//
// (α = 1, w_ij = (1 + ‖y_i − y_j‖²)⁻¹, is HOPE's and the default), and since
// ∂w_ij/∂y_i = −((α+1)/α) w_ij u_ij⁻¹ (y_i − y_j) every gradient below is a sum of
// g_ij (y_i − y_j) with g_ij a multiple of w_ij/u_ij or of 1/u_ij.
//
// MCML pairs (Pairs; the HOPE paper's eq. 6–8, dt-MCML): over r rows with labels L,
// Z = Σ_{k≠l} w_kl, q_ij = w_ij/Z and N = #{i≠j: L_i = L_j},
//
//	ℓ = −(1/N) Σ_{i≠j, L_i = L_j} log q_ij = KL(P‖Q) + log N,  p_ij = [L_i = L_j]/N,
//	∂ℓ/∂y_i = (2(α+1)/(αN)) Σ_j ([L_i = L_j] − N w_ij/Z) u_ij⁻¹ (y_i − y_j).
//
// Dividing by N makes the cost a mean per same-class pair, comparable across batch sizes.
//
// NCA (NCA; dt-NCA): NCA's expected fraction of rows whose stochastic neighbour is of their
// class (Goldberger et al. 2005), with the same kernel normalised per row as in NCA,
// q_{j|i} = w_ij/Z_i, Z_i = Σ_{k≠i} w_ik, and P_i = Σ_{j: L_j = L_i} q_{j|i},
//
//	ℓ = −(1/r) Σ_i P_i,
//	∂ℓ/∂y_i = ((α+1)/(αr)) Σ_j ((L_ij − P_i)/Z_i + (L_ij − P_j)/Z_j) w_ij u_ij⁻¹ (y_i − y_j),
//
// L_ij = [L_i = L_j]. (With q normalised over all pairs instead, −Σ_{L_i = L_j} q_ij, the cost
// is minimised by collapsing one class to a point while the others overlap: on 1,000 of the
// 8×8 digits it reached −0.96 with a 5-NN error of 47 %, see package baseline/dtse.)
//
// Exemplars (Exemplars; the HOPE paper's eq. 9–10): rows y_i against z embedded exemplars e_j
// with labels M_j, Z_i = Σ_k w_ik, s_i the number of exemplars of row i's class, N = Σ_i s_i,
//
//	ℓ = −(1/N) Σ_i Σ_{j: M_j = L_i} log(w_ij / Z_i),
//	∂ℓ/∂y_i = ((α+1)/(αN)) Σ_j g_ij (y_i − e_j),  ∂ℓ/∂e_j = −((α+1)/(αN)) Σ_i g_ij (y_i − e_j),
//	g_ij = ([M_j = L_i] − s_i w_ij/Z_i) u_ij⁻¹.
//
// With α = 1 the arithmetic is exactly HOPE's before this package existed (1/u_ij is w_ij,
// the factors 2(α+1)/α and (α+1)/α are 4 and 2), so HOPE's stored hashes hold.
//
// Each block's partial sums are kept apart and added in block order, so the results do not
// depend on the number of workers.
package tcollapse

import (
	"math"

	"github.com/lowdim/lowdim/internal/minibatch"
)

// Blocks is the number of row blocks of every pairwise pass.
const Blocks = 16

// Objective evaluates the costs for embeddings of a fixed dimension.
type Objective struct {
	pool  *minibatch.Pool
	dim   int
	alpha float64 // α
	k     kernel
	// current call
	r, z   int
	y, g   []float64 // y: (r+z)×dim; g: ∂ℓ/∂y, same layout
	lab    []int     // labels of the r rows
	elab   []int     // labels of the z exemplars
	nsame  float64
	zall   float64
	rowZ   []float64 // NCA: Z_i
	rowP   []float64 // NCA: P_i
	perCls []float64 // s_c: exemplars per class
	// per-block partial sums
	zb, lb []float64
	ge     [][]float64 // Blocks × z·dim exemplar gradients

	jobZ, jobZS, jobPairs, jobNCA, jobEx func(int)
}

// New returns an Objective for dim-dimensional embeddings with Student-t kernels of alpha
// degrees of freedom (0 means 1), on the workers of p, for at most maxZ exemplars of labels
// below classes (0 and 0 when Exemplars is not used).
func New(p *minibatch.Pool, dim int, alpha float64, maxZ, classes int) *Objective {
	if alpha == 0 {
		alpha = 1
	}
	o := &Objective{pool: p, dim: dim, alpha: alpha, k: kernel{ia: 1 / alpha, half: (alpha + 1) / 2, unit: alpha == 1},
		zb: make([]float64, Blocks), lb: make([]float64, Blocks), perCls: make([]float64, classes)}
	o.ge = make([][]float64, Blocks)
	for b := range o.ge {
		o.ge[b] = make([]float64, maxZ*dim)
	}
	o.jobZ, o.jobZS, o.jobPairs, o.jobNCA, o.jobEx = o.zBlock, o.zsBlock, o.pairsBlock, o.ncaBlock, o.exBlock
	return o
}

// kernel is the Student-t kernel of α degrees of freedom, copied into each block's locals.
type kernel struct {
	ia   float64 // 1/α
	half float64 // (α+1)/2
	unit bool    // α = 1: w = 1/u without a power
}

// inv returns 1/u for the squared distance d2: d2·(1/α) rather than d2/α keeps a division
// out of the pair loops, and with α = 1 both are d2 exactly.
func (k kernel) inv(d2 float64) float64 {
	if k.unit {
		return 1 / (1 + d2)
	}
	return 1 / (1 + d2*k.ia)
}

// w returns w = u^{−(α+1)/2} from 1/u. It and inv are small enough to be inlined into the pair
// loops; the power (α ≠ 1 only) is a call.
func (k kernel) w(inv float64) float64 {
	if k.unit {
		return inv
	}
	return k.pow(inv)
}

// pow is u^{−(α+1)/2} from 1/u.
//
//go:noinline
func (k kernel) pow(inv float64) float64 { return math.Pow(inv, k.half) }

// Pairs returns the MCML pair cost of the r rows of y (r×dim, row-major) with labels lab and
// writes ∂ℓ/∂y into g. classCount holds, per class, how many of the r rows have it. With no
// same-class pair the cost and gradient are 0.
func (o *Objective) Pairs(y, g []float64, lab []int, r int, classCount []int) float64 {
	o.y, o.g, o.lab, o.r = y, g, lab, r
	var n float64
	for _, c := range classCount {
		n += float64(c) * float64(c-1)
	}
	if n == 0 || r < 2 {
		clear(g[:r*o.dim])
		return 0
	}
	o.nsame = n
	o.pool.Run(Blocks, o.jobZ)
	var z float64
	for _, v := range o.zb {
		z += v
	}
	o.zall = z
	o.pool.Run(Blocks, o.jobPairs)
	var l float64
	for _, v := range o.lb {
		l += v
	}
	return o.k.half*l/n + math.Log(z)
}

// NCA returns the NCA cost −(1/r) Σ_i P_i of the r rows of y with labels lab and writes ∂ℓ/∂y
// into g.
func (o *Objective) NCA(y, g []float64, lab []int, r int) float64 {
	o.y, o.g, o.lab, o.r = y, g, lab, r
	if r < 2 {
		clear(g[:r*o.dim])
		return 0
	}
	if len(o.rowZ) < r {
		o.rowZ, o.rowP = make([]float64, r), make([]float64, r)
	}
	o.pool.Run(Blocks, o.jobZS)
	var p float64
	for _, v := range o.lb {
		p += v
	}
	o.pool.Run(Blocks, o.jobNCA)
	return -p / float64(r)
}

// dist2 is ‖a − b‖².
func dist2(a, b []float64) float64 {
	var d2 float64
	for k, v := range a {
		e := v - b[k]
		d2 += e * e
	}
	return d2
}

func (o *Objective) zBlock(b int) {
	if o.k.unit {
		o.zBlockUnit(b)
		return
	}
	k := o.k
	lo, hi := minibatch.Span(b, Blocks, o.r)
	d := o.dim
	var z float64
	for i := lo; i < hi; i++ {
		yi := o.y[i*d : i*d+d]
		for j := range o.r {
			if j == i {
				continue
			}
			w := k.w(k.inv(dist2(yi, o.y[j*d:j*d+d])))
			z += w
		}
	}
	o.zb[b] = z
}

// zsBlock sets Z_i and P_i of the rows of block b and the block's sum of P_i.
// zBlockUnit and pairsBlockUnit are zBlock and pairsBlock for α = 1, written out: HOPE's pair
// cost is their main use, and the general kernel's branches slowed it by 19 % (hope's
// BenchmarkPairs, medians of 8 interleaved runs of 50 iterations on the loaded 2-core machine:
// 12.97 ms against hope's own loop's 10.93 ms; written out, 11.45 against 11.35 ms).
func (o *Objective) zBlockUnit(b int) {
	lo, hi := minibatch.Span(b, Blocks, o.r)
	d := o.dim
	var z float64
	for i := lo; i < hi; i++ {
		yi := o.y[i*d : i*d+d]
		for j := range o.r {
			if j != i {
				z += 1 / (1 + dist2(yi, o.y[j*d:j*d+d]))
			}
		}
	}
	o.zb[b] = z
}

func (o *Objective) pairsBlockUnit(b int) {
	lo, hi := minibatch.Span(b, Blocks, o.r)
	d := o.dim
	c := o.nsame / o.zall
	s := 4 / o.nsame
	var l float64
	for i := lo; i < hi; i++ {
		yi := o.y[i*d : i*d+d]
		gi := o.g[i*d : i*d+d]
		clear(gi)
		li := o.lab[i]
		for j := range o.r {
			if j == i {
				continue
			}
			yj := o.y[j*d : j*d+d]
			d2 := dist2(yi, yj)
			w := 1 / (1 + d2)
			gij := -c * w * w
			if o.lab[j] == li {
				gij += w
				l += math.Log1p(d2)
			}
			gij *= s
			for m, v := range yi {
				gi[m] += gij * (v - yj[m])
			}
		}
	}
	o.lb[b] = l
}

func (o *Objective) zsBlock(b int) {
	k := o.k
	lo, hi := minibatch.Span(b, Blocks, o.r)
	d := o.dim
	var p float64
	for i := lo; i < hi; i++ {
		yi := o.y[i*d : i*d+d]
		li := o.lab[i]
		var z, s float64
		for j := range o.r {
			if j == i {
				continue
			}
			w := k.w(k.inv(dist2(yi, o.y[j*d:j*d+d])))
			z += w
			if o.lab[j] == li {
				s += w
			}
		}
		o.rowZ[i], o.rowP[i] = z, s/z
		p += s / z
	}
	o.lb[b] = p
}

func (o *Objective) pairsBlock(b int) {
	if o.k.unit {
		o.pairsBlockUnit(b)
		return
	}
	k := o.k
	lo, hi := minibatch.Span(b, Blocks, o.r)
	d := o.dim
	c := o.nsame / o.zall
	s := 2 * (o.alpha + 1) / (o.alpha * o.nsame)
	var l float64
	for i := lo; i < hi; i++ {
		yi := o.y[i*d : i*d+d]
		gi := o.g[i*d : i*d+d]
		clear(gi)
		li := o.lab[i]
		for j := range o.r {
			if j == i {
				continue
			}
			yj := o.y[j*d : j*d+d]
			d2 := dist2(yi, yj)
			inv := k.inv(d2)
			w := k.w(inv)
			gij := -c * w * inv
			if o.lab[j] == li {
				gij += inv
				// −log w_ij = ((α+1)/2) log(1 + d²/α); the factor is applied to the sum.
				l += math.Log1p(d2 * k.ia)
			}
			gij *= s
			for m, v := range yi {
				gi[m] += gij * (v - yj[m])
			}
		}
	}
	o.lb[b] = l
}

func (o *Objective) ncaBlock(b int) {
	k := o.k
	lo, hi := minibatch.Span(b, Blocks, o.r)
	d := o.dim
	s := (o.alpha + 1) / (o.alpha * float64(o.r))
	for i := lo; i < hi; i++ {
		yi := o.y[i*d : i*d+d]
		gi := o.g[i*d : i*d+d]
		clear(gi)
		li := o.lab[i]
		pi, zi := o.rowP[i], o.rowZ[i]
		for j := range o.r {
			if j == i {
				continue
			}
			yj := o.y[j*d : j*d+d]
			inv := k.inv(dist2(yi, yj))
			w := k.w(inv)
			var same float64
			if o.lab[j] == li {
				same = 1
			}
			gij := s * ((same-pi)/zi + (same-o.rowP[j])/o.rowZ[j]) * w * inv
			for m, v := range yi {
				gi[m] += gij * (v - yj[m])
			}
		}
	}
}

// Exemplars returns the exemplar cost of the r rows of y against the z exemplar rows that
// follow them in y (labels elab) and writes ∂ℓ/∂y for all r+z rows into g.
func (o *Objective) Exemplars(y, g []float64, lab []int, r int, elab []int) float64 {
	o.y, o.g, o.lab, o.r, o.z, o.elab = y, g, lab, r, len(elab), elab
	clear(o.perCls)
	for _, c := range elab {
		o.perCls[c]++
	}
	var n float64
	for _, c := range lab[:r] {
		n += o.perCls[c]
	}
	if n == 0 {
		clear(g[:(r+o.z)*o.dim])
		return 0
	}
	o.nsame = n
	o.pool.Run(Blocks, o.jobEx)
	d := o.dim
	ge := g[r*d : (r+o.z)*d]
	clear(ge)
	var l float64
	for b := range Blocks {
		l += o.lb[b]
		for k, v := range o.ge[b][:o.z*d] {
			ge[k] += v
		}
	}
	return l / n
}

func (o *Objective) exBlock(b int) {
	k := o.k
	lo, hi := minibatch.Span(b, Blocks, o.r)
	d, z := o.dim, o.z
	ge := o.ge[b][:z*d]
	clear(ge)
	s := (o.alpha + 1) / (o.alpha * o.nsame)
	ex := o.y[o.r*d : (o.r+z)*d]
	var l float64
	for i := lo; i < hi; i++ {
		yi := o.y[i*d : i*d+d]
		gi := o.g[i*d : i*d+d]
		clear(gi)
		li := o.lab[i]
		si := o.perCls[li]
		var zi float64
		for j := range z {
			w := k.w(k.inv(dist2(yi, ex[j*d:j*d+d])))
			zi += w
		}
		l += si * math.Log(zi)
		for j := range z {
			ej := ex[j*d : j*d+d]
			d2 := dist2(yi, ej)
			inv := k.inv(d2)
			w := k.w(inv)
			gij := -si * w * inv / zi
			if o.elab[j] == li {
				gij += inv
				l += k.half * math.Log1p(d2*k.ia)
			}
			gij *= s
			for k, v := range yi {
				t := gij * (v - ej[k])
				gi[k] += t
				ge[j*d+k] -= t
			}
		}
	}
	o.lb[b] = l
}
