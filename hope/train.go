package hope

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"time"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/internal/minibatch"
	"github.com/lowdim/lowdim/internal/tcollapse"
)

// Optimizer selects how each mini-batch updates the parameters (shared with package ptsne).
type Optimizer = minibatch.Optimizer

const (
	// Adam takes one Adam step (Kingma & Ba) per mini-batch: the default, because it reached
	// lower validation errors sooner than CG in our measurements (see the package doc).
	Adam = minibatch.UseAdam
	// CG is the paper's optimiser: a few iterations of gonum's nonlinear conjugate gradient
	// (optimize.CG, Wolfe line searches) on each mini-batch, restarted for every batch
	// (internal/minibatch.CG, shared with package ptsne).
	CG = minibatch.UseCG
)

// Defaults of the Embedder settings (the zero value of each field means these).
const (
	DefaultOrderHOPE     = 3    // O for linear HOPE (paper, both data sets)
	DefaultOrderSHOPE    = 2    // O for S-HOPE
	DefaultFactorsHOPE   = 300  // F for HOPE (paper, MNIST)
	DefaultFactorsSHOPE  = 400  // F for S-HOPE (paper, MNIST)
	DefaultHidden        = 400  // m for S-HOPE (paper)
	DefaultEpochs        = 20   // passes over the training rows
	DefaultBatch         = 250  // rows per mini-batch
	DefaultCGIterations  = 3    // CG iterations per mini-batch
	DefaultLearningRate  = 3e-3 // Adam step size
	DefaultValidation    = 0.1  // fraction of the rows held out (per class) to pick the best epoch
	DefaultJointEpochs   = 10   // epochs of joint exemplar learning
	DefaultAlternate     = 4    // of which the first alternate between map and exemplars
	DefaultNeighbours    = 5    // k of the validation k-NN error
	maxOrder             = 9
	maxWidth             = 1 << 16
	validationChunkLimit = 1 << 20
)

// Embedder fits HOPE (linear) or S-HOPE (sigmoid) by minimising the MCML cost with a
// Student-t kernel over seeded mini-batches. Its fields are settings; the zero value of each
// means the documented default.
type Embedder struct {
	Sigmoid bool // S-HOPE; false is linear HOPE
	Order   int  // O ≥ 1; 0 means 3 for HOPE, 2 for S-HOPE
	Factors int  // F; 0 means 300 for HOPE, 400 for S-HOPE
	Hidden  int  // m sigmoid units (S-HOPE only); 0 means 400
	Dim     int  // output dimension; 0 means 2

	Epochs    int       // 0 means 20
	Batch     int       // rows per mini-batch; 0 means 250
	Optimizer Optimizer // Adam (default) or CG
	// CGIterations per mini-batch; 0 means 3.
	CGIterations int
	// LearningRate of Adam; 0 means 3e-3.
	LearningRate float64
	// Decay multiplies Adam's learning rate after every epoch (lr·Decay^(epoch−1)); 0 means 1,
	// no decay.
	Decay float64
	// MaxTime stops training at the end of the first epoch past it; 0 means no limit.
	MaxTime time.Duration

	// Validation is the fraction of each class held out to pick the best epoch; 0 means 0.1,
	// a negative value means none (the last epoch is kept).
	Validation float64

	// Augment, for image rows, moves (and optionally turns) every training row by a fresh
	// random amount each time it enters a mini-batch; the zero value means no augmentation.
	// The validation rows are held out before and never altered.
	Augment Augment

	// Exemplars per class s (z = s·K in all); 0 means none. They start from supervised
	// k-means (s centres inside each class, input space).
	Exemplars int
	// Joint learns the exemplars together with the map (eq. 9) after the map's own training:
	// the first Alternate epochs alternate map-only and exemplar-only updates, the rest update
	// both. JointEpochs 0 means 10, Alternate 0 means 4 (negative: none).
	Joint       bool
	JointEpochs int
	Alternate   int

	// Start, if not nil, is a fitted model to continue from: its shape, input normalisation and
	// parameters replace the drawn ones (Order, Factors, Hidden, Dim and Sigmoid must be 0 or
	// agree), and its exemplars, when it has Exemplars per class, replace the k-means start of
	// the joint stage. With a Start, Epochs < 0 skips the map's own training.
	Start *Model

	Seed     uint64
	Workers  int // goroutines of the pairwise passes; 0 means runtime.NumCPU()
	Progress lowdim.Progress
	// OnEpoch, if not nil, is called after every epoch (from Fit's goroutine).
	OnEpoch func(Epoch)
}

