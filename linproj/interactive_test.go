package linproj

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/modelio"
)

func start(t *testing.T, s Interactive, x *mat.Dense) *Session {
	t.Helper()
	se, err := s.Start(context.Background(), x)
	if err != nil {
		t.Fatal(err)
	}
	return se
}

func embedding(s *Session) *mat.Dense {
	var e mat.Dense
	s.Embedding(&e)
	return &e
}

func maxAbsDiff(a, b *mat.Dense) float64 {
	var d mat.Dense
	d.Sub(a, b)
	return mat.Norm(&d, math.Inf(1)) // max row sum; for D ≤ 3 within 3× the max entry
}

// With no control points MLE shows its prior, the PCA projection: the same numbers as PCA
// (itself checked against scikit-learn), including the sign convention.
func TestMLEWithoutControlsIsPCA(t *testing.T) {
	x := dataset.Digits().X
	for _, norm := range []Normalization{NormalizeNone, NormalizeZScore, NormalizeMax} {
		s := start(t, Interactive{Normalize: norm}, x)
		// PCA of the normalised data the session holds.
		p, err := fitPCA(context.Background(), s.x, 2, nil, routeAuto)
		if err != nil {
			t.Fatal(err)
		}
		if d := maxAbsDiff(embedding(s), p.Embedding()); d > 1e-9 {
			t.Errorf("%v: MLE with m = 0 differs from PCA by %g", norm, d)
		}
		// LSP with no control points maps everything to the origin.
		if err := s.SetMethod(LSP); err != nil {
			t.Fatal(err)
		}
		if v := mat.Norm(embedding(s), math.Inf(1)); v != 0 {
			t.Errorf("%v: LSP with m = 0 is not the origin (max |u| %g)", norm, v)
		}
	}
}

func TestNormalisations(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	x := mat.NewDense(50, 3, nil)
	for i := 0; i < 50; i++ {
		x.SetRow(i, []float64{rng.NormFloat64() * 5, 100 + rng.NormFloat64(), 7}) // column 3 constant
	}
	z := start(t, Interactive{Normalize: NormalizeZScore}, x)
	for j := 0; j < 2; j++ {
		col := mat.Col(nil, j, z.x)
		if m := floats.Sum(col) / 50; math.Abs(m) > 1e-12 {
			t.Errorf("z-score column %d mean %g, want 0", j, m)
		}
		if v := floats.Dot(col, col) / 49; math.Abs(v-1) > 1e-12 {
			t.Errorf("z-score column %d variance %g, want 1", j, v)
		}
	}
	if c := mat.Col(nil, 2, z.x); floats.Norm(c, math.Inf(1)) != 0 {
		t.Errorf("a constant column should normalise to 0, got %v…", c[:3])
	}
	mx := start(t, Interactive{Normalize: NormalizeMax}, x)
	for j := 0; j < 2; j++ {
		if v := floats.Norm(mat.Col(nil, j, mx.x), math.Inf(1)); math.Abs(v-1) > 1e-15 {
			t.Errorf("max-normalised column %d has max |x| %g, want 1", j, v)
		}
	}
}

// InVis's default noise: σ = 0.1·|smallest entry of Ψ|.
func TestDefaultNoise(t *testing.T) {
	x := dataset.Digits().X
	s := start(t, Interactive{}, x)
	lo := floats.Min(s.psi.RawSymmetric().Data)
	if want := 0.01 * lo * lo; math.Abs(s.sigma2-want) > 1e-12*want || want == 0 {
		t.Errorf("σ² = %g, want (0.1·|%g|)² = %g", s.sigma2, lo, want)
	}
	exact := start(t, Interactive{Noise: -1}, x)
	if exact.sigma2 != 0 {
		t.Errorf("Noise < 0 gives σ² = %g, want 0", exact.sigma2)
	}
}

