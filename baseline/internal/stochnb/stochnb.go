// Package stochnb evaluates the stochastic-neighbour sums that NCA and MCML share, in O(n)
// memory: for an embedding y_1 … y_n (rows of an n×d matrix),
//
//	p_ik = exp(−‖y_i − y_k‖²) / Σ_{l≠i} exp(−‖y_i − y_l‖²)    (k ≠ i, p_ii = 0),
//
// and, for pair weights w_ik that a method derives from p_ik, the product U = L_W V of the
// weights' Laplacian
//
//	L_W = diag(r + c) − W − Wᵀ,  r_i = Σ_k w_ik,  c_i = Σ_k w_ki,
//
// with an n×m matrix V. Every gradient of these objectives is such a product: for a map y = Lx,
// Σ_ik w_ik (x_i − x_k)(x_i − x_k)ᵀ = Xᵀ L_W X, so ∂/∂L Σ_ik w_ik ‖L(x_i − x_k)‖² = 2 (L_W Y)ᵀ X.
//
// No n×n matrix is stored: a first pass over the rows finds log Z_i (the log normaliser, shifted
// by the row's smallest distance so that nothing underflows) and the caller's row statistics; a
// second recomputes each row's distances and p_ik, p_ki = exp(−‖y_i − y_k‖² − log Z_k) on the
// fly (probabilities below e^{−60} are taken as 0 without computing them). Rows are split among GOMAXPROCS workers, but every number of row i is summed by one
// goroutine in index order, so results do not depend on the number of workers.
package stochnb

import (
	"context"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/affinity"
)

// block is the number of rows a worker takes at a time.
const block = 16

// Rows runs f(i, dist) for every row i of y in parallel, dist holding ‖y_i − y_k‖² for every k
// (dist[i] = +Inf). It stops early, returning ctx's error, when ctx is cancelled.
func Rows(ctx context.Context, y *mat.Dense, f func(i int, dist []float64)) error {
	n, d := y.Dims()
	raw := y.RawMatrix()
	workers := min(runtime.GOMAXPROCS(0), (n+block-1)/block)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dist := make([]float64, n)
			for {
				if ctx.Err() != nil {
					return
				}
				lo := int(next.Add(block)) - block
				if lo >= n {
					return
				}
				for i := lo; i < min(lo+block, n); i++ {
					yi := raw.Data[i*raw.Stride : i*raw.Stride+d]
					for k := range n {
						yk := raw.Data[k*raw.Stride : k*raw.Stride+d]
						var s float64
						for j, v := range yi {
							e := v - yk[j]
							s += e * e
						}
						dist[k] = s
					}
					dist[i] = math.Inf(1)
					f(i, dist)
				}
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// LogZ sets logZ[i] = log Σ_{k≠i} exp(−‖y_i − y_k‖²) for every row, and, when row is not nil,
// calls row(i, dist, logZ_i) in the same pass so that the caller can gather per-row sums of
// p_ik = exp(−dist[k] − logZ_i).
func LogZ(ctx context.Context, y *mat.Dense, logZ []float64, row func(i int, dist []float64, logZi float64)) error {
	return Rows(ctx, y, func(i int, dist []float64) {
		m := floats.Min(dist)
		var z float64
		for _, v := range dist {
			if v-m <= affinity.SkipExp {
				z += math.Exp(m - v)
			}
		}
		logZ[i] = math.Log(z) - m
		if row != nil {
			row(i, dist, logZ[i])
		}
	})
}

// Weight returns w_ik given p_ik (row i, k ≠ i).
type Weight func(i, k int, pik float64) float64

// Laplacian sets u = L_W v (n×m each) for the weights w, given logZ from LogZ on the same y.
func Laplacian(ctx context.Context, y *mat.Dense, logZ []float64, w Weight, v, u *mat.Dense) error {
	_, m := v.Dims()
	return Rows(ctx, y, func(i int, dist []float64) {
		ui := u.RawRowView(i)
		for j := range ui {
			ui[j] = 0
		}
		var rc float64
		for k, dk := range dist {
			if k == i {
				continue
			}
			wik := w(i, k, prob(dk+logZ[i]))
			wki := w(k, i, prob(dk+logZ[k]))
			rc += wik + wki
			if s := wik + wki; s != 0 {
				floats.AddScaled(ui, -s, v.RawRowView(k)[:m])
			}
		}
		floats.AddScaled(ui, rc, v.RawRowView(i)[:m])
	})
}

// prob returns exp(−t), or 0 when t > affinity.SkipExp: p_ik below e^{−60} ≈ 1e-26 cannot change
// a double-precision sum whose largest term is of order 1 (max_k p_ik ≥ 1/n), and skipping the
// exponential is most of the saving on far pairs.
func prob(t float64) float64 {
	if t > affinity.SkipExp {
		return 0
	}
	return math.Exp(-t)
}
