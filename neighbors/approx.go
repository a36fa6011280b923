package neighbors

import (
	"context"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/dataset"
)

// ApproxOptions are the settings of ApproxKNN; the zero value of each field means its default.
type ApproxOptions struct {
	// Trees is the number of random-projection trees whose leaves seed the graph; 0 means
	// 5 + round(n^¼/3) (10 at n = 70,000; pynndescent's 5 + round(n^¼) gives 21, which cost
	// more than the rounds they save there, see the package doc).
	Trees int
	// LeafSize is the largest number of points in a tree leaf; 0 means max(k, 10).
	LeafSize int
	// Candidates caps the new and the old candidate lists of a row in each round of NN-descent;
	// 0 means min(k, 40) (pynndescent's max_candidates is min(k, 60): at k = 90 on MNIST,
	// rounds with 40 cost about 60% of those with 60, see the package doc).
	Candidates int
	// Iterations caps the rounds of NN-descent; 0 means max(5, round(log₂ n)).
	Iterations int
	// Delta stops NN-descent once a round changes fewer than Delta·n·k graph entries; 0 means
	// 0.001.
	Delta float64
	// Seed seeds the trees and the candidate sampling. The graph depends on it, never on Workers.
	Seed uint64
	// Workers is the number of goroutines; 0 means runtime.NumCPU().
	Workers int
	// Progress receives ("knn-trees", trees done, trees) and ("knn", rounds done, Iterations);
	// may be nil.
	Progress lowdim.Progress
}

// approxExactMax: below this many rows ApproxKNN returns the exact graph (KNN): the exact search
// costs less than building the trees there, and NN-descent's sampling needs a few leaves.
const approxExactMax = 512

// ApproxKNN returns an approximate k-nearest-neighbour graph of the rows of x, in the same form
// as KNN: 1 ≤ k < n, each row's neighbours sorted by (squared distance, index), no self, no
// duplicates, distances exact squared Euclidean ones (recomputed with the same sums as KNN).
// Rows that fail to find a true neighbour hold a farther point in its place.
//
// The search is NN-descent (Dong, Moses and Li, WWW 2011) seeded by random-projection trees, as
// pynndescent does: the points sharing a leaf of any tree seed each row's list, then each round
// joins, for every row, the sampled new and old candidates of its forward and reverse neighbours
// ("a neighbour of a neighbour is likely a neighbour"). The rounds are synchronous: candidate
// lists are drawn from the graph as it stood when the round began, with priorities hashed from
// (Seed, round, pair) rather than drawn from a shared generator, and a row's list keeps the k
// smallest distinct (distance, index) pairs offered to it, a set that does not depend on the order
// in which concurrent workers offer them. Hence the same Seed gives the same graph, bit for bit,
// for any number of workers. Memory: O(n·(k + Candidates)) besides x.
func ApproxKNN(ctx context.Context, x mat.Matrix, k int, o ApproxOptions) (*Graph, error) {
	if x == nil {
		return nil, dataset.Invalidf("neighbors: no data")
	}
	dense, ok := x.(*mat.Dense)
	if !ok || dense.RawMatrix().Stride != dense.RawMatrix().Cols {
		dense = mat.DenseCopyOf(x)
	}
	n, d, err := check(dense)
	if err != nil {
		return nil, err
	}
	if k < 1 || k >= n {
		return nil, dataset.Invalidf("neighbors: k = %d neighbours of %d points: expected 1 ≤ k < n", k, n)
	}
	if n <= approxExactMax {
		return KNN(ctx, dense, k, Options{Workers: o.Workers})
	}
	s := &descent{
		x:    dense.RawMatrix().Data,
		n:    n,
		d:    d,
		k:    k,
		seed: o.Seed,
		nw:   o.Workers,
	}
	if s.nw <= 0 {
		s.nw = runtime.NumCPU()
	}
	trees := o.Trees
	if trees <= 0 {
		trees = 5 + int(math.Round(math.Pow(float64(n), 0.25)/3))
	}
	leaf := o.LeafSize
	if leaf <= 0 {
		leaf = max(k, 10)
	}
	leaf = max(leaf, 2)
	s.m = o.Candidates
	if s.m <= 0 {
		s.m = min(k, 40)
	}
	iters := o.Iterations
	if iters <= 0 {
		iters = max(5, int(math.Round(math.Log2(float64(n)))))
	}
	delta := o.Delta
	if delta <= 0 {
		delta = 0.001
	}
	s.reorder(ctx, leaf)
	s.init()
	if err := s.seedTrees(ctx, trees, leaf, o.Progress); err != nil {
		return nil, err
	}
	s.fillRandom()
	for r := 0; r < iters; r++ {
		changed, err := s.round(ctx, r)
		if err != nil {
			return nil, err
		}
		o.Progress.Report("knn", r+1, iters)
		if float64(changed) < delta*float64(n)*float64(k) {
			break
		}
	}
	return s.graph(ctx)
}

