package ptsne

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/affinity"
	"github.com/lowdim/lowdim/internal/deepnet"
	"github.com/lowdim/lowdim/internal/minibatch"
)

// A batch's pairwise work — its P once per batch, then KL(P‖Q) and ∂C/∂y at every evaluation —
// is O(b²): 25·10⁶ pairs at the paper's batch of 5,000, where the network's products are
// O(b·Σ layer sizes²). It runs on a pool of workers over pairBlocks fixed spans of rows, each
// span's sums kept apart and added in span order, so the bytes do not depend on the number of
// workers. The Gram matrix x̃·x̃ᵀ behind P's distances is one product of the network's kernel
// (deepnet.Gemm), written into P's own storage: row i of it is read only while row i of p_{j|i}
// is computed.

// pairBlocks is the number of row spans the pairwise passes are split into.
const pairBlocks = 16

// trainer holds one batch's input rows and P, the network's buffers and the pairwise passes'.
type trainer struct {
	sizes []int
	g     *deepnet.Gemm
	pool  *minibatch.Pool
	perp  float64
	dof   float64
	expo  float64 // −(α+1)/2
	net   *deepnet.Net
	p     *mat.Dense // b×b joint P of the loaded batch
	rows  int
	x     *mat.Dense
	norm  []float64             // ‖x̃_i‖² of the loaded rows
	d2    [pairBlocks][]float64 // per span: one row's squared distances, then its exponentials
	w     []float64             // b×b: 1 + ‖y_i − y_j‖²/α of the last costGrad

	// the current evaluation
	y      []float64 // b×D outputs, stride ys
	ys     int
	gy     *mat.Dense // ∂C/∂y
	z      float64    // Z = Σ_{k≠l} kernel(w_kl), q_ij's denominator
	zb, cb [pairBlocks]float64

	jobP, jobSym, jobW, jobG func(int)
}

// newTrainer returns a trainer whose buffers are sized by the first load: batches share the
// remainder of n, so they can be larger than the Batch setting (USPS's one batch of 7,291 rows),
// and sizing them for the setting first would allocate a 200 MB P for nothing.
func newTrainer(sizes []int, perp, dof float64, g *deepnet.Gemm, workers int) *trainer {
	t := &trainer{sizes: sizes, g: g, pool: minibatch.NewPool(workers), perp: perp, dof: dof, expo: -(dof + 1) / 2}
	t.jobP, t.jobSym, t.jobW, t.jobG = t.pBlock, t.symBlock, t.wBlock, t.gBlock
	return t
}

// close stops the pairwise passes' workers.
func (t *trainer) close() { t.pool.Close() }

func (t *trainer) resize(b int) {
	t.rows = b
	t.net = newNet(t.sizes, b, t.g)
	t.p = mat.NewDense(b, b, nil)
	t.x = mat.NewDense(b, t.sizes[0], nil)
	t.norm = make([]float64, b)
	for s := range t.d2 {
		t.d2[s] = make([]float64, b-1)
	}
}

// load normalises the rows idx of x into the batch and computes their P.
func (t *trainer) load(x *mat.Dense, idx []int, mean []float64, scale float64) {
	if b := len(idx); b != t.rows {
		t.resize(b)
	}
	for a, i := range idx {
		row := t.x.RawRowView(a)
		for j, v := range x.RawRowView(i) {
			row[j] = (v - mean[j]) / scale
		}
	}
	t.setP()
}

// setP computes the joint P of the loaded rows.
func (t *trainer) setP() {
	b := t.rows
	xr, pr := t.x.RawMatrix(), t.p.RawMatrix()
	t.g.NT(b, b, xr.Cols, 1, xr.Data, xr.Stride, xr.Data, xr.Stride, 0, pr.Data, pr.Stride)
	for i := range b {
		t.norm[i] = pr.Data[i*pr.Stride+i]
	}
	t.pool.Run(pairBlocks, t.jobP)
	t.pool.Run(pairBlocks, t.jobSym)
}

