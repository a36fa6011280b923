package hope

import (
	"sync"
	"sync/atomic"
)

// pool is a fixed set of worker goroutines that run a job over a fixed number of row blocks.
// Jobs are func values created once (method values stored at set-up), so running one allocates
// nothing. Each block's partial sums are kept apart and added in block order by the caller, so
// results do not depend on the number of workers or on scheduling.
type pool struct {
	workers int
	start   []chan func(int)
	next    atomic.Int64
	nblocks int64
	wg      sync.WaitGroup
}

// nblocks is the number of row blocks of every pairwise pass.
const nblocks = 16

func newPool(workers int) *pool {
	p := &pool{workers: max(workers, 1)}
	for range p.workers - 1 {
		ch := make(chan func(int))
		p.start = append(p.start, ch)
		go p.serve(ch)
	}
	return p
}

func (p *pool) serve(ch chan func(int)) {
	for job := range ch {
		p.work(job)
		p.wg.Done()
	}
}

func (p *pool) work(job func(int)) {
	for {
		b := p.next.Add(1) - 1
		if b >= p.nblocks {
			return
		}
		job(int(b))
	}
}

// run calls job(b) for b = 0..n−1 over the workers (the caller's goroutine is one of them) and
// waits.
func (p *pool) run(n int, job func(int)) {
	p.next.Store(0)
	p.nblocks = int64(n)
	p.wg.Add(len(p.start))
	for _, ch := range p.start {
		ch <- job
	}
	p.work(job)
	p.wg.Wait()
}

// close stops the workers.
func (p *pool) close() {
	for _, ch := range p.start {
		close(ch)
	}
	p.start = nil
}

// span returns the rows [lo, hi) of block b of n rows split into nb blocks.
func span(b, nb, n int) (lo, hi int) { return b * n / nb, (b + 1) * n / nb }
