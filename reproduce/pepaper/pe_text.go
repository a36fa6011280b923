package pepaper

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/nerv"
	"github.com/lowdim/lowdim/pe"
	"github.com/lowdim/lowdim/posterior"
	"github.com/lowdim/lowdim/quality"
	"github.com/lowdim/lowdim/reproduce"
)

// KLFloor is the probability floor of the SNE input: each posterior row is mixed with the
// uniform distribution as (p + ε)/(1 + Kε), so that KL divergences between naive Bayes
// posteriors (often 1e−300 in most classes) are finite.
const KLFloor = 1e-6

// PEText is the text experiment on one corpus (paper §5): leave-one-out naive Bayes posteriors
// embedded by PE, classical MDS of the posteriors (MDS2) and SNE on KL divergences.
type PEText struct {
	Data       string
	Docs       int // documents in the corpus (all get posteriors)
	Vocabulary int
	ClassNames []string
	// N is the number of documents embedded (a seeded subsample when Docs > TextN).
	N      int
	Labels []int      // true classes of the N embedded documents
	Priors []float64  // naive Bayes class priors π_k (class frequencies), given to PE
	Lambda []float64  // naive Bayes smoothing λ_k chosen by leave-one-out
	P      *mat.Dense // N×K leave-one-out posteriors of the embedded documents
	// Posteriors are the K-class posteriors of all documents (the real posteriors of the timing
	// section).
	Posteriors *mat.Dense
	// NBError is the error of argmax_k p_ik over all documents; NBSeconds the fit and
	// leave-one-out posteriors.
	NBError, NBSeconds float64

	H []int // prec(h) grid
	// Curves: PE with pe's defaults (the lowest J of the MDS start and pe.DefaultRestarts
	// random starts), PE from the MDS start only, PE from single random starts (mean ± std over
	// the seeds), MDS2, SNE.
	Curves []PrecCurve
	// PE is the fit with pe's defaults; MDSCost the final J from the MDS start alone;
	// RandomCosts the final J of each single random start.
	PE          *pe.Model
	MDSCost     float64
	RandomCosts []float64
	MDS2, SNE   *mat.Dense
	// Seconds of the default PE fit, the MDS-start fit, the median random-start PE fit, MDS2
	// and SNE.
	PESeconds, PEMDSSeconds, PERandomSeconds, MDS2Seconds, SNESeconds float64

	// Per-class F-measures against the true labels of the N documents: the naive Bayes
	// argmax (the paper's Table 1 definition, and what MDS2 and SNE get as input), PE's
	// argmax_k q_ik, and MDS2's and SNE's nearest representative point.
	FPosterior, FPE, FMDS2, FSNE []float64
	// Errors of the same four classifications.
	ErrPosterior, ErrPE, ErrMDS2, ErrSNE float64
	// EtaSweep refits PE (pe's defaults otherwise) at η_φ = EtaPhiFactors·n: the penalty
	// η_φ‖φ_k‖²/2 is the same for every class while a class's pull on its point grows with its
	// documents, so at the paper's 0.01·n the points of the small classes are held near the
	// origin among the large ones.
	EtaSweep []EtaRow
	Seconds  float64
}

// EtaPhiFactors are the η_φ/n of the text experiment's sensitivity sweep: the paper's 0.01 and
// two smaller ones.
var EtaPhiFactors = []float64{0.01, 0.001, 0.0001}

// EtaRow is PE at one η_φ: prec(h) on the experiment's grid, the per-class F-measures of
// argmax q and the final J.
type EtaRow struct {
	EtaPhi float64
	Prec   []float64
	F      []float64
	Cost   float64
}