// Epoch reports one finished epoch.
type Epoch struct {
	Stage      string        // "map" or "exemplars"
	Epoch      int           // 1-based within the stage
	Cost       float64       `modelio:"nonfinite"` // mean mini-batch cost of the epoch (NaN if it diverged)
	ValidError float64       `modelio:"nonfinite"` // validation 5-NN error (NaN without validation)
	Elapsed    time.Duration // since Fit started
	Best       bool          // the parameters were kept as the best so far
}

// settings with defaults applied.
type config struct {
	Embedder
	sh shape
}

func (e Embedder) config(in, classes int) (config, error) {
	c := config{Embedder: e}
	if st := c.Start; st != nil {
		if st.sh.in != in {
			return c, dataset.Invalidf("hope: the start model has %d features, the data %d", st.sh.in, in)
		}
		if c.Sigmoid != st.Sigmoid || c.Order != 0 && c.Order != st.sh.order || c.Factors != 0 && c.Factors != st.sh.f ||
			c.Hidden != 0 && c.Hidden != st.sh.m || c.Dim != 0 && c.Dim != st.sh.dim {
			return c, dataset.Invalidf("hope: the settings disagree with the start model's shape")
		}
		c.Order, c.Factors, c.Hidden, c.Dim = st.sh.order, st.sh.f, st.sh.m, st.sh.dim
		if c.Epochs < 0 {
			c.Epochs = -1
		}
	} else if c.Epochs < 0 {
		return c, dataset.Invalidf("hope: epochs %d: only a start model may skip the map's training", c.Epochs)
	}
	if c.Order < 0 || c.Order > maxOrder {
		return c, dataset.Invalidf("hope: order %d: expected 1..%d", c.Order, maxOrder)
	}
	if c.Order == 0 {
		c.Order = DefaultOrderHOPE
		if c.Sigmoid {
			c.Order = DefaultOrderSHOPE
		}
	}
	if c.Factors == 0 {
		c.Factors = DefaultFactorsHOPE
		if c.Sigmoid {
			c.Factors = DefaultFactorsSHOPE
		}
	}
	if c.Hidden == 0 && c.Sigmoid {
		c.Hidden = DefaultHidden
	}
	if !c.Sigmoid {
		if c.Hidden != 0 {
			return c, dataset.Invalidf("hope: hidden units are for S-HOPE only")
		}
	}
	if c.Dim == 0 {
		c.Dim = 2
	}
	setDefault(&c.Epochs, DefaultEpochs)
	setDefault(&c.Batch, DefaultBatch)
	setDefault(&c.CGIterations, DefaultCGIterations)
	setDefault(&c.JointEpochs, DefaultJointEpochs)
	setDefault(&c.Alternate, DefaultAlternate)
	if c.LearningRate == 0 {
		c.LearningRate = DefaultLearningRate
	}
	if c.Decay == 0 {
		c.Decay = 1
	}
	if !(c.Decay > 0 && c.Decay <= 1) {
		return c, dataset.Invalidf("hope: decay %g: expected a factor in (0, 1]", c.Decay)
	}
	if c.Validation == 0 {
		c.Validation = DefaultValidation
	}
	if c.Workers == 0 {
		c.Workers = runtime.NumCPU()
	}
	for _, s := range []struct {
		name string
		v    int
	}{{"factors", c.Factors}, {"hidden", c.Hidden}, {"dim", c.Dim}, {"epochs", max(c.Epochs, 0)}, {"batch", c.Batch},
		{"CG iterations", c.CGIterations}, {"joint epochs", c.JointEpochs}, {"exemplars", c.Exemplars}, {"workers", c.Workers}} {
		if s.v < 0 || s.v > maxWidth {
			return c, dataset.Invalidf("hope: %s %d: expected 0..%d", s.name, s.v, maxWidth)
		}
	}
	if c.Batch < 2 {
		return c, dataset.Invalidf("hope: batch %d: expected at least 2 rows", c.Batch)
	}
	if !(c.LearningRate > 0) || math.IsInf(c.LearningRate, 0) {
		return c, dataset.Invalidf("hope: learning rate %g: expected a positive number", c.LearningRate)
	}
	if c.Validation >= 0.9 || math.IsNaN(c.Validation) {
		return c, dataset.Invalidf("hope: validation fraction %g: expected less than 0.9", c.Validation)
	}
	if c.Optimizer != CG && c.Optimizer != Adam {
		return c, dataset.Invalidf("hope: unknown optimizer %d", int(c.Optimizer))
	}
	if c.Joint && c.Exemplars == 0 {
		return c, dataset.Invalidf("hope: joint exemplar learning needs exemplars per class")
	}
	aug, err := c.Augment.check(in)
	if err != nil {
		return c, err
	}
	c.Augment = aug
	c.sh = shape{in: in, f: c.Factors, m: c.Hidden, dim: c.Dim, order: c.Order}
	if !c.Sigmoid {
		c.sh.m = 0
	}
	return c, nil
}

