package learnmetric

import (
	"context"
	"errors"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/internal/membudget"
)

// ramp is an n×2 data matrix (i, −i) without storage.
type ramp int

func (n ramp) Dims() (int, int) { return int(n), 2 }
func (ramp) At(i, j int) float64 {
	if j == 1 {
		return -float64(i)
	}
	return float64(i)
}
func (n ramp) T() mat.Matrix { return mat.Transpose{Matrix: n} }

// TestDistancesRefusesUpFront (issue 18 item 7): a million rows would need a 7,450.6 GiB n×n
// matrix (8n² + 8n·(H + 2G) with H = 2, G = 3); with 1 GiB available (LOWDIM_MEMORY) Distances
// refuses before allocating anything of that size (8n² + 64n ≤ 2³⁰ for n ≤ 11,581).
func TestDistancesRefusesUpFront(t *testing.T) {
	t.Setenv(membudget.EnvVar, "1GiB")
	m := randomMixture(3, 2, 2, 1, 1)
	var err error
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	_, err = Distances(context.Background(), m, ramp(1_000_000), Options{})
	runtime.ReadMemStats(&b)
	want := "learnmetric: n = 1,000,000 needs 7450.6 GiB for the n×n learning-metric distances, more than the 1.0 GiB available (LOWDIM_MEMORY); at most n = 11,581 fit — compute them for a sample of the rows"
	if err == nil || err.Error() != want {
		t.Fatalf("got  %v\nwant %s", err, want)
	}
	if !errors.Is(err, membudget.ErrTooBig) || !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("%v does not match ErrTooBig and ErrInvalid", err)
	}
	// 1 MiB: far below the 16 MB of the million rows' n×H projection, let alone n×n.
	if d := b.TotalAlloc - a.TotalAlloc; d > 1<<20 {
		t.Errorf("the refusal allocated %d bytes", d)
	}
}
