package linproj

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
)

// Method is the interactive projection: the Most Likely Embedding or LSP.
type Method int

const (
	// MLE is the Most Likely Embedding (the thesis's eq. 3.5): the posterior mean of a
	// matrix-normal prior on the projection, conditioned on the control points.
	MLE Method = iota
	// LSP is the minimum-norm least-squares map P = Y_m (X_mᵀ)^† through the control points.
	LSP
)

func (m Method) String() string {
	switch m {
	case MLE:
		return "mle"
	case LSP:
		return "lsp"
	}
	return fmt.Sprintf("Method(%d)", int(m))
}

// Normalization is applied to every column after centring, before anything else.
type Normalization int

const (
	// NormalizeNone only centres the columns.
	NormalizeNone Normalization = iota
	// NormalizeZScore divides each centred column by its standard deviation (denominator n−1).
	NormalizeZScore
	// NormalizeMax divides each centred column by its largest absolute value, so that every
	// column lies in [−1, 1].
	NormalizeMax
)

func (z Normalization) String() string {
	switch z {
	case NormalizeNone:
		return "none"
	case NormalizeZScore:
		return "zscore"
	case NormalizeMax:
		return "max"
	}
	return fmt.Sprintf("Normalization(%d)", int(z))
}

// Covariance chooses Ψ, the column covariance of the MLE prior.
type Covariance int

const (
	// CovarianceData is the sample covariance of the normalised data (InVis's choice).
	CovarianceData Covariance = iota
	// CovarianceIdentity is Ψ = I, the choice under which MLE tends to LSP.
	CovarianceIdentity
)

func (c Covariance) String() string {
	switch c {
	case CovarianceData:
		return "data"
	case CovarianceIdentity:
		return "identity"
	}
	return fmt.Sprintf("Covariance(%d)", int(c))
}

// Interactive holds the settings of an interactive projection session. The zero value is the
// reference tool's (InVis's) setting: MLE in 2-D, no normalisation, prior mean M = the top-2
// principal directions, Ψ = the data covariance, σ = 0.1·|smallest entry of Ψ|.
type Interactive struct {
	Method     Method
	Dim        int // output dimension D; 0 means 2
	Normalize  Normalization
	Covariance Covariance
	// Noise is σ, the standard deviation of the analyst's placement noise (the posterior
	// uses σ²). 0 means 0.1·|the smallest entry of Ψ| (InVis); a negative value means exact
	// placements (σ = 0). LSP always uses σ = 0.
	Noise float64
	// Prior is the prior mean M (D×H, in normalised coordinates); nil means the top-D
	// principal directions of the normalised data, so that with no control points MLE shows
	// the PCA projection. LSP ignores it (M = 0).
	Prior *mat.Dense
	// Workers re-embed the points in parallel when n is large; 0 means runtime.NumCPU().
	Workers int
}

// Session is an interactive projection of one data set: control points are added, moved and
// removed, and the projection and the embedding of every record follow.
//
// Costs (n records, H features, m control points, D output dimensions):
//   - Move (a control point changes position): O(D·m·H) for the projection; Embedding then
//     costs O(D·m·n) from the cached m×n matrix A·Xᵀ.
//   - SetControl of a new record or Remove (the selection changes): O(H²) for Ψx (O(H) for
//     Ψ = I), O(m²H + m³) for the gain matrix A and O(D·m·H) for the projection. The next
//     Embedding or Uncertainty adds O(n·H) for the new record's column of X Ψ X_mᵀ (kept
//     per control point, so re-selecting costs no more) and O(n·m²) for A·Xᵀ.
//
// A Session is not safe for concurrent use.
type Session struct {
	method  Method
	dim     int
	n, h    int
	workers int

	mean, scale []float64  // normalisation: x' = (x − mean)·scale
	x           *mat.Dense // n×H normalised data
	psi         *mat.SymDense
	prior       *mat.Dense // MLE's prior mean M, D×H
	priorBase   []float64  // n×D, row i = M x_i
	sigmaMLE    float64    // MLE's σ²
	identityMLE bool       // MLE's Ψ is I

	// The active method's prior: M (nil means 0), its embedding, Ψ = I or psi, σ².
	m        *mat.Dense
	base     []float64 // n×D, or nil for 0
	identity bool
	sigma2   float64
	sdiag    []float64 // x_iᵀ Ψ x_i, computed on first use (nil until then)

	// Control points, in the order they were added.
	records []int
	y       [][]float64 // D positions per control
	xpsi    [][]float64 // Ψ x_r per control (length H)
	bcol    [][]float64 // X Ψ x_r per control (length n), nil until needed

	// Factors of the current selection.
	kinv   *mat.Dense // (X_m Ψ X_mᵀ + σ²I)^†, m×m
	a      *mat.Dense // A = K^† X_m Ψ, m×H
	coef   *mat.Dense // C = Y_m − M X_mᵀ, D×m
	post   *mat.Dense // M_post = M + C A, D×H
	ax     []float64  // n×m, row i = (A Xᵀ)ᵀ_i = K^† b_i; valid when axOK
	axOK   bool
	moves  int // moves since the session started (see Move)
	scrEig mat.EigenSym
}

