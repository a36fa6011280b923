package posterior

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/dataset"
)

// DiscriminativeMixture fits the conditional class density of NeRV eq. 10 (see Mixture) to
// the labelled rows of a data set. Rows labelled −1 (unknown) are ignored.
//
// Fitting: the centres start from k-means within each class (k-means++ seeding from the
// seeded source, then Lloyd iterations); G is shared among the classes in proportion to their
// sizes, at least one centre each when G ≥ K. Each centre's logits start at
// γ_own = ln(4(K−1)), 0 for the other classes (β_own = 0.8). Centres and logits then minimise
// the mean negative conditional log-likelihood −(1/N) Σ_i log p̂(L_i|x_i) by L-BFGS
// (gonum/optimize) with the analytic gradient, the sum split over runtime.NumCPU() workers.
//
// Internal validation (when Gaussians or Width is 0): a seeded, per-class stratified
// ValidationFraction of the labelled rows is held out; every candidate is fitted on the rest
// and scored by the mean held-out log p̂(L_i|x_i); the best candidate is refitted on all
// labelled rows. With ValidationFolds = F ≥ 2 the rows are instead dealt into F stratified
// folds and every candidate is fitted F times, each time on F−1 folds, and scored by the mean
// log p̂(L_i|x_i) over all rows, each predicted by the fit that did not see it — the NeRV
// paper's "internal 10-fold validation" (§5.3). It costs F fits per candidate instead of one,
// and its choice is less at the mercy of which rows one split happened to hold out. Candidate G: K, 2K, 4K (K the number of classes present) while G is at most
// a tenth of the training rows (K alone if even that is more). Candidate s: the scale
// s₀ = the median distance of the training rows to their nearest initial centre, times
// ½, 1, 2 — extended by further factors of 2 (at most two) while the best lies at an end of
// the grid, then refined by 2^±½ around the best: about 5 fits per G.
type DiscriminativeMixture struct {
	// Gaussians is the number of Gaussians G; 0 means chosen by internal validation.
	Gaussians int
	// Width is the common width s of the Gaussians; 0 means chosen by internal validation.
	Width float64
	// ValidationFraction is the part of the labelled rows held out for internal validation,
	// in (0, 0.5]; 0 means 0.2. Unused when Gaussians and Width are both given.
	ValidationFraction float64
	// ValidationFolds, when at least 2, replaces the one held-out part by that many stratified
	// cross-validation folds (ValidationFraction is then unused); 0 or 1 means one held-out part.
	ValidationFolds int
	// MaxIterations bounds the L-BFGS iterations of each fit; 0 means 100. The bound is also
	// early stopping: on Letter (1,500 rows, G = 104) the held-out likelihood is no better
	// after 400 iterations than after 100 while the training error keeps falling.
	MaxIterations int
	// LogitPrecision is the precision α of a zero-mean Gaussian prior on the logits γ: the
	// objective gains (α/2N) Σ γ², which keeps β away from exact 0 and 1 (an unpenalised fit
	// drives held-out log-likelihoods of Letter to −18 per row). 0 means 0.1; a negative value
	// means no prior.
	LogitPrecision float64
	// Seed seeds the held-out split and the k-means initialisation.
	Seed uint64
	// Progress, if not nil, receives ("dgmm", fits done, fits planned) reports.
	Progress lowdim.Progress
}

// Defaults of the DiscriminativeMixture settings.
const (
	DefaultValidationFraction = 0.2
	DefaultMaxIterations      = 100
	DefaultLogitPrecision     = 0.1
)

// kmeansIterations is the number of Lloyd iterations of the within-class initialisation.
const kmeansIterations = 10

// trainingData holds the labelled rows as one contiguous block.
type trainingData struct {
	x      []float64 // n×h row-major
	labels []int
	h, k   int
}

func (t *trainingData) n() int { return len(t.labels) }

func (t *trainingData) row(i int) []float64 { return t.x[i*t.h : i*t.h+t.h] }

