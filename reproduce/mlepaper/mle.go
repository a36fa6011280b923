package mlepaper

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/linproj"
	"github.com/lowdim/lowdim/reproduce"
)

// MLEConfig holds the settings of the Most Likely Embedding reproduction (the interactive-
// embedding thesis, §3.3.4). The zero value of each field means the documented default; Quick
// changes several defaults to a small run that finishes in seconds.
type MLEConfig struct {
	// DataDir holds the staged data sets (weka_arff/, communities/, yeast/); "" means
	// ../shared/data next to the module root (see FindShared).
	DataDir string
	// Seed seeds the control records of the timing and of every flexibility run, and the
	// synthetic data of the re-embedding timing.
	Seed uint64
	// Quick shrinks the run: 3 timed runs of at least 5 ms, 3 flexibility runs, a re-embedding
	// timing on 20,000 rows.
	Quick bool
	// Runs is the number of timed runs and of flexibility runs; 0 means 10 (the thesis's; 3
	// when Quick).
	Runs int
	// MinRun is the least duration of one timed run (the number of updates per run is
	// doubled until a run lasts this long); 0 means 50 ms (5 ms when Quick).
	MinRun time.Duration
	// MaxControls is the largest number of control points of the flexibility experiment;
	// 0 means 20, the thesis's.
	MaxControls int
	// ReembedN is the number of synthetic rows re-embedded after each move in the
	// re-embedding timing; 0 means 100,000 (20,000 when Quick).
	ReembedN int
	// Sets restricts the run to these data sets (the thesis's names, see MLESets); nil means
	// every set we hold.
	Sets []string
	// Workers bounds the goroutines of the re-embedding timing; 0 means runtime.NumCPU(). The
	// per-data-set timings always use one goroutine (every set has fewer than 8,192 rows, below
	// which the session does not split its loops anyway).
	Workers int
	// Log receives one line per finished step (progress); nil means silent.
	Log io.Writer

	logMu *sync.Mutex
	start time.Time
}

func (c *MLEConfig) defaults() {
	pick := func(v *int, full, quick int) {
		if *v == 0 {
			*v = full
			if c.Quick {
				*v = quick
			}
		}
	}
	pick(&c.Runs, 10, 3)
	pick(&c.MaxControls, 20, 20)
	pick(&c.ReembedN, 100_000, 20_000)
	if c.MinRun == 0 {
		c.MinRun = 50 * time.Millisecond
		if c.Quick {
			c.MinRun = 5 * time.Millisecond
		}
	}
	if c.Workers == 0 {
		c.Workers = runtime.NumCPU()
	}
	if c.logMu == nil {
		c.logMu = new(sync.Mutex)
	}
	if c.start.IsZero() {
		c.start = time.Now()
	}
}

func (c *MLEConfig) check() error {
	switch {
	case c.Runs < 2:
		return dataset.Invalidf("reproduce: Runs = %d; at least 2 are needed", c.Runs)
	case c.MinRun < time.Millisecond:
		return dataset.Invalidf("reproduce: MinRun = %v; at least 1 ms is needed", c.MinRun)
	case c.MaxControls < 1:
		return dataset.Invalidf("reproduce: MaxControls = %d; at least 1 is needed", c.MaxControls)
	case c.ReembedN < 1000:
		return dataset.Invalidf("reproduce: ReembedN = %d; at least 1,000 is needed", c.ReembedN)
	case c.Workers < 0:
		return dataset.Invalidf("reproduce: Workers = %d; expected a non-negative number", c.Workers)
	}
	for _, name := range c.Sets {
		if !slices.ContainsFunc(MLESets, func(s MLESet) bool { return s.Name == name }) {
			return dataset.Invalidf("reproduce: unknown data set %q (see reproduce.MLESets)", name)
		}
	}
	return nil
}

