package main

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lowdim/lowdim/reproduce/hopepaper"
	"github.com/lowdim/lowdim/reproduce/mlepaper"
	"github.com/lowdim/lowdim/reproduce/nervpaper"
	"github.com/lowdim/lowdim/reproduce/pepaper"
)

func runReproduce(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("reproduce", "nerv|pe|hope|mle|scale [flags]",
		"Reruns a paper's experiments and writes them up as a markdown report with PNG figures.\n"+
			"Papers:\n"+
			"  nerv (Venna et al., JMLR 2010): the unsupervised 5-NN errors of Table 2 on Letter,\n"+
			"    Phoneme and Landsat (NeRV with λ by the rank-based F-measure, PCA, classical MDS, t-SNE,\n"+
			"    and the other rows — Eigenmap, LLE, Isomap, metric MDS, CDA, CCA, local MDS — with k,\n"+
			"    λ and five starts chosen by F as the paper did), supervised NeRV and Parametric\n"+
			"    Embedding in 10-fold cross-validation with a paired t-test, and the precision–recall\n"+
			"    trade-off over λ. Writes nerv.md. About 30–40 minutes on 2 cores, plus up to 25 per data\n"+
			"    set for the other Table 2 rows (measured on Letter with the machine heavily loaded), and\n"+
			"    about 45 minutes for §5's 3-fold validation of S-Isomap's and MRE's settings\n"+
			"    (-inner-rounds 1 a third of it, -inner-folds -1 none); -quick about a minute.\n"+
			"  pe (Iwata et al., Neural Computation 2007): naive Bayes posteriors of BBC news and\n"+
			"    Reuters R8 embedded by PE against MDS2 and SNE (prec(h), per-class F-measure), the\n"+
			"    semi-supervised MNIST 0–4 digits with 10 and 100 labels per class, an LDA topic map\n"+
			"    of BBC words, and PE's fit time for n = 1e3 … 1e6. Writes pe.md. About 4 minutes on 2\n"+
			"    quiet cores; -quick well under a minute.\n"+
			hopeReproduceHelp+
			"  mle (Paurat's interactive embedding thesis, §3.3.4): Most Likely Embedding updates per second\n"+
			"    for moves and selection changes with 5 control points on 27 of its 30 data sets, next to\n"+
			"    its Table 3.3, the time to re-embed 100,000 points after a move (-workers goroutines), and\n"+
			"    the RMSE to PCA components 3–4 as 1–20 control points are placed (Figure 3.20). Writes\n"+
			"    mle.md. About 2 minutes on 2 busy cores; -quick some seconds.\n"+
			scaleReproduceHelp+
			"Data come from ../shared/data next to the module root (or -data). Flags may come before or\n"+
			"after the paper's name. -folds, -scurve, -starts, -inner-folds and -inner-rounds belong to nerv only, -only and -methods to nerv and hope, -n to nerv and scale. Progress goes to\n"+
			"standard error.", e)
	var (
		out     = fs.String("o", "", "output `DIR` (default reproduce-PAPER: reproduce-nerv, reproduce-pe, …)")
		seed    = fs.Uint64("seed", 1, "seed of the subsets, folds, mixtures, starts and embeddings")
		quick   = fs.Bool("quick", false, "a small smoke-test run (nerv: 300 rows, 3 folds, λ ∈ {0, 0.5, 1}; pe: small subsets, few starts, n ≤ 1e5; mle: 3 runs of ≥ 5 ms, 20,000 re-embedded rows)")
		data    = fs.String("data", "", "`DIR` holding the staged data sets (default: ../shared/data next to the module root)")
		scurve  = fs.String("scurve", "", "nerv only: the S-curve `FILE` (SOM_PAK; default: nerv/testdata/scurve1000.dat in the module)")
		n       intList
		folds   = fs.Int("folds", 0, "nerv only: cross-validation folds (default 10; 3 with -quick)")
		starts  = fs.Int("starts", 0, "nerv only: random starts NeRV is refitted from at every λ of Table 2 besides the PCA start, the best F kept as in the paper (default 5; none with -quick; -1 none)")
		workers = fs.Int("workers", 0, "goroutines per fit (default: the number of CPUs)")
		only    = fs.String("only", "", "nerv: comma-separated experiments to run, of table2, supervised (§5) and tradeoff (default all); hope: baselines, the comparison rows alone (LDA, LPP, NCA, MCML, LMNN, pt-SNE, deep-AE, dt-NCA, dt-MCML and their k-means rows), without HOPE or S-HOPE")
	)
	fs.Var(&n, "n", "nerv: rows per random subset (default 1500; 300 with -quick); scale: comma-separated MNIST `sizes` (default 10k,20k,70k; 5000 with -quick)")
	hr := registerHOPEReproduce(fs)
	sr := registerScaleReproduce(fs)
	ns := registerNervSupervised(fs)
	if err := parseFlags(fs, args, e); err != nil {
		return err
	}
	paper := ""
	if fs.NArg() > 0 {
		paper = fs.Arg(0)
		// Flags after the paper's name.
		if err := parseFlags(fs, fs.Args()[1:], e); err != nil {
			return err
		}
		if fs.NArg() > 0 {
			return usagef("expected one paper name, nerv or pe; found %q and then %q", paper, strings.Join(fs.Args(), " "))
		}
	}
	if paper != "nerv" && paper != "pe" && paper != "hope" && paper != "mle" && paper != "scale" {
		return usagef("expected one paper name, nerv, pe, hope, mle or scale; found %q", paper)
	}
	if err := hr.check(fs, paper); err != nil {
		return err
	}
	if err := sr.check(fs, paper); err != nil {
		return err
	}
	if err := ns.check(fs, paper); err != nil {
		return err
	}
	nervN := 0
	if paper == "nerv" && len(n) > 0 {
		if len(n) > 1 {
			return usagef("-n: expected one number for nerv, found %s", n.String())
		}
		nervN = n[0]
	}
	if slices.ContainsFunc(n, func(v int) bool { return v < 0 }) || *folds < 0 || *workers < 0 {
		return usagef("-n, -folds and -workers: expected non-negative numbers")
	}
	dir := *out
	if dir == "" {
		dir = "reproduce-" + paper
	}
	command := "lowdim reproduce " + strings.Join(args, " ")
	if paper == "scale" {
		return sr.run(ctx, e, fs, dir, command, *seed, *quick, *data, n)
	}
	if paper == "hope" {
		methods, err := ns.list(hopepaper.HOPEBaselines)
		if err != nil {
			return err
		}
		return hr.run(ctx, e, dir, command, *seed, *quick, *data, *workers, *only, methods)
	}
	if paper == "pe" || paper == "mle" {
		var nervOnly []string
		fs.Visit(func(f *flag.Flag) {
			if f.Name == "n" || f.Name == "folds" || f.Name == "scurve" || f.Name == "starts" || f.Name == "only" {
				nervOnly = append(nervOnly, "-"+f.Name)
			}
		})
		if len(nervOnly) > 0 {
			return usagef("%s: only for reproduce nerv", strings.Join(nervOnly, ", "))
		}
	}
	if paper == "mle" {
		cfg := mlepaper.MLEConfig{DataDir: *data, Seed: *seed, Quick: *quick, Workers: *workers, Log: e.stderr}
		r, err := mlepaper.RunMLE(ctx, cfg, command)
		if err != nil {
			return err
		}
		if err := r.WriteDir(dir); err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, filepath.Join(dir, mlepaper.MLEReportFile))
		return nil
	}
	if paper == "pe" {
		cfg := pepaper.PEConfig{DataDir: *data, Seed: *seed, Quick: *quick, Workers: *workers, Log: e.stderr}
		r, err := pepaper.RunPE(ctx, cfg, command)
		if err != nil {
			return err
		}
		if err := r.WriteDir(dir); err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, filepath.Join(dir, pepaper.PEReportFile))
		return nil
	}
	cfg := nervpaper.Config{DataDir: *data, SCurve: *scurve, Seed: *seed, Quick: *quick, N: nervN, Folds: *folds, RandomStarts: *starts, Workers: *workers, Log: e.stderr}
	if err := ns.apply(&cfg); err != nil {
		return err
	}
	if *only != "" {
		cfg.Parts = strings.Split(*only, ",")
		for _, p := range cfg.Parts {
			if !slices.Contains(nervpaper.Parts, p) {
				return usagef("-only: expected a comma-separated list of %s, found %q", strings.Join(nervpaper.Parts, ", "), p)
			}
		}
	}
	r, err := nervpaper.Run(ctx, cfg, command)
	if err != nil {
		return err
	}
	if err := r.WriteDir(dir); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, filepath.Join(dir, nervpaper.ReportFile))
	return nil
}