func setDefault(p *int, v int) {
	if *p == 0 {
		*p = v
	}
}

// Fit trains the map on the labelled rows of d and returns a *Model. If ctx is cancelled after
// the first epoch, Fit returns the best model so far together with ctx.Err().
func (e Embedder) Fit(ctx context.Context, d *dataset.Set) (lowdim.Model, error) {
	m, err := e.Train(ctx, d)
	if m == nil {
		return nil, err
	}
	return m, err
}

// Train is Fit with the concrete model type.
func (e Embedder) Train(ctx context.Context, d *dataset.Set) (*Model, error) {
	if d == nil || d.X == nil {
		return nil, dataset.Invalidf("hope: no data")
	}
	n, h := d.X.Dims()
	if !d.HasLabels() {
		return nil, dataset.Invalidf("hope: the data have no labels; HOPE and S-HOPE are supervised (give -label)")
	}
	if len(d.Labels) != n {
		return nil, dataset.Invalidf("hope: %d labels for %d rows", len(d.Labels), n)
	}
	classes := 0
	for i, l := range d.Labels {
		if l < 0 {
			return nil, dataset.Invalidf("hope: row %d has no label; every training row needs one", i+1)
		}
		classes = max(classes, l+1)
	}
	count := make([]int, classes)
	for _, l := range d.Labels {
		count[l]++
	}
	present := 0
	for _, c := range count {
		if c > 0 {
			present++
		}
	}
	if present < 2 {
		return nil, dataset.Invalidf("hope: the labels have %d class; MCML needs at least 2", present)
	}
	c, err := e.config(h, classes)
	if err != nil {
		return nil, err
	}
	for k, cnt := range count {
		if cnt > 0 && cnt < c.Exemplars {
			name := fmt.Sprint(k)
			if k < len(d.ClassNames) {
				name = d.ClassNames[k]
			}
			return nil, dataset.Invalidf("hope: %d exemplars per class but class %s has only %d rows", c.Exemplars, name, cnt)
		}
	}
	for i := range n {
		for _, v := range d.X.RawRowView(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, dataset.Invalidf("hope: row %d has a missing or non-finite value", i+1)
			}
		}
	}
	t := newTrainer(c, d, classes)
	defer t.close()
	return t.run(ctx)
}

