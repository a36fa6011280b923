package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/hope"
	"github.com/lowdim/lowdim/reproduce/hopepaper"
	"github.com/lowdim/lowdim/viz"
)

// hopeFlags are the flags of -method hope and shope.
type hopeFlags struct {
	order, factors, hidden, exemplars, epochs, batch, jointEpochs int
	optimizer                                                     string
	joint                                                         bool
	validation, rate                                              float64
	maxTime                                                       time.Duration
	augShift                                                      int
	augRotate                                                     float64
	image                                                         string
}

// hopeMethods names the methods that take the hope flags.
var hopeMethods = map[string]bool{"hope": true, "shope": true}

func (f *hopeFlags) register(fs *flag.FlagSet) {
	fs.IntVar(&f.order, "order", 0, fmt.Sprintf("-method hope|shope: order O of the feature interactions (C_f·x)^O (default %d for hope, %d for shope)", hope.DefaultOrderHOPE, hope.DefaultOrderSHOPE))
	fs.IntVar(&f.factors, "factors", 0, fmt.Sprintf("-method hope|shope: number F of factor filters (default %d for hope, %d for shope)", hope.DefaultFactorsHOPE, hope.DefaultFactorsSHOPE))
	fs.IntVar(&f.hidden, "hidden", 0, fmt.Sprintf("-method shope: number m of sigmoid units (default %d)", hope.DefaultHidden))
	fs.IntVar(&f.exemplars, "exemplars", 0, "-method hope|shope: learn `s` exemplars per class by supervised k-means (z = s·classes); saved in the model, drawn on the plot")
	fs.BoolVar(&f.joint, "joint", false, "-method hope|shope: learn the exemplars jointly with the map after its training (needs -exemplars)")
	fs.IntVar(&f.jointEpochs, "joint-epochs", 0, fmt.Sprintf("-joint: epochs of joint exemplar learning (default %d)", hope.DefaultJointEpochs))
	fs.IntVar(&f.epochs, "epochs", 0, fmt.Sprintf("-method hope|shope: passes over the training rows (default %d)", hope.DefaultEpochs))
	fs.IntVar(&f.batch, "batch", 0, fmt.Sprintf("-method hope|shope: rows per mini-batch (default %d)", hope.DefaultBatch))
	fs.StringVar(&f.optimizer, "optimizer", "adam", "-method hope|shope|ptsne: adam, or cg (the papers' conjugate gradients, restarted per mini-batch: 3 iterations for hope and shope, 4, three line searches, for ptsne, whose batches are then the paper's 5,000 rows)")
	fs.Float64Var(&f.rate, "rate", 0, fmt.Sprintf("-optimizer adam: learning rate (default %g)", hope.DefaultLearningRate))
	fs.Float64Var(&f.validation, "validation", 0, fmt.Sprintf("-method hope|shope: fraction of each class held out to keep the best epoch (default %g; negative: none, keep the last)", hope.DefaultValidation))
	fs.DurationVar(&f.maxTime, "max-time", 0, "-method hope|shope: stop training after the first epoch past this `duration` (e.g. 15m; default no limit)")
	fs.IntVar(&f.augShift, "augment-shift", 0, "-method hope|shope, image rows: move every training row by a fresh random shift of up to this many `pixels` along each axis whenever it enters a mini-batch (default 0: none)")
	fs.Float64Var(&f.augRotate, "augment-rotate", 0, "-method hope|shope, image rows: also turn every training row by a fresh random angle of up to this many `degrees` (at most 45; default 0: none)")
	fs.StringVar(&f.image, "image", "", "-augment-shift, -augment-rotate: image shape `WxH` of the rows, stored row by row (default: square, side √features)")
}

var hopeOnly = []string{"order", "factors", "hidden", "exemplars", "joint", "joint-epochs", "epochs", "batch", "optimizer", "rate", "validation", "max-time",
	"augment-shift", "augment-rotate", "image"}

