package deepnet

import (
	"context"
	"math"
	"math/rand/v2"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/dataset"
	iblas "github.com/lowdim/lowdim/internal/blas"
	"github.com/lowdim/lowdim/internal/minibatch"
)

// The RBM pretraining of van der Maaten (2009, §3), which is Hinton and Salakhutdinov's (2006)
// for deep autoencoders: each layer of the network is trained in turn as a restricted Boltzmann
// machine on the previous layer's hidden probabilities by contrastive divergence (CD-1), with
// the settings of their code: mini-batches of 100 rows, learning rate 0.1 (0.001 for the top
// layer's linear units), momentum 0.5 for the first 5 epochs and 0.9 after, weight decay 2·10⁻⁴
// on the weights, weights drawn from N(0, 0.1²) and biases at zero.
const (
	rbmBatch       = 100
	rbmRate        = 0.1
	rbmRateLinear  = 0.001
	rbmMomentum0   = 0.5
	rbmMomentum1   = 0.9
	rbmSlowEpochs  = 5
	rbmWeightDecay = 2e-4
	rbmInitSD      = 0.1
)

// rbm is a restricted Boltzmann machine with in visible units, real values in [0, 1] read as
// probabilities of binary units, and out hidden units: binary (logistic) ones, or for the
// network's output layer linear ones with unit-variance Gaussian noise. Its energy is
//
//	E(v, h) = −aᵀv − bᵀh − vᵀWh            (binary hidden units)
//	E(v, h) = −aᵀv + ‖h − b‖²/2 − vᵀWh     (linear hidden units)
//
// so that p(h_j = 1 | v) = σ(b_j + vᵀW_{·j}), or h_j | v ~ N(b_j + vᵀW_{·j}, 1), and
// p(v_i = 1 | h) = σ(a_i + W_{i·}h). CD-1 moves W by ⟨vhᵀ⟩_data − ⟨vhᵀ⟩_recon, where the
// reconstruction v₁ = p(v | h₀) is taken from hidden states h₀ sampled given the data and both
// correlations use hidden probabilities (means), as Hinton's code does.
type rbm struct {
	in, out int
	linear  bool
	w       []float64 // out×in: Wᵀ, the layout the products read
	wt      []float64 // in×out: W, the network's layout of the layer's weights
	a, b    []float64 // visible and hidden biases
	// momentum terms of the updates
	dw, da, db []float64
	// one mini-batch: v₀, h₀ (probabilities), h₀ states, v₁, h₁; and the gradient's operands
	v0, h0, s0, v1, h1 []float64
	ht, vt, gw         []float64
}

func newRBM(in, out int, linear bool, rng *rand.Rand) *rbm {
	r := &rbm{in: in, out: out, linear: linear,
		w: make([]float64, out*in), wt: make([]float64, in*out),
		a: make([]float64, in), b: make([]float64, out),
		dw: make([]float64, out*in), da: make([]float64, in), db: make([]float64, out),
		v0: make([]float64, rbmBatch*2*in), h0: make([]float64, rbmBatch*2*out), s0: make([]float64, rbmBatch*2*out),
		v1: make([]float64, rbmBatch*2*in), h1: make([]float64, rbmBatch*2*out),
		ht: make([]float64, out*4*rbmBatch), vt: make([]float64, in*4*rbmBatch), gw: make([]float64, out*in)}
	for i := range r.w {
		r.w[i] = rbmInitSD * rng.NormFloat64()
	}
	iblas.Transpose(r.wt, r.w, out, in)
	return r
}

// hidden sets h (rows×out) to the hidden units' means given v (rows×in).
func (r *rbm) hidden(g *Gemm, h, v []float64, rows int) {
	g.NT(rows, r.out, r.in, 1, v, r.in, r.w, r.in, 0, h, r.out)
	for i := range rows {
		row := h[i*r.out : (i+1)*r.out]
		for j, bj := range r.b {
			row[j] += bj
		}
		if !r.linear {
			Sigmoids(row)
		}
	}
}

// cd1 takes one CD-1 step on the rows v (rows×in, copied into r.v0 by the caller) with learning
// rate lr and momentum mom, and returns the squared reconstruction error Σ‖v₀ − v₁‖².
func (r *rbm) cd1(g *Gemm, rows int, lr, mom float64, rng *rand.Rand) float64 {
	in, out := r.in, r.out
	v0, h0, s0, v1, h1 := r.v0[:rows*in], r.h0[:rows*out], r.s0[:rows*out], r.v1[:rows*in], r.h1[:rows*out]
	r.hidden(g, h0, v0, rows)
	if r.linear {
		for i, v := range h0 {
			s0[i] = v + rng.NormFloat64()
		}
	} else {
		for i, v := range h0 {
			s0[i] = 0
			if rng.Float64() < v {
				s0[i] = 1
			}
		}
	}
	g.NT(rows, in, out, 1, s0, out, r.wt, out, 0, v1, in)
	var rec float64
	for i := range rows {
		row := v1[i*in : (i+1)*in]
		for j, aj := range r.a {
			row[j] += aj
		}
		Sigmoids(row)
		for j, v := range row {
			e := v0[i*in+j] - v
			rec += e * e
		}
	}
	r.hidden(g, h1, v1, rows)

	// ⟨h vᵀ⟩_data − ⟨h vᵀ⟩_recon (out×in) as one product of k = 2·rows:
	// [h₀ᵀ h₁ᵀ] · [v₀ᵀ −v₁ᵀ]ᵀ / rows.
	k := 2 * rows
	ht, vt := r.ht[:out*k], r.vt[:in*k]
	for s := range rows {
		for j := range out {
			ht[j*k+s], ht[j*k+rows+s] = h0[s*out+j], h1[s*out+j]
		}
		for j := range in {
			vt[j*k+s], vt[j*k+rows+s] = v0[s*in+j], -v1[s*in+j]
		}
	}
	g.NT(out, in, k, 1/float64(rows), ht, k, vt, k, 0, r.gw, in)
	for i, gv := range r.gw {
		r.dw[i] = mom*r.dw[i] + lr*(gv-rbmWeightDecay*r.w[i])
		r.w[i] += r.dw[i]
	}
	g.Transpose(r.wt, r.w, out, in)
	scale := lr / float64(rows)
	biasStep(r.a, r.da, v0, v1, rows, mom, scale)
	biasStep(r.b, r.db, h0, h1, rows, mom, scale)
	return rec
}