// trainer holds the state of one fit; all buffers are allocated once.
type trainer struct {
	config
	d       *dataset.Set
	classes int
	rng     *rand.Rand
	start   time.Time

	mean  []float64
	scale float64

	train, valid []int // row indices
	perm         []int
	batchLab     []int
	classCount   []int
	nbatch       int
	maxRows      int

	aug   *augmenter // nil without augmentation
	net   *net
	obj   *tcollapse.Objective
	pool  *minibatch.Pool
	theta []float64
	grad  []float64
	best  []float64

	// joint exemplar learning: normalised exemplars (z×(H+1), bias column 1)
	ex     []float64
	exLab  []int
	exBest []float64
	joint  bool // evaluate the exemplar cost
	upMap  bool // update θ
	upEx   bool // update exemplars

	// optimiser state
	x, xg    []float64 // concatenated θ and exemplars
	opt      minibatch.Adam
	lr       float64 // Adam's current learning rate
	adamMode [2]bool
	cgOpt    minibatch.CG
	batchLo  int
	batchHi  int

	// validation
	yTrain, yValid *mat.Dense
	pred           []int
	history        []Epoch
	bestErr        float64
	trainLab       []int
	validLab       []int
}

func newTrainer(c config, d *dataset.Set, classes int) *trainer {
	n, h := d.X.Dims()
	t := &trainer{config: c, d: d, classes: classes, rng: newRand(c.Seed), start: time.Now()}
	t.splitRows(n)
	t.normaliser(h)
	if c.Augment.on() {
		t.aug = newAugmenter(c.Augment, t.background(), c.Seed)
	}
	t.nbatch = max(1, len(t.train)/c.Batch)
	t.maxRows = 0
	for b := range t.nbatch {
		lo, hi := minibatch.Span(b, t.nbatch, len(t.train))
		t.maxRows = max(t.maxRows, hi-lo)
	}
	z := c.Exemplars * classes
	t.pool = minibatch.NewPool(c.Workers)
	t.net = newNet(c.sh, t.maxRows+z, t.pool)
	t.obj = tcollapse.New(t.pool, c.Dim, 1, z, classes)
	t.theta = make([]float64, c.sh.params())
	t.grad = make([]float64, len(t.theta))
	t.best = make([]float64, len(t.theta))
	t.batchLab = make([]int, t.maxRows)
	t.classCount = make([]int, classes)
	t.perm = append([]int(nil), t.train...)
	t.trainLab = make([]int, len(t.train))
	for a, i := range t.train {
		t.trainLab[a] = d.Labels[i]
	}
	t.validLab = make([]int, len(t.valid))
	for a, i := range t.valid {
		t.validLab[a] = d.Labels[i]
	}
	t.bestErr = math.Inf(1)
	t.lr = c.LearningRate
	if st := c.Start; st != nil {
		copy(t.theta, st.theta)
		copy(t.mean, st.Mean)
		t.scale = st.Scale
		if st.Exemplars != nil && len(st.ExemplarLabels) == c.Exemplars*classes {
			cols := c.sh.cols()
			t.ex = make([]float64, len(st.ExemplarLabels)*cols)
			for j := range st.ExemplarLabels {
				row := st.Exemplars.RawRowView(j)
				for k, v := range row {
					t.ex[j*cols+k] = (v - t.mean[k]) / t.scale
				}
				t.ex[j*cols+c.sh.in] = 1
			}
			t.exLab = append([]int(nil), st.ExemplarLabels...)
			t.exBest = append([]float64(nil), t.ex...)
		}
	} else {
		t.init()
	}
	return t
}

func (t *trainer) close() { t.pool.Close() }

// splitRows holds out round(Validation·n_c) rows of every class, chosen by the seed.
func (t *trainer) splitRows(n int) {
	t.train, t.valid = splitRows(t.d.Labels, t.classes, t.Validation, t.Exemplars, t.rng)
}

