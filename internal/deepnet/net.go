// Package deepnet is what the networks pretrained as stacks of RBMs share (package ptsne's
// parametric t-SNE, package baseline/deepae's deep autoencoder, package baseline/dtse's dt-MCML
// and dt-NCA): the row-major products on internal/blas (Gemm), the RBM pretraining of Hinton
// and Salakhutdinov (2006) (Pretrain), a fully connected network of logistic and linear layers
// with its forward and backward passes (Net), the fitted map's Transform (Encode) and the part
// of their model files they have in common (Payload).
package deepnet

import (
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// Params is the length of θ for layers of the given sizes: per layer l its weights
// (sizes[l−1]×sizes[l], row-major), then its sizes[l] biases.
func Params(sizes []int) int {
	p := 0
	for l := 1; l < len(sizes); l++ {
		p += sizes[l-1]*sizes[l] + sizes[l]
	}
	return p
}

// Layer returns views of layer l's weights (in×out) and biases in theta.
func Layer(sizes []int, theta []float64, l int) (w *mat.Dense, b []float64) {
	off := 0
	for k := 1; k < l; k++ {
		off += sizes[k-1]*sizes[k] + sizes[k]
	}
	in, out := sizes[l-1], sizes[l]
	return mat.NewDense(in, out, theta[off:off+in*out]), theta[off+in*out : off+in*out+out]
}

// Net is a multilayer perceptron's activations for rows rows: a_l = f_l(a_{l−1}W_l + b_l),
// f_l the logistic sigmoid σ, or the identity where Linear[l] is true.
type Net struct {
	sizes  []int
	linear []bool
	rows   int
	g      *Gemm
	// Act[0] is the input, Act[L] the output.
	Act []*mat.Dense
	// Delta[l] is ∂C/∂(pre-activation of layer l), l = 1..L: the caller sets Delta[L] before
	// Backward.
	Delta []*mat.Dense
	// transposed copies: a layer's weights (out×in) in forward; an activation (in×rows) and a
	// delta (out×rows) in backward
	wt, at, dt []float64
}

// NewNet allocates the activations of a network of the given layer sizes for rows rows;
// linear[l] marks layer l as linear (len(linear) = len(sizes); index 0 is unused).
func NewNet(sizes []int, linear []bool, rows int, g *Gemm) *Net {
	n := &Net{sizes: sizes, linear: linear, rows: rows, g: g}
	for _, s := range sizes {
		n.Act = append(n.Act, mat.NewDense(rows, s, nil))
		n.Delta = append(n.Delta, mat.NewDense(rows, s, nil))
	}
	wt := 0
	for l := 1; l < len(sizes); l++ {
		wt = max(wt, sizes[l-1]*sizes[l])
	}
	n.wt = make([]float64, wt)
	return n
}

// Out returns the output layer's activations.
func (n *Net) Out() *mat.Dense { return n.Act[len(n.Act)-1] }

// Forward computes every layer's activations for the input x (rows×H).
func (n *Net) Forward(theta []float64, x *mat.Dense) {
	n.Act[0].Copy(x)
	last := len(n.sizes) - 1
	for l := 1; l <= last; l++ {
		in, out := n.sizes[l-1], n.sizes[l]
		w, b := Layer(n.sizes, theta, l)
		wt := n.wt[:in*out]
		n.g.Transpose(wt, w.RawMatrix().Data, in, out)
		a := n.Act[l]
		n.g.NT(n.rows, out, in, 1, n.Act[l-1].RawMatrix().Data, in, wt, in, 0, a.RawMatrix().Data, out)
		for i := range n.rows {
			row := a.RawRowView(i)
			floats.Add(row, b)
			if !n.linear[l] {
				Sigmoids(row)
			}
		}
	}
}

// Backward sets grad to ∂C/∂θ given ∂C/∂(pre-activation of the output) in Delta[L], after a
// Forward at the same θ.
func (n *Net) Backward(theta, grad []float64) {
	last := len(n.sizes) - 1
	if n.at == nil {
		at, dt := 0, 0
		for l := 1; l <= last; l++ {
			at, dt = max(at, n.sizes[l-1]), max(dt, n.sizes[l])
		}
		n.at, n.dt = make([]float64, at*n.rows), make([]float64, dt*n.rows)
	}
	r := n.rows
	for l := last; l >= 1; l-- {
		in, out := n.sizes[l-1], n.sizes[l]
		w, _ := Layer(n.sizes, theta, l)
		gw, gb := Layer(n.sizes, grad, l)
		// ∂C/∂W = act[l−1]ᵀ·δ[l] (in×out) = (act[l−1]ᵀ)·(δ[l]ᵀ)ᵀ
		at, dt := n.at[:in*r], n.dt[:out*r]
		n.g.Transpose(at, n.Act[l-1].RawMatrix().Data, r, in)
		n.g.Transpose(dt, n.Delta[l].RawMatrix().Data, r, out)
		n.g.NT(in, out, r, 1, at, r, dt, r, 0, gw.RawMatrix().Data, out)
		clear(gb)
		for i := range r {
			floats.Add(gb, n.Delta[l].RawRowView(i))
		}
		if l > 1 {
			// δ[l−1] = δ[l]·Wᵀ, times σ′ = a(1 − a) unless layer l−1 is linear
			dp := n.Delta[l-1]
			n.g.NT(r, in, out, 1, n.Delta[l].RawMatrix().Data, out, w.RawMatrix().Data, out, 0, dp.RawMatrix().Data, in)
			if n.linear[l-1] {
				continue
			}
			a := n.Act[l-1]
			for i := range r {
				drow, arow := dp.RawRowView(i), a.RawRowView(i)
				for j, v := range arow {
					drow[j] *= v * (1 - v)
				}
			}
		}
	}
}

// UnitRange returns the normalisation of a pretrained network's inputs: x̃ = (x − lo)/(hi − lo) with
// lo and hi the least and greatest value in the training rows, one pair for all columns, so
// that pixels keep their relative intensities (MNIST's 0…255 become the paper's 0…1).
func UnitRange(x *mat.Dense) (offset []float64, scale float64) {
	n, h := x.Dims()
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range n {
		for _, v := range x.RawRowView(i) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	offset = make([]float64, h)
	for j := range offset {
		offset[j] = lo
	}
	scale = hi - lo
	if scale == 0 {
		scale = 1
	}
	return offset, scale
}