// METHODS.md §4: with M = 0, Ψ = I and σ → 0, MLE is exactly LSP.
func TestMLETendsToLSP(t *testing.T) {
	x := dataset.Digits().X
	h := 64
	zero := mat.NewDense(2, h, nil)
	mle := start(t, Interactive{Prior: zero, Covariance: CovarianceIdentity, Noise: 1e-6}, x)
	lsp := start(t, Interactive{Method: LSP}, x)
	rng := rand.New(rand.NewPCG(3, 4))
	for m := 1; m <= 8; m++ {
		r := rng.IntN(x.RawMatrix().Rows)
		pos := []float64{rng.NormFloat64() * 10, rng.NormFloat64() * 10}
		for _, s := range []*Session{mle, lsp} {
			if err := s.SetControl(r, pos); err != nil {
				t.Fatal(err)
			}
		}
		a, b := embedding(mle), embedding(lsp)
		scale := mat.Norm(b, math.Inf(1))
		if d := maxAbsDiff(a, b); d > 1e-6*scale {
			t.Errorf("m = %d: MLE (M = 0, Ψ = I, σ = 1e-6) differs from LSP by %g (scale %g)", m, d, scale)
		}
		// LSP places its control points exactly (m ≤ rank).
		for k, rec := range lsp.records {
			if d := floats.Distance(b.RawRowView(rec), lsp.y[k], 2); d > 1e-8*scale {
				t.Errorf("m = %d: LSP control %d is %g from its target", m, rec, d)
			}
		}
	}
}

// The posterior (eqs. 3.5, 3.6) against a direct Gaussian conditioning of the joint
// distribution of vec(R) and vec(Y_m), built with Kronecker products — a different route
// through the matrix-normal algebra.
func TestPosteriorAgainstDirectConditioning(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n, h, dim = 12, 4, 2
	x := mat.NewDense(n, h, nil)
	for i := range x.RawMatrix().Data {
		x.RawMatrix().Data[i] = rng.NormFloat64()
	}
	prior := mat.NewDense(dim, h, []float64{0.3, -1, 0.5, 0.2, 1.1, 0.4, -0.7, 0.9})
	s := start(t, Interactive{Prior: prior, Noise: 0.4}, x)
	records := []int{2, 7, 9}
	pos := mat.NewDense(3, dim, []float64{1, 2, -1, 0.5, 3, -2})
	if err := s.SetControls(records, pos); err != nil {
		t.Fatal(err)
	}
	m := len(records)
	xm := mat.NewDense(m, h, nil)
	for k, r := range records {
		xm.SetRow(k, s.x.RawRowView(r))
	}
	psi := mat.DenseCopyOf(s.psi)
	sigma2 := 0.16
	// vec(R) stacks R's rows (Σ = I_D): cov = I_D ⊗ Ψ. Y_m[d, k] = R[d, :]·x_k + e.
	// Joint over z = (vec R (D·H), vec Y (D·m)).
	nz := dim*h + dim*m
	cov := mat.NewDense(nz, nz, nil)
	mean := make([]float64, nz)
	// Y = L z_R + e with L (D·m × D·H): L[(d,k), (d,j)] = x_k[j].
	l := mat.NewDense(dim*m, dim*h, nil)
	for d := 0; d < dim; d++ {
		for k := 0; k < m; k++ {
			for j := 0; j < h; j++ {
				l.Set(d*m+k, d*h+j, xm.At(k, j))
			}
		}
	}
	covR := mat.NewDense(dim*h, dim*h, nil)
	for d := 0; d < dim; d++ {
		covR.Slice(d*h, (d+1)*h, d*h, (d+1)*h).(*mat.Dense).Copy(psi)
		copy(mean[d*h:(d+1)*h], prior.RawRowView(d))
	}
	var muY mat.VecDense
	muY.MulVec(l, mat.NewVecDense(dim*h, mean[:dim*h]))
	copy(mean[dim*h:], muY.RawVector().Data)
	var covRY, covYY mat.Dense
	covRY.Mul(covR, l.T())
	covYY.Mul(l, &covRY)
	for i := 0; i < dim*m; i++ {
		covYY.Set(i, i, covYY.At(i, i)+sigma2)
	}
	cov.Slice(0, dim*h, 0, dim*h).(*mat.Dense).Copy(covR)
	cov.Slice(0, dim*h, dim*h, nz).(*mat.Dense).Copy(&covRY)
	cov.Slice(dim*h, nz, 0, dim*h).(*mat.Dense).Copy(covRY.T())
	cov.Slice(dim*h, nz, dim*h, nz).(*mat.Dense).Copy(&covYY)
	// Condition on vec(Y) = observed.
	obs := make([]float64, dim*m)
	for d := 0; d < dim; d++ {
		for k := 0; k < m; k++ {
			obs[d*m+k] = pos.At(k, d)
		}
	}
	resid := mat.NewVecDense(dim*m, nil)
	resid.SubVec(mat.NewVecDense(dim*m, obs), mat.NewVecDense(dim*m, mean[dim*h:]))
	var sol mat.VecDense
	if err := sol.SolveVec(cov.Slice(dim*h, nz, dim*h, nz), resid); err != nil {
		t.Fatal(err)
	}
	var postMean mat.VecDense
	postMean.MulVec(cov.Slice(0, dim*h, dim*h, nz), &sol)
	postMean.AddVec(&postMean, mat.NewVecDense(dim*h, mean[:dim*h]))
	var gain, postCov mat.Dense
	if err := gain.Solve(cov.Slice(dim*h, nz, dim*h, nz), cov.Slice(dim*h, nz, 0, dim*h)); err != nil {
		t.Fatal(err)
	}
	postCov.Mul(cov.Slice(0, dim*h, dim*h, nz), &gain)
	postCov.Sub(cov.Slice(0, dim*h, 0, dim*h), &postCov)

	var proj mat.Dense
	s.Projection(&proj)
	for d := 0; d < dim; d++ {
		for j := 0; j < h; j++ {
			if got, want := proj.At(d, j), postMean.AtVec(d*h+j); math.Abs(got-want) > 1e-10 {
				t.Errorf("M_post[%d,%d] = %.12g, direct conditioning %.12g", d, j, got, want)
			}
		}
	}
	// Ψ_post is the covariance of every row of R (the same for each d, Σ = I).
	u := make([]float64, n)
	s.Uncertainty(u)
	for d := 0; d < dim; d++ {
		block := postCov.Slice(d*h, (d+1)*h, d*h, (d+1)*h)
		for i := 0; i < n; i++ {
			xi := mat.NewVecDense(h, s.x.RawRowView(i))
			if want := mat.Inner(xi, block, xi); math.Abs(u[i]-want) > 1e-10*(1+want) {
				t.Errorf("uncertainty of record %d = %.12g, x'Ψ_post x from direct conditioning (row %d) %.12g", i, u[i], d, want)
			}
		}
	}
	// The embedding is M_post X'.
	var want mat.Dense
	want.Mul(s.x, proj.T())
	if d := maxAbsDiff(embedding(s), &want); d > 1e-10 {
		t.Errorf("cached embedding differs from M_post·Xᵀ by %g", d)
	}
}