func splitRows(labels []int, classes int, fraction float64, exemplars int, rng *rand.Rand) (train, valid []int) {
	n := len(labels)
	if fraction < 0 {
		train = make([]int, n)
		for i := range train {
			train[i] = i
		}
		return train, nil
	}
	byClass := make([][]int, classes)
	for i, l := range labels {
		byClass[l] = append(byClass[l], i)
	}
	hold := make([]bool, n)
	for _, rows := range byClass {
		k := int(math.Round(fraction * float64(len(rows))))
		if len(rows)-k < max(exemplars, 1) {
			k = len(rows) - max(exemplars, 1)
		}
		rng.Shuffle(len(rows), func(a, b int) { rows[a], rows[b] = rows[b], rows[a] })
		for _, i := range rows[:max(k, 0)] {
			hold[i] = true
		}
	}
	for i := range n {
		if hold[i] {
			valid = append(valid, i)
		} else {
			train = append(train, i)
		}
	}
	return train, valid
}

// Split returns the training and validation rows that Train would use for d: the same seeded
// per-class hold-out. It fails like Train on missing labels or bad settings.
func (e Embedder) Split(d *dataset.Set) (train, valid []int, err error) {
	_, _, train, valid, _, err = e.split(d)
	return train, valid, err
}

// split is Split, with the settings, the number of classes and the seed's source past the
// split's draws, as a trainer has them.
func (e Embedder) split(d *dataset.Set) (c config, classes int, train, valid []int, rng *rand.Rand, err error) {
	if d == nil || !d.HasLabels() {
		return c, 0, nil, nil, nil, dataset.Invalidf("hope: the data have no labels")
	}
	for i, l := range d.Labels {
		if l < 0 {
			return c, 0, nil, nil, nil, dataset.Invalidf("hope: row %d has no label; every training row needs one", i+1)
		}
		classes = max(classes, l+1)
	}
	if c, err = e.config(d.Dim(), classes); err != nil {
		return c, 0, nil, nil, nil, err
	}
	rng = newRand(c.Seed)
	train, valid = splitRows(d.Labels, classes, c.Validation, c.Exemplars, rng)
	return c, classes, train, valid, rng, nil
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x686f7065)) }

// normaliser sets the per-feature mean and the scale (RMS norm of the centred rows) of the
// training rows.
func (t *trainer) normaliser(h int) {
	t.mean = make([]float64, h)
	for _, i := range t.train {
		floats.Add(t.mean, t.d.X.RawRowView(i))
	}
	floats.Scale(1/float64(len(t.train)), t.mean)
	var ss float64
	for _, i := range t.train {
		for j, v := range t.d.X.RawRowView(i) {
			e := v - t.mean[j]
			ss += e * e
		}
	}
	t.scale = math.Sqrt(ss / float64(len(t.train)))
	if !(t.scale > 0) {
		t.scale = 1
	}
}

// background is the smallest value of the training rows: the fill of augmented images.
func (t *trainer) background() float64 {
	bg := math.Inf(1)
	for _, i := range t.train {
		bg = min(bg, floats.Min(t.d.X.RawRowView(i)))
	}
	return bg
}

// fill writes the normalised training row i (with bias) into row a of the net's input.
func (t *trainer) fill(a, i int) { t.fillRow(a, t.d.X.RawRowView(i)) }

// fillRow writes the normalised row x (with bias) into row a of the net's input.
func (t *trainer) fillRow(a int, x []float64) {
	cols := t.sh.cols()
	dst := t.net.x[a*cols : (a+1)*cols]
	inv := 1 / t.scale
	for j, v := range x {
		dst[j] = (v - t.mean[j]) * inv
	}
	dst[t.sh.in] = 1
}

