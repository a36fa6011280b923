package laplacian

import (
	"context"
	"testing"

	"github.com/lowdim/lowdim/baseline/internal/golden"
)

// BenchmarkDefaultK2000: scikit-learn's default k = n/10 makes the graph dense enough that the
// envelope factor approaches a dense Cholesky.
func BenchmarkDefaultK2000(b *testing.B) {
	d := golden.SCurve(2000, 0.05, 1)
	for b.Loop() {
		if _, err := (Eigenmap{}).Fit(context.Background(), d); err != nil {
			b.Fatal(err)
		}
	}
}