// Start normalises x (n×H raw rows, copied), computes the prior and returns a session with no
// control points. Errors wrap dataset.ErrInvalid for bad input.
func (s Interactive) Start(ctx context.Context, x *mat.Dense) (*Session, error) {
	if x == nil || x.IsEmpty() {
		return nil, dataset.Invalidf("interactive projection: no data")
	}
	n, h := x.Dims()
	dim := s.Dim
	if dim == 0 {
		dim = 2
	}
	switch {
	case n < 2:
		return nil, dataset.Invalidf("interactive projection: need at least 2 rows, have %d", n)
	case dim < 1 || dim > min(n, h):
		return nil, dataset.Invalidf("interactive projection: Dim %d out of range 1..min(n=%d, H=%d)", dim, n, h)
	case s.Method != MLE && s.Method != LSP:
		return nil, dataset.Invalidf("interactive projection: unknown method %d", int(s.Method))
	case s.Normalize < NormalizeNone || s.Normalize > NormalizeMax:
		return nil, dataset.Invalidf("interactive projection: unknown normalisation %d", int(s.Normalize))
	case s.Covariance != CovarianceData && s.Covariance != CovarianceIdentity:
		return nil, dataset.Invalidf("interactive projection: unknown covariance %d", int(s.Covariance))
	case math.IsNaN(s.Noise) || math.IsInf(s.Noise, 0):
		return nil, dataset.Invalidf("interactive projection: noise σ is %v: expected a finite number", s.Noise)
	}
	if s.Prior != nil {
		if r, c := s.Prior.Dims(); r != dim || c != h {
			return nil, dataset.Invalidf("interactive projection: prior mean is %d×%d, expected D×H = %d×%d", r, c, dim, h)
		}
		if !allFinite(s.Prior.RawMatrix().Data) {
			return nil, dataset.Invalidf("interactive projection: the prior mean holds a non-finite value")
		}
	}
	mean, err := columnMeans(ctx, x)
	if err != nil {
		return nil, err
	}
	se := &Session{method: s.Method, dim: dim, n: n, h: h, mean: mean, workers: s.Workers}
	if se.workers <= 0 {
		se.workers = runtime.NumCPU()
	}
	se.scale = make([]float64, h)
	for j := range se.scale {
		se.scale[j] = 1
	}
	se.x = mat.NewDense(n, h, nil)
	xd := se.x.RawMatrix().Data
	for i := 0; i < n; i++ {
		row := xd[i*h : (i+1)*h]
		for j, v := range x.RawRowView(i) {
			row[j] = v - mean[j]
		}
	}
	switch s.Normalize {
	case NormalizeZScore:
		for j := 0; j < h; j++ {
			ss := 0.0
			for i := 0; i < n; i++ {
				v := xd[i*h+j]
				ss += v * v
			}
			if sd := math.Sqrt(ss / float64(n-1)); sd > 0 {
				se.scale[j] = 1 / sd
			}
		}
	case NormalizeMax:
		for j := 0; j < h; j++ {
			big := 0.0
			for i := 0; i < n; i++ {
				big = math.Max(big, math.Abs(xd[i*h+j]))
			}
			if big > 0 {
				se.scale[j] = 1 / big
			}
		}
	}
	if s.Normalize != NormalizeNone {
		for i := 0; i < n; i++ {
			floats.Mul(xd[i*h:(i+1)*h], se.scale)
		}
	}
	zero := make([]float64, h)
	if se.psi, err = covariance(ctx, se.x, zero, nil); err != nil {
		return nil, err
	}
	se.identityMLE = s.Covariance == CovarianceIdentity
	switch {
	case s.Noise > 0:
		se.sigmaMLE = s.Noise * s.Noise
	case s.Noise == 0:
		sig := 0.0
		if !se.identityMLE {
			lo := math.Inf(1)
			for _, v := range se.psi.RawSymmetric().Data {
				lo = math.Min(lo, v)
			}
			sig = 0.1 * math.Abs(lo)
		}
		se.sigmaMLE = sig * sig
	}
	if s.Prior != nil {
		se.prior = mat.DenseCopyOf(s.Prior)
	} else {
		_, vecs, err := TopEigenSym(ctx, se.psi, dim)
		if err != nil {
			return nil, err
		}
		se.prior = mat.NewDense(dim, h, nil)
		se.prior.Copy(vecs.T())
	}
	se.priorBase = make([]float64, n*dim)
	for i := 0; i < n; i++ {
		xi := xd[i*h : (i+1)*h]
		for k := 0; k < dim; k++ {
			se.priorBase[i*dim+k] = floats.Dot(se.prior.RawRowView(k), xi)
		}
	}
	if s.Prior == nil {
		// PCA's sign convention (scikit-learn's svd_flip): the entry of largest absolute
		// value in each embedded column is positive.
		for k := 0; k < dim; k++ {
			best, arg := -1.0, 0
			for i := 0; i < n; i++ {
				if a := math.Abs(se.priorBase[i*dim+k]); a > best {
					best, arg = a, i
				}
			}
			if se.priorBase[arg*dim+k] < 0 {
				for i := 0; i < n; i++ {
					se.priorBase[i*dim+k] = -se.priorBase[i*dim+k]
				}
				floats.Scale(-1, se.prior.RawRowView(k))
			}
		}
	}
	se.applyMethod()
	return se, ctx.Err()
}