// init draws θ: C ~ N(0, 1/2) (so that C_f·x̃ has about unit variance), W scaled to give unit
// pre-activations on a sample, B = 0, and P scaled to give a unit-RMS initial embedding.
func (t *trainer) init() {
	c, w, _, p := t.sh.blocks(t.theta)
	for i := range c.Data {
		c.Data[i] = t.rng.NormFloat64() * math.Sqrt(0.5)
	}
	r := min(t.maxRows, len(t.train))
	for a := range r {
		t.fill(a, t.train[a*len(t.train)/r])
	}
	for i := range p.Data {
		p.Data[i] = t.rng.NormFloat64()
	}
	if t.sh.m > 0 {
		for i := range w.Data {
			w.Data[i] = t.rng.NormFloat64()
		}
		// Scale W so that Wᵀh has unit RMS on the sample.
		t.net.forward(t.theta, r)
		hn := rms(t.net.h[:r*t.sh.f])
		floats.Scale(1/(hn*math.Sqrt(float64(t.sh.f))), w.Data)
	}
	t.net.forward(t.theta, r)
	// Centre-free RMS of the embedding.
	if s := rms(t.net.y[:r*t.sh.dim]); s > 0 && !math.IsInf(s, 0) {
		floats.Scale(1/s, p.Data)
	}
}

func rms(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	return floats.Norm(v, 2) / math.Sqrt(float64(len(v)))
}

func (t *trainer) report(stage string, done, total int) { t.Progress.Report(stage, done, total) }

// run trains the map, then the exemplars, and builds the model.
func (t *trainer) run(ctx context.Context) (*Model, error) {
	copy(t.best, t.theta)
	err := t.epochs(ctx, "map", t.Epochs)
	copy(t.theta, t.best)
	if err != nil && len(t.history) == 0 {
		return nil, err
	}
	if err == nil && t.Exemplars > 0 {
		if t.ex == nil {
			t.kmeans()
		}
		if t.Joint {
			err = t.jointStage(ctx)
		}
	}
	m := t.model()
	if yerr := t.embedAll(m); yerr != nil && err == nil {
		err = yerr
	}
	return m, err
}

// model builds the Model from the best parameters.
func (t *trainer) model() *Model {
	m := newModel(t.sh, t.Sigmoid, append([]float64(nil), t.theta...))
	m.Mean = append([]float64(nil), t.mean...)
	m.Scale = t.scale
	m.ClassNames = t.d.ClassNames
	m.History = t.history
	m.ValidError = math.NaN()
	if len(t.valid) > 0 {
		m.ValidError = t.bestErr
	}
	if t.ex != nil {
		z := len(t.exLab)
		cols := t.sh.cols()
		m.Exemplars = mat.NewDense(z, t.sh.in, nil)
		for j := range z {
			row := m.Exemplars.RawRowView(j)
			for k := range t.sh.in {
				row[k] = t.ex[j*cols+k]*t.scale + t.mean[k]
			}
		}
		m.ExemplarLabels = append([]int(nil), t.exLab...)
	}
	return m
}

func (t *trainer) embedAll(m *Model) error {
	var y mat.Dense
	if err := m.Transform(&y, t.d.X); err != nil {
		return err
	}
	m.Y = &y
	return nil
}