// Moving control k by δ moves record i by δ·(A x_i)_k, with A = (X_m Ψ X_mᵀ + σ²I)⁻¹ X_m Ψ
// (solved here directly, not through the session's pseudo-inverse).
func TestMoveFollowsTheGain(t *testing.T) {
	x := dataset.Digits().X
	s := start(t, Interactive{Normalize: NormalizeZScore}, x)
	records := []int{5, 100, 900, 1500, 1700}
	rng := rand.New(rand.NewPCG(7, 8))
	for _, r := range records {
		if err := s.SetControl(r, []float64{rng.NormFloat64(), rng.NormFloat64()}); err != nil {
			t.Fatal(err)
		}
	}
	before := mat.DenseCopyOf(embedding(s))
	k := 2
	delta := []float64{0.75, -1.25}
	moved := []float64{s.y[k][0] + delta[0], s.y[k][1] + delta[1]}
	if err := s.Move(records[k], moved); err != nil {
		t.Fatal(err)
	}
	after := embedding(s)
	m, h := len(records), 64
	xm := mat.NewDense(m, h, nil)
	for i, r := range records {
		xm.SetRow(i, s.x.RawRowView(r))
	}
	var xmPsi, kmat, a mat.Dense
	xmPsi.Mul(xm, s.psi)
	kmat.Mul(&xmPsi, xm.T())
	for i := 0; i < m; i++ {
		kmat.Set(i, i, kmat.At(i, i)+s.sigma2)
	}
	if err := a.Solve(&kmat, &xmPsi); err != nil {
		t.Fatal(err)
	}
	n := x.RawMatrix().Rows
	worst := 0.0
	for i := 0; i < n; i++ {
		g := floats.Dot(a.RawRowView(k), s.x.RawRowView(i))
		for d := 0; d < 2; d++ {
			want := before.At(i, d) + delta[d]*g
			worst = math.Max(worst, math.Abs(after.At(i, d)-want))
		}
	}
	if worst > 1e-9 {
		t.Errorf("after a move by δ the records are up to %g from u + δ·(A x)_k", worst)
	}
	// The moved control point itself follows almost exactly (σ is small).
	if d := floats.Distance(after.RawRowView(records[k]), moved, 2); d > 0.05 {
		t.Errorf("the moved control point is %g from where it was put", d)
	}
}