// applyMethod installs the active method's prior and refactors the current selection.
func (s *Session) applyMethod() {
	if s.method == LSP {
		s.m, s.base, s.identity, s.sigma2 = nil, nil, true, 0
	} else {
		s.m, s.base, s.identity, s.sigma2 = s.prior, s.priorBase, s.identityMLE, s.sigmaMLE
	}
	s.sdiag = nil
	for k, r := range s.records {
		s.xpsi[k] = s.psiTimes(s.xpsi[k], r)
		s.bcol[k] = nil
	}
	s.refactor()
}

// psiTimes writes Ψ x_r into dst (reused when it has length H).
func (s *Session) psiTimes(dst []float64, r int) []float64 {
	if len(dst) != s.h {
		dst = make([]float64, s.h)
	}
	xr := s.x.RawRowView(r)
	if s.identity {
		copy(dst, xr)
		return dst
	}
	v := mat.NewVecDense(s.h, dst)
	v.MulVec(s.psi, mat.NewVecDense(s.h, xr))
	return dst
}

// refactor recomputes the gain A = K^† X_m Ψ with K = X_m Ψ X_mᵀ + σ²I after the selection
// changed, then the projection. K^† is the pseudo-inverse (eigenvalues below 1e-12 of the
// largest are dropped), so exact placements (σ = 0) of linearly dependent records — more
// control points than the data's rank, or one record twice — stay defined: that is LSP's
// minimum-norm least-squares map.
func (s *Session) refactor() {
	m := len(s.records)
	s.axOK = false
	if m == 0 {
		s.kinv, s.a, s.coef = nil, nil, nil
		s.setPosterior()
		return
	}
	k := mat.NewSymDense(m, nil)
	for i := 0; i < m; i++ {
		xi := s.x.RawRowView(s.records[i])
		for j := i; j < m; j++ {
			v := floats.Dot(xi, s.xpsi[j])
			if i == j {
				v += s.sigma2
			}
			k.SetSym(i, j, v)
		}
	}
	s.kinv = pinvSym(&s.scrEig, k, s.kinv)
	s.a = mat.NewDense(m, s.h, nil)
	for i := 0; i < m; i++ {
		row := s.a.RawRowView(i)
		for j := 0; j < m; j++ {
			floats.AddScaled(row, s.kinv.At(i, j), s.xpsi[j])
		}
	}
	s.coef = mat.NewDense(s.dim, m, nil)
	s.setPosterior()
}

