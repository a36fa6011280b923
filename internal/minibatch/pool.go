// Package minibatch is what the mini-batch trainers (package hope's HOPE and S-HOPE, package
// ptsne's parametric t-SNE) share: a fixed worker pool for their pairwise passes, the split of n
// rows into blocks, and the optimisers (Adam, and per-batch conjugate gradients).
package minibatch

import (
	"sync"
	"sync/atomic"
)

// Pool is a fixed set of worker goroutines that run a job over a fixed number of row blocks.
// Jobs are func values created once (method values stored at set-up), so running one allocates
// nothing. Each block's partial sums are kept apart and added in block order by the caller, so
// results do not depend on the number of workers or on scheduling.
type Pool struct {
	workers int
	start   []chan func(int)
	next    atomic.Int64
	nblocks int64
	wg      sync.WaitGroup
}

// NewPool starts workers − 1 goroutines (the caller of Run is the last worker); workers < 1 means 1.
func NewPool(workers int) *Pool {
	p := &Pool{workers: max(workers, 1)}
	for range p.workers - 1 {
		ch := make(chan func(int))
		p.start = append(p.start, ch)
		go p.serve(ch)
	}
	return p
}

func (p *Pool) serve(ch chan func(int)) {
	for job := range ch {
		p.work(job)
		p.wg.Done()
	}
}

func (p *Pool) work(job func(int)) {
	for {
		b := p.next.Add(1) - 1
		if b >= p.nblocks {
			return
		}
		job(int(b))
	}
}

// Run calls job(b) for b = 0..n−1 over the workers (the caller's goroutine is one of them) and
// waits.
func (p *Pool) Run(n int, job func(int)) {
	p.next.Store(0)
	p.nblocks = int64(n)
	p.wg.Add(len(p.start))
	for _, ch := range p.start {
		ch <- job
	}
	p.work(job)
	p.wg.Wait()
}

// Close stops the workers.
func (p *Pool) Close() {
	for _, ch := range p.start {
		close(ch)
	}
	p.start = nil
}

// Span returns the rows [lo, hi) of block b of n rows split into nb blocks.
func Span(b, nb, n int) (lo, hi int) { return b * n / nb, (b + 1) * n / nb }