func (t *trainingData) subset(idx []int) *trainingData {
	s := &trainingData{x: make([]float64, 0, len(idx)*t.h), labels: make([]int, len(idx)), h: t.h, k: t.k}
	for j, i := range idx {
		s.x = append(s.x, t.row(i)...)
		s.labels[j] = t.labels[i]
	}
	return s
}

// Fit fits the mixture to the labelled rows of d. Errors caused by the data or the settings
// wrap dataset.ErrInvalid.
func (dm DiscriminativeMixture) Fit(ctx context.Context, d *dataset.Set) (*Mixture, error) {
	td, err := dm.prepare(d)
	if err != nil {
		return nil, err
	}
	maxIter := dm.MaxIterations
	if maxIter == 0 {
		maxIter = DefaultMaxIterations
	}
	alpha := dm.LogitPrecision
	switch {
	case alpha == 0:
		alpha = DefaultLogitPrecision
	case alpha < 0:
		alpha = 0
	}
	present := td.present()
	rng := rand.New(rand.NewPCG(dm.Seed, 0x6467676d)) // "dggm"

	g, s := dm.Gaussians, dm.Width
	var table []Candidate
	if g == 0 || s == 0 {
		frac := dm.ValidationFraction
		if frac == 0 {
			frac = DefaultValidationFraction
		}
		g, s, table, err = dm.validate(ctx, td, rng, frac, alpha, maxIter, len(present))
		if err != nil {
			return nil, err
		}
	}
	if g > td.n() {
		return nil, dataset.Invalidf("dgmm: %d Gaussians for %d labelled rows", g, td.n())
	}
	centers, classes := initCenters(td, g, rng)
	m, _, err := optimiseMixture(ctx, td, centers, classes, s, alpha, maxIter)
	if err != nil {
		return nil, err
	}
	m.Validation = table
	if d.ClassNames != nil {
		m.ClassNames = slices.Clone(d.ClassNames)
	}
	dm.Progress.Report("dgmm", len(table)+1, len(table)+1)
	return m, nil
}

// prepare checks the settings and the data and gathers the labelled rows.
func (dm DiscriminativeMixture) prepare(d *dataset.Set) (*trainingData, error) {
	switch {
	case dm.Gaussians < 0:
		return nil, dataset.Invalidf("dgmm: Gaussians %d is negative", dm.Gaussians)
	case dm.Width < 0 || math.IsNaN(dm.Width) || math.IsInf(dm.Width, 0):
		return nil, dataset.Invalidf("dgmm: Width %v is not a non-negative number", dm.Width)
	case dm.ValidationFraction < 0 || dm.ValidationFraction > 0.5 || math.IsNaN(dm.ValidationFraction):
		return nil, dataset.Invalidf("dgmm: ValidationFraction %v out of (0, 0.5]", dm.ValidationFraction)
	case math.IsNaN(dm.LogitPrecision) || math.IsInf(dm.LogitPrecision, 0):
		return nil, dataset.Invalidf("dgmm: LogitPrecision %v is not a number", dm.LogitPrecision)
	case dm.MaxIterations < 0:
		return nil, dataset.Invalidf("dgmm: MaxIterations %d is negative", dm.MaxIterations)
	case dm.ValidationFolds < 0:
		return nil, dataset.Invalidf("dgmm: ValidationFolds %d is negative", dm.ValidationFolds)
	}
	if d == nil || d.X == nil {
		return nil, dataset.Invalidf("dgmm: no data")
	}
	if !d.HasLabels() {
		return nil, dataset.Invalidf("dgmm: the data have no class labels")
	}
	n, h := d.X.Dims()
	if len(d.Labels) != n {
		return nil, dataset.Invalidf("dgmm: %d labels for %d rows", len(d.Labels), n)
	}
	k := len(d.ClassNames)
	for _, l := range d.Labels {
		k = max(k, l+1)
	}
	td := &trainingData{h: h, k: k}
	for i, l := range d.Labels {
		if l < -1 {
			return nil, dataset.Invalidf("dgmm: row %d has label %d (want −1 for unknown or a class index)", i+1, l)
		}
		if l == -1 {
			continue
		}
		row := d.X.RawRowView(i)
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, dataset.Invalidf("dgmm: row %d column %d is %v", i+1, j+1, v)
			}
		}
		td.x = append(td.x, row...)
		td.labels = append(td.labels, l)
	}
	if p := len(td.present()); p < 2 {
		return nil, dataset.Invalidf("dgmm: the labelled rows hold %d class(es); a class posterior needs at least 2", p)
	}
	if dm.Gaussians > td.n() {
		return nil, dataset.Invalidf("dgmm: %d Gaussians for %d labelled rows", dm.Gaussians, td.n())
	}
	return td, nil
}