// descent is the state of one ApproxKNN search. Row i's list is sorted by (distance, index) in
// idx/dist[i*k:(i+1)*k]; empty slots hold index −1 at distance +Inf. flag tells the
// entries not yet sampled as new candidates since their insertion; top[i] mirrors the largest
// distance of row i (for the lock-free rejection test).
type descent struct {
	x          []float64
	n, d, k, m int
	seed       uint64
	perm       []int32 // original row number of each row of x (reorder)
	nw         int

	idx  []int32
	dist []float64
	flag []uint8 // entryOld, entryNew or entryFresh
	top  []atomic.Uint64
	mu   []sync.Mutex

	// candidate lists of the current round: m slots per row, priority-ordered max-heaps.
	newC, oldC   []int32
	newP, oldP   []uint64
	newLen, oldL []int32
}

func (s *descent) init() {
	n, k := s.n, s.k
	s.idx = make([]int32, n*k)
	s.dist = make([]float64, n*k)
	s.flag = make([]uint8, n*k)
	s.top = make([]atomic.Uint64, n)
	s.mu = make([]sync.Mutex, n)
	inf := math.Float64bits(math.Inf(1))
	for i := range s.idx {
		s.idx[i] = -1
		s.dist[i] = math.Inf(1)
	}
	for i := range s.top {
		s.top[i].Store(inf)
	}
}

// row returns the data of row i.
func (s *descent) row(i int32) []float64 { return s.x[int(i)*s.d : int(i+1)*s.d] }

// fastDist2 is ‖a−b‖² summed in four interleaved partial sums (faster than dist2, whose single
// chain of additions waits on each one; it may differ from dist2 in the last bits, so the final
// lists are recomputed with dist2).
func fastDist2(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	c := 0
	for ; c+4 <= len(a); c += 4 {
		t0, t1, t2, t3 := a[c]-b[c], a[c+1]-b[c+1], a[c+2]-b[c+2], a[c+3]-b[c+3]
		s0 += t0 * t0
		s1 += t1 * t1
		s2 += t2 * t2
		s3 += t3 * t3
	}
	for ; c < len(a); c++ {
		t := a[c] - b[c]
		s0 += t * t
	}
	return (s0 + s1) + (s2 + s3)
}

// push offers j at distance dd to row i's list and reports whether it entered.
func (s *descent) push(i, j int32, dd float64) bool {
	if dd > math.Float64frombits(s.top[i].Load()) {
		return false
	}
	_, ok := s.offer(i, j, dd)
	return ok
}

// offer offers j at distance dd to row i's list, reports whether it entered and returns the
// list's largest distance afterwards (a bound callers may keep: it only decreases). The list is
// kept sorted, so that the common case, j already present, is found by binary search: a pair's
// distance is always computed by the same fastDist2, so a copy of j sits exactly where (dd, j)
// belongs. Comparing indices as uint32 puts the empty slots (−1) after every real entry at
// equal distance.
func (s *descent) offer(i, j int32, dd float64) (top float64, ok bool) {
	k := s.k
	base := int(i) * k
	s.mu[i].Lock()
	idx, dist, fl := s.idx[base:base+k], s.dist[base:base+k], s.flag[base:base+k]
	if !(dd < dist[k-1] || dd == dist[k-1] && uint32(j) < uint32(idx[k-1])) {
		top = dist[k-1]
		s.mu[i].Unlock()
		return top, false
	}
	lo, hi := 0, k-1 // the first entry not less than (dd, j) lies in [lo, hi]
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if dist[mid] < dd || dist[mid] == dd && uint32(idx[mid]) < uint32(j) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if idx[lo] == j {
		top = dist[k-1]
		s.mu[i].Unlock()
		return top, false
	}
	copy(dist[lo+1:], dist[lo:k-1])
	copy(idx[lo+1:], idx[lo:k-1])
	copy(fl[lo+1:], fl[lo:k-1])
	dist[lo], idx[lo], fl[lo] = dd, j, entryFresh
	top = dist[k-1]
	s.top[i].Store(math.Float64bits(top))
	s.mu[i].Unlock()
	return top, true
}

