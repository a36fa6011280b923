package nerv

import (
	"fmt"
	"runtime"
	"strings"

	"github.com/lowdim/lowdim/baseline/cmds"
	"github.com/lowdim/lowdim/internal/membudget"
	"github.com/lowdim/lowdim/learnmetric"
)

// exactTables is what the exact path holds for n points, in bytes: the input distances in the
// form fromFeatures or newInput will choose (a given matrix is always squared into float64),
// the cached p and log p (always for t-NeRV; for NeRV when they fit the budget along with the
// input), and the classical-MDS start of a given distance matrix. The start's matrices are
// garbage once the evaluator allocates, but Go returns them only at its next collection, so
// they are counted as held. work is the O(n) rest: each worker's five scratch rows and the
// calibration's two, the 16 blocks' gradients, σ² and the diameter pass's buffer.
type exactTables struct {
	input, cache, start, work int64
	how                       storage
}

func (e Embedder) exactTables(n, dim, workers int, budget int64, given bool) exactTables {
	var t exactTables
	switch {
	case given || bytesFor(store64, n) <= budget:
		t.how, t.input = store64, bytesFor(store64, n)
	case bytesFor(store32, n) <= budget:
		t.how, t.input = store32, bytesFor(store32, n)
	default:
		t.how = storeFeats
	}
	if e.Variant == StudentT || 2*bytesFor(store64, n)+t.input <= budget {
		t.cache = 2 * bytesFor(store64, n)
	}
	if given && e.Start == nil && e.Init == InitPCA {
		t.start = cmds.Bytes(n)
	}
	t.work = 8 * int64(n) * int64(7*workers+2*nblocks*dim+4)
	return t
}

func (t exactTables) total() int64 { return t.input + t.cache + t.start + t.work }

// describe names the parts for a refusal: "the exact path's n×n tables (input distances as
// float64 74.5 GiB, p and log p 149.0 GiB)"; extra is snerv's learning-metric distances.
func (t exactTables) describe(extra int64) string {
	var parts []string
	if extra > 0 {
		parts = append(parts, "learning-metric distances "+membudget.Bytes(extra))
	}
	if t.input > 0 {
		parts = append(parts, fmt.Sprintf("input distances as %s %s", map[storage]string{store64: "float64", store32: "float32"}[t.how], membudget.Bytes(t.input)))
	}
	if t.cache > 0 {
		parts = append(parts, "p and log p "+membudget.Bytes(t.cache))
	}
	if t.start > 0 {
		parts = append(parts, "classical-MDS start "+membudget.Bytes(t.start))
	}
	if len(parts) == 0 {
		return "the exact path's O(n) work space"
	}
	return "the exact path's n×n tables (" + strings.Join(parts, ", ") + ")"
}

// checkExact refuses the exact path before it allocates anything in proportion to n² when its
// tables do not fit: t-NeRV's joint probabilities must fit the MemoryBudget (as they always
// had to), and everything together the memory available (package lowdim/internal/membudget).
// extra is memory the caller will hold beside them (snerv's learning-metric distances).
func (e Embedder) checkExact(who string, n, dim, workers int, budget int64, given bool, extra int64) error {
	const approx = "use the approximate path (Path = PathApprox, lowdim -approx; the default above n = 3,000)"
	if e.Variant == StudentT {
		joint := func(n int) int64 { return 2 * bytesFor(store64, n) }
		if err := membudget.Check(membudget.Need{Who: who, N: n, What: "the exact path's n×n joint probabilities",
			Bytes: joint(n), PerN: joint, Budget: budget, BudgetName: "MemoryBudget", Instead: approx}); err != nil {
			return err
		}
	}
	given = given || extra > 0
	t := e.exactTables(n, dim, workers, budget, given)
	need := membudget.Need{Who: who, N: n, What: t.describe(extra), Bytes: t.total() + extra}
	var instead []string
	switch {
	case e.Variant == StudentT:
		instead = append(instead, approx)
	case t.cache > 0 || t.input > 0 && !given:
		instead = append(instead, "a smaller MemoryBudget keeps the input distances as float32 or recomputes them, and p on the fly (slower)")
	}
	if t.start > 0 {
		instead = append(instead, "a random start (InitRandom, lowdim -init random) skips the classical-MDS start")
	}
	need.Instead = strings.Join(instead, "; ")
	// The estimate grows with n, so the refusal can say how many points fit, when the storage
	// form cannot change with n: t-NeRV (whose joint probabilities fitting the budget mean the
	// input does too, as float64) or a given matrix with the classical-MDS start (which
	// outweighs the cache that may drop out).
	if e.Variant == StudentT || t.start > 0 {
		need.PerN = func(m int) int64 {
			r := float64(m) / float64(n) // extra is O(n²): snerv's n×n distances
			return e.exactTables(m, dim, workers, budget, given).total() + int64(float64(extra)*r*r)
		}
	}
	return membudget.Check(need)
}

// checkMemory refuses supervised NeRV up front, before the mixture is fitted, when its n×n
// learning-metric distances and the exact path on them do not fit (see checkExact).
func (s Supervised) checkMemory(n, h int) error {
	e := s.Embedder
	dim, workers, budget := e.Dim, e.Workers, e.MemoryBudget
	if dim == 0 {
		dim = 2
	}
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	if budget == 0 {
		budget = DefaultMemoryBudget
	}
	// The mixture's number of components is not known yet: its O(n·G) share is left out.
	lm := learnmetric.DistancesBytes(n, h, 0)
	if !e.approxFor(n) {
		return e.checkExact("snerv", n, dim, workers, budget, true, lm)
	}
	// The approximate path keeps a k-NN graph of the distances, but squares the matrix first
	// and starts from its classical MDS.
	perN := func(m int) int64 {
		b := learnmetric.DistancesBytes(m, h, 0) + bytesFor(store64, m)
		if e.Start == nil && e.Init == InitPCA {
			b += cmds.Bytes(m)
		}
		return b
	}
	return membudget.Check(membudget.Need{Who: "snerv", N: n, What: "the n×n learning-metric distances, their squares and classical-MDS start",
		Bytes: perN(n), PerN: perN, Instead: "embed a sample of the rows (supervised NeRV needs all n² distances)"})
}
