package linproj

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/modelio"
)

// LinearModel is a linear projection fixed by an interactive session (LSP or MLE):
// y = Projection · ((x − Mean) ∘ Scale), the normalisation followed by the D×H map.
type LinearModel struct {
	Method     Method
	Mean       []float64  // H column means of the session's data
	Scale      []float64  // H column factors of the normalisation (all 1 without one)
	Projection *mat.Dense // D×H, applied to normalised rows
	// Records and Positions (m×D; nil when m = 0) are the control points that fixed the map.
	Records   []int
	Positions *mat.Dense

	embedding *mat.Dense // n×D, the session's records
}

var (
	_ lowdim.Model       = (*LinearModel)(nil)
	_ lowdim.Transformer = (*LinearModel)(nil)
	_ modelio.Model      = (*LinearModel)(nil)
)

const (
	linearKind    = "linproj"
	linearVersion = 1
)

func init() { modelio.Register(linearKind, linearVersion, decodeLinear) }

// Model returns the session's current projection as a model that embeds new rows and can be
// saved with modelio. It holds copies: later moves do not change it.
func (s *Session) Model() *LinearModel {
	lm := &LinearModel{Method: s.method, Mean: slices.Clone(s.mean), Scale: slices.Clone(s.scale),
		Projection: mat.DenseCopyOf(s.post), embedding: mat.NewDense(s.n, s.dim, nil)}
	lm.Records, lm.Positions = s.Controls()
	s.Embedding(lm.embedding)
	return lm
}

// Embedding returns the embedding of the session's records when the model was made (not a copy).
func (lm *LinearModel) Embedding() *mat.Dense { return lm.embedding }

// Transform embeds the rows of x (r×H) into dst (r×D, or empty). A wrong column count, a dst
// of the wrong shape or a non-finite value is an error wrapping dataset.ErrInvalid.
func (lm *LinearModel) Transform(dst *mat.Dense, x mat.Matrix) error {
	if dst == nil || x == nil {
		return dataset.Invalidf("linear transform: nil matrix")
	}
	r, c := x.Dims()
	d, h := lm.Projection.Dims()
	if c != h {
		return dataset.Invalidf("linear transform: data have %d columns, the model was made on %d", c, h)
	}
	if r == 0 {
		return dataset.Invalidf("linear transform: no rows")
	}
	if dst.IsEmpty() {
		dst.ReuseAs(r, d)
	} else if dr, dc := dst.Dims(); dr != r || dc != d {
		return dataset.Invalidf("linear transform: dst is %d×%d, want %d×%d", dr, dc, r, d)
	}
	row := make([]float64, h)
	for i := 0; i < r; i++ {
		for j := range row {
			v := x.At(i, j)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return dataset.Invalidf("linear transform: row %d column %d is %v", i+1, j+1, v)
			}
			row[j] = (v - lm.Mean[j]) * lm.Scale[j]
		}
		for k := 0; k < d; k++ {
			dst.Set(i, k, floats.Dot(lm.Projection.RawRowView(k), row))
		}
	}
	return nil
}

// ModelKind returns "linproj".
func (lm *LinearModel) ModelKind() string { return linearKind }

// MarshalBinary encodes the model as a modelio payload.
func (lm *LinearModel) MarshalBinary() ([]byte, error) {
	var e modelio.Encoder
	e.Int(int(lm.Method))
	e.Float64s(lm.Mean)
	e.Float64s(lm.Scale)
	e.Dense(lm.Projection)
	rec := make([]float64, len(lm.Records))
	for i, r := range lm.Records {
		rec[i] = float64(r)
	}
	e.Float64s(rec)
	e.Dense(lm.Positions)
	e.Dense(lm.embedding)
	return e.Bytes(), nil
}

func decodeLinear(version uint16, p []byte) (any, error) {
	d := modelio.NewDecoder(p)
	lm := &LinearModel{Method: Method(d.Int()), Mean: d.Float64s(), Scale: d.Float64s(), Projection: d.Dense()}
	rec := d.Float64s()
	lm.Positions = d.Dense()
	lm.embedding = d.Dense()
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if lm.Method != MLE && lm.Method != LSP {
		return nil, dataset.Invalidf("linproj payload: unknown method %d", int(lm.Method))
	}
	if lm.Projection == nil || lm.embedding == nil {
		return nil, dataset.Invalidf("linproj payload: no projection or embedding")
	}
	dim, h := lm.Projection.Dims()
	n, ec := lm.embedding.Dims()
	switch {
	case len(lm.Mean) != h || len(lm.Scale) != h:
		return nil, dataset.Invalidf("linproj payload: %d means and %d scales for %d features", len(lm.Mean), len(lm.Scale), h)
	case ec != dim:
		return nil, dataset.Invalidf("linproj payload: embedding has %d columns, want %d", ec, dim)
	}
	for _, r := range rec {
		if r != math.Trunc(r) || r < 0 || math.Signbit(r) || r >= float64(n) { // −0 would re-encode as 0
			return nil, dataset.Invalidf("linproj payload: control record %v out of range 0..%d", r, n-1)
		}
		lm.Records = append(lm.Records, int(r))
	}
	if len(rec) > 0 {
		if lm.Positions == nil {
			return nil, dataset.Invalidf("linproj payload: %d control records without positions", len(rec))
		}
		if r, c := lm.Positions.Dims(); r != len(rec) || c != dim {
			return nil, dataset.Invalidf("linproj payload: positions are %d×%d, want %d×%d", r, c, len(rec), dim)
		}
	}
	finite := [][]float64{lm.Mean, lm.Scale, lm.Projection.RawMatrix().Data, lm.embedding.RawMatrix().Data}
	switch {
	case len(rec) == 0 && lm.Positions != nil:
		return nil, dataset.Invalidf("linproj payload: control positions without control records")
	case lm.Positions != nil:
		finite = append(finite, lm.Positions.RawMatrix().Data)
	}
	for _, s := range finite {
		if !allFinite(s) {
			return nil, dataset.Invalidf("linproj payload: a non-finite number")
		}
	}
	return lm, nil
}
