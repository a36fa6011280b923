package nerv

import (
	"context"
	"errors"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/internal/membudget"
	"github.com/lowdim/lowdim/internal/membudget/budgettest"
)

type lineMatrix = budgettest.LineMatrix

var allocated = budgettest.Allocated

// refuses runs a fit that must be refused up front: the error must match membudget.ErrTooBig
// and dataset.ErrInvalid and start with want, and the fit must allocate less than 1 MiB — far
// below one n×n row of any n here (8 MB at a million).
func refuses(t *testing.T, name, want string, fit func() error) {
	t.Helper()
	var err error
	b := allocated(func() { err = fit() })
	if !errors.Is(err, membudget.ErrTooBig) || !errors.Is(err, dataset.ErrInvalid) {
		t.Fatalf("%s: %v, want a membudget refusal", name, err)
	}
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("%s:\ngot  %v\nwant %s…", name, err, want)
	}
	if b > 1<<20 {
		t.Errorf("%s: the refusal allocated %d bytes", name, b)
	}
}

// column is n rows of one feature, 0, 1, 2, …
func column(n int) *dataset.Set {
	x := mat.NewDense(n, 1, nil)
	for i := range n {
		x.Set(i, 0, float64(i))
	}
	return &dataset.Set{X: x}
}

// TestExactRefusesUpFront (issue 18 item 7): every member of the family on the exact path
// refuses a size whose tables do not fit, before allocating them, in membudget's one message
// shape. The available memory is injected through LOWDIM_MEMORY. The figures are 8·n² bytes per
// n×n float64 table, plus 8n·(7·workers + 32·dim + 4) of work space (Workers 1, Dim 2: 600n).
func TestExactRefusesUpFront(t *testing.T) {
	ctx := context.Background()
	t.Setenv(membudget.EnvVar, "64GiB")
	million := column(1_000_000)

	// t-SNE's joint probabilities, 16·10¹² bytes = 14,901.2 GiB, must fit MemoryBudget (2 GiB by
	// default): 16n² ≤ 2³¹ for n ≤ 11,585.
	tsne := Embedder{Variant: StudentT, Lambda: Lambda(1), Path: PathExact, Workers: 1}
	refuses(t, "tsne", "tsne: n = 1,000,000 needs 14901.2 GiB for the exact path's n×n joint probabilities, more than the memory budget of 2.0 GiB (MemoryBudget; 64.0 GiB available, LOWDIM_MEMORY); at most n = 11,585 fit — use the approximate path",
		func() error { _, err := tsne.Fit(ctx, million); return err })

	// Within a larger budget, the tables together must fit the available memory: at n = 8,000,
	// input distances 8n² = 488.3 MiB and p, log p 16n² = 976.6 MiB, 24n² + 600n = 1.43 GiB > 1 GiB;
	// 24n² + 600n ≤ 2³⁰ for n ≤ 6,676.
	t.Setenv(membudget.EnvVar, "1GiB")
	tsne.MemoryBudget = 1 << 40
	refuses(t, "tsne, available", "tsne: n = 8,000 needs 1.4 GiB for the exact path's n×n tables (input distances as float64 488.3 MiB, p and log p 976.6 MiB), more than the 1.0 GiB available (LOWDIM_MEMORY); at most n = 6,676 fit — use the approximate path",
		func() error { _, err := tsne.Fit(ctx, column(8000)); return err })

	// NeRV on a given matrix of a million objects: its squares (8n²) and the classical-MDS start
	// (cmds.Bytes: 24n² + 512n), 32n² + 1,112n = 29,803.4 GiB; ≤ 64 GiB for n ≤ 46,323.
	t.Setenv(membudget.EnvVar, "64GiB")
	nerv := Embedder{Distances: lineMatrix(1_000_000), Workers: 1}
	refuses(t, "nerv -distances", "nerv: n = 1,000,000 needs 29803.4 GiB for the exact path's n×n tables (input distances as float64 7450.6 GiB, classical-MDS start 22352.2 GiB), more than the 64.0 GiB available (LOWDIM_MEMORY); at most n = 46,323 fit — a random start (InitRandom, lowdim -init random) skips the classical-MDS start",
		func() error { _, err := nerv.Fit(ctx, nil); return err })

	// Supervised NeRV refuses before it fits its mixture (which would take minutes): the
	// learning-metric distances (8n² + 8n·H) come on top of the above, 37,253.9 GiB; the
	// largest n that fits, 41,434, is from bisecting the same sum.
	labelled := column(1_000_000)
	labelled.Labels = make([]int, 1_000_000)
	labelled.Labels[1] = 1
	snerv := Supervised{Embedder: Embedder{Workers: 1}}
	refuses(t, "snerv", "snerv: n = 1,000,000 needs 37253.9 GiB for the exact path's n×n tables (learning-metric distances 7450.6 GiB, input distances as float64 7450.6 GiB, classical-MDS start 22352.2 GiB), more than the 64.0 GiB available (LOWDIM_MEMORY); at most n = 41,434 fit",
		func() error { _, err := snerv.Fit(ctx, labelled); return err })
}

// TestExactNeRVBudgetAdvice: NeRV on features keeps its tables within MemoryBudget, and the
// advice when they do not fit the memory available is a smaller budget (there is no "at most n",
// since a smaller storage form fits any n); with MemoryBudget 1 byte only O(n) work space is
// left, which fits.
func TestExactNeRVBudgetAdvice(t *testing.T) {
	t.Setenv(membudget.EnvVar, "100MiB")
	e := Embedder{Workers: 1}
	// 8n² + 16n² + 600n at n = 5,000 = 575.1 MiB.
	err := e.checkExact("nerv", 5000, 2, 1, DefaultMemoryBudget, false, 0)
	want := "nerv: n = 5,000 needs 575.1 MiB for the exact path's n×n tables (input distances as float64 190.7 MiB, p and log p 381.5 MiB), more than the 100.0 MiB available (LOWDIM_MEMORY) — a smaller MemoryBudget keeps the input distances as float32 or recomputes them, and p on the fly (slower)"
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	if err := e.checkExact("nerv", 5000, 2, 1, 1, false, 0); err != nil {
		t.Errorf("MemoryBudget 1: %v", err)
	}
}