func (c *MLEConfig) logf(format string, args ...any) {
	if c.Log == nil {
		return
	}
	c.logMu.Lock()
	defer c.logMu.Unlock()
	fmt.Fprintf(c.Log, "[%7.1fs] %s\n", time.Since(c.start).Seconds(), fmt.Sprintf(format, args...))
}

// MLESet is one of the thesis's 30 data sets (its Table 3.2) and where we hold it.
type MLESet struct {
	Name string // as the thesis writes it
	// File is the staged file relative to the data directory; "" when we do not hold the set.
	File string
	Opt  dataset.Options
	// ThesisMoves and ThesisSelect are the thesis's updates per second for moving control
	// points ("only M_post") and for changing the selection ("Ψ_post and M_post").
	ThesisMoves, ThesisSelect float64
}

// weka is the loading of a staged Weka ARFF: '?' replaced by the column mean (harmless where
// there is none), the target (last attribute) kept out of X, nominal attributes one-hot.
func weka(file string) (string, dataset.Options) {
	return filepath.Join("weka_arff", file), dataset.Options{Missing: "mean"}
}

// MLESets lists the thesis's 30 data sets in its order. The updates per second are typed in
// from Table 3.3 of the thesis (Paurat, interactive embedding, §3.3.4: "Updates per second that
// MLE achieves for changing five control points on the 30 datasets, averaged over 10 runs").
// The loading options are those of dataset/doc.go (hypothyroid and sick: TBG, missing in every
// row, dropped).
var MLESets = func() []MLESet {
	w := func(name, file string, moves, sel float64) MLESet {
		f, opt := weka(file)
		return MLESet{Name: name, File: f, Opt: opt, ThesisMoves: moves, ThesisSelect: sel}
	}
	dropTBG := func(s MLESet) MLESet { s.Opt.Drop = []string{"TBG"}; return s }
	return []MLESet{
		w("autoPrice", "autoPrice.arff", 5899.3, 3366.1),
		w("bodyfat", "bodyfat.arff", 5814.6, 3336.8),
		w("breastTumor", "breastTumor.arff", 5814.3, 3407.2),
		w("cholesterol", "cholesterol.arff", 5660.9, 3288.0),
		w("cleveland", "cleveland.arff", 5617.0, 2880.6),
		{Name: "communities", File: filepath.Join("communities", "communities.data.gz"),
			Opt:         dataset.Options{Drop: []string{"1", "2", "3", "4", "5"}, Label: "last", Missing: "mean"},
			ThesisMoves: 2727.8, ThesisSelect: 756.1},
		w("cpu", "cpu.arff", 6101.7, 3504.8),
		w("galaxy", "galaxy.arff", 5708.6, 3347.6),
		w("glass", "glass.arff", 5923.9, 3294.3),
		w("housing", "housing.arff", 5317.3, 3135.0),
		dropTBG(w("hypothyroid", "hypothyroid.arff", 2797.3, 2001.8)),
		{Name: "ICDM abstracts", ThesisMoves: 1850.5, ThesisSelect: 89.0},
		w("ionosphere", "ionosphere.arff", 5239.4, 2909.0),
		w("kr vs. kp", "kr-vs-kp.arff", 2974.4, 1924.1),
		w("lowbwt", "lowbwt.arff", 5803.0, 3322.9),
		w("machine cpu", "machine_cpu.arff", 6067.5, 3470.2),
		{Name: "movies", ThesisMoves: 3282.9, ThesisSelect: 2279.9},
		w("pharynx", "pharynx.arff", 5630.1, 3202.2),
		w("primary-tumor", "primary-tumor.arff", 5247.9, 3011.3),
		w("pwLinear", "pwLinear.arff", 4877.4, 3173.6),
		w("sensory", "sensory.arff", 5004.0, 3071.0),
		w("servo", "servo.arff", 5682.5, 3170.5),
		dropTBG(w("sick", "sick.arff", 2670.7, 1962.1)),
		w("soybean", "soybean.arff", 4602.3, 1870.5),
		w("stock", "stock.arff", 4513.0, 2818.0),
		w("triazines", "triazines.arff", 5200.5, 2372.2),
		w("veteran", "veteran.arff", 5753.1, 3340.3),
		{Name: "webtender", ThesisMoves: 1497.0, ThesisSelect: 206.0},
		{Name: "yeast", File: filepath.Join("yeast", "yeast.data"), Opt: dataset.Options{Drop: []string{"1"}, Label: "last"},
			ThesisMoves: 4122.4, ThesisSelect: 2739.8},
		w("zoo", "zoo.arff", 5720.6, 3226.0),
	}
}()

