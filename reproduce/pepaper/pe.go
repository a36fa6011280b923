package pepaper

import (
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sync"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/pe"
	"github.com/lowdim/lowdim/quality"
	"github.com/lowdim/lowdim/reproduce"
)

// PEConfig holds the settings of the Parametric Embedding reproduction. The zero value of each
// field means the documented default; Quick changes several defaults to a small run that
// finishes in well under a minute.
type PEConfig struct {
	// DataDir holds the staged data sets (bbc/, reuters_r8/, mnist/); "" means ../shared/data
	// next to the module root (see FindShared).
	DataDir string
	// Seed seeds the subsets, the random PE starts, SNE, the soft-NN examples, LDA and the
	// synthetic posteriors of the timing section.
	Seed uint64
	// Quick shrinks the run: text subsets of 400 documents, 3 random PE starts, 500 digits,
	// 50 LDA sweeps, timing up to n = 1e5 with one repetition, 50 SNE iterations.
	Quick bool
	// Seeds is the number of random PE starts (InitRandom) whose prec(h) gives the error bars;
	// 0 means 20 (3 when Quick).
	Seeds int
	// TextN caps the documents of each text comparison (SNE and MDS2 are O(n²)); larger sets
	// are subsampled (seeded). 0 means 3,000 (400 when Quick).
	TextN int
	// DigitsN is the number of MNIST test digits 0–4; 0 means 2,558, the paper's (500 when Quick).
	DigitsN int
	// LDAIterations is the number of Gibbs sweeps of the topic model; 0 means 500 (50 when Quick).
	LDAIterations int
	// TimeMax is the largest n of the timing section; 0 means 1,000,000 (100,000 when Quick).
	TimeMax int
	// TimeRepeats is the number of timed fits per size (the median is reported); 0 means 3
	// (1 when Quick).
	TimeRepeats int
	// Workers bounds the goroutines of every fit and measure; 0 means runtime.NumCPU().
	Workers int
	// Log receives one line per finished step (progress); nil means silent.
	Log io.Writer

	logMu *sync.Mutex
	start time.Time
}

func (c *PEConfig) defaults() {
	pick := func(v *int, full, quick int) {
		if *v == 0 {
			*v = full
			if c.Quick {
				*v = quick
			}
		}
	}
	pick(&c.Seeds, 20, 3)
	pick(&c.TextN, 3000, 400)
	pick(&c.DigitsN, 2558, 500)
	pick(&c.LDAIterations, 500, 50)
	pick(&c.TimeMax, 1_000_000, 100_000)
	pick(&c.TimeRepeats, 3, 1)
	if c.logMu == nil {
		c.logMu = new(sync.Mutex)
	}
	if c.start.IsZero() {
		c.start = time.Now()
	}
}

func (c *PEConfig) check() error {
	for _, v := range []struct {
		name string
		v    int
		min  int
	}{{"Seeds", c.Seeds, 2}, {"TextN", c.TextN, 100}, {"DigitsN", c.DigitsN, 100}, {"LDAIterations", c.LDAIterations, 1},
		{"TimeMax", c.TimeMax, 1000}, {"TimeRepeats", c.TimeRepeats, 1}} {
		if v.v < v.min {
			return dataset.Invalidf("reproduce: %s = %d; at least %d is needed", v.name, v.v, v.min)
		}
	}
	return nil
}

func (c *PEConfig) logf(format string, args ...any) {
	if c.Log == nil {
		return
	}
	c.logMu.Lock()
	defer c.logMu.Unlock()
	fmt.Fprintf(c.Log, "[%7.1fs] %s\n", time.Since(c.start).Seconds(), fmt.Sprintf(format, args...))
}

// PEReport is the whole Parametric Embedding reproduction: every experiment's typed results and
// how they were made.
type PEReport struct {
	Config  PEConfig // with the defaults filled in
	Command string   // the command line that produced it
	Machine reproduce.Machine
	Started time.Time
	Text    []*PEText // BBC, Reuters R8
	Digits  []*PEDigits
	Topics  *PETopics
	Time    *PETime
	Seconds float64
}

