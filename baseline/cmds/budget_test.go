package cmds

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/internal/membudget"
	"github.com/lowdim/lowdim/internal/membudget/budgettest"
)

type lineMatrix = budgettest.LineMatrix

var allocated = budgettest.Allocated

// TestRefusesHugeDistanceMatrix: a million objects would need 3 n×n matrices, 22,352 GiB; with
// 1 GiB available (injected through LOWDIM_MEMORY) FromDistances refuses before it allocates
// anything of that size, and says how many objects would fit and what to do instead.
func TestRefusesHugeDistanceMatrix(t *testing.T) {
	t.Setenv(membudget.EnvVar, "1GiB")
	var err error
	b := allocated(func() { _, err = FromDistances(context.Background(), lineMatrix(1_000_000), 2) })
	// Bytes(10⁶) = 24·10¹² + 512·10⁶ bytes = 22,352.2 GiB; 24n² + 512n ≤ 2³⁰ for n ≤ 6,678.
	want := "cmds: n = 1,000,000 needs 22352.2 GiB for the n×n double centring and its eigenvectors, more than the 1.0 GiB available (LOWDIM_MEMORY); at most n = 6,678 fit — from features, classical MDS is PCA in O(n·H) memory"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("got  %v\nwant %s…", err, want)
	}
	if !errors.Is(err, membudget.ErrTooBig) || !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("%v does not match ErrTooBig and ErrInvalid", err)
	}
	// 1 MiB: far below one n×n row (8 MB), let alone a matrix.
	if b > 1<<20 {
		t.Errorf("the refusal allocated %d bytes", b)
	}
	// Within the memory, the same call goes on to its own checks (here: 6 objects, fine).
	if _, err := FromDistances(context.Background(), lineMatrix(6), 2); err != nil {
		t.Error(err)
	}
}

// TestFitRefusesTinyBudget: Fit's n×n route checks too (300 rows need 2.2 MB).
func TestFitRefusesTinyBudget(t *testing.T) {
	t.Setenv(membudget.EnvVar, "1MiB")
	_, err := CMDS{}.Fit(context.Background(), digits300())
	if !errors.Is(err, membudget.ErrTooBig) || !strings.Contains(err.Error(), "cmds: n = 300 needs 2.2 MiB") {
		t.Errorf("got %v", err)
	}
}
