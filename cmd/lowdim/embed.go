package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/baseline/cmds"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/linproj"
	"github.com/lowdim/lowdim/modelio"
	"github.com/lowdim/lowdim/neighbors"
	"github.com/lowdim/lowdim/nerv"
	"github.com/lowdim/lowdim/pe"
	"github.com/lowdim/lowdim/posterior"
	"github.com/lowdim/lowdim/quality"
)

// methods lists the embedding methods by name; each builds an Embedder from the common settings.
var methods = map[string]func(s methodSettings) lowdim.Embedder{
	"pca":   func(s methodSettings) lowdim.Embedder { return linproj.PCA{Dim: s.dim, Progress: s.progress} },
	"cmds":  func(s methodSettings) lowdim.Embedder { return cmds.CMDS{Dim: s.dim, Progress: s.progress} },
	"nerv":  func(s methodSettings) lowdim.Embedder { return s.nerv(nerv.Gaussian, nil) },
	"sne":   func(s methodSettings) lowdim.Embedder { return s.nerv(nerv.Gaussian, nerv.Lambda(1)) },
	"tnerv": func(s methodSettings) lowdim.Embedder { return s.nerv(nerv.StudentT, nil) },
	"tsne":  func(s methodSettings) lowdim.Embedder { return s.nerv(nerv.StudentT, nerv.Lambda(1)) },
	"snerv": func(s methodSettings) lowdim.Embedder {
		return nerv.Supervised{Embedder: s.nerv(nerv.Gaussian, nil), Mixture: posterior.DiscriminativeMixture{Seed: s.seed}}
	},
	"hope":  func(s methodSettings) lowdim.Embedder { return s.hope.embedder(false, s.seed, s.progress, s.epochLog) },
	"shope": func(s methodSettings) lowdim.Embedder { return s.hope.embedder(true, s.seed, s.progress, s.epochLog) },
	"pe": func(s methodSettings) lowdim.Embedder {
		return pe.Embedder{Dim: s.dim, EtaR: s.etaR, EtaPhi: s.etaPhi, Priors: s.priors, Normalize: s.normalize, Seed: s.seed, Progress: s.progress}
	},
}

// nervFamily names the methods that take -lambda, -iterations and -init; fixedLambda those at λ = 1.
var (
	nervFamily  = map[string]bool{"nerv": true, "sne": true, "tnerv": true, "tsne": true, "snerv": true}
	fixedLambda = map[string]bool{"sne": true, "tsne": true}
)

type methodSettings struct {
	dim        int
	seed       uint64
	progress   lowdim.Progress
	lambda     float64
	neighbors  int
	iterations int
	random     bool
	distances  mat.Matrix
	path       nerv.Path
	theta      float64
	graphK     int
	pcaDims    int
	graph      *neighbors.Graph
	warn       func(string)
	// pe
	etaR, etaPhi float64
	priors       []float64
	normalize    bool
	// hope, shope
	hope     hopeFlags
	epochLog io.Writer
}

// nerv builds a NeRV-family embedder; lambda, if not nil, overrides s.lambda.
func (s methodSettings) nerv(v nerv.Variant, lambda *float64) nerv.Embedder {
	if lambda == nil {
		lambda = nerv.Lambda(s.lambda)
	}
	e := nerv.Embedder{
		Variant: v, Lambda: lambda, Perplexity: float64(s.neighbors), Dim: s.dim, Seed: s.seed,
		Iterations: s.iterations, Distances: s.distances, Progress: s.progress, Warn: s.warn,
		Path: s.path, Theta: s.theta, GraphK: s.graphK, PCADims: s.pcaDims, Graph: s.graph,
	}
	if s.random {
		e.Init = nerv.InitRandom
	}
	return e
}

func methodNames() []string {
	names := make([]string, 0, len(methods))
	for n := range methods {
		names = append(names, n)
	}
	return sortedStrings(names)
}

