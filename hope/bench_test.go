package hope

import (
	"context"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// benchTrainer is a trainer on random data shaped like USPS S-HOPE: H = 256, F = 400, m = 400,
// batches of 250 rows.
func benchTrainer(b *testing.B, e Embedder) *trainer {
	d := blobs(1000, 256, 10, 1)
	c, err := e.config(256, 10)
	if err != nil {
		b.Fatal(err)
	}
	tr := newTrainer(c, d, 10)
	b.Cleanup(tr.close)
	tr.batchLo, tr.batchHi = 0, min(e.Batch, tr.maxRows)
	tr.upMap = true
	tr.load()
	return tr
}

// BenchmarkStepAdam: one cost, gradient and Adam update on a batch of 250 USPS-sized rows.
func BenchmarkStepAdam(b *testing.B) {
	tr := benchTrainer(b, Embedder{Sigmoid: true, Factors: 400, Hidden: 400, Batch: 250, Optimizer: Adam})
	b.ReportAllocs()
	for b.Loop() {
		tr.step()
	}
}

// BenchmarkStepCG: CG with 3 iterations on the same batch (several cost evaluations).
func BenchmarkStepCG(b *testing.B) {
	tr := benchTrainer(b, Embedder{Sigmoid: true, Factors: 400, Hidden: 400, Batch: 250})
	b.ReportAllocs()
	for b.Loop() {
		tr.step()
	}
}

// BenchmarkPairs: the MCML pair cost and its gradient on 1000 embedded rows (10⁶ pairs).
func BenchmarkPairs(b *testing.B) {
	tr := benchTrainer(b, Embedder{Sigmoid: true, Factors: 20, Hidden: 20, Batch: 1000})
	r := tr.batchHi - tr.batchLo
	tr.net.forward(tr.theta, r)
	b.ReportAllocs()
	for b.Loop() {
		tr.obj.Pairs(tr.net.y, tr.net.gy, tr.batchLab, r, tr.classCount)
	}
}

// BenchmarkTransform: embedding 2,000 USPS-sized rows with a USPS-sized S-HOPE map.
func BenchmarkTransform(b *testing.B) {
	tr := benchTrainer(b, Embedder{Sigmoid: true, Factors: 400, Hidden: 400, Batch: 250})
	m := tr.model()
	x := blobs(2000, 256, 10, 2).X
	var y mat.Dense
	b.ReportAllocs()
	for b.Loop() {
		y.Reset()
		if err := m.TransformContext(context.Background(), &y, x); err != nil {
			b.Fatal(err)
		}
	}
}