// pinvSym returns the pseudo-inverse of the symmetric positive semi-definite k.
func pinvSym(eig *mat.EigenSym, k *mat.SymDense, dst *mat.Dense) *mat.Dense {
	m := k.SymmetricDim()
	if dst == nil || dst.RawMatrix().Rows != m {
		dst = mat.NewDense(m, m, nil)
	} else {
		dst.Zero()
	}
	if !eig.Factorize(k, true) {
		return dst // cannot happen for a finite symmetric matrix; all-zero gain
	}
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	top := 0.0
	for _, v := range vals {
		top = math.Max(top, v)
	}
	for e, v := range vals {
		if v <= 1e-12*top || v <= 0 {
			continue
		}
		for i := 0; i < m; i++ {
			vi := vecs.At(i, e) / v
			for j := 0; j < m; j++ {
				dst.Set(i, j, dst.At(i, j)+vi*vecs.At(j, e))
			}
		}
	}
	return dst
}

// setPosterior recomputes C = Y_m − M X_mᵀ and M_post = M + C A: O(D·m·H).
func (s *Session) setPosterior() {
	if s.post == nil {
		s.post = mat.NewDense(s.dim, s.h, nil)
	}
	for d := 0; d < s.dim; d++ {
		row := s.post.RawRowView(d)
		if s.m != nil {
			copy(row, s.m.RawRowView(d))
		} else {
			clear(row)
		}
		for k, r := range s.records {
			c := s.y[k][d]
			if s.base != nil {
				c -= s.base[r*s.dim+d]
			}
			s.coef.Set(d, k, c)
			floats.AddScaled(row, c, s.a.RawRowView(k))
		}
	}
}

// Len returns the number of records n.
func (s *Session) Len() int { return s.n }

// Dim returns the output dimension D.
func (s *Session) Dim() int { return s.dim }

// Method returns the active method.
func (s *Session) Method() Method { return s.method }

// SetMethod switches between MLE and LSP, keeping the control points and their positions.
func (s *Session) SetMethod(m Method) error {
	if m != MLE && m != LSP {
		return dataset.Invalidf("interactive projection: unknown method %d", int(m))
	}
	if m != s.method {
		s.method = m
		s.applyMethod()
	}
	return nil
}

func (s *Session) checkRecord(record int) error {
	if record < 0 || record >= s.n {
		return dataset.Invalidf("interactive projection: record %d out of range 0..%d", record, s.n-1)
	}
	return nil
}

func (s *Session) checkPos(pos []float64) error {
	if len(pos) != s.dim {
		return dataset.Invalidf("interactive projection: a position of %d coordinates, expected %d", len(pos), s.dim)
	}
	if !allFinite(pos) {
		return dataset.Invalidf("interactive projection: position %v: expected finite numbers", pos)
	}
	return nil
}

func allFinite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// control returns the index of record among the control points, or −1.
func (s *Session) control(record int) int { return slices.Index(s.records, record) }

// Move moves the control point on record to pos. It costs O(D·m·H): the selection, and so
// the gain A, is unchanged. Moving a record that is not a control point is an error.
func (s *Session) Move(record int, pos []float64) error {
	if err := s.checkRecord(record); err != nil {
		return err
	}
	if err := s.checkPos(pos); err != nil {
		return err
	}
	k := s.control(record)
	if k < 0 {
		return dataset.Invalidf("interactive projection: record %d is not a control point", record)
	}
	copy(s.y[k], pos)
	// Only column k of C changes: M_post += (c_k,new − c_k,old) a_k, O(D·H) — 4× faster than
	// recomputing M + C A at m = 5. To keep the rounding this accumulates from growing, every
	// 256th move (and every selection change) recomputes M_post from scratch.
	s.moves++
	if s.moves%256 == 0 {
		s.setPosterior()
		return nil
	}
	ak := s.a.RawRowView(k)
	for d := 0; d < s.dim; d++ {
		c := pos[d]
		if s.base != nil {
			c -= s.base[record*s.dim+d]
		}
		old := s.coef.At(d, k)
		s.coef.Set(d, k, c)
		floats.AddScaled(s.post.RawRowView(d), c-old, ak)
	}
	return nil
}