// pBlock replaces rows of the Gram matrix in span s by p_{j|i}.
func (t *trainer) pBlock(s int) {
	b := t.rows
	lo, hi := minibatch.Span(s, pairBlocks, b)
	d2 := t.d2[s]
	pr := t.p.RawMatrix()
	for i := lo; i < hi; i++ {
		row := pr.Data[i*pr.Stride : i*pr.Stride+b]
		ni := t.norm[i]
		k := 0
		for j, g := range row {
			if j != i {
				d2[k] = math.Max(ni+t.norm[j]-2*g, 0)
				k++
			}
		}
		s2 := affinity.Sigma2(d2, t.perp, affinity.Exact)
		amin := affinity.Min(d2)
		var z float64
		for k, v := range d2 {
			e := math.Exp(-(v - amin) / s2)
			d2[k] = e
			z += e
		}
		k = 0
		for j := range row {
			if j != i {
				row[j] = d2[k] / z
				k++
			}
		}
	}
}

// symBlock symmetrises P in place, p_ij = (p_{j|i} + p_{i|j})/2b, for the pairs j > i of rows
// i ≡ s (mod pairBlocks): interleaved rows give each span about as many pairs.
func (t *trainer) symBlock(s int) {
	b := t.rows
	pr := t.p.RawMatrix()
	pd, st := pr.Data, pr.Stride
	for i := s; i < b; i += pairBlocks {
		pd[i*st+i] = 0
		for j := i + 1; j < b; j++ {
			v := (pd[i*st+j] + pd[j*st+i]) / float64(2*b)
			pd[i*st+j], pd[j*st+i] = v, v
		}
	}
}

// costGrad returns KL(P‖Q) of the loaded batch at θ and sets grad = ∂C/∂θ.
func (t *trainer) costGrad(theta, grad []float64) float64 {
	n := t.net
	n.Forward(theta, t.x)
	y := n.Out()
	b, _ := y.Dims()
	if len(t.w) != b*b {
		t.w = make([]float64, b*b)
	}
	yr := y.RawMatrix()
	t.y, t.ys = yr.Data, yr.Stride
	t.gy = n.Delta[len(n.Delta)-1]
	t.pool.Run(pairBlocks, t.jobW)
	var z float64
	for _, v := range t.zb {
		z += v
	}
	t.z = z
	t.pool.Run(pairBlocks, t.jobG)
	var cost float64
	for _, v := range t.cb {
		cost += v
	}
	n.Backward(theta, grad)
	return cost
}

// kernel is 1/v for α = 1 (t-SNE's), v^{−(α+1)/2} otherwise.
func kernel(v, alpha, expo float64) float64 {
	if alpha == 1 {
		return 1 / v
	}
	return math.Pow(v, expo)
}

// wBlock sets w_ij = 1 + ‖y_i − y_j‖²/α for the rows of span s and their share of Z.
func (t *trainer) wBlock(s int) {
	b, alpha, expo := t.rows, t.dof, t.expo
	dim := t.sizes[len(t.sizes)-1]
	lo, hi := minibatch.Span(s, pairBlocks, b)
	yd, ys := t.y, t.ys
	var z float64
	for i := lo; i < hi; i++ {
		yi := yd[i*ys : i*ys+dim]
		wi := t.w[i*b : (i+1)*b]
		for j := range b {
			if j == i {
				continue
			}
			yj := yd[j*ys : j*ys+dim]
			var d2 float64
			for k, v := range yi {
				e := v - yj[k]
				d2 += e * e
			}
			v := 1 + d2/alpha
			wi[j] = v
			z += kernel(v, alpha, expo)
		}
	}
	t.zb[s] = z
}

// gBlock sets ∂C/∂y_i for the rows of span s and their share of the cost.
func (t *trainer) gBlock(s int) {
	b, alpha, expo, z := t.rows, t.dof, t.expo, t.z
	dim := t.sizes[len(t.sizes)-1]
	lo, hi := minibatch.Span(s, pairBlocks, b)
	yd, ys := t.y, t.ys
	c := (2*alpha + 2) / alpha
	var cost float64
	for i := lo; i < hi; i++ {
		gi := t.gy.RawRowView(i)
		clear(gi)
		yi := yd[i*ys : i*ys+dim]
		wi := t.w[i*b : (i+1)*b]
		pi := t.p.RawRowView(i)
		for j := range b {
			if j == i {
				continue
			}
			v := wi[j]
			q := kernel(v, alpha, expo) / z
			p := pi[j]
			if p > 0 {
				cost += p * math.Log(p/q)
			}
			g := c * (p - q) / v
			yj := yd[j*ys : j*ys+dim]
			for k := range dim {
				gi[k] += g * (yi[k] - yj[k])
			}
		}
	}
	t.cb[s] = cost
}