// Adding and removing control points one at a time reaches the same state as setting the
// final selection at once, and every route agrees with a fresh session.
func TestSelectionRoutesAgree(t *testing.T) {
	x := dataset.Digits().X
	for _, method := range []Method{MLE, LSP} {
		a := start(t, Interactive{Method: method}, x)
		rng := rand.New(rand.NewPCG(9, 10))
		for i := 0; i < 6; i++ {
			if err := a.SetControl(rng.IntN(1797), []float64{rng.NormFloat64() * 20, rng.NormFloat64() * 20}); err != nil {
				t.Fatal(err)
			}
			embedding(a) // fill the per-control caches
		}
		recs, _ := a.Controls()
		if err := a.Remove(recs[1]); err != nil {
			t.Fatal(err)
		}
		if err := a.Move(recs[3], []float64{-5, 7}); err != nil {
			t.Fatal(err)
		}
		recs, pos := a.Controls()
		b := start(t, Interactive{Method: 1 - method}, x)
		if err := b.SetControls(recs, pos); err != nil {
			t.Fatal(err)
		}
		if err := b.SetMethod(method); err != nil {
			t.Fatal(err)
		}
		if d := maxAbsDiff(embedding(a), embedding(b)); d > 1e-9 {
			t.Errorf("%v: incremental and one-shot selections differ by %g", method, d)
		}
		ua, ub := make([]float64, 1797), make([]float64, 1797)
		a.Uncertainty(ua)
		b.Uncertainty(ub)
		if d := floats.Distance(ua, ub, math.Inf(1)); d > 1e-9*floats.Max(ua) {
			t.Errorf("%v: uncertainties differ by %g", method, d)
		}
		a.Reset()
		c := start(t, Interactive{Method: method}, x)
		if d := maxAbsDiff(embedding(a), embedding(c)); d != 0 {
			t.Errorf("%v: Reset differs from a fresh session by %g", method, d)
		}
	}
}

// Posterior variance can only shrink as control points are added, and Suggest names the most
// uncertain record that is not yet a control point.
func TestUncertaintyShrinksAndSuggest(t *testing.T) {
	x := dataset.Digits().X
	for _, method := range []Method{MLE, LSP} {
		s := start(t, Interactive{Method: method}, x)
		n := 1797
		prev := make([]float64, n)
		s.Uncertainty(prev)
		cur := make([]float64, n)
		for m := 1; m <= 5; m++ {
			r := s.Suggest()
			if r < 0 || s.control(r) >= 0 {
				t.Fatalf("%v: Suggest gave %d", method, r)
			}
			for i := range prev {
				if prev[i] > prev[r] && s.control(i) < 0 {
					t.Fatalf("%v: Suggest gave %d (u = %g) but %d has u = %g", method, r, prev[r], i, prev[i])
				}
			}
			var e mat.Dense
			s.Embedding(&e)
			if err := s.SetControl(r, e.RawRowView(r)); err != nil {
				t.Fatal(err)
			}
			s.Uncertainty(cur)
			for i := range cur {
				if cur[i] > prev[i]*(1+1e-9)+1e-9 {
					t.Fatalf("%v: m = %d: uncertainty of %d grew from %g to %g", method, m, i, prev[i], cur[i])
				}
			}
			if cur[r] > 1e-3*prev[r] {
				t.Errorf("%v: the new control point's uncertainty only fell from %g to %g", method, prev[r], cur[r])
			}
			prev, cur = cur, prev
		}
	}
}