// RunPE runs every experiment of the PE reproduction in turn (one heavy job at a time): the
// text comparison on BBC and R8 (paper §5), the semi-supervised digits (§6), the LDA topic map
// (§7) and the timing (§5.5). command is quoted in the report.
func RunPE(ctx context.Context, c PEConfig, command string) (*PEReport, error) {
	c.defaults()
	if err := c.check(); err != nil {
		return nil, err
	}
	r := &PEReport{Config: c, Command: command, Machine: reproduce.ThisMachine(), Started: time.Now()}
	dataDir, err := reproduce.DataDirOr(c.DataDir)
	if err != nil {
		return nil, err
	}
	bbc, err := LoadBBC(dataDir)
	if err != nil {
		return nil, err
	}
	c.logf("loaded BBC: %d documents × %d terms, %d classes", bbc.Len(), bbc.Dim(), len(bbc.ClassNames))
	r8, err := LoadR8(dataDir)
	if err != nil {
		return nil, err
	}
	c.logf("loaded Reuters R8: %d documents × %d terms, %d classes", r8.Len(), r8.Dim(), len(r8.ClassNames))
	mnist, err := LoadMNIST04(dataDir)
	if err != nil {
		return nil, err
	}
	for _, d := range []*dataset.Set{bbc, r8} {
		t, err := RunPEText(ctx, c, d)
		if err != nil {
			return nil, err
		}
		r.Text = append(r.Text, t)
	}
	digits := reproduce.RandomSubset(mnist, c.DigitsN, c.Seed)
	for _, per := range []int{10, 100} {
		g, err := RunPEDigits(ctx, c, digits, per)
		if err != nil {
			return nil, err
		}
		r.Digits = append(r.Digits, g)
	}
	if r.Topics, err = RunPETopics(ctx, c, bbc); err != nil {
		return nil, err
	}
	bbc = nil // the dense BBC matrix (171 MB) is no longer needed
	if r.Time, err = RunPETime(ctx, c, r.Text[1].Posteriors); err != nil {
		return nil, err
	}
	r.Seconds = time.Since(r.Started).Seconds()
	return r, nil
}

// LoadBBC reads the BBC news bag of words (2,225 documents × 9,635 stemmed terms, 5 classes)
// from dataDir/bbc.
func LoadBBC(dataDir string) (*dataset.Set, error) {
	d, err := reproduce.Load(filepath.Join(dataDir, "bbc", "bbc.mtx.gz"), dataset.Options{})
	if err != nil {
		return nil, err
	}
	d.Name = "BBC"
	return d, nil
}

// R8MinDocFreq is the document frequency below which R8 terms are dropped (the full
// vocabulary would make a dense 7,674 × 23,000 matrix).
const R8MinDocFreq = 5

// LoadR8 reads Reuters-21578 R8, training and test files together (7,674 documents, 8
// classes), as word counts over the terms found in at least R8MinDocFreq documents, from
// dataDir/reuters_r8. The two files are read as one stream so that they share one vocabulary.
func LoadR8(dataDir string) (*dataset.Set, error) {
	var readers []io.Reader
	for _, name := range []string{"r8-train-all-terms.txt.gz", "r8-test-all-terms.txt.gz"} {
		path := filepath.Join(dataDir, "reuters_r8", name)
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("reproduce: data file %s is missing: %w", path, err)
		}
		defer f.Close()
		z, err := gzip.NewReader(f)
		if err != nil {
			return nil, dataset.Invalidf("reproduce: %s: %v", path, err)
		}
		readers = append(readers, z)
	}
	d, err := dataset.Read(io.MultiReader(readers...), "r8-all-terms.txt", dataset.Options{Format: "labeltext", MinDocFreq: R8MinDocFreq})
	if err != nil {
		return nil, err
	}
	d.Name = "Reuters R8"
	return d, nil
}