// present returns the classes that have rows, in increasing order.
func (t *trainingData) present() []int {
	count := make([]int, t.k)
	for _, l := range t.labels {
		count[l]++
	}
	var p []int
	for c, n := range count {
		if n > 0 {
			p = append(p, c)
		}
	}
	return p
}

// split returns a stratified held-out split: from each class, round(frac·n_c) rows chosen by
// rng, keeping at least one row of every class in the training part.
func split(t *trainingData, rng *rand.Rand, frac float64) (train, held []int) {
	byClass := make([][]int, t.k)
	for i, l := range t.labels {
		byClass[l] = append(byClass[l], i)
	}
	for _, rows := range byClass {
		rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
		v := min(int(math.Round(frac*float64(len(rows)))), len(rows)-1)
		held = append(held, rows[:max(v, 0)]...)
		train = append(train, rows[max(v, 0):]...)
	}
	sort.Ints(train)
	sort.Ints(held)
	return train, held
}

// kfold deals the rows into k stratified folds: each class's rows in a seeded random order go
// to folds o, o+1, … (mod k), o running on from class to class so that the folds' sizes differ
// by at most one. A class of a single row is never held out (its class would be absent from
// that fit). It returns, for every fold, the rows outside it and the rows in it.
func kfold(t *trainingData, rng *rand.Rand, k int) (train, held [][]int) {
	byClass := make([][]int, t.k)
	for i, l := range t.labels {
		byClass[l] = append(byClass[l], i)
	}
	fold := make([]int, t.n())
	o := 0
	for _, rows := range byClass {
		rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
		for _, i := range rows {
			fold[i] = -1
			if len(rows) > 1 {
				fold[i] = o % k
				o++
			}
		}
	}
	train, held = make([][]int, k), make([][]int, k)
	for i, f := range fold {
		for g := range k {
			if g == f {
				held[g] = append(held[g], i)
			} else {
				train[g] = append(train[g], i)
			}
		}
	}
	return train, held
}

// validationSplit is one (training part, held-out part) pair of the internal validation.
type validationSplit struct{ train, held *trainingData }