func runEmbed(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("embed", "[INPUT]",
		"Embeds INPUT (a data file; - for standard input; default @digits: the built-in 1797 8×8 digits) and writes\n"+
			"the coordinates as CSV with header x,y (x,y,z for -dim 3), plus a label column when the input has labels.", e)
	var (
		in        inputFlags
		method    = fs.String("method", "pca", "embedding `method`: "+strings.Join(methodNames(), ", "))
		dim       = fs.Int("dim", 2, "output dimension: 2 or 3")
		seed      = fs.Uint64("seed", 1, "random seed (the same seed gives the same output bytes; pca and cmds are deterministic)")
		out       = fs.String("o", "", "write the embedding CSV to `file` (default: standard output)")
		modelPath = fs.String("model", "", "save the fitted model to `file` ("+strings.Join(sortedKeys(modelMethods), ", ")+"; tsne and tnerv on the approximate path); lowdim transform embeds new rows with it; refused before the fit for other methods")
		plotPath  = fs.String("plot", "", "draw the embedding to `file` (.png, .svg or .pdf)")
		withQual  = fs.Bool("quality", false, "measure the embedding and print the quality table (to standard output with -o, else to standard error)")
		neighbors = fs.Int("neighbors", 20, "effective number of neighbours k_eff of the nerv family (snerv: default 0.5·n/G), and the neighbourhood size for -quality")
		distances = fs.String("distances", "", "read an n×n distance `matrix` (CSV/TSV/whitespace, no labels) instead of features; -method cmds, nerv, sne, tnerv, tsne. INPUT, if given, supplies labels for its n rows")
		lambda    = fs.Float64("lambda", nerv.DefaultLambda, "NeRV's precision–recall trade-off λ in [0,1]: 0 is all precision (trustworthiness), 1 all recall; -method nerv, tnerv, snerv")
		iters     = fs.Int("iterations", 0, fmt.Sprintf("nerv family: on the exact path at most this many conjugate-gradient iterations after the 10 annealing rounds, stopping earlier when the cost settles (0: %d); on the approximate path of tsne and tnerv the gradient-descent iterations after early exaggeration (0: %d), of nerv and sne the conjugate-gradient iterations from the t-SNE layout (0: %d)", nerv.DefaultIterations, nerv.DefaultApproxIterations, nerv.DefaultGridIterations))
		exact     = fs.Bool("exact", false, fmt.Sprintf("nerv family: evaluate every pair, O(n²) (the default for tsne and tnerv up to n = %d, and for nerv, sne and snerv)", nerv.ApproxMin))
		approx    = fs.Bool("approx", false, fmt.Sprintf("nerv family: sparse k-NN neighbourhoods and Barnes–Hut sums (tsne, tnerv) or an FFT grid (nerv, sne in 2-D from the rows), the default above n = %d; see the README", nerv.ApproxMin))
		graphK    = fs.Int("graph-k", 0, "approximate path: nearest neighbours kept per row (default 3·neighbors, at most n−1); the k-NN graph of "+strings.Join(sortedKeys(graphKMethods), ", ")+" (default: scikit-learn's)")
		graphIdx  = fs.String("graph-index", "", "approximate path: a precomputed k-NN graph's neighbour indices, n rows of k 0-based row numbers (CSV, whitespace or .npy/.npz as numpy.save writes umap's knn_indices; umap's leading self column is dropped); needs -graph-dist")
		graphDist = fs.String("graph-dist", "", "the Euclidean distances of -graph-index, n rows of k")
		pcaDims   = fs.Int("pca-dims", 0, fmt.Sprintf("approximate path: search neighbours among this many principal components of rows with more features (default %d; -1 keeps every feature)", nerv.DefaultPCADims))
		theta     = fs.Float64("theta", nerv.DefaultTheta, "Barnes–Hut opening angle θ of the approximate path: smaller is more accurate and slower, 0 sums every pair")
		initFlag  = fs.String("init", "pca", "starting layout of the nerv family: pca (classical MDS for -distances) or random (unit square, from -seed)")
	)
	var pf peFlags
	pf.register(fs)
	var hf hopeFlags
	hf.register(fs)
	in.register(fs)
	if err := parseFlags(fs, args, e); err != nil {
		return err
	}
	inputPath, err := oneInput(fs.Args())
	if err != nil {
		return err
	}
	build, ok := methods[*method]
	if !ok {
		return usagef("-method: expected one of %s, found %q", strings.Join(methodNames(), ", "), *method)
	}
	if *dim != 2 && *dim != 3 {
		return usagef("-dim: expected 2 or 3, found %d", *dim)
	}
	if *neighbors < 1 {
		return usagef("-neighbors: expected a positive number, found %d", *neighbors)
	}
	if err := checkExt("plot", *plotPath, ".png", ".svg", ".pdf"); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *distances != "" && (*method != "cmds" && !nervFamily[*method] || *method == "snerv") {
		return usagef("-distances: -method %s does not embed a distance matrix (cmds, nerv, sne, tnerv and tsne do)", *method)
	}
	for _, name := range []string{"lambda", "iterations", "init", "exact", "approx", "theta", "graph-k", "pca-dims", "graph-index", "graph-dist"} {
		if set[name] && !nervFamily[*method] && !(name == "graph-k" && graphKMethods[*method]) {
			return usagef("-%s: only the nerv family (nerv, sne, tnerv, tsne, snerv) takes it, found -method %s", name, *method)
		}
	}
	if err := pf.check(set, *method); err != nil {
		return err
	}
	if err := hf.check(set, *method); err != nil {
		return err
	}
	if err := checkExt("classes-out", pf.classesOut, ".csv"); err != nil {
		return err
	}
	if set["lambda"] && fixedLambda[*method] {
		return usagef("-lambda: -method %s is the λ = 1 case; use -method %s -lambda %g", *method, strings.Replace(*method, "sne", "nerv", 1), *lambda)
	}
	if *lambda < 0 || *lambda > 1 || *lambda != *lambda {
		return usagef("-lambda: expected a number in [0, 1], found %g", *lambda)
	}
	if *iters < 0 {
		return usagef("-iterations: expected a positive number (or 0 for the default), found %d", *iters)
	}
	if *exact && *approx {
		return usagef("-exact and -approx: choose one")
	}
	if !(*theta >= 0 && *theta <= 2) {
		return usagef("-theta: expected a number in [0, 2], found %g", *theta)
	}
	path := nerv.PathAuto
	switch {
	case *exact:
		path = nerv.PathExact
	case *approx:
		path = nerv.PathApprox
	}
	if *graphK < 0 || *graphK == 1 {
		return usagef("-graph-k: expected at least 2 neighbours (or 0 for the default), found %d", *graphK)
	}
	if *pcaDims < -1 {
		return usagef("-pca-dims: expected a number of components, 0 for the default or -1 for none, found %d", *pcaDims)
	}
	if (*graphIdx == "") != (*graphDist == "") {
		return usagef("-graph-index and -graph-dist: give both files of the precomputed graph")
	}
	graph, err := readGraph(*graphIdx, *graphDist)
	if err != nil {
		return err
	}
	if graph != nil {
		if *method == "snerv" || *distances != "" || *exact {
			return usagef("-graph-index: a precomputed graph feeds the approximate path of nerv, sne, tnerv and tsne, not -method snerv, -distances or -exact")
		}
	}
	th := *theta
	if th == 0 {
		th = -1 // the library's "every pair"
	}
	if *initFlag != "pca" && *initFlag != "random" {
		return usagef("-init: expected pca or random, found %q", *initFlag)
	}
	settings := methodSettings{
		dim: *dim, seed: *seed, lambda: *lambda, neighbors: *neighbors, iterations: *iters, random: *initFlag == "random",
		path: path, theta: th, graphK: *graphK, pcaDims: *pcaDims, graph: graph,
		warn: func(msg string) { fmt.Fprintln(e.stderr, "lowdim: warning:", msg) },
		etaR: pf.etaR, etaPhi: pf.etaPhi, normalize: pf.normalize,
		hope: hf, epochLog: e.stderr,
	}
	if *distances != "" && *withQual {
		return usagef("-quality needs features; measure a distance-matrix embedding with lowdim eval")
	}
	report, done := newProgress(e)
	defer done()
	settings.progress = report
	var (
		d          *dataset.Set
		model      lowdim.Model
		classNames []string
	)
	switch {
	case *distances != "":
		if *modelPath != "" {
			return checkModelFile(*method, nil, 0, true)
		}
		d, model, err = embedDistances(ctx, e, &in, *distances, inputPath, *method, settings)
	case *method == "pe":
		if d, classNames, err = pf.peData(ctx, e, &in, inputPath, settings); err == nil {
			_, k := d.Posteriors.Dims()
			if settings.priors, err = pf.readPriors(e, k); err == nil {
				settings.progress = report
				model, err = methods["pe"](settings).Fit(ctx, d)
			}
		}
	default:
		if d, err = in.load(e, inputPath); err == nil {
			emb := build(settings)
			if *modelPath != "" {
				if err := checkModelFile(*method, emb, d.Len(), false); err != nil {
					return err
				}
			}
			model, err = emb.Fit(ctx, d)
			ctx, err = keepBest(ctx, *method, model, err, settings.warn)
		}
	}
	if err != nil {
		return err
	}
	var classPoints *mat.Dense
	if cm, ok := model.(interface{ Classes() *mat.Dense }); ok {
		classPoints = cm.Classes()
	}
	plotClasses := classPoints
	if classPoints != nil && d.ClassNames != nil {
		if k, _ := classPoints.Dims(); len(d.ClassNames) != k {
			plotClasses = nil
			settings.warn(fmt.Sprintf("the labels have %d classes and the posteriors %d: the plot leaves out the class points", len(d.ClassNames), k))
		}
	}
	var saver modelio.Model
	if *modelPath != "" {
		if saver, ok = model.(modelio.Model); !ok {
			// checkModelFile let the fit run: its list and this model disagree.
			return checkModelFile(*method, nil, 0, false)
		}
	}
	y := model.Embedding()

	var qr *quality.Report
	if *withQual {
		qr, err = quality.Evaluate(ctx, d.X, y, d.Labels, quality.Options{Neighbors: *neighbors, Progress: report})
		if err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	outs := newOutputs(ctx, e)
	defer outs.discard()
	dst, err := outs.embeddingCSV(*out, y, d)
	if err != nil {
		return err
	}
	if saver != nil {
		if err := outs.create(*modelPath, func(w io.Writer) error { return modelio.Encode(w, saver) }); err != nil {
			return err
		}
	}
	if classPoints != nil && pf.classesOut != "" {
		if err := outs.create(pf.classesOut, func(w io.Writer) error { return writeClasses(w, classPoints, classNames) }); err != nil {
			return err
		}
	}
	if *plotPath != "" {
		name := displayName(d, inputPath)
		if *method == "pe" {
			name = pf.source(displayName(d, inputPath))
		}
		title := fmt.Sprintf("%s of %s (n = %d)", strings.ToUpper(*method), name, d.Len())
		draw := func(w io.Writer) error { return drawScatter(w, *plotPath, title, y, d, plotClasses) }
		if hopeMethods[*method] {
			draw = func(w io.Writer) error { return drawHOPE(w, *plotPath, title, model, d) }
		}
		if err := outs.create(*plotPath, draw); err != nil {
			return err
		}
	}
	done()
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := outs.commit(); err != nil {
		return err
	}
	if qr != nil {
		w := e.stdout
		if dst == "-" {
			w = e.stderr
		}
		printQualityTable(w, qr, 5) // quality.Options.KNN 0 means 5
	}
	return nil
}

// displayName is the data set's name for titles.
func displayName(d *dataset.Set, path string) string {
	if d.Name != "" {
		return d.Name
	}
	if path == "" {
		return "digits"
	}
	return filepath.Base(path)
}

// checkExt checks that a file flag ends with one of the known extensions.
func checkExt(flagName, path string, exts ...string) error {
	if path == "" {
		return nil
	}
	ext := strings.ToLower(filepath.Ext(path))
	for _, x := range exts {
		if ext == x {
			return nil
		}
	}
	return usagef("-%s %s: expected a file name ending in %s", flagName, path, strings.Join(exts, ", "))
}

// embedDistances embeds the distance matrix in path by classical MDS or a NeRV-family method. The
// labels come from the data set at inputPath when one is given ("" means none here, not the
// built-in digits).
func embedDistances(ctx context.Context, e *env, in *inputFlags, path, inputPath, method string, s methodSettings) (*dataset.Set, lowdim.Model, error) {
	dm, err := dataset.Load(path, dataset.Options{NoLabel: true, Warn: func(string) {}})
	if err != nil {
		return nil, nil, err
	}
	var m lowdim.Model
	if method == "cmds" {
		m, err = cmds.FromDistances(ctx, dm.X, s.dim)
	} else {
		s.distances = dm.X
		m, err = methods[method](s).Fit(ctx, nil)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	d := &dataset.Set{Name: filepath.Base(path), X: dm.X}
	if err := in.labelsFrom(e, inputPath, d, "the distance matrix "+path); err != nil {
		return nil, nil, err
	}
	return d, m, nil
}

// readGraph reads a precomputed k-NN graph, or returns nil when no files are named.
func readGraph(idx, dist string) (*neighbors.Graph, error) {
	if idx == "" {
		return nil, nil
	}
	return neighbors.ReadGraph(idx, dist)
}