// imageShape parses -image WxH; "" is 0×0 (square images).
func imageShape(s string) (w, h int, err error) {
	if s == "" {
		return 0, 0, nil
	}
	a, b, ok := strings.Cut(strings.ToLower(s), "x")
	if ok {
		w, err = strconv.Atoi(a)
		if err == nil {
			h, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || w < 1 || h < 1 {
		return 0, 0, usagef("-image: expected the image shape as WIDTHxHEIGHT (e.g. 16x16), found %q", s)
	}
	return w, h, nil
}

// check validates the flags that do not need data.
func (f *hopeFlags) check(set map[string]bool, method string) error {
	if !hopeMethods[method] {
		for _, name := range hopeOnly {
			switch {
			case name == "optimizer" && method == "ptsne":
			case name == "optimizer" && set[name]:
				return usagef("-optimizer: only -method hope, shope and ptsne take it, found -method %s", method)
			case set[name]:
				return usagef("-%s: only -method hope and shope take it, found -method %s", name, method)
			}
		}
		if method == "ptsne" && f.optimizer != "cg" && f.optimizer != "adam" {
			return usagef("-optimizer: expected cg or adam, found %q", f.optimizer)
		}
		return nil
	}
	switch {
	case set["order"] && f.order < 1:
		return usagef("-order: expected a positive number, found %d", f.order)
	case f.factors < 0 || set["factors"] && f.factors == 0:
		return usagef("-factors: expected a positive number, found %d", f.factors)
	case set["hidden"] && method != "shope":
		return usagef("-hidden: only -method shope has sigmoid units")
	case f.hidden < 0 || set["hidden"] && f.hidden == 0:
		return usagef("-hidden: expected a positive number, found %d", f.hidden)
	case f.exemplars < 0:
		return usagef("-exemplars: expected a non-negative number, found %d", f.exemplars)
	case f.joint && f.exemplars == 0:
		return usagef("-joint: needs -exemplars s (exemplars per class)")
	case set["joint-epochs"] && !f.joint:
		return usagef("-joint-epochs: only with -joint")
	case f.epochs < 0 || set["epochs"] && f.epochs == 0, f.jointEpochs < 0 || set["joint-epochs"] && f.jointEpochs == 0:
		return usagef("-epochs, -joint-epochs: expected a positive number")
	case f.batch < 0 || set["batch"] && f.batch < 2:
		return usagef("-batch: expected at least 2 rows, found %d", f.batch)
	case f.optimizer != "cg" && f.optimizer != "adam":
		return usagef("-optimizer: expected cg or adam, found %q", f.optimizer)
	case set["rate"] && f.optimizer != "adam":
		return usagef("-rate: only -optimizer adam takes a learning rate")
	case set["rate"] && !(f.rate > 0):
		return usagef("-rate: expected a positive number, found %g", f.rate)
	case f.validation >= 0.9 || f.validation != f.validation:
		return usagef("-validation: expected a fraction below 0.9, found %g", f.validation)
	case f.maxTime < 0:
		return usagef("-max-time: expected a positive duration, found %v", f.maxTime)
	case f.augShift < 0:
		return usagef("-augment-shift: expected a non-negative number of pixels, found %d", f.augShift)
	case !(f.augRotate >= 0 && f.augRotate <= 45):
		return usagef("-augment-rotate: expected 0 to 45 degrees, found %g", f.augRotate)
	case set["image"] && f.augShift == 0 && f.augRotate == 0:
		return usagef("-image: only with -augment-shift or -augment-rotate")
	}
	_, _, err := imageShape(f.image)
	return err
}

// embedder builds the (S-)HOPE embedder; epochs are reported on w.
func (f *hopeFlags) embedder(sigmoid bool, seed uint64, progress lowdim.Progress, w io.Writer) hope.Embedder {
	e := hope.Embedder{
		Sigmoid: sigmoid, Order: f.order, Factors: f.factors, Hidden: f.hidden, Epochs: f.epochs, Batch: f.batch,
		LearningRate: f.rate, MaxTime: f.maxTime, Validation: f.validation, Exemplars: f.exemplars, Joint: f.joint,
		JointEpochs: f.jointEpochs, Seed: seed, Progress: progress,
		Augment: hope.Augment{Shift: f.augShift, Rotate: f.augRotate},
	}
	// check has accepted f.image.
	e.Augment.Width, e.Augment.Height, _ = imageShape(f.image)
	if f.optimizer == "cg" {
		e.Optimizer = hope.CG
	}
	if w != nil {
		e.OnEpoch = func(ep hope.Epoch) {
			best := ""
			if ep.Best {
				best = " (best)"
			}
			fmt.Fprintf(w, "lowdim: %s epoch %d: cost %.4f, validation 5-NN error %.2f%%%s, %s\n",
				ep.Stage, ep.Epoch, ep.Cost, 100*ep.ValidError, best, ep.Elapsed.Round(time.Second))
		}
	}
	return e
}

// keepBest turns an interrupted (S-)HOPE fit that returned its best model so far into a
// success: the rest of the command runs with a context that is no longer cancelled.
func keepBest(ctx context.Context, method string, m lowdim.Model, err error, warn func(string)) (context.Context, error) {
	if hopeMethods[method] && m != nil && errors.Is(err, context.Canceled) {
		warn("interrupted: keeping the best model so far")
		return context.WithoutCancel(ctx), nil
	}
	return ctx, err
}

// drawHOPE draws the embedding of a (S-)HOPE model with its embedded exemplars, if any, marked.
func drawHOPE(w io.Writer, path, title string, m lowdim.Model, d *dataset.Set) error {
	hm, ok := m.(*hope.Model)
	if !ok || hm.Exemplars == nil {
		return drawScatter(w, path, title, m.Embedding(), d, nil)
	}
	y := m.Embedding()
	ey := hm.ExemplarEmbedding()
	n, dim := y.Dims()
	z, _ := ey.Dims()
	all := mat.NewDense(n+z, dim, nil)
	all.Slice(0, n, 0, dim).(*mat.Dense).Copy(y)
	all.Slice(n, n+z, 0, dim).(*mat.Dense).Copy(ey)
	labels := append(append([]int(nil), d.Labels...), hm.ExemplarLabels...)
	s := viz.Scatter{Title: title, HighlightName: "exemplars"}
	for j := range z {
		s.Highlight = append(s.Highlight, n+j)
	}
	p, err := s.Plot(all, labels, d.ClassNames)
	if err != nil {
		return err
	}
	return viz.Write(w, p, 0, 0, filepath.Ext(path))
}

const hopeReproduceHelp = "  hope (Min, Guo and Song): HOPE and S-HOPE, each with k-means and with jointly learnt\n" +
	"    exemplars, on USPS and MNIST, with the comparison rows LDA, LPP, NCA, MCML, LMNN,\n" +
	"    pt-SNE, deep-AE, dt-NCA and dt-MCML (each also mapping the 20 k-means exemplars, Tables\n" +
	"    2 and 4), 5-NN test errors next to the paper's Tables 1–4, training times, the k-NN\n" +
	"    speed-up of 20 exemplars and the test embeddings. S-HOPE trains on rows shifted by up to\n" +
	"    1 pixel (-no-augment: plain rows only), next to a plain baseline row. -sets usps-mixed\n" +
	"    re-splits USPS's 9,298 rows at random, as the paper did (the ESL split's test digits come\n" +
	"    from other writers). Each fit stops at its epoch cap or time budget, whichever comes\n" +
	"    first (HOPE, S-HOPE and the two joint stages 5/15/5/5 minutes on USPS, 15/60/15/15 on\n" +
	"    MNIST; -budget scales them). The comparison rows add about 14 minutes on USPS and 95 on\n" +
	"    MNIST, most of it pt-SNE's conjugate gradients (9 and 85 minutes, 30 epochs as in the\n" +
	"    paper), deep-AE about 22 more on USPS (40 epochs of batches of 100) and 110 on MNIST\n" +
	"    (20 epochs), dt-NCA and dt-MCML about 6 and 3 minutes on USPS (30 epochs) and 17 and 11\n" +
	"    on MNIST (10 epochs) (plain build, 2 cores);\n" +
	"    -only baselines runs them alone, with S-HOPE's k-means but no HOPE or S-HOPE fit;\n" +
	"    -methods pt-SNE,deep-AE (say) runs only those comparison rows and their k-means rows;\n" +
	"    -quick well under a minute.\n"

// hopeReproduceFlags are the flags only reproduce hope takes.
type hopeReproduceFlags struct {
	sets, optimizer *string
	budget          *float64
	noAugment       *bool
	ptEpochs        *int
	aeEpochs        *int
	cgIters         *int
}

func registerHOPEReproduce(fs *flag.FlagSet) *hopeReproduceFlags {
	return &hopeReproduceFlags{
		sets:      fs.String("sets", "usps,mnist", "hope only: comma-separated data `sets` (usps, mnist, usps-mixed: USPS's 9,298 rows re-split at random as the paper's were, stratified by class)"),
		optimizer: fs.String("optimizer", "adam", "hope only: adam (learning rate 3e-3) or cg (the paper's: 3 conjugate-gradient iterations per mini-batch)"),
		budget:    fs.Float64("budget", 1, "hope only: scale of the training-time budgets (USPS 5/15/5 minutes for HOPE/S-HOPE/joint exemplars, MNIST 15/60/15)"),
		noAugment: fs.Bool("no-augment", false, "hope only: train USPS S-HOPE on the plain rows only (default: rows shifted by up to 1 pixel, plus a plain baseline row)"),
		ptEpochs:  fs.Int("ptsne-epochs", 0, "hope only: pt-SNE's fine-tuning `epochs` (0: the paper's 30)"),
		aeEpochs:  fs.Int("deepae-epochs", 0, "hope only: deep-AE's fine-tuning `epochs` (0: 40 on USPS, 20 on MNIST)"),
		cgIters:   fs.Int("cg-iterations", 0, "hope only: conjugate-gradient `iterations` per batch of pt-SNE, deep-AE, dt-NCA and dt-MCML as gonum counts them, the start the first (0: each network's default, 4 for pt-SNE and deep-AE, the three line searches of the papers' minimize.m, and 3, two line searches, for dt-NCA and dt-MCML, which gain nothing from a third)"),
	}
}

func (h *hopeReproduceFlags) check(fs *flag.FlagSet, paper string) error {
	if paper == "hope" {
		var bad []string
		fs.Visit(func(f *flag.Flag) {
			if f.Name == "n" || f.Name == "folds" || f.Name == "scurve" || f.Name == "starts" {
				bad = append(bad, "-"+f.Name)
			}
		})
		if len(bad) > 0 {
			return usagef("%s: only for reproduce nerv", strings.Join(bad, ", "))
		}
		if o := fs.Lookup("only").Value.String(); o != "" && o != "baselines" {
			return usagef("-only: reproduce hope takes baselines (the comparison rows alone), found %q", o)
		}
		if *h.ptEpochs < 0 || *h.aeEpochs < 0 {
			return usagef("-ptsne-epochs, -deepae-epochs: expected 0 (the default) or a positive number, found %d and %d", *h.ptEpochs, *h.aeEpochs)
		}
		if *h.cgIters < 0 || *h.cgIters == 1 {
			return usagef("-cg-iterations: expected 0 (the default) or a number from 2 (one line search), found %d", *h.cgIters)
		}
		if !(*h.budget > 0) {
			return usagef("-budget: expected a positive number, found %g", *h.budget)
		}
		if *h.optimizer != "cg" && *h.optimizer != "adam" {
			return usagef("-optimizer: expected cg or adam, found %q", *h.optimizer)
		}
		for _, s := range strings.Split(*h.sets, ",") {
			if s != "usps" && s != "mnist" && s != "usps-mixed" {
				return usagef("-sets: expected usps, usps-mixed and/or mnist, found %q", s)
			}
		}
		return nil
	}
	var only []string
	fs.Visit(func(f *flag.Flag) {
		if (f.Name == "sets" && paper != "scale") || f.Name == "budget" || f.Name == "optimizer" || f.Name == "no-augment" || f.Name == "ptsne-epochs" || f.Name == "deepae-epochs" || f.Name == "cg-iterations" {
			only = append(only, "-"+f.Name)
		}
	})
	if len(only) > 0 {
		return usagef("%s: only for reproduce hope", strings.Join(only, ", "))
	}
	return nil
}

func (h *hopeReproduceFlags) run(ctx context.Context, e *env, dir, command string, seed uint64, quick bool, data string, workers int, only string, methods []string) error {
	cfg := hopepaper.HOPEConfig{DataDir: data, Seed: seed, Quick: quick, Budget: *h.budget, Workers: workers, Log: e.stderr}
	for _, s := range strings.Split(*h.sets, ",") {
		cfg.Sets = append(cfg.Sets, strings.ToUpper(s))
	}
	cfg.CG = *h.optimizer == "cg"
	cfg.NoAugment = *h.noAugment
	cfg.ComparisonOnly = only == "baselines"
	cfg.Methods = methods
	cfg.PTSNEEpochs, cfg.DeepAEEpochs = *h.ptEpochs, *h.aeEpochs
	cfg.CGIterations = *h.cgIters
	r, err := hopepaper.RunHOPE(ctx, cfg, command)
	if err != nil {
		return err
	}
	if err := r.WriteDir(dir); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, filepath.Join(dir, hopepaper.HOPEReportFile))
	return nil
}

// exemplarTally counts, for a (S-)HOPE model with exemplars and inputs with labels, the rows
// that 5-NN among the embedded exemplars classifies wrongly (classes matched by name). It
// adds one block of rows at a time and is safe for concurrent use.
type exemplarTally struct {
	hm             *hope.Model
	idx            map[string]int
	mu             sync.Mutex
	wrong, counted int
}

// newExemplarTally returns nil when m is not a HOPE model with exemplars.
func newExemplarTally(m any) *exemplarTally {
	hm, ok := m.(*hope.Model)
	if !ok || hm.Exemplars == nil {
		return nil
	}
	t := &exemplarTally{hm: hm, idx: map[string]int{}}
	for i, n := range hm.ClassNames {
		t.idx[n] = i
	}
	return t
}

// add classifies the rows of d (a no-op without labels).
func (t *exemplarTally) add(ctx context.Context, d *dataset.Set) error {
	if t == nil || !d.HasLabels() {
		return nil
	}
	truth := make([]int, len(d.Labels))
	for r, l := range d.Labels {
		truth[r] = -1
		if l >= 0 && l < len(d.ClassNames) {
			if i, ok := t.idx[d.ClassNames[l]]; ok {
				truth[r] = i
			}
		}
	}
	pred := make([]int, len(truth))
	if err := t.hm.Classify(ctx, pred, d.X, 0); err != nil {
		return err
	}
	wrong, counted := 0, 0
	for r, c := range truth {
		if c < 0 {
			continue
		}
		counted++
		if pred[r] != c {
			wrong++
		}
	}
	t.mu.Lock()
	t.wrong += wrong
	t.counted += counted
	t.mu.Unlock()
	return nil
}

// report prints the error when some rows were counted.
func (t *exemplarTally) report(w io.Writer) {
	if t == nil || t.counted == 0 {
		return
	}
	z, _ := t.hm.Exemplars.Dims()
	fmt.Fprintf(w, "lowdim: 5-NN among the %d embedded exemplars: error %.2f%% (%d of %d labelled rows)\n", z, 100*float64(t.wrong)/float64(t.counted), t.wrong, t.counted)
}
