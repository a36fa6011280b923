package hope

import (
	"math"
	"time"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/modelio"
)

const (
	hopeKind = "hope"
	// hopeVersion 2 is version 1's layout with the Elapsed slot of every history entry 0: a
	// version-1 file may hold wall-clock times there (they load), a version-2 file may not, so
	// that a version-2 payload decodes and re-encodes to the same bytes (the fuzz target's
	// invariant; it found a version-1 payload whose times the encoder drops).
	hopeVersion = 2
)

func init() { modelio.Register(hopeKind, hopeVersion, decodeHOPE) }

// ModelKind returns "hope", the modelio kind of HOPE and S-HOPE models.
func (m *Model) ModelKind() string { return hopeKind }

// MarshalBinary encodes the model: shape, normalisation, parameters θ = [C | W | B | P],
// exemplars, class names, training embedding, validation error and history.
//
// The history's Elapsed times are wall-clock readings, different on every run, so they are
// not stored: the field is written as 0 (the layout keeps its slot; version-1 files written
// before this change still load, their times included, and version 2 requires the 0). Two fits with the same seed and settings
// therefore give byte-identical files. The timings stay in the log — OnEpoch, and the
// command's per-epoch lines — and in the History of the Model that Train returns.
// (A MaxTime that binds still makes the number of epochs, and so the file, depend on the
// machine's speed.)
func (m *Model) MarshalBinary() ([]byte, error) {
	var e modelio.Encoder
	b := 0
	if m.Sigmoid {
		b = 1
	}
	e.Int(b)
	for _, v := range []int{m.sh.in, m.sh.f, m.sh.m, m.sh.dim, m.sh.order} {
		e.Int(v)
	}
	e.Float64s(m.Mean)
	e.Float64(m.Scale)
	e.Float64s(m.theta)
	e.Dense(m.Exemplars)
	e.Int(len(m.ExemplarLabels))
	for _, l := range m.ExemplarLabels {
		e.Int(l)
	}
	e.Int(len(m.ClassNames))
	for _, s := range m.ClassNames {
		e.String(s)
	}
	e.Dense(m.Y)
	e.Float64(m.ValidError)
	e.Int(len(m.History))
	for _, h := range m.History {
		e.String(h.Stage)
		e.Int(h.Epoch)
		e.Float64(h.Cost)
		e.Float64(h.ValidError)
		e.Int(0) // Elapsed: not stored, see above
		best := 0
		if h.Best {
			best = 1
		}
		e.Int(best)
	}
	return e.Bytes(), nil
}

// maxPayloadCount bounds counts read from a payload before they size anything.
const maxPayloadCount = 1 << 24

func decodeHOPE(version uint16, payload []byte) (any, error) {
	d := modelio.NewDecoder(payload)
	bad := func(format string, args ...any) (any, error) {
		return nil, dataset.Invalidf("hope payload: "+format, args...)
	}
	sig := d.Int()
	var sh shape
	sh.in, sh.f, sh.m, sh.dim, sh.order = d.Int(), d.Int(), d.Int(), d.Int(), d.Int()
	if err := d.Err(); err != nil {
		return nil, err
	}
	if sig != 0 && sig != 1 {
		return bad("sigmoid flag %d", sig)
	}
	if sh.in < 1 || sh.f < 1 || sh.dim < 1 || sh.order < 1 || sh.order > maxOrder || sh.m < 0 ||
		sh.in > maxPayloadCount || sh.f > maxWidth || sh.m > maxWidth || sh.dim > maxWidth || (sig == 1) != (sh.m > 0) {
		return bad("shape %+v (sigmoid %d)", sh, sig)
	}
	mean := d.Float64s()
	scale := d.Float64()
	theta := d.Float64s()
	if err := d.Err(); err != nil {
		return nil, err
	}
	if len(mean) != sh.in {
		return bad("%d means for %d features", len(mean), sh.in)
	}
	if uint64(len(theta)) != uint64(sh.f)*uint64(sh.in+1)+uint64(sh.f)*uint64(sh.m)+uint64(sh.m)+uint64(sh.rowsP())*uint64(sh.dim) {
		return bad("%d parameters do not fit the shape %+v", len(theta), sh)
	}
	if !(scale > 0) || math.IsInf(scale, 0) {
		return bad("scale %g", scale)
	}
	m := newModel(sh, sig == 1, theta)
	m.Mean, m.Scale = mean, scale
	m.Exemplars = d.Dense()
	nl := d.Int()
	if d.Err() == nil && (nl < 0 || nl > maxPayloadCount) {
		return bad("%d exemplar labels", nl)
	}
	for range nl {
		if d.Err() != nil {
			break
		}
		m.ExemplarLabels = append(m.ExemplarLabels, d.Int())
	}
	nc := d.Int()
	if d.Err() == nil && (nc < 0 || nc > maxPayloadCount) {
		return bad("%d class names", nc)
	}
	for range nc {
		if d.Err() != nil {
			break
		}
		m.ClassNames = append(m.ClassNames, d.String())
	}
	m.Y = d.Dense()
	m.ValidError = d.Float64()
	nh := d.Int()
	if d.Err() == nil && (nh < 0 || nh > maxPayloadCount) {
		return bad("%d history entries", nh)
	}
	for range nh {
		if d.Err() != nil {
			break
		}
		h := Epoch{Stage: d.String(), Epoch: d.Int(), Cost: d.Float64(), ValidError: d.Float64(), Elapsed: time.Duration(d.Int())}
		if d.Err() == nil && version >= 2 && h.Elapsed != 0 {
			return bad("elapsed time %d in a version-%d file (always 0)", h.Elapsed, version)
		}
		best := d.Int()
		if d.Err() == nil && best != 0 && best != 1 {
			return bad("best flag %d", best)
		}
		h.Best = best == 1
		m.History = append(m.History, h)
	}
	if err := d.Finish(); err != nil {
		return nil, err
	}
	for _, s := range [][]float64{mean, theta} {
		for _, v := range s {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return bad("non-finite parameter %v", v)
			}
		}
	}
	if m.Exemplars != nil {
		z, c := m.Exemplars.Dims()
		if c != sh.in || z != len(m.ExemplarLabels) {
			return bad("%d×%d exemplars with %d labels for %d features", z, c, len(m.ExemplarLabels), sh.in)
		}
		for _, v := range m.Exemplars.RawMatrix().Data {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return bad("non-finite exemplar value %v", v)
			}
		}
	} else if len(m.ExemplarLabels) > 0 {
		return bad("%d exemplar labels without exemplars", len(m.ExemplarLabels))
	}
	for _, l := range m.ExemplarLabels {
		if l < 0 || l > maxPayloadCount {
			return bad("exemplar label %d", l)
		}
	}
	if m.Y != nil {
		if _, c := m.Y.Dims(); c != sh.dim {
			return bad("embedding has %d columns, the map %d", c, sh.dim)
		}
		for _, v := range m.Y.RawMatrix().Data {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return bad("non-finite embedding value %v", v)
			}
		}
	}
	return m, nil
}