// LoadMNIST04 reads the MNIST test digits 0–4 (5,139 × 784) from dataDir/mnist.
func LoadMNIST04(dataDir string) (*dataset.Set, error) {
	d, err := reproduce.Load(filepath.Join(dataDir, "mnist", "t10k-images-idx3-ubyte.gz"), dataset.Options{})
	if err != nil {
		return nil, err
	}
	var idx []int
	for i, l := range d.Labels {
		if l >= 0 && l <= 4 { // class names are "0".."9" in numeric order
			idx = append(idx, i)
		}
	}
	s := d.Subset(idx)
	s.ClassNames = d.ClassNames[:5]
	s.Name = "MNIST 0–4"
	return s, nil
}

// PrecCurve is prec(h) at every h of H, one value per h.
type PrecCurve struct {
	Method string
	Prec   []float64
	Std    []float64 // standard deviation over random starts; nil for a single run
}

// PrecHs returns the h grid of the prec(h) curves: 10, 20, …, 500, capped at n.
func PrecHs(n int) []int {
	var hs []int
	for h := 10; h <= 500 && h <= n; h += 10 {
		hs = append(hs, h)
	}
	return hs
}

// precCurve computes prec(h) of y at every h of hs (classPoints nil: the representative
// objects of quality.PrecH).
func precCurve(p, y, classPoints *mat.Dense, hs []int) ([]float64, error) {
	out := make([]float64, len(hs))
	for i, h := range hs {
		v, err := quality.PrecH(p, y, classPoints, h)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// peClassify returns argmax_k q_ik of a fitted PE model for its training objects: the class
// whose point is nearest under the priors, q_ik ∝ π_k exp(−½‖r_i − φ_k‖²).
func peClassify(m *pe.Model) []int {
	n, d := m.Y.Dims()
	k, _ := m.Phi.Dims()
	out := make([]int, n)
	for i := 0; i < n; i++ {
		best, bestV := 0, math.Inf(-1)
		for c := 0; c < k; c++ {
			var e float64
			for j := 0; j < d; j++ {
				t := m.Y.At(i, j) - m.Phi.At(c, j)
				e += t * t
			}
			if v := math.Log(m.Priors[c]) - e/2; v > bestV {
				best, bestV = c, v
			}
		}
		out[i] = best
	}
	return out
}

// nearestRepresentative classifies each embedded row by its nearest representative point
// φ_k = y at argmax_i p_ik (the class points prec(h) gives methods without their own).
func nearestRepresentative(p, y *mat.Dense) []int {
	n, k := p.Dims()
	_, d := y.Dims()
	rep := make([]int, k)
	for c := 0; c < k; c++ {
		best := 0
		for i := 1; i < n; i++ {
			if p.At(i, c) > p.At(best, c) {
				best = i
			}
		}
		rep[c] = best
	}
	out := make([]int, n)
	for i := 0; i < n; i++ {
		bestC, bestE := 0, math.Inf(1)
		for c, r := range rep {
			var e float64
			for j := 0; j < d; j++ {
				t := y.At(i, j) - y.At(r, j)
				e += t * t
			}
			if e < bestE {
				bestC, bestE = c, e
			}
		}
		out[i] = bestC
	}
	return out
}

// argmaxRows returns argmax_k p_ik of every row (the first on ties).
func argmaxRows(p *mat.Dense) []int {
	n, _ := p.Dims()
	out := make([]int, n)
	for i := range out {
		row := p.RawRowView(i)
		for k, v := range row {
			if v > row[out[i]] {
				out[i] = k
			}
		}
	}
	return out
}

// errorRate is the fraction of rows whose prediction differs from the known label.
func errorRate(labels, pred []int) float64 {
	wrong, n := 0, 0
	for i, l := range labels {
		if l < 0 {
			continue
		}
		n++
		if pred[i] != l {
			wrong++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return float64(wrong) / float64(n)
}