// RunPEText runs the text experiment on the word counts d (labels required).
func RunPEText(ctx context.Context, c PEConfig, d *dataset.Set) (*PEText, error) {
	c.defaults()
	if !d.HasLabels() {
		return nil, dataset.Invalidf("reproduce: %s has no labels", d.Name)
	}
	start := time.Now()
	k := len(d.ClassNames)
	r := &PEText{Data: d.Name, Docs: d.Len(), Vocabulary: d.Dim(), ClassNames: d.ClassNames}

	t0 := time.Now()
	nb, err := posterior.NaiveBayes{}.Fit(ctx, d.X, d.Labels, k)
	if err != nil {
		return nil, fmt.Errorf("reproduce: naive Bayes on %s: %w", d.Name, err)
	}
	var all mat.Dense
	if err := nb.LeaveOneOutPosteriors(&all, d.X, d.Labels); err != nil {
		return nil, fmt.Errorf("reproduce: naive Bayes on %s: %w", d.Name, err)
	}
	r.NBSeconds = time.Since(t0).Seconds()
	r.Posteriors = &all
	r.NBError = errorRate(d.Labels, argmaxRows(&all))
	r.Lambda = nb.Lambda
	for _, lp := range nb.LogPrior() {
		r.Priors = append(r.Priors, math.Exp(lp))
	}
	c.logf("%s: naive Bayes leave-one-out posteriors, error %.4f (%.1fs)", d.Name, r.NBError, r.NBSeconds)

	// The embedded documents: all, or a seeded subsample.
	idx := rand.New(rand.NewPCG(c.Seed, 0x70652d74)).Perm(d.Len())
	if len(idx) > c.TextN {
		idx = idx[:c.TextN]
	}
	n := len(idx)
	r.N = n
	r.P = mat.NewDense(n, k, nil)
	r.Labels = make([]int, n)
	for a, i := range idx {
		r.P.SetRow(a, all.RawRowView(i))
		r.Labels[a] = d.Labels[i]
	}
	r.H = PrecHs(n)

	// PE with its defaults, then from the MDS start alone, then from Seeds single random starts.
	t0 = time.Now()
	m, err := pe.Embedder{Priors: r.Priors, Seed: c.Seed, Workers: c.Workers}.FitPosteriors(ctx, r.P)
	if err != nil {
		return nil, fmt.Errorf("reproduce: PE on %s: %w", d.Name, err)
	}
	r.PESeconds = time.Since(t0).Seconds()
	r.PE = m
	cur, err := precCurve(r.P, m.Y, m.Phi, r.H)
	if err != nil {
		return nil, err
	}
	r.Curves = append(r.Curves, PrecCurve{Method: fmt.Sprintf("PE (default: lowest J of %d starts)", m.Starts), Prec: cur})
	t0 = time.Now()
	mm, err := pe.Embedder{Priors: r.Priors, Seed: c.Seed, Workers: c.Workers, Restarts: -1}.FitPosteriors(ctx, r.P)
	if err != nil {
		return nil, fmt.Errorf("reproduce: PE (MDS start) on %s: %w", d.Name, err)
	}
	r.PEMDSSeconds = time.Since(t0).Seconds()
	r.MDSCost = mm.Cost
	mdsCur, err := precCurve(r.P, mm.Y, mm.Phi, r.H)
	if err != nil {
		return nil, err
	}
	r.Curves = append(r.Curves, PrecCurve{Method: "PE (MDS start only)", Prec: mdsCur})
	runs := make([][]float64, c.Seeds)
	times := make([]float64, c.Seeds)
	for s := range runs {
		t0 := time.Now()
		m, err := pe.Embedder{Priors: r.Priors, Init: pe.InitRandom, Seed: c.Seed + 1 + uint64(s), Workers: c.Workers, Restarts: -1}.FitPosteriors(ctx, r.P)
		if err != nil {
			return nil, fmt.Errorf("reproduce: PE (random start %d) on %s: %w", s+1, d.Name, err)
		}
		times[s] = time.Since(t0).Seconds()
		r.RandomCosts = append(r.RandomCosts, m.Cost)
		if runs[s], err = precCurve(r.P, m.Y, m.Phi, r.H); err != nil {
			return nil, err
		}
	}
	r.PERandomSeconds = reproduce.Median(times)
	rc := PrecCurve{Method: fmt.Sprintf("PE (%d random starts)", c.Seeds), Prec: make([]float64, len(r.H)), Std: make([]float64, len(r.H))}
	col := make([]float64, c.Seeds)
	for j := range r.H {
		for s := range runs {
			col[s] = runs[s][j]
		}
		rc.Prec[j], rc.Std[j] = reproduce.MeanStd(col)
	}
	r.Curves = append(r.Curves, rc)
	c.logf("%s: PE on %d documents: %.2fs (default), %.2fs (MDS start), %.2fs median of %d random starts; prec(10) %.3f / %.3f / %.3f ± %.3f",
		d.Name, n, r.PESeconds, r.PEMDSSeconds, r.PERandomSeconds, c.Seeds, cur[0], mdsCur[0], rc.Prec[0], rc.Std[0])

	// MDS2: classical MDS of the Euclidean distances between posterior rows.
	t0 = time.Now()
	if r.MDS2, err = ClassicalMDSRows(r.P, 2); err != nil {
		return nil, fmt.Errorf("reproduce: MDS2 on %s: %w", d.Name, err)
	}
	r.MDS2Seconds = time.Since(t0).Seconds()
	if cur, err = precCurve(r.P, r.MDS2, nil, r.H); err != nil {
		return nil, err
	}
	r.Curves = append(r.Curves, PrecCurve{Method: "MDS2", Prec: cur})

	// SNE on √(symmetrised KL) between floored posteriors.
	t0 = time.Now()
	e := nerv.Embedder{Lambda: nerv.Lambda(1), Distances: SymmetricKLDistances(r.P, KLFloor), Seed: c.Seed, Workers: c.Workers}
	if c.Quick {
		e.Iterations = 50
	}
	sm, err := e.Fit(ctx, &dataset.Set{Name: d.Name + " posteriors", X: r.P})
	if err != nil {
		return nil, fmt.Errorf("reproduce: SNE on %s: %w", d.Name, err)
	}
	r.SNESeconds = time.Since(t0).Seconds()
	r.SNE = sm.Embedding()
	if cur, err = precCurve(r.P, r.SNE, nil, r.H); err != nil {
		return nil, err
	}
	r.Curves = append(r.Curves, PrecCurve{Method: "SNE", Prec: cur})
	c.logf("%s: MDS2 %.2fs, SNE %.1fs", d.Name, r.MDS2Seconds, r.SNESeconds)

	// F-measures.
	for _, f := range []struct {
		pred []int
		dst  *[]float64
		err  *float64
	}{
		{argmaxRows(r.P), &r.FPosterior, &r.ErrPosterior},
		{peClassify(r.PE), &r.FPE, &r.ErrPE},
		{nearestRepresentative(r.P, r.MDS2), &r.FMDS2, &r.ErrMDS2},
		{nearestRepresentative(r.P, r.SNE), &r.FSNE, &r.ErrSNE},
	} {
		if *f.dst, err = quality.FMeasure(r.Labels, f.pred, k); err != nil {
			return nil, err
		}
		*f.err = errorRate(r.Labels, f.pred)
	}
	for _, fac := range EtaPhiFactors {
		eta := fac * float64(n)
		m, err := pe.Embedder{Priors: r.Priors, EtaPhi: eta, Seed: c.Seed, Workers: c.Workers}.FitPosteriors(ctx, r.P)
		if err != nil {
			return nil, fmt.Errorf("reproduce: PE (η_φ = %g) on %s: %w", eta, d.Name, err)
		}
		row := EtaRow{EtaPhi: eta, Cost: m.Cost}
		if row.Prec, err = precCurve(r.P, m.Y, m.Phi, r.H); err != nil {
			return nil, err
		}
		if row.F, err = quality.FMeasure(r.Labels, peClassify(m), k); err != nil {
			return nil, err
		}
		r.EtaSweep = append(r.EtaSweep, row)
		c.logf("%s: PE with η_φ = %g: prec(%d) %.3f, smallest class F %.3f", d.Name, eta, r.H[0], row.Prec[0], slices.Min(row.F))
	}
	r.Seconds = time.Since(start).Seconds()
	return r, nil
}