// MLEControls is the number of control points of the timing (the thesis's Table 3.3).
const MLEControls = 5

// MLERate is one timed kind of update: Runs timed runs of PerRun updates each.
type MLERate struct {
	PerRun       int
	Rates        []float64 // updates per second (wall clock) of each run
	Mean, Median float64
	// CPURates are updates per second of the process's CPU time (user + system) in each run,
	// less sensitive than wall-clock rates to other jobs on a loaded machine; nil where the
	// system does not report CPU time. CPUMean and CPUMedian are NaN then.
	CPURates           []float64
	CPUMean, CPUMedian float64
}

// MLESpeed is the timing of one data set (thesis Table 3.3).
type MLESpeed struct {
	// Move: Session.Move of one of the five controls (the projection M_post, O(D·m·H)).
	// MoveEmbed: the same move followed by Session.Embedding of all n records.
	// Select: Session.SetControls with one of the five records swapped for another (Ψ x_r,
	// the gain A and M_post). SelectEmbed: the same followed by Session.Embedding.
	Move, MoveEmbed, Select, SelectEmbed MLERate
}

// MLEFlex is the flexibility experiment on one data set (thesis Figure 3.20).
type MLEFlex struct {
	Normalize linproj.Normalization // of the session and the target
	// RMSE[m][r] is run r's RMSE with m control points (m = 0 … MaxControls); m = 0 is the
	// prior, the PCA 1–2 embedding, the same in every run.
	RMSE      [][]float64
	Mean, Std []float64 // per m over the runs
	// TargetVar is the mean squared norm of the target rows, (1/n) Σ‖t_i‖² (the RMSE of
	// putting every record at the origin, squared).
	TargetVar float64
}

// MLEData is the result for one data set.
type MLEData struct {
	Set   MLESet
	Held  bool
	N, H  int
	Speed *MLESpeed
	Flex  *MLEFlex
	// FlexNorm repeats the flexibility experiment with the columns max-normalised and
	// z-scored (MLENormalizations), to show how much the scaling matters.
	FlexNorm []*MLEFlex
}

// MLEReembed times a move followed by the re-embedding of all N synthetic rows.
type MLEReembed struct {
	N, H, Workers int
	Rate          MLERate
}

// MLEReport is the whole MLE reproduction.
type MLEReport struct {
	Config  MLEConfig
	Command string
	Machine reproduce.Machine
	Started time.Time
	Data    []*MLEData
	Reembed []MLEReembed
	Seconds float64
	// LoadBefore and LoadAfter are the 1-minute load averages when the run started and ended
	// (from /proc/loadavg; NaN where unknown).
	LoadBefore, LoadAfter float64
}

// loadAverage returns the 1-minute load average, or NaN where /proc/loadavg is missing.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return math.NaN()
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return math.NaN()
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

