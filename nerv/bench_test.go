package nerv

import (
	"context"
	"fmt"
	"testing"

	"github.com/lowdim/lowdim/affinity"
)

// benchEval times one exact cost-and-gradient evaluation on n random 10-D points.
func benchEval(b *testing.B, n int, student, normalise bool) {
	x := randDense(n, 10, 1)
	in, err := newInput(context.Background(), x, nil, DefaultMemoryBudget, 0+2)
	if err != nil {
		b.Fatal(err)
	}
	if err := in.calibrate(context.Background(), 20, affinity.Exact, 2); err != nil {
		b.Fatal(err)
	}
	cache := bytesFor(store64, n)*2+bytesFor(in.how, n) <= DefaultMemoryBudget
	ev := newEvaluator(in, 2, 0.1, student, normalise, cache, 2)
	defer ev.close()
	ev.setSigma(in.final)
	y := randDense(n, 2, 2).RawMatrix().Data
	g := make([]float64, len(y))
	b.ReportAllocs()
	for b.Loop() {
		ev.eval(y, g)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n)/float64(n), "ns/pair")
}

func BenchmarkEval(b *testing.B) {
	for _, n := range []int{1000, 5000, 20000} {
		for _, v := range []struct {
			name            string
			student, normal bool
		}{{"nerv", false, true}, {"nerv-raw", false, false}, {"tnerv", true, false}} {
			if v.student && n > 10000 {
				continue
			}
			b.Run(fmt.Sprintf("%s/n=%d", v.name, n), func(b *testing.B) { benchEval(b, n, v.student, v.normal) })
		}
	}
}
