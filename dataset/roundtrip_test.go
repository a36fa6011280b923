package dataset

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// sameSet compares what a writer promises to keep: X bit for bit, labels and class names.
func sameSet(t *testing.T, what string, a, b *Set) {
	t.Helper()
	if !mat.Equal(a.X, b.X) {
		t.Errorf("%s: X differs", what)
	}
	if !reflect.DeepEqual(labelNames(a), labelNames(b)) {
		t.Errorf("%s: labels differ: %q vs %q", what, labelNames(a), labelNames(b))
	}
	if a.HasLabels() && !reflect.DeepEqual(a.ClassNames, b.ClassNames) {
		t.Errorf("%s: class names %q vs %q", what, a.ClassNames, b.ClassNames)
	}
}

func randomSet(rng *rand.Rand, n, h int, classes []string) *Set {
	x := mat.NewDense(n, h, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < h; j++ {
			x.Set(i, j, rng.NormFloat64()*1e3) // full-precision floats
		}
	}
	s := &Set{Name: "random", X: x}
	if classes != nil {
		s.ClassNames = classes
		s.Labels = make([]int, n)
		for i := range s.Labels {
			s.Labels[i] = rng.IntN(len(classes))
		}
		s.Labels[0] = 0 // every class appears in first-appearance order
		for c := range classes {
			s.Labels[c] = c
		}
	}
	return s
}

func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, classes := range [][]string{nil, {"cat", "dog, hound", `"q"`}, {"#", "&", `\`, "["}} {
		s := randomSet(rng, 50, 4, classes)
		var buf bytes.Buffer
		if err := WriteCSV(&buf, s); err != nil {
			t.Fatal(err)
		}
		back, err := Read(bytes.NewReader(buf.Bytes()), "rt.csv", Options{})
		if err != nil {
			t.Fatal(err)
		}
		sameSet(t, "CSV", s, back)
		if !reflect.DeepEqual(back.FeatureNames, []string{"x1", "x2", "x3", "x4"}) {
			t.Errorf("CSV feature names %q", back.FeatureNames)
		}
		if strings.Contains(strings.Join(classes, ""), ",") {
			continue // SOM_PAK labels are single tokens
		}
		buf.Reset()
		if err := WriteSOMPAK(&buf, s); err != nil {
			t.Fatal(err)
		}
		back, err = Read(bytes.NewReader(buf.Bytes()), "rt.dat", Options{})
		if err != nil {
			t.Fatal(err)
		}
		sameSet(t, "SOM_PAK", s, back)
	}
	if err := WriteSOMPAK(&bytes.Buffer{}, &Set{X: mat.NewDense(1, 1, nil), Labels: []int{0}, ClassNames: []string{"a b"}}); err == nil {
		t.Error("WriteSOMPAK accepted a class name with a space")
	}
	// Digits through CSV keeps numeric classes and targets.
	d := Digits()
	var buf bytes.Buffer
	if err := WriteCSV(&buf, d); err != nil {
		t.Fatal(err)
	}
	back, err := Read(&buf, "digits.csv", Options{})
	if err != nil {
		t.Fatal(err)
	}
	sameSet(t, "digits", d, back)
	if !reflect.DeepEqual(back.Target, d.Target) || !reflect.DeepEqual(back.FeatureNames, d.FeatureNames) {
		t.Error("digits: targets or feature names differ")
	}
}

func TestWriteEmbeddingCSV(t *testing.T) {
	s := mustRead(t, "a.csv", "x,label\n1,a\n2,b\n3,a\n", Options{})
	for d, header := range map[int]string{1: "x,label", 2: "x,y,label", 3: "x,y,z,label", 4: "y1,y2,y3,y4,label"} {
		y := mat.NewDense(3, d, nil)
		for i := 0; i < 3; i++ {
			for j := 0; j < d; j++ {
				y.Set(i, j, 1/float64(3*i+j+7)) // not exactly representable in short decimal
			}
		}
		var buf bytes.Buffer
		if err := WriteEmbeddingCSV(&buf, y, s); err != nil {
			t.Fatal(err)
		}
		if first, _, _ := strings.Cut(buf.String(), "\n"); first != header {
			t.Errorf("D=%d header %q, want %q", d, first, header)
		}
		back, err := Read(&buf, "emb.csv", Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(back.X, y) || !reflect.DeepEqual(labelNames(back), []string{"a", "b", "a"}) {
			t.Errorf("D=%d: embedding did not round-trip", d)
		}
	}
	var buf bytes.Buffer
	if err := WriteEmbeddingCSV(&buf, mat.NewDense(2, 2, []float64{1, 2, 3, 4}), nil); err != nil || buf.String() != "x,y\n1,2\n3,4\n" {
		t.Errorf("unlabelled: %q, %v", buf.String(), err)
	}
	if err := WriteEmbeddingCSV(&buf, mat.NewDense(2, 2, nil), s); err == nil {
		t.Error("row count mismatch accepted")
	}
	buf.Reset()
	named := &Set{RowNames: []string{"deposit", "a, b"}}
	if err := WriteEmbeddingCSV(&buf, mat.NewDense(2, 2, []float64{1, 2, 3, 4}), named); err != nil || buf.String() != "x,y,name\n1,2,deposit\n3,4,\"a, b\"\n" {
		t.Errorf("row names: %q, %v", buf.String(), err)
	}
}