// RunMLE runs the timing (Table 3.3) and the flexibility experiment (Figure 3.20) on every
// data set we hold, then the re-embedding timing on synthetic data. command is quoted in the
// report.
func RunMLE(ctx context.Context, c MLEConfig, command string) (*MLEReport, error) {
	c.defaults()
	if err := c.check(); err != nil {
		return nil, err
	}
	r := &MLEReport{Config: c, Command: command, Machine: reproduce.ThisMachine(), Started: time.Now(), LoadBefore: loadAverage()}
	dataDir, err := reproduce.DataDirOr(c.DataDir)
	if err != nil {
		return nil, err
	}
	for i, set := range MLESets {
		if c.Sets != nil && !slices.Contains(c.Sets, set.Name) {
			continue
		}
		res := &MLEData{Set: set}
		r.Data = append(r.Data, res)
		if set.File == "" {
			continue
		}
		d, err := reproduce.Load(filepath.Join(dataDir, set.File), set.Opt)
		if err != nil {
			return nil, err
		}
		res.Held, res.N, res.H = true, d.Len(), d.Dim()
		seed := c.Seed + uint64(i) // each set its own stream of records
		if res.Speed, err = RunMLESpeed(ctx, c, d.X, seed); err != nil {
			return nil, fmt.Errorf("reproduce: %s: %w", set.Name, err)
		}
		if res.Flex, err = RunMLEFlex(ctx, c, d, linproj.NormalizeNone, seed); err != nil {
			return nil, fmt.Errorf("reproduce: %s: %w", set.Name, err)
		}
		for _, z := range MLENormalizations {
			f, err := RunMLEFlex(ctx, c, d, z, seed)
			if err != nil {
				return nil, fmt.Errorf("reproduce: %s, %v: %w", set.Name, z, err)
			}
			res.FlexNorm = append(res.FlexNorm, f)
		}
		c.logf("%s (%d×%d): %.0f moves/s, %.0f selection changes/s; RMSE %.3f (m = 0) → %.3f (m = %d)", set.Name, res.N, res.H,
			res.Speed.Move.Mean, res.Speed.Select.Mean, res.Flex.Mean[0], res.Flex.Mean[c.MaxControls], c.MaxControls)
	}
	for _, h := range []int{10, 100} {
		re, err := RunMLEReembed(ctx, c, c.ReembedN, h, c.Seed)
		if err != nil {
			return nil, err
		}
		r.Reembed = append(r.Reembed, re)
		c.logf("re-embedding %d×%d after each move (%d workers): %.2f ms per move", re.N, re.H, re.Workers, 1e3/re.Rate.Mean)
	}
	r.Seconds = time.Since(r.Started).Seconds()
	r.LoadAfter = loadAverage()
	return r, ctx.Err()
}

// timeRate times update (one update per call; i counts the calls) in runs of PerRun calls,
// PerRun doubled from 1 until a run lasts at least c.MinRun (the calibration runs also warm
// up), then c.Runs timed runs.
func timeRate(ctx context.Context, c MLEConfig, update func(i int) error) (MLERate, error) {
	i := 0
	run := func(k int) (time.Duration, error) {
		t0 := time.Now()
		for range k {
			if err := update(i); err != nil {
				return 0, err
			}
			i++
		}
		return time.Since(t0), nil
	}
	per := 1
	for {
		d, err := run(per)
		if err != nil {
			return MLERate{}, err
		}
		if d >= c.MinRun {
			break
		}
		per *= 2
	}
	out := MLERate{PerRun: per, CPUMean: math.NaN(), CPUMedian: math.NaN()}
	cpuOK := true
	for range c.Runs {
		if err := ctx.Err(); err != nil {
			return MLERate{}, err
		}
		cpu0, ok0 := cpuTime()
		d, err := run(per)
		if err != nil {
			return MLERate{}, err
		}
		cpu1, ok1 := cpuTime()
		out.Rates = append(out.Rates, float64(per)/d.Seconds())
		cpuOK = cpuOK && ok0 && ok1 && cpu1 > cpu0
		if cpuOK {
			out.CPURates = append(out.CPURates, float64(per)/(cpu1-cpu0).Seconds())
		}
	}
	out.Mean, _ = reproduce.MeanStd(out.Rates)
	out.Median = reproduce.Median(slices.Clone(out.Rates))
	if cpuOK {
		out.CPUMean, _ = reproduce.MeanStd(out.CPURates)
		out.CPUMedian = reproduce.Median(slices.Clone(out.CPURates))
	} else {
		out.CPURates = nil
	}
	return out, nil
}