// epochs runs the given number of epochs of the current stage, keeping the best parameters in
// t.best (and t.exBest).
func (t *trainer) epochs(ctx context.Context, stage string, count int) error {
	t.upMap, t.upEx = true, false
	if stage == "map" {
		t.joint = false
	}
	for ep := 1; ep <= count; ep++ {
		if stage == "exemplars" {
			t.upMap, t.upEx = true, true
			if ep <= t.Alternate {
				t.upMap, t.upEx = ep%2 == 1, ep%2 == 0
			}
		}
		t.rng.Shuffle(len(t.perm), func(a, b int) { t.perm[a], t.perm[b] = t.perm[b], t.perm[a] })
		t.lr = t.LearningRate * math.Pow(t.Decay, float64(ep-1))
		var cost float64
		for b := range t.nbatch {
			if err := ctx.Err(); err != nil {
				return err
			}
			t.batchLo, t.batchHi = minibatch.Span(b, t.nbatch, len(t.perm))
			cost += t.step()
			t.report("hope "+stage, (ep-1)*t.nbatch+b+1, count*t.nbatch)
		}
		cost /= float64(t.nbatch)
		verr, err := t.validate(ctx)
		if err != nil {
			return err
		}
		rec := Epoch{Stage: stage, Epoch: ep, Cost: cost, ValidError: verr, Elapsed: time.Since(t.start)}
		if !math.IsNaN(cost) && (len(t.valid) == 0 || verr <= t.bestErr) {
			rec.Best = true
			t.bestErr = verr
			copy(t.best, t.theta)
			if t.ex != nil {
				copy(t.exBest, t.ex)
			}
		}
		t.history = append(t.history, rec)
		if t.OnEpoch != nil {
			t.OnEpoch(rec)
		}
		if t.MaxTime > 0 && time.Since(t.start) > t.MaxTime {
			break
		}
	}
	return nil
}

// load fills the net with batch rows (and, in the joint stage, the exemplars after them) and
// returns the number of batch rows.
func (t *trainer) load() int {
	r := t.batchHi - t.batchLo
	clear(t.classCount)
	for a, i := range t.perm[t.batchLo:t.batchHi] {
		if t.aug != nil {
			t.fillRow(a, t.aug.apply(t.d.X.RawRowView(i)))
		} else {
			t.fill(a, i)
		}
		l := t.d.Labels[i]
		t.batchLab[a] = l
		t.classCount[l]++
	}
	if t.joint {
		cols := t.sh.cols()
		copy(t.net.x[r*cols:], t.ex)
	}
	return r
}

// eval returns the cost of the loaded batch at the current θ (and exemplars) and writes the
// gradient of the optimised vector into g.
func (t *trainer) eval(g []float64) float64 {
	r := t.batchHi - t.batchLo
	if !t.joint {
		t.net.forward(t.theta, r)
		f := t.obj.Pairs(t.net.y, t.net.gy, t.batchLab, r, t.classCount)
		clear(g)
		t.net.backward(t.theta, g, r, true, false)
		return f
	}
	z := len(t.exLab)
	if t.upEx {
		copy(t.net.x[r*t.sh.cols():], t.ex)
	}
	t.net.forward(t.theta, r+z)
	f := t.obj.Exemplars(t.net.y, t.net.gy, t.batchLab, r, t.exLab)
	gt, ge := t.splitGrad(g)
	if gt != nil {
		clear(gt)
	}
	t.net.backward(t.theta, gt, r+z, gt != nil, ge != nil)
	if ge != nil {
		cols := t.sh.cols()
		copy(ge, t.net.gx[r*cols:(r+z)*cols])
		for j := range z {
			ge[j*cols+t.sh.in] = 0 // the bias input is fixed
		}
	}
	return f
}

// splitGrad returns the θ and exemplar parts of a gradient of the optimised vector (nil for a
// part that is not optimised).
func (t *trainer) splitGrad(g []float64) (gt, ge []float64) {
	switch {
	case t.upMap && t.upEx:
		return g[:len(t.theta)], g[len(t.theta):]
	case t.upMap:
		return g, nil
	default:
		return nil, g
	}
}

// setVector copies an optimised vector into θ and the exemplars.
func (t *trainer) setVector(x []float64) {
	switch {
	case t.upMap && t.upEx:
		copy(t.theta, x[:len(t.theta)])
		copy(t.ex, x[len(t.theta):])
	case t.upMap:
		copy(t.theta, x)
	default:
		copy(t.ex, x)
	}
}

func (t *trainer) getVector(x []float64) []float64 {
	switch {
	case t.upMap && t.upEx:
		x = append(append(x[:0], t.theta...), t.ex...)
	case t.upMap:
		x = append(x[:0], t.theta...)
	default:
		x = append(x[:0], t.ex...)
	}
	return x
}