// SetControl makes record a control point placed at pos, or moves it there if it already is one.
func (s *Session) SetControl(record int, pos []float64) error {
	if err := s.checkRecord(record); err != nil {
		return err
	}
	if err := s.checkPos(pos); err != nil {
		return err
	}
	if s.control(record) >= 0 {
		return s.Move(record, pos)
	}
	s.records = append(s.records, record)
	s.y = append(s.y, slices.Clone(pos))
	s.xpsi = append(s.xpsi, s.psiTimes(nil, record))
	s.bcol = append(s.bcol, nil)
	s.refactor()
	return nil
}

// Remove drops the control point on record.
func (s *Session) Remove(record int) error {
	if err := s.checkRecord(record); err != nil {
		return err
	}
	k := s.control(record)
	if k < 0 {
		return dataset.Invalidf("interactive projection: record %d is not a control point", record)
	}
	s.records = slices.Delete(s.records, k, k+1)
	s.y = slices.Delete(s.y, k, k+1)
	s.xpsi = slices.Delete(s.xpsi, k, k+1)
	s.bcol = slices.Delete(s.bcol, k, k+1)
	s.refactor()
	return nil
}

// SetControls replaces the control points: records[k] is placed at row k of pos (m×D).
// Records must be distinct.
func (s *Session) SetControls(records []int, pos *mat.Dense) error {
	m := len(records)
	if m > 0 {
		if pos == nil {
			return dataset.Invalidf("interactive projection: %d control records but no positions", m)
		}
		if r, c := pos.Dims(); r != m || c != s.dim {
			return dataset.Invalidf("interactive projection: positions are %d×%d, expected %d×%d", r, c, m, s.dim)
		}
	}
	for k, r := range records {
		if err := s.checkRecord(r); err != nil {
			return err
		}
		if err := s.checkPos(pos.RawRowView(k)); err != nil {
			return err
		}
		if slices.Index(records[:k], r) >= 0 {
			return dataset.Invalidf("interactive projection: record %d is given twice", r)
		}
	}
	// Keep the cached columns of records that stay.
	oldRecords, oldB, oldPsi := s.records, s.bcol, s.xpsi
	s.records = slices.Clone(records)
	s.y = make([][]float64, m)
	s.xpsi = make([][]float64, m)
	s.bcol = make([][]float64, m)
	for k, r := range records {
		s.y[k] = slices.Clone(pos.RawRowView(k))
		if j := slices.Index(oldRecords, r); j >= 0 {
			s.xpsi[k], s.bcol[k] = oldPsi[j], oldB[j]
		} else {
			s.xpsi[k] = s.psiTimes(nil, r)
		}
	}
	s.refactor()
	return nil
}

// Controls returns the control records and their positions (m×D; nil when m = 0), copied.
func (s *Session) Controls() (records []int, pos *mat.Dense) {
	if len(s.records) == 0 {
		return nil, nil
	}
	pos = mat.NewDense(len(s.records), s.dim, nil)
	for k := range s.records {
		pos.SetRow(k, s.y[k])
	}
	return slices.Clone(s.records), pos
}

// Reset removes every control point: MLE then shows its prior (the PCA projection by
// default) and LSP maps every record to the origin.
func (s *Session) Reset() {
	s.records, s.y, s.xpsi, s.bcol = nil, nil, nil, nil
	s.refactor()
}

// Projection writes M_post (D×H), the current map of normalised, centred rows, into dst,
// which must be D×H or empty.
func (s *Session) Projection(dst *mat.Dense) {
	if dst.IsEmpty() {
		dst.ReuseAs(s.dim, s.h)
	}
	dst.Copy(s.post)
}