// mleTimingSession starts the default MLE session (one worker) on x with MLEControls distinct
// random records as control points, each a little off its prior position; it returns the
// session, the records and two positions per control to alternate between, so that no move
// repeats the previous one.
func mleTimingSession(ctx context.Context, x *mat.Dense, workers int, seed uint64) (*linproj.Session, []int, [2]*mat.Dense, error) {
	var pos [2]*mat.Dense
	s, err := linproj.Interactive{Workers: workers}.Start(ctx, x)
	if err != nil {
		return nil, nil, pos, err
	}
	n := s.Len()
	if n < MLEControls+2 {
		return nil, nil, pos, dataset.Invalidf("reproduce: %d rows; the timing needs at least %d", n, MLEControls+2)
	}
	rng := rand.New(rand.NewPCG(seed, 0x6d6c6574)) // stream "mlet"
	records := rng.Perm(n)[:MLEControls+2]         // the last two are swapped in by selection changes
	var prior mat.Dense
	s.Embedding(&prior)
	for a := range pos {
		pos[a] = mat.NewDense(MLEControls, s.Dim(), nil)
		for k, r := range records[:MLEControls] {
			for d := 0; d < s.Dim(); d++ {
				pos[a].Set(k, d, prior.At(r, d)+rng.NormFloat64())
			}
		}
	}
	if err := s.SetControls(records[:MLEControls], pos[0]); err != nil {
		return nil, nil, pos, err
	}
	return s, records, pos, nil
}