// step updates the parameters on the current mini-batch and returns the batch cost before the
// update.
func (t *trainer) step() float64 {
	t.load()
	t.x = t.getVector(t.x)
	nx := len(t.x)
	if cap(t.xg) < nx {
		t.xg = make([]float64, nx)
	}
	t.xg = t.xg[:nx]
	if t.Optimizer == Adam {
		return t.adam()
	}
	return t.cg()
}

// adam takes one Adam step (β₁ = 0.9, β₂ = 0.999, ε = 1e-8); the moments start over when the
// optimised vector changes (the joint stage's alternation).
func (t *trainer) adam() float64 {
	f := t.eval(t.xg)
	nx := len(t.x)
	mode := [2]bool{t.upMap, t.upEx}
	if len(t.opt.M) != nx || mode != t.adamMode {
		t.opt.Reset(nx)
		t.adamMode = mode
	}
	t.opt.Step(t.x, t.xg, t.lr)
	t.setVector(t.x)
	return f
}

// cg runs CGIterations of conjugate gradients on the batch (package internal/minibatch, shared
// with ptsne).
func (t *trainer) cg() float64 {
	f0 := t.cgOpt.Minimize(t.x, t.evalVector, t.CGIterations)
	t.setVector(t.x)
	return f0
}

// evalVector returns the batch cost at the concatenated parameters x and sets grad.
func (t *trainer) evalVector(x, grad []float64) float64 {
	t.setVector(x)
	return t.eval(grad)
}

// validate returns the validation k-NN error: against the embedded training rows for the map,
// against the embedded exemplars in the joint stage. NaN without validation rows.
func (t *trainer) validate(ctx context.Context) (float64, error) {
	if len(t.valid) == 0 {
		return math.NaN(), nil
	}
	m := newModel(t.sh, t.Sigmoid, t.theta)
	m.Mean, m.Scale = t.mean, t.scale
	if t.yValid == nil {
		t.yValid = mat.NewDense(len(t.valid), t.sh.dim, nil)
		t.pred = make([]int, len(t.valid))
	}
	if err := m.TransformContext(ctx, t.yValid, rowsOf{t.d.X, t.valid}); err != nil {
		return 0, err
	}
	var ref *mat.Dense
	var refLab []int
	if t.joint {
		ref = t.exemplarY(m)
		refLab = t.exLab
	} else {
		if t.yTrain == nil {
			t.yTrain = mat.NewDense(len(t.train), t.sh.dim, nil)
		}
		if err := m.TransformContext(ctx, t.yTrain, rowsOf{t.d.X, t.train}); err != nil {
			return 0, err
		}
		ref, refLab = t.yTrain, t.trainLab
	}
	k := min(DefaultNeighbours, len(refLab))
	return KNNError(ctx, ref, refLab, t.yValid, t.validLab, k, t.Workers)
}

// exemplarY embeds the current (normalised) exemplars.
func (t *trainer) exemplarY(m *Model) *mat.Dense {
	z := len(t.exLab)
	cols := t.sh.cols()
	n := newNet(t.sh, z, nil)
	copy(n.x, t.ex[:z*cols])
	n.forward(m.theta, z)
	return mat.NewDense(z, t.sh.dim, append([]float64(nil), n.y[:z*t.sh.dim]...))
}

// rowsOf is the matrix of the given rows of x.
type rowsOf struct {
	x    *mat.Dense
	rows []int
}

func (r rowsOf) Dims() (int, int)           { _, c := r.x.Dims(); return len(r.rows), c }
func (r rowsOf) At(i, j int) float64        { return r.x.At(r.rows[i], j) }
func (r rowsOf) T() mat.Matrix              { return mat.Transpose{Matrix: r} }
func (r rowsOf) RawRowView(i int) []float64 { return r.x.RawRowView(r.rows[i]) }