// validate chooses G and s by held-out conditional log-likelihood.
func (dm DiscriminativeMixture) validate(ctx context.Context, td *trainingData, rng *rand.Rand, frac, alpha float64,
	maxIter, kPresent int) (int, float64, []Candidate, error) {
	var splits []validationSplit
	if dm.ValidationFolds >= 2 {
		if dm.ValidationFolds > td.n() {
			return 0, 0, nil, dataset.Invalidf("dgmm: %d validation folds for %d labelled rows", dm.ValidationFolds, td.n())
		}
		trs, hs := kfold(td, rng, dm.ValidationFolds)
		for f := range trs {
			if len(hs[f]) == 0 {
				return 0, 0, nil, dataset.Invalidf("dgmm: validation fold %d of %d is empty (%d labelled rows); use fewer folds", f+1, dm.ValidationFolds, td.n())
			}
			splits = append(splits, validationSplit{td.subset(trs[f]), td.subset(hs[f])})
		}
	} else {
		trainIdx, heldIdx := split(td, rng, frac)
		if len(heldIdx) == 0 {
			return 0, 0, nil, dataset.Invalidf("dgmm: too few labelled rows (%d) to hold out a validation part; give Gaussians and Width", td.n())
		}
		splits = []validationSplit{{td.subset(trainIdx), td.subset(heldIdx)}}
	}
	train := splits[0].train

	gs := []int{dm.Gaussians}
	if dm.Gaussians == 0 {
		gs = gs[:0]
		for f := 1; f <= 4; f *= 2 {
			if g := f * kPresent; g <= train.n()/10 || f == 1 {
				gs = append(gs, min(g, train.n()))
			}
		}
	}
	var table []Candidate
	best := Candidate{LogLikelihood: math.Inf(-1)}
	planned := len(gs)
	if dm.Width == 0 {
		planned *= 5
	}
	done := 0
	// fit scores (g, s) on every split; centers[f] and classes[f] start split f's fit.
	fit := func(g int, centers [][]float64, classes [][]int, s float64) (Candidate, error) {
		c := Candidate{Gaussians: g, Width: s}
		var rows int
		for f, sp := range splits {
			m, iters, err := optimiseMixture(ctx, sp.train, centers[f], classes[f], s, alpha, maxIter)
			if err != nil {
				return Candidate{}, err
			}
			ll, e, err := m.logLikelihood(ctx, sp.held.x, sp.held.labels)
			if err != nil {
				return Candidate{}, err
			}
			// means over the held-out rows of all splits, each weighed by its rows
			v := sp.held.n()
			c.LogLikelihood += ll * float64(v)
			c.Error += e * float64(v)
			c.Iterations += iters
			rows += v
		}
		c.LogLikelihood /= float64(rows)
		c.Error /= float64(rows)
		table = append(table, c)
		if c.LogLikelihood > best.LogLikelihood || best.Gaussians == 0 {
			best = c
		}
		done++
		dm.Progress.Report("dgmm", done, max(planned, done)+1)
		return c, nil
	}
	for _, g := range gs {
		centers, classes := make([][]float64, len(splits)), make([][]int, len(splits))
		for f, sp := range splits {
			centers[f], classes[f] = initCenters(sp.train, g, rng)
		}
		if dm.Width != 0 {
			if _, err := fit(g, centers, classes, dm.Width); err != nil {
				return 0, 0, nil, err
			}
			continue
		}
		s0 := nearestCentreScale(train, centers[0], g)
		// log2 factors of s0 already tried for this G, with their scores
		scores := map[float64]float64{}
		try := func(e float64) error {
			if _, ok := scores[e]; ok {
				return nil
			}
			c, err := fit(g, centers, classes, s0*math.Exp2(e))
			if err != nil {
				return err
			}
			scores[e] = c.LogLikelihood
			return nil
		}
		for _, e := range []float64{-1, 0, 1} {
			if err := try(e); err != nil {
				return 0, 0, nil, err
			}
		}
		bestE := func() float64 {
			keys := make([]float64, 0, len(scores))
			for e := range scores {
				keys = append(keys, e)
			}
			sort.Float64s(keys)
			b := keys[0]
			for _, e := range keys {
				if scores[e] > scores[b] {
					b = e
				}
			}
			return b
		}
		for ext := 0; ext < 2; ext++ {
			b := bestE()
			lo, hi := math.Inf(1), math.Inf(-1)
			for e := range scores {
				lo, hi = math.Min(lo, e), math.Max(hi, e)
			}
			switch b {
			case lo:
				planned++
				if err := try(lo - 1); err != nil {
					return 0, 0, nil, err
				}
			case hi:
				planned++
				if err := try(hi + 1); err != nil {
					return 0, 0, nil, err
				}
			default:
				ext = 2
			}
		}
		b := bestE()
		for _, e := range []float64{b - 0.5, b + 0.5} {
			if err := try(e); err != nil {
				return 0, 0, nil, err
			}
		}
	}
	return best.Gaussians, best.Width, table, nil
}

