package reproduce

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestPairedTTestClosedForm(t *testing.T) {
	// Differences 1, 2, 3: mean 2, sd 1, t = 2√3 on 2 degrees of freedom, whose CDF is
	// F(t) = 1/2 + t/(2√(2+t²)), so p = 1 − t/√(2+t²).
	r, err := PairedTTest([]float64{3, 5, 7}, []float64{2, 3, 4})
	if err != nil {
		t.Fatal(err)
	}
	wantT := 2 * math.Sqrt(3)
	wantP := 1 - wantT/math.Sqrt(2+wantT*wantT)
	if r.DF != 2 || math.Abs(r.T-wantT) > 1e-12 || math.Abs(r.P-wantP) > 1e-12 {
		t.Errorf("got t=%v df=%d p=%v, want t=%v df=2 p=%v", r.T, r.DF, r.P, wantT, wantP)
	}
	// Two pairs: 1 degree of freedom (Cauchy), F(t) = 1/2 + atan(t)/π. Differences −1, −3:
	// mean −2, sd √2, t = −2/(√2/√2) = −2.
	r, err = PairedTTest([]float64{0, 0}, []float64{1, 3})
	if err != nil {
		t.Fatal(err)
	}
	wantP = 1 - 2*math.Atan(2)/math.Pi
	if r.DF != 1 || math.Abs(r.T+2) > 1e-12 || math.Abs(r.P-wantP) > 1e-12 {
		t.Errorf("got t=%v df=%d p=%v, want t=-2 df=1 p=%v", r.T, r.DF, r.P, wantP)
	}
	// Swapping the samples flips t and keeps p.
	s, _ := PairedTTest([]float64{1, 3}, []float64{0, 0})
	if s.T != -r.T || s.P != r.P {
		t.Errorf("swapped: t=%v p=%v, want %v and %v", s.T, s.P, -r.T, r.P)
	}
	if r, _ := PairedTTest([]float64{1, 2}, []float64{1, 2}); r.T != 0 || r.P != 1 {
		t.Errorf("identical samples: t=%v p=%v, want 0 and 1", r.T, r.P)
	}
	if r, _ := PairedTTest([]float64{2, 3}, []float64{1, 2}); !math.IsInf(r.T, 1) || r.P != 0 {
		t.Errorf("constant difference: t=%v p=%v, want +Inf and 0", r.T, r.P)
	}
	for _, bad := range [][2][]float64{{{1}, {2}}, {{1, 2}, {1}}, {{1, math.NaN()}, {1, 2}}} {
		if _, err := PairedTTest(bad[0], bad[1]); err == nil {
			t.Errorf("PairedTTest(%v, %v): no error", bad[0], bad[1])
		}
	}
}

func TestHeldOutKNNError(t *testing.T) {
	// Two clusters on a line: class 0 near 0, class 1 near 10. Rows 6 and 7 are test rows.
	y := mat.NewDense(8, 1, []float64{0, 1, 2, 10, 11, 12, 0.5, 10.5})
	labels := []int{0, 0, 0, 1, 1, 1, 0, 1}
	train, test := []int{0, 1, 2, 3, 4, 5}, []int{6, 7}
	if e, err := HeldOutKNNError(y, labels, train, test, 3); err != nil || e != 0 {
		t.Errorf("separated clusters: error %v, %v; want 0", e, err)
	}
	// Mislabel the test rows: both are then wrong.
	wrong := []int{0, 0, 0, 1, 1, 1, 1, 0}
	if e, _ := HeldOutKNNError(y, wrong, train, test, 3); e != 1 {
		t.Errorf("mislabelled test rows: error %v, want 1", e)
	}
	// k = 2 with one voter of each class: the tie goes to the nearer one.
	y2 := mat.NewDense(3, 1, []float64{0, 3, 1})
	if e, _ := HeldOutKNNError(y2, []int{0, 1, 0}, []int{0, 1}, []int{2}, 2); e != 0 {
		t.Errorf("tie: error %v, want 0 (nearest voter is class 0)", e)
	}
	// Unlabelled training rows do not vote; unlabelled test rows do not count.
	if e, _ := HeldOutKNNError(y2, []int{-1, 1, 0}, []int{0, 1}, []int{2}, 1); e != 1 {
		t.Errorf("unlabelled voter: error %v, want 1 (only class 1 votes)", e)
	}
	if _, err := HeldOutKNNError(y2, []int{0, 1, -1}, []int{0, 1}, []int{2}, 1); err == nil {
		t.Error("no labelled test row: no error")
	}
	if _, err := HeldOutKNNError(y2, []int{0, 1, 0}, []int{0, 1}, []int{2}, 3); err == nil {
		t.Error("k larger than the training rows: no error")
	}
}

func TestThousands(t *testing.T) {
	for _, c := range []struct {
		v    float64
		d    int
		want string
	}{{5899.3, 1, "5,899.3"}, {2443849.4, 0, "2,443,849"}, {999, 0, "999"}, {-1234.5, 1, "-1,234.5"}, {math.NaN(), 0, "—"}} {
		if got := Thousands(c.v, c.d); got != c.want {
			t.Errorf("Thousands(%v, %d) = %q, want %q", c.v, c.d, got, c.want)
		}
	}
}
