// Command mnistcompare times lowdim's quality measures on the first N MNIST images (the 60,000
// training images, then the 10,000 test images: N = 70000 is all of MNIST) with their 2-D PCA
// embedding (linproj.PCA), and reports wall time and peak resident memory (VmHWM). It can write
// the embedding as CSV so that compare_sklearn.py times scikit-learn on the same data (through
// compare_sklearn.sh).
//
//	go run ./quality/testdata/mnistcompare -n 10000 -out /tmp/y.csv        # trustworthiness only
//	go run ./quality/testdata/mnistcompare -n 70000 -all                   # every measure (Evaluate)
//	go run -tags openblas ./quality/testdata/mnistcompare -n 70000 -all    # with OpenBLAS products
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/internal/blas"
	"github.com/lowdim/lowdim/linproj"
	"github.com/lowdim/lowdim/quality"
)

// procs is GOMAXPROCS in force.
var procs int

func main() {
	procs = blas.SpareProcs() // as the lowdim command does
	if err := run(); err != nil {
		log.Fatal(err)
	}
}

func run() error {
	n := flag.Int("n", 10000, "number of MNIST images (training first, then test; at most 70000)")
	k := flag.Int("k", 20, "neighbourhood size")
	out := flag.String("out", "", "write the 2-D PCA embedding here (CSV)")
	all := flag.Bool("all", false, "run quality.Evaluate (every measure, k-NN error with the labels) instead of trustworthiness only")
	dir := flag.String("data", filepath.Join("..", "shared", "data", "mnist"), "directory of the MNIST IDX files")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the measures here")
	flag.Parse()
	start := time.Now()
	x, labels, err := load(*dir, *n)
	if err != nil {
		return err
	}
	loaded := time.Since(start)
	ctx := context.Background()
	m, err := linproj.PCA{Dim: 2}.Fit(ctx, &dataset.Set{X: x, Labels: labels})
	if err != nil {
		return err
	}
	y := m.Embedding()
	if *out != "" {
		if err := writeCSV(*out, y); err != nil {
			return err
		}
	}
	fmt.Printf("products: %s; GOMAXPROCS %d; load %.2fs, PCA %.2fs\n", blas.Name, procs, loaded.Seconds(), (time.Since(start) - loaded).Seconds())
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer func() { pprof.StopCPUProfile(); f.Close() }()
	}
	t0 := time.Now()
	st := &stages{start: t0}
	if *all {
		r, err := quality.Evaluate(ctx, x, y, labels, quality.Options{Neighbors: *k, Progress: st.report})
		if err != nil {
			return err
		}
		knn := "n/a"
		if r.KNNError != nil {
			knn = fmt.Sprintf("%.6f", *r.KNNError)
		}
		fmt.Printf("lowdim Evaluate n=%d: %.2fs T(%d)=%.12f C=%.12f smoothed P=%.6g R=%.6g rank P=%.6g R=%.6g PR(1)=%.6f/%.6f 5NN error=%s\n",
			*n, time.Since(t0).Seconds(), *k, r.Trustworthiness[*k-1], r.Continuity[*k-1], r.SmoothedPrecisionLoss, r.SmoothedRecallLoss,
			r.RankPrecisionLoss, r.RankRecallLoss, r.MeanPrecision[0], r.MeanRecall[0], knn)
		fmt.Printf("stages: %s\n", st)
	} else {
		t, err := quality.Trustworthiness(ctx, x, y, quality.Options{Neighbors: *k})
		if err != nil {
			return err
		}
		fmt.Printf("lowdim trustworthiness n=%d k=%d: %.12f in %.2fs\n", *n, *k, t[*k-1], time.Since(t0).Seconds())
	}
	fmt.Printf("total wall %.2fs, peak RSS %s\n", time.Since(start).Seconds(), peakRSS())
	return nil
}

// stages records when each stage of Evaluate reports first and last.
type stages struct {
	mu          sync.Mutex
	start       time.Time
	names       []string
	first, last map[string]time.Duration
}

func (s *stages) report(stage string, done, total int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.first == nil {
		s.first, s.last = map[string]time.Duration{}, map[string]time.Duration{}
	}
	t := time.Since(s.start)
	if _, ok := s.first[stage]; !ok {
		s.first[stage] = t
		s.names = append(s.names, stage)
	}
	s.last[stage] = t
}

func (s *stages) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var parts []string
	for _, n := range s.names {
		parts = append(parts, fmt.Sprintf("%s %.1f–%.1fs", n, s.first[n].Seconds(), s.last[n].Seconds()))
	}
	return strings.Join(parts, ", ")
}

// load reads the first n images (pixel values 0..255) and their labels: training set first, then
// the test set.
func load(dir string, n int) (*mat.Dense, []int, error) {
	var xs []*mat.Dense
	var labels []int
	have := 0
	for _, part := range []string{"train", "t10k"} {
		if have >= n {
			break
		}
		s, err := dataset.LoadIDX(filepath.Join(dir, part+"-images-idx3-ubyte.gz"), filepath.Join(dir, part+"-labels-idx1-ubyte.gz"))
		if err != nil {
			return nil, nil, err
		}
		r, _ := s.X.Dims()
		take := min(r, n-have)
		xs = append(xs, s.X.Slice(0, take, 0, s.X.RawMatrix().Cols).(*mat.Dense))
		labels = append(labels, s.Labels[:take]...)
		have += take
	}
	if have < n {
		return nil, nil, fmt.Errorf("MNIST holds %d images, asked for %d", have, n)
	}
	_, d := xs[0].Dims()
	x := mat.NewDense(n, d, nil)
	row := 0
	for _, p := range xs {
		r, _ := p.Dims()
		x.Slice(row, row+r, 0, d).(*mat.Dense).Copy(p)
		row += r
	}
	return x, labels, nil
}

func writeCSV(path string, y *mat.Dense) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	n, _ := y.Dims()
	for i := 0; i < n; i++ {
		fmt.Fprintf(w, "%.17g,%.17g\n", y.At(i, 0), y.At(i, 1))
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// peakRSS returns the process's peak resident set size (VmHWM of /proc/self/status).
func peakRSS() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