// nearestCentreScale returns the median distance of the rows to their nearest centre (the
// mean squared distance's root if the median is 0, and 1 if that is 0 too).
func nearestCentreScale(t *trainingData, centers []float64, g int) float64 {
	d := make([]float64, t.n())
	var sum float64
	for i := range d {
		x := t.row(i)
		best := math.Inf(1)
		for j := 0; j < g; j++ {
			best = math.Min(best, sqDist(x, centers[j*t.h:j*t.h+t.h]))
		}
		d[i] = math.Sqrt(best)
		sum += best
	}
	sort.Float64s(d)
	med := d[len(d)/2]
	if len(d)%2 == 0 {
		med = (d[len(d)/2-1] + d[len(d)/2]) / 2
	}
	switch {
	case med > 0:
		return med
	case sum > 0:
		return math.Sqrt(sum / float64(len(d)))
	}
	return 1
}

func sqDist(a, b []float64) float64 {
	var s float64
	for i, v := range a {
		d := v - b[i]
		s += d * d
	}
	return s
}

// shareCentres divides g centres among the classes with count[c] rows: one each (when g ≥
// the number of classes present, else one each for the g largest), the rest in proportion
// to the counts by largest remainder, never more centres than rows.
func shareCentres(count []int, g int) []int {
	share := make([]int, len(count))
	var present []int
	total := 0
	for c, n := range count {
		if n > 0 {
			present = append(present, c)
			total += n
		}
	}
	if g < len(present) {
		sort.SliceStable(present, func(i, j int) bool { return count[present[i]] > count[present[j]] })
		for _, c := range present[:g] {
			share[c] = 1
		}
		return share
	}
	for _, c := range present {
		share[c] = 1
	}
	left := g - len(present)
	for left > 0 {
		// Largest remainder of the ideal shares among classes that still have spare rows.
		type rem struct {
			c int
			r float64
		}
		var rs []rem
		capacity := 0
		for _, c := range present {
			if share[c] < count[c] {
				capacity += count[c]
			}
		}
		if capacity == 0 {
			break
		}
		assigned := 0
		for _, c := range present {
			if share[c] >= count[c] {
				continue
			}
			ideal := float64(left) * float64(count[c]) / float64(capacity)
			add := min(int(ideal), count[c]-share[c])
			share[c] += add
			assigned += add
			rs = append(rs, rem{c, ideal - float64(int(ideal))})
		}
		left -= assigned
		sort.SliceStable(rs, func(i, j int) bool { return rs[i].r > rs[j].r })
		for _, r := range rs {
			if left == 0 {
				break
			}
			if share[r.c] < count[r.c] {
				share[r.c]++
				left--
			}
		}
	}
	return share
}

// initCenters returns g initial centres (g×h, row-major) from k-means within each class,
// ordered by class, and the class of each.
func initCenters(t *trainingData, g int, rng *rand.Rand) (centers []float64, classes []int) {
	byClass := make([][]int, t.k)
	for i, l := range t.labels {
		byClass[l] = append(byClass[l], i)
	}
	count := make([]int, t.k)
	for c := range byClass {
		count[c] = len(byClass[c])
	}
	share := shareCentres(count, g)
	centers = make([]float64, 0, g*t.h)
	for c, rows := range byClass {
		if share[c] == 0 {
			continue
		}
		centers = append(centers, kmeans(t, rows, share[c], rng)...)
		for range share[c] {
			classes = append(classes, c)
		}
	}
	return centers, classes
}