// Entry flags: old (sampled as a new candidate since its insertion), new (not yet), fresh (new,
// inserted in the current round).
const (
	entryOld uint8 = iota
	entryNew
	entryFresh
)

// mix is SplitMix64's finaliser: a well-spread 64-bit hash.
func mix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// hash2 hashes (seed, a, b, c) to a 64-bit value.
func hash2(seed, a, b, c uint64) uint64 {
	return mix(mix(mix(seed^0x6a09e667f3bcc909)^a)^b) ^ mix(c)
}

// parallel runs fn(lo, hi) over [0, n) in chunks on s.nw goroutines and returns ctx's error.
func (s *descent) parallel(ctx context.Context, n, chunk int, fn func(lo, hi int)) error {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range s.nw {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				lo := int(next.Add(int64(chunk))) - chunk
				if lo >= n {
					return
				}
				fn(lo, min(lo+chunk, n))
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// seedTrees builds the random-projection trees, one per task, and offers every pair of points
// sharing a leaf to both lists.
func (s *descent) seedTrees(ctx context.Context, trees, leaf int, prog lowdim.Progress) error {
	var done atomic.Int64
	return s.parallel(ctx, trees, 1, func(t, _ int) {
		perm := make([]int32, s.n)
		for i := range perm {
			perm[i] = int32(i)
		}
		rng := rpRand{state: hash2(s.seed, 0x7265, uint64(t), 0)}
		s.split(ctx, perm, leaf, &rng, make([]float64, s.d), s.joinLeaf)
		prog.Report("knn-trees", int(done.Add(1)), trees)
	})
}

// rpRand is a SplitMix64 generator.
type rpRand struct{ state uint64 }

func (r *rpRand) next() uint64 {
	r.state += 0x9e3779b97f4a7c15
	return mix(r.state)
}

func (r *rpRand) intn(n int) int {
	hi, _ := bits.Mul64(r.next(), uint64(n))
	return int(hi)
}

// split divides perm by the hyperplane bisecting two random points of it, until at most leaf
// points remain, then calls atLeaf with the leaf. A split that leaves one side empty (duplicate points) falls
// back to halves in the current order.
func (s *descent) split(ctx context.Context, perm []int32, leaf int, rng *rpRand, hyper []float64, atLeaf func([]int32)) {
	if ctx.Err() != nil {
		return
	}
	if len(perm) <= leaf {
		atLeaf(perm)
		return
	}
	a := rng.intn(len(perm))
	b := rng.intn(len(perm) - 1)
	if b >= a {
		b++
	}
	pa, pb := s.row(perm[a]), s.row(perm[b])
	var off float64
	for c := range hyper {
		hyper[c] = pa[c] - pb[c]
		off -= hyper[c] * (pa[c] + pb[c]) / 2
	}
	lo, hi := 0, len(perm)
	for lo < hi {
		p := s.row(perm[lo])
		m := off
		for c, h := range hyper {
			m += h * p[c]
		}
		left := m > 0
		if m == 0 {
			left = rng.next()&1 == 0
		}
		if left {
			lo++
		} else {
			hi--
			perm[lo], perm[hi] = perm[hi], perm[lo]
		}
	}
	if lo == 0 || lo == len(perm) {
		lo = len(perm) / 2
	}
	s.split(ctx, perm[:lo], leaf, rng, hyper, atLeaf)
	s.split(ctx, perm[lo:], leaf, rng, hyper, atLeaf)
}

// joinLeaf offers every pair of the leaf's points to both lists.
func (s *descent) joinLeaf(pts []int32) {
	for a, i := range pts {
		xi := s.row(i)
		for _, j := range pts[a+1:] {
			dd := fastDist2(xi, s.row(j))
			s.push(i, j, dd)
			s.push(j, i, dd)
		}
	}
}

// reorder renumbers the rows in the leaf order of one random-projection tree and copies x in
// that order: rows that are near in space are then near in memory, and so are their lists,
// locks and bounds, which the rounds touch for every offer. perm[p] is the original number of
// row p; graph numbers the rows back.
func (s *descent) reorder(ctx context.Context, leaf int) {
	perm := make([]int32, s.n)
	for i := range perm {
		perm[i] = int32(i)
	}
	rng := rpRand{state: hash2(s.seed, 0x6f72646572, 0, 0)}
	s.split(ctx, perm, leaf, &rng, make([]float64, s.d), func([]int32) {})
	x := make([]float64, s.n*s.d)
	for p, i := range perm {
		copy(x[p*s.d:(p+1)*s.d], s.row(i))
	}
	s.x, s.perm = x, perm
}

// fillRandom completes the lists that the trees left short with points taken in order from a
// hashed start, so that every row holds k entries before the rounds begin.
func (s *descent) fillRandom() {
	k := s.k
	for i := 0; i < s.n; i++ {
		base := i * k
		short := 0
		for _, v := range s.idx[base : base+k] {
			if v < 0 {
				short++
			}
		}
		if short == 0 {
			continue
		}
		j := int(hash2(s.seed, 0x66696c6c, uint64(i), 0) % uint64(s.n))
		for tries := 0; short > 0 && tries < s.n; tries++ {
			j = (j + 1) % s.n
			if j == i {
				continue
			}
			if s.push(int32(i), int32(j), fastDist2(s.row(int32(i)), s.row(int32(j)))) {
				short--
			}
		}
	}
}

// candPush offers j with priority p to the m-slot candidate heap (c, pr, *ln) of a row: the m
// smallest (priority, index) pairs are kept. A pair offered twice (j and i in each other's lists)
// may be kept twice; dedupCands removes the copy afterwards.
func candPush(c []int32, pr []uint64, ln *int32, j int32, p uint64) {
	m := int32(len(c))
	if *ln < m {
		q := *ln
		c[q], pr[q] = j, p
		*ln++
		for q > 0 {
			par := (q - 1) / 2
			if pr[par] > pr[q] || (pr[par] == pr[q] && c[par] > c[q]) {
				break
			}
			c[par], c[q] = c[q], c[par]
			pr[par], pr[q] = pr[q], pr[par]
			q = par
		}
		return
	}
	if p > pr[0] || (p == pr[0] && j >= c[0]) {
		return
	}
	c[0], pr[0] = j, p
	q := int32(0)
	for {
		l := 2*q + 1
		if l >= m {
			break
		}
		ch := l
		if r := l + 1; r < m && (pr[r] > pr[l] || (pr[r] == pr[l] && c[r] > c[l])) {
			ch = r
		}
		if pr[q] > pr[ch] || (pr[q] == pr[ch] && c[q] > c[ch]) {
			break
		}
		c[q], c[ch] = c[ch], c[q]
		pr[q], pr[ch] = pr[ch], pr[q]
		q = ch
	}
}

// dedupCands sorts c by index, removes repeated indices and returns the number left.
func dedupCands(c []int32) int32 {
	slices.Sort(c)
	return int32(len(slices.Compact(c)))
}

// round runs one round of NN-descent and returns the number of entries of the graph that changed
// (entries inserted in the round and still present at its end).
func (s *descent) round(ctx context.Context, r int) (int, error) {
	n, k, m := s.n, s.k, s.m
	if s.newC == nil {
		s.newC, s.oldC = make([]int32, n*m), make([]int32, n*m)
		s.newP, s.oldP = make([]uint64, n*m), make([]uint64, n*m)
		s.newLen, s.oldL = make([]int32, n), make([]int32, n)
	}
	clear(s.newLen)
	clear(s.oldL)
	for e, v := range s.flag {
		if v == entryFresh {
			s.flag[e] = entryNew
		}
	}
	const chunk = 256
	// Candidates: every entry j of row i is a candidate of i (forward) and i one of j (reverse),
	// new or old as the entry is; each list keeps the m of smallest hashed priority.
	err := s.parallel(ctx, n, chunk, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			for e := i * k; e < (i+1)*k; e++ {
				j := s.idx[e]
				if j < 0 {
					continue
				}
				p := hash2(s.seed, uint64(r), uint64(min(int32(i), j)), uint64(max(int32(i), j)))
				c, pr, ln := s.newC, s.newP, s.newLen
				if s.flag[e] == entryOld {
					c, pr, ln = s.oldC, s.oldP, s.oldL
				}
				for _, pair := range [2][2]int32{{int32(i), j}, {j, int32(i)}} {
					a, b := int(pair[0]), pair[1]
					s.mu[a].Lock()
					candPush(c[a*m:(a+1)*m], pr[a*m:(a+1)*m], &ln[a], b, p)
					s.mu[a].Unlock()
				}
			}
		}
	})
	if err != nil {
		return 0, err
	}
	// Entries sampled as new candidates of their own row are old from now on.
	err = s.parallel(ctx, n, chunk, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			s.newLen[i] = dedupCands(s.newC[i*m : i*m+int(s.newLen[i])])
			s.oldL[i] = dedupCands(s.oldC[i*m : i*m+int(s.oldL[i])])
			nc := s.newC[i*m : i*m+int(s.newLen[i])]
			for e := i * k; e < (i+1)*k; e++ {
				if s.flag[e] != entryOld {
					for _, v := range nc {
						if v == s.idx[e] {
							s.flag[e] = entryOld
							break
						}
					}
				}
			}
		}
	})
	if err != nil {
		return 0, err
	}
	// Local join: every new candidate against every other new one and every old one.
	// Each worker keeps the candidates' largest distances as bounds (stale ones are larger, so
	// they only let through offers that offer then rejects).
	err = s.parallel(ctx, n, chunk, func(lo, hi int) {
		thr := make([]float64, 2*m)
		for i := lo; i < hi; i++ {
			nc := s.newC[i*m : i*m+int(s.newLen[i])]
			oc := s.oldC[i*m : i*m+int(s.oldL[i])]
			tn, to := thr[:len(nc)], thr[m:m+len(oc)]
			for a, p := range nc {
				tn[a] = math.Float64frombits(s.top[p].Load())
			}
			for b, q := range oc {
				to[b] = math.Float64frombits(s.top[q].Load())
			}
			for a, p := range nc {
				xp := s.row(p)
				for b := a + 1; b < len(nc); b++ {
					q := nc[b]
					dd := fastDist2(xp, s.row(q))
					if dd <= tn[a] {
						tn[a], _ = s.offer(p, q, dd)
					}
					if dd <= tn[b] {
						tn[b], _ = s.offer(q, p, dd)
					}
				}
				for b, q := range oc {
					if q == p {
						continue
					}
					dd := fastDist2(xp, s.row(q))
					if dd <= tn[a] {
						tn[a], _ = s.offer(p, q, dd)
					}
					if dd <= to[b] {
						to[b], _ = s.offer(q, p, dd)
					}
				}
			}
		}
	})
	if err != nil {
		return 0, err
	}
	// The entries inserted in this round and still present: the same for any number of workers
	// (unlike the count of successful insertions, some of which a later one in the same round
	// undoes).
	changed := 0
	for _, v := range s.flag {
		if v == entryFresh {
			changed++
		}
	}
	return changed, nil
}

// graph returns the lists sorted by exact distance (dist2, as KNN computes it).
// The rows are renumbered back (see reorder).
func (s *descent) graph(ctx context.Context) (*Graph, error) {
	n, k := s.n, s.k
	g := &Graph{N: n, K: k, Index: make([]int32, n*k), Dist2: make([]float64, n*k)}
	err := s.parallel(ctx, n, 256, func(lo, hi int) {
		for p := lo; p < hi; p++ {
			idx, dd := g.Row(int(s.perm[p]))
			xp := s.row(int32(p))
			for e, q := range s.idx[p*k : (p+1)*k] {
				idx[e] = s.perm[q]
				dd[e] = dist2(xp, s.row(q))
			}
			SortPairs(dd, idx)
		}
	})
	if err != nil {
		return nil, err
	}
	return g, nil
}
