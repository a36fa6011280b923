package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"lowdim/reproduce"
)

func runReproduce(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("reproduce", "nerv",
		"Reruns a paper's experiments and writes them up as a markdown report with PNG figures.\n"+
			"Papers: nerv (Venna et al., JMLR 2010): the unsupervised 5-NN errors of Table 2 on Letter,\n"+
			"Phoneme and Landsat (NeRV with λ by the rank-based F-measure, PCA, classical MDS, t-SNE),\n"+
			"supervised NeRV in 10-fold cross-validation with a paired t-test, and the precision–recall\n"+
			"trade-off over λ. Data come from ../shared/data next to the module root (or -data).\n"+
			"The full run takes about 30–40 minutes on 2 cores; -quick about a minute. Progress goes\n"+
			"to standard error.", e)
	var (
		out     = fs.String("o", "reproduce-nerv", "output `DIR` for nerv.md and its figures")
		seed    = fs.Uint64("seed", 1, "seed of the subsets, folds, mixtures and embeddings")
		quick   = fs.Bool("quick", false, "small subsets (300 rows), 3 folds, λ ∈ {0, 0.5, 1}, capped iterations")
		data    = fs.String("data", "", "`DIR` holding letter/, satimage/, phoneme_lvqpak/ (default: ../shared/data next to the module root)")
		scurve  = fs.String("scurve", "", "the S-curve `FILE` (SOM_PAK; default: nerv/testdata/scurve1000.dat in the module)")
		n       = fs.Int("n", 0, "rows per random subset (default 1500; 300 with -quick)")
		folds   = fs.Int("folds", 0, "cross-validation folds (default 10; 3 with -quick)")
		workers = fs.Int("workers", 0, "goroutines per fit (default: the number of CPUs)")
	)
	if err := parseFlags(fs, args, e); err != nil {
		return err
	}
	if fs.NArg() != 1 || fs.Arg(0) != "nerv" {
		return usagef("expected one paper name, nerv; found %q", strings.Join(fs.Args(), " "))
	}
	if *n < 0 || *folds < 0 || *workers < 0 {
		return usagef("-n, -folds and -workers: expected non-negative numbers")
	}
	cfg := reproduce.Config{DataDir: *data, SCurve: *scurve, Seed: *seed, Quick: *quick, N: *n, Folds: *folds, Workers: *workers, Log: e.stderr}
	command := "lowdim reproduce " + strings.Join(args, " ")
	r, err := reproduce.Run(ctx, cfg, command)
	if err != nil {
		return err
	}
	if err := r.WriteDir(*out); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, filepath.Join(*out, reproduce.ReportFile))
	return nil
}
