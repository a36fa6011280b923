package hope

import (
	"context"
	"math"
	"runtime"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/internal/minibatch"
)

// Model is a fitted HOPE or S-HOPE map, with its exemplars when it has them. It implements
// lowdim.Model, lowdim.Transformer and modelio.Model (kind "hope").
//
// The map of an input row x (H features) is y = f(x) with x̃ = ((x − Mean)/Scale, 1),
// h_f = (C_f·x̃)^Order and y = Pᵀh (HOPE) or y = Pᵀσ(Wᵀh + B) (S-HOPE).
type Model struct {
	Sigmoid bool      // S-HOPE (true) or linear HOPE
	Order   int       // O
	Mean    []float64 // per-feature input centre (H)
	Scale   float64   // input scale: the RMS norm of the centred training rows
	C       *mat.Dense
	W       *mat.Dense // F×m, S-HOPE only (nil for HOPE)
	B       []float64  // m, S-HOPE only
	P       *mat.Dense // F×D (HOPE) or m×D (S-HOPE)

	// Exemplars (z×H, input space) and their class indices; nil without exemplars.
	Exemplars      *mat.Dense
	ExemplarLabels []int
	// ClassNames of the training labels (may be nil).
	ClassNames []string

	// Y is the embedding of the training rows, in input order (validation rows included).
	Y *mat.Dense
	// History has one entry per finished epoch. Its Elapsed times are not saved in the
	// model file (a loaded model's are 0), so that the same seed gives the same bytes.
	History []Epoch
	// ValidError is the validation 5-NN error of the kept parameters (NaN without validation).
	ValidError float64 `modelio:"nonfinite"`

	sh    shape
	theta []float64 // C, W, B, P share this storage
}

// newModel wraps θ; C, W, B and P are views of it.
func newModel(sh shape, sigmoid bool, theta []float64) *Model {
	m := &Model{Sigmoid: sigmoid, Order: sh.order, sh: sh, theta: theta}
	c, w, b, p := sh.blocks(theta)
	m.C = mat.NewDense(c.Rows, c.Cols, c.Data)
	if sh.m > 0 {
		m.W = mat.NewDense(w.Rows, w.Cols, w.Data)
		m.B = b
	}
	m.P = mat.NewDense(p.Rows, p.Cols, p.Data)
	return m
}

// Embedding returns the embedding of the training rows.
func (m *Model) Embedding() *mat.Dense { return m.Y }

// Dim returns the output dimension.
func (m *Model) Dim() int { return m.sh.dim }

// Features returns the number of input features H the model expects.
func (m *Model) Features() int { return m.sh.in }

// Factors returns F and Hidden returns m (0 for HOPE).
func (m *Model) Factors() int { return m.sh.f }

// Hidden returns the number of sigmoid units (0 for linear HOPE).
func (m *Model) Hidden() int { return m.sh.m }

// transformChunk is the number of rows mapped per forward pass by Transform.
const transformChunk = 256

// Transform embeds the rows of x (n×H) into dst (n×D; an empty dst is resized).
func (m *Model) Transform(dst *mat.Dense, x mat.Matrix) error {
	return m.TransformContext(context.Background(), dst, x)
}

// TransformContext is Transform with cancellation between chunks of rows.
func (m *Model) TransformContext(ctx context.Context, dst *mat.Dense, x mat.Matrix) error {
	rows, cols := x.Dims()
	if cols != m.sh.in {
		return dataset.Invalidf("hope: the input has %d features but the model was fitted on %d", cols, m.sh.in)
	}
	if dst.IsEmpty() {
		dst.ReuseAs(rows, m.sh.dim)
	}
	if r, c := dst.Dims(); r != rows || c != m.sh.dim {
		return dataset.Invalidf("hope: destination is %d×%d, want %d×%d", r, c, rows, m.sh.dim)
	}
	if rows == 0 {
		return nil
	}
	var p *minibatch.Pool
	if splitProducts {
		p = minibatch.NewPool(runtime.NumCPU())
		defer p.Close()
	}
	n := newNet(m.sh, min(rows, transformChunk), p)
	for lo := 0; lo < rows; lo += transformChunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(lo+transformChunk, rows)
		for i := lo; i < hi; i++ {
			if err := m.fillRow(n.x[(i-lo)*m.sh.cols():(i-lo+1)*m.sh.cols()], x, i); err != nil {
				return err
			}
		}
		n.forward(m.theta, hi-lo)
		for i := lo; i < hi; i++ {
			copy(dst.RawRowView(i), n.y[(i-lo)*m.sh.dim:(i-lo+1)*m.sh.dim])
		}
	}
	return nil
}

// fillRow writes the normalised row i of x with its bias 1 into dst.
func (m *Model) fillRow(dst []float64, x mat.Matrix, i int) error {
	inv := 1 / m.Scale
	h := m.sh.in
	if rv, ok := x.(mat.RawRowViewer); ok {
		for j, v := range rv.RawRowView(i)[:h] {
			dst[j] = (v - m.Mean[j]) * inv
		}
	} else {
		for j := range h {
			dst[j] = (x.At(i, j) - m.Mean[j]) * inv
		}
	}
	for _, v := range dst[:h] {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return dataset.Invalidf("hope: row %d has a non-finite value", i+1)
		}
	}
	dst[h] = 1
	return nil
}

// ExemplarEmbedding returns the embedded exemplars (z×D), or nil without exemplars.
func (m *Model) ExemplarEmbedding() *mat.Dense {
	if m.Exemplars == nil {
		return nil
	}
	var y mat.Dense
	if err := m.Transform(&y, m.Exemplars); err != nil {
		return nil
	}
	return &y
}

// Classify embeds the rows of x and writes into dst (len n) the class each gets by a majority
// vote of its k nearest embedded exemplars (k = 0 means 5; ties go to the nearest tied class).
func (m *Model) Classify(ctx context.Context, dst []int, x mat.Matrix, k int) error {
	if m.Exemplars == nil {
		return dataset.Invalidf("hope: the model has no exemplars to classify with")
	}
	var y mat.Dense
	if err := m.TransformContext(ctx, &y, x); err != nil {
		return err
	}
	ey := m.ExemplarEmbedding()
	return KNNClassify(ctx, dst, ey, m.ExemplarLabels, &y, k, runtime.NumCPU())
}
