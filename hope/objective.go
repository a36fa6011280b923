package hope

import (
	"math"

	"github.com/lowdim/lowdim/internal/minibatch"
)

// objective evaluates the two MCML costs on embedded rows, in parallel over row blocks, with
// buffers allocated once.
//
// Pairs (the map alone, eq. 6–8 of the paper): over r rows y_1..y_r with labels L,
//
//	w_ij = (1 + ‖y_i − y_j‖²)⁻¹,  Z = Σ_{k≠l} w_kl,  q_ij = w_ij / Z,
//	ℓ = −(1/N) Σ_{i≠j, L_i = L_j} log q_ij,  N = #{i≠j: L_i = L_j},
//	∂ℓ/∂y_i = (4/N) Σ_j (L_ij w_ij − N w_ij²/Z)(y_i − y_j).
//
// Exemplars (eq. 9–10): rows y_i against z embedded exemplars e_j with labels M_j,
//
//	Z_i = Σ_k w_ik,  ℓ = −(1/N) Σ_i Σ_{j: M_j = L_i} log(w_ij / Z_i),  N = Σ_i s_i,
//
// where s_i counts the exemplars of row i's class; ∂ℓ/∂y_i = (2/N) Σ_j g_ij (y_i − e_j) and
// ∂ℓ/∂e_j = −(2/N) Σ_i g_ij (y_i − e_j) with g_ij = [M_j = L_i] w_ij − s_i w_ij²/Z_i.
//
// Dividing by N makes the cost a mean per same-class pair, comparable across batch sizes.
type objective struct {
	pool *minibatch.Pool
	dim  int
	// current call
	r, z   int
	y, g   []float64 // y: (r+z)×dim; g: ∂ℓ/∂y, same layout
	lab    []int     // labels of the r rows
	elab   []int     // labels of the z exemplars
	nsame  float64
	zall   float64
	perCls []float64 // s_c: exemplars per class
	// per-block partial sums
	zb, lb []float64
	ge     [][]float64 // nblocks × z·dim exemplar gradients

	jobZ, jobPairs, jobEx func(int)
}

func newObjective(p *minibatch.Pool, dim, maxZ, classes int) *objective {
	o := &objective{pool: p, dim: dim, zb: make([]float64, nblocks), lb: make([]float64, nblocks), perCls: make([]float64, classes)}
	o.ge = make([][]float64, nblocks)
	for b := range o.ge {
		o.ge[b] = make([]float64, maxZ*dim)
	}
	o.jobZ, o.jobPairs, o.jobEx = o.zBlock, o.pairsBlock, o.exBlock
	return o
}

// pairs returns the pair cost of the r rows of y with labels lab and writes ∂ℓ/∂y into g.
// classCount holds, per class, how many of the r rows have it.
func (o *objective) pairs(y, g []float64, lab []int, r int, classCount []int) float64 {
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
	o.pool.Run(nblocks, o.jobZ)
	var z float64
	for _, v := range o.zb {
		z += v
	}
	o.zall = z
	o.pool.Run(nblocks, o.jobPairs)
	var l float64
	for _, v := range o.lb {
		l += v
	}
	return l/n + math.Log(z)
}

func (o *objective) zBlock(b int) {
	lo, hi := minibatch.Span(b, nblocks, o.r)
	d := o.dim
	var z float64
	for i := lo; i < hi; i++ {
		yi := o.y[i*d : i*d+d]
		for j := range o.r {
			if j == i {
				continue
			}
			yj := o.y[j*d : j*d+d]
			var d2 float64
			for k, v := range yi {
				e := v - yj[k]
				d2 += e * e
			}
			z += 1 / (1 + d2)
		}
	}
	o.zb[b] = z
}

func (o *objective) pairsBlock(b int) {
	lo, hi := minibatch.Span(b, nblocks, o.r)
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
			var d2 float64
			for k, v := range yi {
				e := v - yj[k]
				d2 += e * e
			}
			w := 1 / (1 + d2)
			gij := -c * w * w
			if o.lab[j] == li {
				gij += w
				l += math.Log1p(d2)
			}
			gij *= s
			for k, v := range yi {
				gi[k] += gij * (v - yj[k])
			}
		}
	}
	o.lb[b] = l
}

// exemplars returns the exemplar cost of the r rows of y against the z exemplar rows that
// follow them in y (labels elab) and writes ∂ℓ/∂y for all r+z rows into g.
func (o *objective) exemplars(y, g []float64, lab []int, r int, elab []int) float64 {
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
	o.pool.Run(nblocks, o.jobEx)
	d := o.dim
	ge := g[r*d : (r+o.z)*d]
	clear(ge)
	var l float64
	for b := range nblocks {
		l += o.lb[b]
		for k, v := range o.ge[b][:o.z*d] {
			ge[k] += v
		}
	}
	return l / n
}

func (o *objective) exBlock(b int) {
	lo, hi := minibatch.Span(b, nblocks, o.r)
	d, z := o.dim, o.z
	ge := o.ge[b][:z*d]
	clear(ge)
	s := 2 / o.nsame
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
			ej := ex[j*d : j*d+d]
			var d2 float64
			for k, v := range yi {
				e := v - ej[k]
				d2 += e * e
			}
			zi += 1 / (1 + d2)
		}
		l += si * math.Log(zi)
		for j := range z {
			ej := ex[j*d : j*d+d]
			var d2 float64
			for k, v := range yi {
				e := v - ej[k]
				d2 += e * e
			}
			w := 1 / (1 + d2)
			gij := -si * w * w / zi
			if o.elab[j] == li {
				gij += w
				l += math.Log1p(d2)
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

// nblocks is the number of row blocks of every pairwise pass.
const nblocks = 16
