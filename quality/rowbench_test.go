package quality

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/neighbors"
)

// cpuTime returns the CPU time (user + system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// sharedDir returns /work/shared as ../shared from the repository root (the directory holding
// go.mod), or "" when it is absent.
func sharedDir() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			s := filepath.Join(dir, "..", "shared")
			if _, err := os.Stat(s); err != nil {
				return ""
			}
			return s
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}

// mnistBench holds a few rows of the full MNIST problem (70,000 images against their 2-D
// projection on the top two principal directions of the first 5,000 images), as the input pass
// sees them.
type mnistBench struct {
	n      int
	x, y   *mat.Dense
	rows   []int
	dx, dy [][]float64
	meanX  float64
	meanY  float64
	gOut   *neighbors.Graph
}

var (
	mnistOnce sync.Once
	mnistB    *mnistBench
	mnistErr  string
)

func loadMNISTBench(b *testing.B) *mnistBench {
	mnistOnce.Do(func() {
		sh := sharedDir()
		if sh == "" {
			mnistErr = "../shared (the data directory beside the repository) is absent"
			return
		}
		var parts []*mat.Dense
		for _, p := range []string{"train", "t10k"} {
			s, err := dataset.LoadIDX(filepath.Join(sh, "data", "mnist", p+"-images-idx3-ubyte.gz"), "")
			if err != nil {
				mnistErr = "MNIST: " + err.Error()
				return
			}
			parts = append(parts, s.X)
		}
		r0, d := parts[0].Dims()
		r1, _ := parts[1].Dims()
		n := r0 + r1
		x := mat.NewDense(n, d, nil)
		x.Slice(0, r0, 0, d).(*mat.Dense).Copy(parts[0])
		x.Slice(r0, n, 0, d).(*mat.Dense).Copy(parts[1])
		// Top two principal directions of the first 5,000 images.
		var cov mat.SymDense
		stat.CovarianceMatrix(&cov, x.Slice(0, 5000, 0, d), nil)
		var eig mat.EigenSym
		if !eig.Factorize(&cov, true) {
			mnistErr = "eigendecomposition failed"
			return
		}
		var vec mat.Dense
		eig.VectorsTo(&vec)
		y := mat.NewDense(n, 2, nil)
		y.Mul(x, vec.Slice(0, d, d-2, d))
		mb := &mnistBench{n: n, x: x, y: y}
		for m := range 8 {
			i := (m*8761 + 13) % n
			mb.rows = append(mb.rows, i)
			dx, dy := make([]float64, n), make([]float64, n)
			xi := x.RawRowView(i)
			for j := range n {
				var s float64
				for c, v := range x.RawRowView(j) {
					t := v - xi[c]
					s += t * t
				}
				dx[j] = s
			}
			outRow(y, i, dy)
			var sx, sy float64
			for j := range n {
				sx += math.Sqrt(dx[j])
				sy += math.Sqrt(dy[j])
			}
			mb.meanX += sx / float64(n-1) / 8
			mb.meanY += sy / float64(n-1) / 8
			mb.dx, mb.dy = append(mb.dx, dx), append(mb.dy, dy)
		}
		g, err := neighbors.KNN(context.Background(), y, 100, neighbors.Options{})
		if err != nil {
			mnistErr = err.Error()
			return
		}
		mb.gOut = g
		mnistB = mb
	})
	if mnistB == nil {
		b.Skip(mnistErr)
	}
	return mnistB
}

// BenchmarkMNISTRow times the input pass's work on rows of the full MNIST problem (n = 70,000,
// k = 20, 100 retrieved), one row per op, single goroutine, cycling over 8 rows whose distances
// are first copied into the worker's row buffers (as the pass receives them fresh from the
// products). "s/70k" is the op time × 70,000: the seconds of that work over a whole run on one
// core; "cpu-s/70k" the same from the process's CPU time, steadier on a shared machine (time
// slices lost to other processes do not count; run with -cpu 1).
// Stages: copy (the copies alone), order (row ranges and ordering both rows), rank (order plus
// the rank-based terms), smooth (the smoothed measures alone), all (every measure).
func BenchmarkMNISTRow(b *testing.B) {
	mb := loadMNISTBench(b)
	n := mb.n
	k := 20
	for _, st := range []string{"copy", "order", "rank", "smooth", "all"} {
		b.Run(st, func(b *testing.B) {
			want := passWant{}
			switch st {
			case "order", "rank":
				want.rank = true
			case "smooth":
				want.smooth = true
			case "all":
				want = passWant{trust: true, cont: true, pr: true, rank: true, smooth: true}
			}
			ps := &passState{want: want, k: k, mr: 100, gOut: mb.gOut,
				sx: 1 / (mb.meanX * mb.meanX), sy: 1 / (mb.meanY * mb.meanY),
				rowSP: make([]float64, n), rowSR: make([]float64, n), rowRP: make([]float64, n), rowRR: make([]float64, n)}
			if want.rank {
				ps.rb = newRankBase(n, k)
			}
			wk := ps.newWorker(n)
			dx, dy := make([]float64, n), make([]float64, n)
			m := 0
			c0 := cpuTime()
			for b.Loop() {
				i := mb.rows[m]
				copy(dx, mb.dx[m])
				copy(dy, mb.dy[m])
				m = (m + 1) % len(mb.rows)
				switch st {
				case "copy":
				case "order":
					loX, hiX, loY, hiY := rowRanges(i, dx, dy)
					need := max(ps.rb.r0, k)
					wk.ox.order(dx, i, loX, hiX, need)
					wk.oy.order(dy, i, loY, hiY, need)
				default:
					ps.row(wk, i, dx, dy)
				}
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)*float64(n), "s/70k")
			b.ReportMetric((cpuTime()-c0).Seconds()/float64(b.N)*float64(n), "cpu-s/70k")
		})
	}
}
