package main

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/lowdim/lowdim/reproduce/scale"
)

const scaleReproduceHelp = "  scale (issue 16's targets): MNIST 10k, 20k and 70k embedded by lowdim embed -method tsne\n" +
	"    against Rtsne (Barnes–Hut, 2 threads, Debian r-cran-rtsne) on the same CSV, wall time,\n" +
	"    peak RSS, T(20) and 5-NN error; the NeRV and t-NeRV λ trade-off at -tradeoff-n rows; and\n" +
	"    a scaling table of t-SNE on a 50-D Gaussian mixture, n = 10k … 1M (-max-n bounds it),\n" +
	"    with the log-log slope. Every embedding is a subprocess of this binary. Writes scale.md.\n" +
	"    Hours on 2 cores with everything; -quick (5,000 digits, λ ∈ {0, 0.5, 1}, n ≤ 30k) minutes.\n"

// intList is a flag of comma-separated counts; k and M suffixes mean thousands and millions.
type intList []int

func (l *intList) String() string {
	if l == nil {
		return ""
	}
	s := make([]string, len(*l))
	for i, v := range *l {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, ",")
}

func (l *intList) Set(v string) error {
	var out intList
	for _, f := range strings.Split(v, ",") {
		f = strings.TrimSpace(f)
		mul := 1
		switch {
		case strings.HasSuffix(f, "k"):
			mul, f = 1000, strings.TrimSuffix(f, "k")
		case strings.HasSuffix(f, "M"):
			mul, f = 1000000, strings.TrimSuffix(f, "M")
		}
		n, err := strconv.Atoi(f)
		if err != nil {
			return fmt.Errorf("expected a count such as 20000 or 20k, found %q", f)
		}
		out = append(out, n*mul)
	}
	*l = out
	return nil
}

// floatList is a flag of comma-separated numbers.
type floatList []float64

func (l *floatList) String() string {
	if l == nil {
		return ""
	}
	s := make([]string, len(*l))
	for i, v := range *l {
		s[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.Join(s, ",")
}

func (l *floatList) Set(v string) error {
	var out floatList
	for _, f := range strings.Split(v, ",") {
		x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(x >= 0 && x <= 1) {
			return fmt.Errorf("expected λ values between 0 and 1 such as 0.1,0.5, found %q", f)
		}
		out = append(out, x)
	}
	*l = out
	return nil
}

// scaleReproduceFlags are the flags only reproduce scale takes.
type scaleReproduceFlags struct {
	parts            *string
	runs, maxN, tdN  *int
	scalingN         intList
	lambdas          floatList
	tradeMethods     *string
	rscript, lowdimB *string
}

func registerScaleReproduce(fs *flag.FlagSet) *scaleReproduceFlags {
	s := &scaleReproduceFlags{
		parts:   fs.String("parts", "mnist,tradeoff,scaling", "scale only: comma-separated `parts` (mnist, tradeoff, scaling); -sets means the same for scale"),
		runs:    fs.Int("runs", 0, "scale only: runs per row, medians reported (default 1 for n ≥ 70,000, 3 below)"),
		maxN:    fs.Int("max-n", 0, "scale only: leave out the scaling sizes above `N` (default: none)"),
		tdN:     fs.Int("tradeoff-n", 0, "scale only: MNIST rows of the λ trade-off (default 70000; 5000 with -quick)"),
		rscript: fs.String("rscript", "Rscript", "scale only: the R front end that runs Rtsne"),
		lowdimB: fs.String("lowdim", "", "scale only: the lowdim `executable` to measure (default: this one)"),
	}
	s.tradeMethods = fs.String("tradeoff-methods", "nerv,tnerv", "scale only: comma-separated `methods` of the trade-off (nerv, tnerv)")
	fs.Var(&s.lambdas, "lambdas", "scale only: comma-separated λ `values` of the trade-off (default 0,0.1,0.3,0.5,0.7,1; 0,0.5,1 with -quick)")
	fs.Var(&s.scalingN, "scaling-n", "scale only: comma-separated `sizes` of the scaling table (default 10k,30k,100k,300k,1M; 10k,30k with -quick)")
	return s
}

// only returns an error naming the scale-only flags that were set for another paper.
func (s *scaleReproduceFlags) check(fs *flag.FlagSet, paper string) error {
	var bad []string
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "parts", "runs", "max-n", "tradeoff-n", "scaling-n", "lambdas", "tradeoff-methods", "rscript", "lowdim":
			if paper != "scale" {
				bad = append(bad, "-"+f.Name)
			}
		case "folds", "scurve", "starts", "only", "budget", "optimizer", "no-augment":
			if paper == "scale" {
				bad = append(bad, "-"+f.Name)
			}
		}
	})
	if len(bad) > 0 {
		if paper == "scale" {
			return usagef("%s: not for reproduce scale", strings.Join(bad, ", "))
		}
		return usagef("%s: only for reproduce scale", strings.Join(bad, ", "))
	}
	if paper == "scale" && (*s.runs < 0 || *s.maxN < 0 || *s.tdN < 0) {
		return usagef("-runs, -max-n and -tradeoff-n: expected non-negative numbers, found %d, %d and %d", *s.runs, *s.maxN, *s.tdN)
	}
	return nil
}

func (s *scaleReproduceFlags) run(ctx context.Context, e *env, fs *flag.FlagSet, dir, command string, seed uint64, quick bool, data string, n intList) error {
	parts := *s.parts
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "sets" {
			parts = f.Value.String()
		}
	})
	cfg := scale.Config{DataDir: data, Binary: *s.lowdimB, Rscript: *s.rscript, Seed: seed, Runs: *s.runs,
		MaxN: *s.maxN, TradeOffN: *s.tdN, N: n, ScalingN: s.scalingN, Lambdas: s.lambdas, Log: e.stderr}
	for _, p := range strings.Split(parts, ",") {
		cfg.Parts = append(cfg.Parts, strings.TrimSpace(p))
	}
	for _, m := range strings.Split(*s.tradeMethods, ",") {
		cfg.TradeMethods = append(cfg.TradeMethods, strings.TrimSpace(m))
	}
	if quick {
		if cfg.N == nil {
			cfg.N = []int{5000}
		}
		if cfg.TradeOffN == 0 {
			cfg.TradeOffN = 5000
		}
		if cfg.ScalingN == nil {
			cfg.ScalingN = []int{10000, 30000}
		}
		if cfg.Lambdas == nil {
			cfg.Lambdas = []float64{0, 0.5, 1}
		}
		if cfg.Runs == 0 {
			cfg.Runs = 1
		}
	}
	r, err := scale.Run(ctx, cfg, command)
	if err != nil {
		return err
	}
	if err := r.WriteDir(dir); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, filepath.Join(dir, scale.ReportFile))
	return nil
}
