package pe

import (
	"context"
	"sync"
	"sync/atomic"
)

// blockRows is the number of objects per work block. Blocks are fixed by n alone and their
// partial sums are added in block order, so the result has the same bytes for any number of
// workers.
const blockRows = 2048

// sweeper solves every object's sub-problem for a given Φ and sums the objects' part of J and
// of ∂J/∂Φ. It owns all buffers: a sweep allocates nothing.
type sweeper struct {
	p       []float64 // n×K posteriors, row-major
	r       []float64 // n×D objects, row-major; the warm start of the next sweep
	n       int
	rp      rowProblem
	workers int

	blockF     []float64
	blockG     []float64 // blocks × K·D
	blockSteps []int
	scratch    [][]float64 // per worker: a, q, q2 (3K)
}

func newSweeper(p, r []float64, n, k, d int, logPrior []float64, etaR, tol2 float64, workers int) *sweeper {
	nb := (n + blockRows - 1) / blockRows
	workers = max(1, min(workers, nb))
	s := &sweeper{
		p: p, r: r, n: n, workers: workers,
		rp:     rowProblem{logPrior: logPrior, k: k, d: d, etaR: etaR, tol2: tol2, maxSteps: 100},
		blockF: make([]float64, nb), blockG: make([]float64, nb*k*d), blockSteps: make([]int, nb),
		scratch: make([][]float64, workers),
	}
	for w := range s.scratch {
		s.scratch[w] = make([]float64, 3*k)
	}
	return s
}

// sweep sets Φ, solves all objects (r is updated in place), and returns Σ_i f_i(r_i) and the
// total Newton steps; grad (K·D), if not nil, receives Σ_i Σ_k (p_ik − q_ik)(φ_k − r_i), the
// data part of ∂J/∂Φ at the solved R. By the envelope theorem this is also the gradient of
// min_R J with respect to Φ. It returns early (with ctx's error) when ctx is cancelled.
func (s *sweeper) sweep(ctx context.Context, phi, grad []float64) (float64, int, error) {
	s.rp.phi = phi
	nb := len(s.blockF)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range s.workers {
		wg.Add(1)
		go func(buf []float64) {
			defer wg.Done()
			for {
				b := int(next.Add(1) - 1)
				if b >= nb || ctx.Err() != nil {
					return
				}
				s.block(b, buf, grad != nil)
			}
		}(s.scratch[w])
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return 0, 0, err
	}
	kd := s.rp.k * s.rp.d
	if grad != nil {
		clear(grad)
	}
	var f float64
	steps := 0
	for b := range nb {
		f += s.blockF[b]
		steps += s.blockSteps[b]
		if grad != nil {
			for j, v := range s.blockG[b*kd : b*kd+kd] {
				grad[j] += v
			}
		}
	}
	return f, steps, nil
}

// block solves the objects of block b and stores its partial sums.
func (s *sweeper) block(b int, buf []float64, withGrad bool) {
	k, d := s.rp.k, s.rp.d
	a, q, q2 := buf[:k], buf[k:2*k], buf[2*k:3*k]
	lo, hi := b*blockRows, min((b+1)*blockRows, s.n)
	g := s.blockG[b*k*d : (b+1)*k*d]
	clear(g)
	var f float64
	steps := 0
	for i := lo; i < hi; i++ {
		p := s.p[i*k : i*k+k]
		r := s.r[i*d : i*d+d]
		fi, st := s.rp.solve(p, r, a, q, q2)
		f += fi
		steps += st
		if withGrad {
			for c := range k {
				w := p[c] - q[c]
				if w == 0 {
					continue
				}
				phi := s.rp.phi[c*d : c*d+d]
				gc := g[c*d : c*d+d]
				for j, v := range phi {
					gc[j] += w * (v - r[j])
				}
			}
		}
	}
	s.blockF[b] = f
	s.blockSteps[b] = steps
}