// RunMLESpeed times the four kinds of update on x (see MLESpeed).
func RunMLESpeed(ctx context.Context, c MLEConfig, x *mat.Dense, seed uint64) (*MLESpeed, error) {
	c.defaults()
	s, records, pos, err := mleTimingSession(ctx, x, 1, seed)
	if err != nil {
		return nil, err
	}
	var emb mat.Dense
	s.Embedding(&emb)
	move := func(i int) error {
		k := i % MLEControls
		return s.Move(records[k], pos[(i/MLEControls)&1].RawRowView(k))
	}
	sel := slices.Clone(records[:MLEControls])
	swap := func(i int) error {
		sel[MLEControls-1] = records[MLEControls+(i&1)]
		return s.SetControls(sel, pos[0])
	}
	out := &MLESpeed{}
	for _, t := range []struct {
		dst *MLERate
		f   func(int) error
	}{
		{&out.Move, move},
		{&out.MoveEmbed, func(i int) error { err := move(i); s.Embedding(&emb); return err }},
		{&out.Select, swap},
		{&out.SelectEmbed, func(i int) error { err := swap(i); s.Embedding(&emb); return err }},
	} {
		if err := s.SetControls(records[:MLEControls], pos[0]); err != nil {
			return nil, err
		}
		s.Embedding(&emb)
		if *t.dst, err = timeRate(ctx, c, t.f); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// MLENormalizations are the column scalings of the flexibility experiment's second table.
var MLENormalizations = []linproj.Normalization{linproj.NormalizeMax, linproj.NormalizeZScore}

// RunMLEFlex is the flexibility experiment on d: the default MLE session with normalisation
// norm (prior = the top-2 principal directions) and the target embedding t = principal
// components 3 and 4 of the same normalised data (linproj.PCA, Dim 4). In each of c.Runs runs
// a seeded random order of the records is drawn and, for m = 0 … c.MaxControls, the first m
// records are placed at their target positions; RMSE = sqrt((1/n) Σ_i ‖u_i − t_i‖²) over all
// n records. The record orders depend on seed only, not on norm.
func RunMLEFlex(ctx context.Context, c MLEConfig, d *dataset.Set, norm linproj.Normalization, seed uint64) (*MLEFlex, error) {
	c.defaults()
	n, h := d.X.Dims()
	if h < 4 || n < c.MaxControls+1 {
		return nil, dataset.Invalidf("reproduce: %d×%d data: the flexibility experiment needs 4 columns and more than %d rows", n, h, c.MaxControls)
	}
	s, err := linproj.Interactive{Workers: 1, Normalize: norm}.Start(ctx, d.X)
	if err != nil {
		return nil, err
	}
	// The session's normalised data, (x − mean)∘scale, from its linear model.
	lm := s.Model()
	xn := mat.NewDense(n, h, nil)
	for i := 0; i < n; i++ {
		row := xn.RawRowView(i)
		for j, v := range d.X.RawRowView(i) {
			row[j] = (v - lm.Mean[j]) * lm.Scale[j]
		}
	}
	pm, err := linproj.PCA{Dim: 4}.Fit(ctx, &dataset.Set{X: xn})
	if err != nil {
		return nil, err
	}
	var target mat.Dense
	target.CloneFrom(pm.Embedding().Slice(0, n, 2, 4))
	f := &MLEFlex{Normalize: norm, RMSE: make([][]float64, c.MaxControls+1)}
	tr := target.RawMatrix()
	for i := 0; i < n; i++ {
		row := tr.Data[i*tr.Stride : i*tr.Stride+2]
		f.TargetVar += row[0]*row[0] + row[1]*row[1]
	}
	f.TargetVar /= float64(n)
	rng := rand.New(rand.NewPCG(seed, 0x6d6c6566)) // stream "mlef"
	emb := mat.NewDense(n, 2, nil)
	for range c.Runs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		order := rng.Perm(n)[:c.MaxControls]
		for m := 0; m <= c.MaxControls; m++ {
			var pos *mat.Dense
			if m > 0 {
				pos = mat.NewDense(m, 2, nil)
				for k, r := range order[:m] {
					pos.SetRow(k, target.RawRowView(r))
				}
			}
			if err := s.SetControls(order[:m], pos); err != nil {
				return nil, err
			}
			s.Embedding(emb)
			f.RMSE[m] = append(f.RMSE[m], rmse(emb, &target))
		}
	}
	for _, v := range f.RMSE {
		mu, sd := reproduce.MeanStd(v)
		f.Mean, f.Std = append(f.Mean, mu), append(f.Std, sd)
	}
	return f, nil
}

// rmse is sqrt((1/n) Σ_i ‖a_i − b_i‖²) over the rows of two n×D matrices.
func rmse(a, b *mat.Dense) float64 {
	var diff mat.Dense
	diff.Sub(a, b)
	n, _ := a.Dims()
	f := mat.Norm(&diff, 2) // Frobenius norm
	return f / math.Sqrt(float64(n))
}

// RunMLEReembed times a move followed by Session.Embedding of all n rows of seeded Gaussian
// data with h columns (m = 5, D = 2, c.Workers goroutines).
func RunMLEReembed(ctx context.Context, c MLEConfig, n, h int, seed uint64) (MLEReembed, error) {
	c.defaults()
	rng := rand.New(rand.NewPCG(seed, uint64(h)))
	x := mat.NewDense(n, h, nil)
	for i := range x.RawMatrix().Data {
		x.RawMatrix().Data[i] = rng.NormFloat64()
	}
	s, records, pos, err := mleTimingSession(ctx, x, c.Workers, seed)
	if err != nil {
		return MLEReembed{}, err
	}
	emb := mat.NewDense(n, 2, nil)
	s.Embedding(emb)
	rate, err := timeRate(ctx, c, func(i int) error {
		k := i % MLEControls
		err := s.Move(records[k], pos[(i/MLEControls)&1].RawRowView(k))
		s.Embedding(emb)
		return err
	})
	return MLEReembed{N: n, H: h, Workers: c.Workers, Rate: rate}, err
}