// SymmetricKLDistances returns the n×n matrix d_ij = √(½[KL(p̃_i‖p̃_j) + KL(p̃_j‖p̃_i)]) between
// the rows of p, each floored as p̃ = (p + ε)/(1 + Kε). The paper feeds KL(p_i‖p_j) to SNE in
// place of a squared distance; SNE (package nerv) needs a symmetric dissimilarity, which it
// squares, hence the square root of the symmetrised divergence.
func SymmetricKLDistances(p *mat.Dense, eps float64) *mat.SymDense {
	n, k := p.Dims()
	fl := make([]float64, n*k)
	lg := make([]float64, n*k)
	for i := 0; i < n; i++ {
		var s float64
		for c := 0; c < k; c++ {
			s += p.At(i, c)
		}
		for c := 0; c < k; c++ {
			v := (p.At(i, c)/s + eps) / (1 + float64(k)*eps)
			fl[i*k+c], lg[i*k+c] = v, math.Log(v)
		}
	}
	d := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			// KL(a‖b) + KL(b‖a) = Σ (a − b)(log a − log b).
			var s float64
			for c := 0; c < k; c++ {
				s += (fl[i*k+c] - fl[j*k+c]) * (lg[i*k+c] - lg[j*k+c])
			}
			d.SetSym(i, j, math.Sqrt(math.Max(s, 0)/2))
		}
	}
	return d
}

// ClassicalMDSRows returns the classical (Torgerson) MDS in dim dimensions of the Euclidean
// distances between the rows of x, computed from the thin SVD of the column-centred rows
// (gonum's mat.SVD): double-centring the squared distances gives B = X_c X_cᵀ, whose top
// eigenvectors scaled by √λ are U_dim Σ_dim. This is the same embedding as
// cmds.FromDistances of the n×n distance matrix (up to the signs of the axes) at O(nK²) cost —
// and it avoids that route, whose tridiagonal eigensolver (linproj.TopEigenSym → gonum
// Dsterf) panics on the rank-deficient distance matrices of posterior rows (n = 2,225 BBC
// documents, rank ≤ K − 1).
func ClassicalMDSRows(x *mat.Dense, dim int) (*mat.Dense, error) {
	n, k := x.Dims()
	if dim < 1 || dim > min(n, k) {
		return nil, dataset.Invalidf("reproduce: classical MDS of %d×%d rows into %d dimensions", n, k, dim)
	}
	xc := mat.NewDense(n, k, nil)
	for j := 0; j < k; j++ {
		var mean float64
		for i := 0; i < n; i++ {
			mean += x.At(i, j)
		}
		mean /= float64(n)
		for i := 0; i < n; i++ {
			xc.Set(i, j, x.At(i, j)-mean)
		}
	}
	var svd mat.SVD
	if !svd.Factorize(xc, mat.SVDThinU) {
		return nil, dataset.Invalidf("reproduce: classical MDS: SVD did not converge")
	}
	var u mat.Dense
	svd.UTo(&u)
	sv := svd.Values(nil)
	y := mat.NewDense(n, dim, nil)
	for j := 0; j < dim; j++ {
		for i := 0; i < n; i++ {
			y.Set(i, j, u.At(i, j)*sv[j])
		}
	}
	return y, nil
}