// biasStep takes one momentum step of the biases c (velocity dc) along the column sums of
// x0 − x1 (rows × len(c), row-major), scaled by scale: CD-1's data minus reconstruction term.
func biasStep(c, dc, x0, x1 []float64, rows int, mom, scale float64) {
	cols := len(c)
	for j := range cols {
		var s float64
		for i := range rows {
			s += x0[i*cols+j] - x1[i*cols+j]
		}
		dc[j] = mom*dc[j] + scale*s
		c[j] += dc[j]
	}
}

// RowSource fills dst (len(idx)×width) with the rows idx of a layer's input.
type RowSource func(dst []float64, idx []int)

// Pretrain trains the layers sizes[0]→sizes[1], … as a stack of RBMs for epochs epochs each on
// n rows read from src (in [0, 1]), the last one with linear hidden units, and writes the
// weights and hidden biases into θ (the network's layout, see Layer). name prefixes its
// progress stage ("NAME pretrain") and errors. It returns each layer's mean squared
// reconstruction error per epoch, Σ‖v₀ − v₁‖²/(n·in), and each RBM's visible biases (what an
// unrolled autoencoder's decoder starts from).
func Pretrain(ctx context.Context, name string, g *Gemm, theta []float64, sizes []int, n int, src RowSource, epochs int, rng *rand.Rand, progress lowdim.Progress) (recon, visible [][]float64, err error) {
	last := len(sizes) - 1
	nb := max(1, n/rbmBatch)
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	recon, visible = make([][]float64, last), make([][]float64, last)
	stage := name + " pretrain"
	for l := 1; l <= last; l++ {
		in, out := sizes[l-1], sizes[l]
		r := newRBM(in, out, l == last, rng)
		lr := rbmRate
		if r.linear {
			lr = rbmRateLinear
		}
		for ep := range epochs {
			mom := rbmMomentum0
			if ep >= rbmSlowEpochs {
				mom = rbmMomentum1
			}
			rng.Shuffle(n, func(a, b int) { perm[a], perm[b] = perm[b], perm[a] })
			var rec float64
			for b := range nb {
				if err := ctx.Err(); err != nil {
					return nil, nil, err
				}
				lo, hi := minibatch.Span(b, nb, n)
				src(r.v0[:(hi-lo)*in], perm[lo:hi])
				rec += r.cd1(g, hi-lo, lr, mom, rng)
				progress.Report(stage, (l-1)*epochs*nb+ep*nb+b+1, last*epochs*nb)
			}
			recon[l-1] = append(recon[l-1], rec/float64(n*in))
			if math.IsNaN(rec) || math.IsInf(rec, 0) {
				return nil, nil, dataset.Invalidf("%s: pretraining diverged in layer %d, epoch %d", name, l, ep+1)
			}
		}
		w, b := Layer(sizes, theta, l)
		copy(w.RawMatrix().Data, r.wt)
		copy(b, r.b)
		visible[l-1] = r.a
		if l == last {
			break
		}
		// The next layer learns from this one's hidden probabilities of every row, kept in
		// single precision (60,000 MNIST rows by 2,000 units: 480 MB).
		next := make([]float32, n*out)
		idx := make([]int, 0, rbmBatch)
		for lo := 0; lo < n; lo += rbmBatch {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
			hi := min(lo+rbmBatch, n)
			idx = idx[:0]
			for i := lo; i < hi; i++ {
				idx = append(idx, i)
			}
			src(r.v0[:(hi-lo)*in], idx)
			r.hidden(g, r.h0, r.v0[:(hi-lo)*in], hi-lo)
			for i, v := range r.h0[:(hi-lo)*out] {
				next[lo*out+i] = float32(v)
			}
		}
		data, width := next, out
		src = func(dst []float64, idx []int) {
			for a, i := range idx {
				for j, v := range data[i*width : (i+1)*width] {
					dst[a*width+j] = float64(v)
				}
			}
		}
	}
	return recon, visible, nil
}

// Sigmoids replaces each v of row by σ(v) = 1/(1 + e^{−v}).
func Sigmoids(row []float64) {
	for j, v := range row {
		row[j] = 1 / (1 + math.Exp(-v))
	}
}
