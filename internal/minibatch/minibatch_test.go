package minibatch

import (
	"math"
	"sync/atomic"
	"testing"
)

// TestAdamFirstStep: from zero moments the bias-corrected first step is lr·g/(|g| + ε), i.e.
// lr·sign(g) for |g| ≫ ε (Kingma and Ba, §2), whatever the gradient's scale; Reset starts over.
func TestAdamFirstStep(t *testing.T) {
	var a Adam
	a.Reset(3)
	x := []float64{1, 1, 1}
	a.Step(x, []float64{1e-3, -5, 0}, 0.1)
	want := []float64{1 - 0.1*1e-3/(1e-3+1e-8), 1 + 0.1*5/(5+1e-8), 1}
	for i := range x {
		if math.Abs(x[i]-want[i]) > 1e-12 {
			t.Errorf("x[%d] = %v, want %v", i, x[i], want[i])
		}
	}
	a.Reset(3)
	if a.T != 0 || a.M[1] != 0 || a.V[1] != 0 {
		t.Errorf("Reset left T %d, m %v, v %v", a.T, a.M[1], a.V[1])
	}
}

// TestSpanAndPool: the blocks of Span tile 0..n, and Run visits every block once.
func TestSpanAndPool(t *testing.T) {
	p := NewPool(3)
	defer p.Close()
	for _, n := range []int{1, 7, 100} {
		for _, nb := range []int{1, 3, 16} {
			prev := 0
			for b := range nb {
				lo, hi := Span(b, nb, n)
				if lo != prev || hi < lo {
					t.Fatalf("n %d, %d blocks: block %d is [%d, %d) after %d", n, nb, b, lo, hi, prev)
				}
				prev = hi
			}
			if prev != n {
				t.Fatalf("n %d, %d blocks end at %d", n, nb, prev)
			}
			var seen [16]atomic.Int32
			p.Run(nb, func(b int) { seen[b].Add(1) })
			for b := range nb {
				if seen[b].Load() != 1 {
					t.Fatalf("block %d run %d times", b, seen[b].Load())
				}
			}
		}
	}
}