// kmeans runs k-means++ seeding and kmeansIterations Lloyd iterations on the given rows.
func kmeans(t *trainingData, rows []int, k int, rng *rand.Rand) []float64 {
	h := t.h
	c := make([]float64, 0, k*h)
	d2 := make([]float64, len(rows))
	first := rows[rng.IntN(len(rows))]
	c = append(c, t.row(first)...)
	for i, r := range rows {
		d2[i] = sqDist(t.row(r), c[:h])
	}
	for len(c) < k*h {
		var sum float64
		for _, v := range d2 {
			sum += v
		}
		pick := 0
		if sum > 0 {
			u := rng.Float64() * sum
			for pick = 0; pick < len(d2)-1; pick++ {
				u -= d2[pick]
				if u < 0 {
					break
				}
			}
		} else {
			pick = rng.IntN(len(rows))
		}
		c = append(c, t.row(rows[pick])...)
		last := c[len(c)-h:]
		for i, r := range rows {
			d2[i] = math.Min(d2[i], sqDist(t.row(r), last))
		}
	}
	assign := make([]int, len(rows))
	sums := make([]float64, k*h)
	counts := make([]int, k)
	for range kmeansIterations {
		for i, r := range rows {
			x := t.row(r)
			best, bd := 0, math.Inf(1)
			for j := 0; j < k; j++ {
				if d := sqDist(x, c[j*h:j*h+h]); d < bd {
					best, bd = j, d
				}
			}
			assign[i] = best
		}
		clear(sums)
		clear(counts)
		for i, r := range rows {
			j := assign[i]
			counts[j]++
			for t2, v := range t.row(r) {
				sums[j*h+t2] += v
			}
		}
		for j := 0; j < k; j++ {
			if counts[j] == 0 {
				continue // keep an empty cluster's centre where it is
			}
			for t2 := 0; t2 < h; t2++ {
				c[j*h+t2] = sums[j*h+t2] / float64(counts[j])
			}
		}
	}
	return c
}

// optimiseMixture fits centres and logits for width s from the given initial centres (each
// favouring its class) and returns the model and the number of L-BFGS iterations.
func optimiseMixture(ctx context.Context, t *trainingData, centers []float64, classes []int, s, alpha float64, maxIter int) (*Mixture, int, error) {
	h, k := t.h, t.k
	g := len(centers) / h
	obj := newObjective(t.x, t.labels, h, k, g, s)
	obj.alpha = alpha
	theta := make([]float64, obj.dim())
	copy(theta, centers)
	for j := 0; j < g; j++ {
		floats.Sub(theta[j*h:j*h+h], obj.mean)
	}
	own := math.Log(4 * float64(k-1))
	for j, c := range classes {
		theta[g*h+c*g+j] = own
	}
	prob := optimize.Problem{
		Func: obj.Func,
		Grad: obj.Grad,
		Status: func() (optimize.Status, error) {
			if err := ctx.Err(); err != nil {
				return optimize.Failure, err
			}
			return optimize.NotTerminated, nil
		},
	}
	settings := &optimize.Settings{
		MajorIterations:   maxIter,
		GradientThreshold: 1e-7,
		Converger:         &optimize.FunctionConverge{Absolute: 1e-10, Relative: 1e-9, Iterations: 20},
	}
	res, err := optimize.Minimize(prob, theta, settings, &optimize.LBFGS{})
	switch {
	case ctx.Err() != nil:
		return nil, 0, ctx.Err()
	case err == nil:
	case res != nil && (errors.Is(err, optimize.ErrLinesearcherFailure) || errors.Is(err, optimize.ErrNoProgress) ||
		errors.Is(err, optimize.ErrNonDescentDirection)):
		// The line search gives up only where rounding hides further progress: the best
		// point found is the optimum to working precision.
	default:
		return nil, 0, fmt.Errorf("dgmm: optimisation failed: %w", err)
	}
	x := res.X
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, 0, fmt.Errorf("dgmm: optimisation diverged (non-finite parameter)")
		}
	}
	cs := slices.Clone(x[:g*h])
	for j := 0; j < g; j++ {
		floats.Add(cs[j*h:j*h+h], obj.mean)
	}
	m := &Mixture{
		Centers: mat.NewDense(g, h, cs),
		Gamma:   mat.NewDense(k, g, slices.Clone(x[g*h:])),
		Width:   s,
	}
	return m, res.MajorIterations, nil
}
