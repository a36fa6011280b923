package nervpaper

import (
	"fmt"
	"io"
	"slices"
	"sync"
	"time"
)

// Config holds the settings of the NeRV reproduction. The zero value of each field means the
// documented default; Quick changes several defaults to a small run that finishes in well under
// a minute.
type Config struct {
	// DataDir holds the staged data sets (letter/, satimage/, phoneme_lvqpak/); "" means
	// ../shared/data next to the module root (see FindShared).
	DataDir string
	// SCurve is the S-curve file (SOM_PAK); "" means nerv/testdata/scurve1000.dat in the module.
	SCurve string
	// Seed seeds the random subsets, the cross-validation folds, the mixtures and the embeddings.
	Seed uint64
	// Quick shrinks the run: N 300, Folds 3, λ grid {0, 0.5, 1}, 50 CG iterations per NeRV fit.
	Quick bool
	// N is the size of the random subsets; 0 means 1,500 (the paper's), 300 when Quick.
	N int
	// Folds is the number of cross-validation folds; 0 means 10 (the paper's), 3 when Quick.
	Folds int
	// Lambdas is the λ grid of the F-measure rule and of the trade-off curves; nil means
	// DefaultLambdas (0, 0.1, …, 1), {0, 0.5, 1} when Quick.
	Lambdas []float64
	// RandomStarts is the number of random starts (nerv.InitRandom, seeds Seed+1, Seed+2, …) from
	// which NeRV is refitted at every λ besides the PCA start, the fit with the largest F being
	// kept: the paper reran methods with local optima from five random starts and kept the best
	// F (§4.5). 0 means 5, none when Quick; a negative value means none.
	RandomStarts int
	// ValidationFolds is the number of internal cross-validation folds in which §5's
	// discriminative mixture chooses its G and s (posterior.DiscriminativeMixture's
	// ValidationFolds): 0 means 10, the paper's internal 10-fold validation (§5.3), 3 when Quick;
	// a negative value means one stratified 20 % held-out part (what this reproduction did
	// before).
	ValidationFolds int
	// MREIterations caps MRE's L-BFGS iterations in §5; 0 means 200, 50 when Quick (see
	// RunSupervised for why not the package's 1,000).
	MREIterations int
	// InnerFolds is the number of parts each outer fold's training rows are split into to choose
	// S-Isomap's α and K and MRE's σ_MRE on held-out parts, as the paper chose them "using the
	// validation sets" (§5.3; validate.go): 0 means 3, a negative value means no validation
	// (α = 0.5, the smallest connected K and a mean perplexity of 30, the package defaults).
	InnerFolds int
	// InnerRounds is how many of the InnerFolds parts take a turn as the held-out part: 0 means
	// all of them, full InnerFolds-fold cross-validation (1 when Quick); 1 is a single split
	// with 1/InnerFolds of the training rows held out. Per outer fold and round: 6 S-Isomap
	// fits of 900 rows and 3 MRE fits of 1,350 rows. S-Isomap and MRE, three rounds and the
	// outer fits, took 47 of the 62 minutes of a full §5 run at n = 1,500 on the 2-core machine
	// (27 Nov 2026).
	InnerRounds int
	// Methods selects the rows of §5 by name, of SupervisedMethods; nil means all. The report
	// names the rows left out.
	Methods []string
	// Parts selects the experiments: any of "table2" (the unsupervised 5-NN errors), "supervised"
	// (§5) and "tradeoff" (the S-curve's λ trade-off); nil means all three.
	Parts []string
	// Workers bounds the goroutines of every fit and measure; 0 means runtime.NumCPU().
	Workers int
	// Log receives one line per finished step (progress); nil means silent.
	Log io.Writer

	logMu *sync.Mutex
	start time.Time
}

func (c *Config) defaults() {
	if c.N == 0 {
		c.N = 1500
		if c.Quick {
			c.N = 300
		}
	}
	if c.Folds == 0 {
		c.Folds = 10
		if c.Quick {
			c.Folds = 3
		}
	}
	if c.Lambdas == nil {
		c.Lambdas = DefaultLambdas()
		if c.Quick {
			c.Lambdas = []float64{0, 0.5, 1}
		}
	}
	if c.ValidationFolds == 0 {
		c.ValidationFolds = 10
		if c.Quick {
			c.ValidationFolds = 3
		}
	}
	if c.MREIterations == 0 {
		c.MREIterations = 200
		if c.Quick {
			c.MREIterations = 50
		}
	}
	if c.InnerFolds == 0 {
		c.InnerFolds = 3
	}
	if c.InnerFolds < 0 {
		c.InnerFolds, c.InnerRounds = -1, 0
	} else if c.InnerRounds == 0 {
		c.InnerRounds = c.InnerFolds
		if c.Quick {
			c.InnerRounds = 1
		}
	}
	if c.Methods == nil {
		c.Methods = SupervisedMethods
	}
	if c.Parts == nil {
		c.Parts = Parts
	}
	if c.RandomStarts == 0 && !c.Quick {
		c.RandomStarts = 5
	}
	c.RandomStarts = max(c.RandomStarts, 0)
	if c.logMu == nil {
		c.logMu = new(sync.Mutex)
	}
	if c.start.IsZero() {
		c.start = time.Now()
	}
}

// Parts names the experiments Config.Parts selects from, in the order they run.
var Parts = []string{"table2", "supervised", "tradeoff"}

// runs reports whether part is selected.
func (c *Config) runs(part string) bool { return slices.Contains(c.Parts, part) }

func (c *Config) logf(format string, args ...any) {
	if c.Log == nil {
		return
	}
	c.logMu.Lock()
	defer c.logMu.Unlock()
	fmt.Fprintf(c.Log, "[%7.1fs] %s\n", time.Since(c.start).Seconds(), fmt.Sprintf(format, args...))
}