// prepare brings the per-control columns b_k = X Ψ x_{r_k} (n each) and A Xᵀ up to date.
func (s *Session) prepare() {
	if s.axOK {
		return
	}
	m := len(s.records)
	for k := range s.records {
		if s.bcol[k] != nil {
			continue
		}
		col := make([]float64, s.n)
		s.parallel(func(lo, hi int) {
			for i := lo; i < hi; i++ {
				col[i] = floats.Dot(s.x.RawRowView(i), s.xpsi[k])
			}
		})
		s.bcol[k] = col
	}
	if cap(s.ax) < s.n*m {
		s.ax = make([]float64, s.n*m)
	}
	s.ax = s.ax[:s.n*m]
	kinv := s.kinv
	s.parallel(func(lo, hi int) {
		for i := lo; i < hi; i++ {
			row := s.ax[i*m : (i+1)*m]
			for a := 0; a < m; a++ {
				v := 0.0
				for b := 0; b < m; b++ {
					v += kinv.At(a, b) * s.bcol[b][i]
				}
				row[a] = v
			}
		}
	})
	s.axOK = true
}

// parallel runs f over [0, n) split into contiguous parts, one per worker (a single call
// when n is small).
func (s *Session) parallel(f func(lo, hi int)) {
	w := min(s.workers, max(1, s.n/8192))
	if w <= 1 {
		f(0, s.n)
		return
	}
	var wg sync.WaitGroup
	for p := 0; p < w; p++ {
		lo, hi := p*s.n/w, (p+1)*s.n/w
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(lo, hi)
		}()
	}
	wg.Wait()
}

// Embedding writes the current positions of all n records into dst (n×D, or empty):
// u_i = M x_i + C (A Xᵀ)_i, O(D·m·n) after a move.
func (s *Session) Embedding(dst *mat.Dense) {
	if dst.IsEmpty() {
		dst.ReuseAs(s.n, s.dim)
	}
	s.prepare()
	raw := dst.RawMatrix()
	m, dim := len(s.records), s.dim
	var coef []float64
	if m > 0 {
		coef = s.coef.RawMatrix().Data // D×m, contiguous (freshly allocated)
	}
	s.parallel(func(lo, hi int) {
		// D = 2 and 3 keep the coordinates in local variables over one pass of the row of
		// A Xᵀ: a call of floats.Dot per coordinate, or a store per product, costs more than
		// the m (a handful of) multiplications.
		switch {
		case dim == 2 && m > 0:
			c0, c1 := coef[:m], coef[m:2*m]
			for i := lo; i < hi; i++ {
				ax := s.ax[i*m : (i+1)*m]
				c0, c1 := c0[:len(ax)], c1[:len(ax)]
				var v0, v1 float64
				if s.base != nil {
					v0, v1 = s.base[2*i], s.base[2*i+1]
				}
				for k, a := range ax {
					v0 += c0[k] * a
					v1 += c1[k] * a
				}
				out := raw.Data[i*raw.Stride : i*raw.Stride+2]
				out[0], out[1] = v0, v1
			}
		case dim == 3 && m > 0:
			c0, c1, c2 := coef[:m], coef[m:2*m], coef[2*m:3*m]
			for i := lo; i < hi; i++ {
				ax := s.ax[i*m : (i+1)*m]
				c0, c1, c2 := c0[:len(ax)], c1[:len(ax)], c2[:len(ax)]
				var v0, v1, v2 float64
				if s.base != nil {
					v0, v1, v2 = s.base[3*i], s.base[3*i+1], s.base[3*i+2]
				}
				for k, a := range ax {
					v0 += c0[k] * a
					v1 += c1[k] * a
					v2 += c2[k] * a
				}
				out := raw.Data[i*raw.Stride : i*raw.Stride+3]
				out[0], out[1], out[2] = v0, v1, v2
			}
		default:
			for i := lo; i < hi; i++ {
				out := raw.Data[i*raw.Stride : i*raw.Stride+dim]
				if s.base != nil {
					copy(out, s.base[i*dim:(i+1)*dim])
				} else {
					clear(out)
				}
				ax := s.ax[i*m : (i+1)*m]
				for d := 0; d < dim; d++ {
					out[d] += floats.Dot(coef[d*m:(d+1)*m], ax)
				}
			}
		}
	})
}