func TestLinearModelRoundTrip(t *testing.T) {
	d := dataset.Digits()
	s := start(t, Interactive{Normalize: NormalizeMax}, d.X)
	for _, r := range []int{3, 30, 300} {
		if err := s.SetControl(r, []float64{float64(r) / 100, 1}); err != nil {
			t.Fatal(err)
		}
	}
	lm := s.Model()
	var got mat.Dense
	if err := lm.Transform(&got, d.X); err != nil {
		t.Fatal(err)
	}
	if diff := maxAbsDiff(&got, embedding(s)); diff > 1e-9 {
		t.Errorf("transforming the session's rows differs from its embedding by %g", diff)
	}
	var buf bytes.Buffer
	if err := modelio.Encode(&buf, lm); err != nil {
		t.Fatal(err)
	}
	back, err := modelio.Decode(&buf, "linproj model")
	if err != nil {
		t.Fatal(err)
	}
	lm2, ok := back.(*LinearModel)
	if !ok {
		t.Fatalf("decoded a %T", back)
	}
	var again mat.Dense
	if err := lm2.Transform(&again, d.X); err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(&again, &got) {
		t.Error("the loaded model transforms differently")
	}
	if len(lm2.Records) != 3 || lm2.Records[2] != 300 || lm2.Positions.At(2, 0) != 3 {
		t.Errorf("control points lost: %v %v", lm2.Records, lm2.Positions)
	}
	if err := lm2.Transform(&mat.Dense{}, mat.NewDense(2, 63, nil)); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("63 columns for a 64-feature model: %v", err)
	}
}

func TestInteractiveBadInput(t *testing.T) {
	x := dataset.Digits().X
	ctx := context.Background()
	bad := []struct {
		name string
		s    Interactive
		x    *mat.Dense
	}{
		{"one row", Interactive{}, mat.NewDense(1, 3, nil)},
		{"dim too big", Interactive{Dim: 65}, x},
		{"unknown method", Interactive{Method: 7}, x},
		{"NaN noise", Interactive{Noise: math.NaN()}, x},
		{"prior shape", Interactive{Prior: mat.NewDense(2, 3, nil)}, x},
		{"NaN data", Interactive{}, mat.NewDense(3, 2, []float64{1, 2, 3, math.NaN(), 5, 6})},
	}
	for _, c := range bad {
		if _, err := c.s.Start(ctx, c.x); !errors.Is(err, dataset.ErrInvalid) {
			t.Errorf("%s: got %v, want an ErrInvalid", c.name, err)
		}
	}
	s := start(t, Interactive{}, x)
	for name, err := range map[string]error{
		"record out of range":  s.SetControl(1797, []float64{0, 0}),
		"negative record":      s.SetControl(-1, []float64{0, 0}),
		"3 coordinates":        s.SetControl(0, []float64{0, 0, 0}),
		"Inf position":         s.SetControl(0, []float64{math.Inf(1), 0}),
		"move a non-control":   s.Move(4, []float64{0, 0}),
		"remove a non-control": s.Remove(4),
		"duplicate records":    s.SetControls([]int{1, 1}, mat.NewDense(2, 2, nil)),
		"unknown method":       s.SetMethod(3),
	} {
		if !errors.Is(err, dataset.ErrInvalid) {
			t.Errorf("%s: got %v, want an ErrInvalid", name, err)
		}
	}
	if r, _ := s.Controls(); len(r) != 0 {
		t.Errorf("failed calls left control points %v", r)
	}
}

// Moves update M_post column by column; after many of them the projection and the embedding
// (2-D and 3-D fast paths, MLE and LSP) still equal a one-shot computation.
func TestManyMovesStayExact(t *testing.T) {
	x := dataset.Digits().X
	for _, dim := range []int{2, 3} {
		for _, method := range []Method{MLE, LSP} {
			s := start(t, Interactive{Method: method, Dim: dim}, x)
			rng := rand.New(rand.NewPCG(11, uint64(dim)))
			recs := []int{1, 50, 400, 1000, 1600}
			for _, r := range recs {
				pos := make([]float64, dim)
				if err := s.SetControl(r, pos); err != nil {
					t.Fatal(err)
				}
			}
			for range 1000 {
				pos := make([]float64, dim)
				for d := range pos {
					pos[d] = rng.NormFloat64() * 30
				}
				if err := s.Move(recs[rng.IntN(len(recs))], pos); err != nil {
					t.Fatal(err)
				}
			}
			r, pos := s.Controls()
			fresh := start(t, Interactive{Method: method, Dim: dim}, x)
			if err := fresh.SetControls(r, pos); err != nil {
				t.Fatal(err)
			}
			var p1, p2 mat.Dense
			s.Projection(&p1)
			fresh.Projection(&p2)
			if d := maxAbsDiff(&p1, &p2); d > 1e-10 {
				t.Errorf("D = %d %v: after 1000 moves M_post is %g from a fresh computation", dim, method, d)
			}
			var want mat.Dense
			want.Mul(s.x, p2.T())
			if d := maxAbsDiff(embedding(s), &want); d > 1e-8 {
				t.Errorf("D = %d %v: the embedding is %g from M_post·Xᵀ", dim, method, d)
			}
		}
	}
}