// Uncertainty writes each record's posterior variance x_iᵀ Ψ_post x_i into dst (length n),
// with Ψ_post = Ψ − Ψ X_mᵀ K^† X_m Ψ (eq. 3.6). Under LSP (Ψ = I, σ = 0) it is the squared
// distance of x_i from the span of the control records: the part of the record that the
// control points leave undetermined. Control points themselves get (nearly) σ²-sized values.
func (s *Session) Uncertainty(dst []float64) {
	s.prepare()
	if s.sdiag == nil {
		s.sdiag = make([]float64, s.n)
		s.parallel(func(lo, hi int) {
			tmp := make([]float64, s.h)
			for i := lo; i < hi; i++ {
				xi := s.x.RawRowView(i)
				if s.identity {
					s.sdiag[i] = floats.Dot(xi, xi)
					continue
				}
				v := mat.NewVecDense(s.h, tmp)
				v.MulVec(s.psi, mat.NewVecDense(s.h, xi))
				s.sdiag[i] = floats.Dot(xi, tmp)
			}
		})
	}
	m := len(s.records)
	s.parallel(func(lo, hi int) {
		for i := lo; i < hi; i++ {
			u := s.sdiag[i]
			for k := 0; k < m; k++ {
				u -= s.bcol[k][i] * s.ax[i*m+k]
			}
			dst[i] = math.Max(u, 0)
		}
	})
}

// Suggest returns the record that is not a control point with the highest uncertainty (the
// lowest index on ties): the next best control point. It returns −1 when every record is one.
func (s *Session) Suggest() int {
	u := make([]float64, s.n)
	s.Uncertainty(u)
	best, arg := -1.0, -1
	for i, v := range u {
		if v > best && s.control(i) < 0 {
			best, arg = v, i
		}
	}
	return arg
}

// Factors returns the parts of the embedding that only the selection and the method fix:
// u_i = base_i + C ax_i (see Embedding), with base n×D row-major (nil under LSP, whose prior
// mean is 0) and ax n×m row-major, m the number of control points. A move changes only the
// D×m coefficients C (Coefficients), so a client that holds the factors redraws a move from
// D·m numbers instead of n·D positions. The slices are the session's own and stay valid until
// the selection or the method changes; the caller must not modify them.
func (s *Session) Factors() (base, ax []float64, m int) {
	s.prepare()
	m = len(s.records)
	return s.base, s.ax[:s.n*m], m
}

// Coefficients appends C = Y_m − M X_mᵀ (D×m, row-major) to dst and returns it: with
// Factors, the embedding is u_i = base_i + C ax_i.
func (s *Session) Coefficients(dst []float64) []float64 {
	if len(s.records) == 0 {
		return dst
	}
	return append(dst, s.coef.RawMatrix().Data[:s.dim*len(s.records)]...)
}

// Prepared is the part of an interactive projection that only the data and the settings fix —
// the normalised n×H rows, Ψ, the prior mean and its embedding — computed once and shared,
// read-only, by every session started from it. A server with many pages open on one data set
// then holds one normalised copy instead of one per page, and a page starts in O(H) instead of
// the O(n·H²) of Start (at n = 100,000 × 50: 0.35 s and 40 MB per page before).
type Prepared struct {
	proto *Session // never handed out: sessions copy its shared fields
}

// Prepare normalises x and computes what every session of these settings shares. Errors are
// Start's.
func (s Interactive) Prepare(ctx context.Context, x *mat.Dense) (*Prepared, error) {
	se, err := s.Start(ctx, x)
	if err != nil {
		return nil, err
	}
	return &Prepared{proto: se}, nil
}

// Session returns a new session with no control points on the prepared data. Sessions are
// independent of each other (each is, as ever, not safe for concurrent use), and each behaves
// exactly as one from Start with the same settings.
func (p *Prepared) Session() *Session {
	q := p.proto
	se := &Session{method: q.method, dim: q.dim, n: q.n, h: q.h, mean: q.mean, scale: q.scale, workers: q.workers,
		x: q.x, psi: q.psi, prior: q.prior, priorBase: q.priorBase, sigmaMLE: q.sigmaMLE, identityMLE: q.identityMLE}
	se.applyMethod()
	return se
}