// The factors and coefficients rebuild the embedding bit for bit (the same products in the
// same order as Embedding), under both methods, after moves and after the selection changes:
// the page's move answers carry only the coefficients and rely on this.
func TestFactorsRebuildTheEmbedding(t *testing.T) {
	x := dataset.Digits().X
	s := start(t, Interactive{Normalize: NormalizeZScore}, x)
	rng := rand.New(rand.NewPCG(3, 4))
	check := func(what string) {
		t.Helper()
		want := embedding(s)
		base, ax, m := s.Factors()
		c := s.Coefficients(nil)
		if len(c) != 2*m {
			t.Fatalf("%s: %d coefficients for %d control points", what, len(c), m)
		}
		n := x.RawMatrix().Rows
		for i := 0; i < n; i++ {
			for d := 0; d < 2; d++ {
				v := 0.0
				if base != nil {
					v = base[2*i+d]
				}
				for k := 0; k < m; k++ {
					v += c[d*m+k] * ax[i*m+k]
				}
				if v != want.At(i, d) {
					t.Fatalf("%s: record %d coordinate %d rebuilt as %v, Embedding says %v", what, i, d, v, want.At(i, d))
				}
			}
		}
	}
	check("no control points")
	for _, r := range []int{5, 100, 900} {
		if err := s.SetControl(r, []float64{rng.NormFloat64(), rng.NormFloat64()}); err != nil {
			t.Fatal(err)
		}
	}
	check("three control points")
	if err := s.Move(100, []float64{2, -3}); err != nil {
		t.Fatal(err)
	}
	check("after a move")
	if err := s.SetMethod(LSP); err != nil {
		t.Fatal(err)
	}
	if base, _, _ := s.Factors(); base != nil {
		t.Errorf("LSP has a base embedding; its prior mean is 0")
	}
	check("LSP")
	if err := s.Remove(5); err != nil {
		t.Fatal(err)
	}
	check("LSP after a removal")
}

// Sessions from one Prepared behave exactly as sessions from Start (bit for bit, through
// selections, moves and a method change) and do not disturb each other although they share
// the normalised data.
func TestPreparedSessionsIndependent(t *testing.T) {
	x := dataset.Digits().X
	cfg := Interactive{Normalize: NormalizeZScore}
	p, err := cfg.Prepare(context.Background(), x)
	if err != nil {
		t.Fatal(err)
	}
	a, b := p.Session(), p.Session()
	ref := start(t, cfg, x)
	steps := []func(s *Session) error{
		func(s *Session) error { return s.SetControl(10, []float64{1, 2}) },
		func(s *Session) error { return s.SetControl(500, []float64{-1, 0}) },
		func(s *Session) error { return s.Move(10, []float64{3, -2}) },
		func(s *Session) error { return s.SetMethod(LSP) },
		func(s *Session) error { return s.SetControl(1200, []float64{0, 4}) },
	}
	for k, step := range steps {
		if err := step(a); err != nil {
			t.Fatal(err)
		}
		if err := step(ref); err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(embedding(a), embedding(ref)) {
			t.Fatalf("step %d: a prepared session departs from a started one", k)
		}
		// b never changes: still the PCA view of the data, equal to a fresh started session.
		if !mat.Equal(embedding(b), embedding(start(t, cfg, x))) {
			t.Fatalf("step %d: another session on the same prepared data changed", k)
		}
	}
}
