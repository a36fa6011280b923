package hope

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math"
	"testing"

	"github.com/lowdim/lowdim/dataset"
	iblas "github.com/lowdim/lowdim/internal/blas"
)

func TestShift(t *testing.T) {
	// A 4-wide, 3-high image with distinct pixels 1…12 (row by row).
	src := []float64{
		1, 2, 3, 4,
		5, 6, 7, 8,
		9, 10, 11, 12,
	}
	dst := make([]float64, len(src))
	const bg = -1
	// One column right, one row up: pixel (1, 1) = 6 lands at (0, 2); the last column and the
	// bottom row come from outside.
	shift(dst, src, 4, 3, 1, -1, bg)
	want := []float64{
		bg, 5, 6, 7,
		bg, 9, 10, 11,
		bg, bg, bg, bg,
	}
	if !equalSlices(dst, want) {
		t.Errorf("shift (1, −1):\n got %v\nwant %v", dst, want)
	}
	shift(dst, src, 4, 3, 0, 0, bg)
	if !equalSlices(dst, src) {
		t.Errorf("shift (0, 0) changed the image: %v", dst)
	}
	// Two columns left, two rows down: only pixels (0, 2) = 3 and (0, 3) = 4 stay inside, at
	// (2, 0) and (2, 1).
	shift(dst, src, 4, 3, -2, 2, bg)
	want = []float64{
		bg, bg, bg, bg,
		bg, bg, bg, bg,
		3, 4, bg, bg,
	}
	if !equalSlices(dst, want) {
		t.Errorf("shift (−2, 2):\n got %v\nwant %v", dst, want)
	}
	// Without rotation the bilinear warp agrees with the shift exactly.
	w := make([]float64, len(src))
	for _, d := range [][2]int{{1, -1}, {-2, 2}, {0, 1}, {3, 0}} {
		shift(dst, src, 4, 3, d[0], d[1], bg)
		warp(w, src, 4, 3, float64(d[0]), float64(d[1]), 0, bg)
		if !equalSlices(dst, w) {
			t.Errorf("warp (%d, %d) without rotation: %v, shift gives %v", d[0], d[1], w, dst)
		}
	}
}

func TestWarpRotation(t *testing.T) {
	// 3×3 image with one lit pixel at the top middle (row 0, column 1); a quarter turn
	// clockwise on screen moves it to the right middle (row 1, column 2).
	src := make([]float64, 9)
	src[1] = 1
	dst := make([]float64, 9)
	warp(dst, src, 3, 3, 0, 0, math.Pi/2, 0)
	for i, v := range dst {
		want := 0.0
		if i == 1*3+2 {
			want = 1
		}
		// cos(π/2) is 6e-17, not 0: the bilinear weights are off by that much.
		if math.Abs(v-want) > 1e-12 {
			t.Errorf("quarter turn: pixel %d = %v, want %v (image %v)", i, v, want, dst)
		}
	}
	// A small turn keeps the total ink of a centred blob (bilinear weights sum to 1) and
	// spreads the lit centre pixel over its neighbours only a little.
	src = make([]float64, 25)
	src[12] = 1
	dst = make([]float64, 25)
	warp(dst, src, 5, 5, 0, 0, 10*math.Pi/180, 0)
	if math.Abs(dst[12]-1) > 1e-12 {
		t.Errorf("the centre of rotation moved: %v", dst)
	}
}

// fitChecksum is the SHA-256 of the bits of a fit's parameters and training embedding.
func fitChecksum(t *testing.T, e Embedder, d *dataset.Set) string {
	t.Helper()
	m, err := e.Train(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	var b [8]byte
	for _, v := range append(append([]float64(nil), m.theta...), m.Y.RawMatrix().Data...) {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
		h.Write(b[:])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// augmentFit is a small S-HOPE fit with exemplars and the joint stage, so that every stage
// that loads training rows runs; the 16 features are a 4×4 image.
func augmentFit(opt Optimizer) Embedder {
	e := small(opt)
	e.Epochs, e.Workers, e.Exemplars, e.Joint, e.JointEpochs = 3, 1, 2, true, 2
	return e
}

// TestAugmentOffSameBytes: with the zero Augment a fit gives the bytes it gave before
// augmentation existed.
func TestAugmentOffSameBytes(t *testing.T) {
	if iblas.Name != "gonum" {
		t.Skipf("the stored checksums are of the pure-Go build; this one multiplies with %s", iblas.Name)
	}
	d := blobs(160, 16, 4, 11)
	// Computed with this very fit at commit 2d3aaf7 (before Augment existed), pure-Go build.
	want := map[Optimizer]string{
		Adam: "7e9b3af2a0e2b8aee8268d2b98e37cd3512bb4d2211ccb6dc3bd2bc2f18f8152",
		CG:   "f9de13aacba696219e45fa10e9fdee73b5e1fe7d121f0075e0807275d8ce9b9e",
	}
	for opt, sum := range want {
		if got := fitChecksum(t, augmentFit(opt), d); got != sum {
			t.Errorf("%v without augmentation: checksum %s, want %s", opt, got, sum)
		}
	}
}

func TestAugmentDeterministic(t *testing.T) {
	d := blobs(160, 16, 4, 11)
	off := fitChecksum(t, augmentFit(Adam), d)
	for _, a := range []Augment{{Shift: 1}, {Shift: 2, Rotate: 10}, {Rotate: 5, Width: 2, Height: 8}} {
		e := augmentFit(Adam)
		e.Augment = a
		one := fitChecksum(t, e, d)
		if again := fitChecksum(t, e, d); again != one {
			t.Errorf("%+v: two fits with the same seed differ", a)
		}
		e.Workers = 3
		if three := fitChecksum(t, e, d); three != one {
			t.Errorf("%+v: 3 workers give other bytes than 1", a)
		}
		if one == off {
			t.Errorf("%+v: the augmented fit equals the plain one", a)
		}
		e.Seed++
		if other := fitChecksum(t, e, d); other == one {
			t.Errorf("%+v: another seed gives the same fit", a)
		}
	}
}

// TestAugmentRows: the rows a batch loads are shifted training rows, filled with the training
// rows' minimum, and never validation rows.
func TestAugmentRows(t *testing.T) {
	d := blobs(90, 9, 3, 4)
	e := Embedder{Sigmoid: true, Factors: 4, Hidden: 4, Batch: 81, Augment: Augment{Shift: 2}, Seed: 5, Workers: 1}
	tr := testTrainer(t, e, d)
	bg := math.Inf(1)
	for _, i := range tr.train {
		for _, v := range d.X.RawRowView(i) {
			bg = min(bg, v)
		}
	}
	if tr.aug.background != bg {
		t.Errorf("background %v, want the training rows' minimum %v", tr.aug.background, bg)
	}
	valid := map[int]bool{}
	for _, i := range tr.valid {
		valid[i] = true
	}
	cols := tr.sh.cols()
	img := make([]float64, 9)
	moved := 0
	for a, i := range tr.perm[tr.batchLo:tr.batchHi] {
		if valid[i] {
			t.Fatalf("validation row %d in a training batch", i)
		}
		// Undo the normalisation and find the shift that explains the loaded row.
		got := tr.net.x[a*cols : (a+1)*cols]
		for j := range img {
			img[j] = got[j]*tr.scale + tr.mean[j]
		}
		found := false
		for dx := -2; dx <= 2 && !found; dx++ {
			for dy := -2; dy <= 2 && !found; dy++ {
				shift(tr.aug.buf, d.X.RawRowView(i), 3, 3, dx, dy, bg)
				found = closeSlices(img, tr.aug.buf, 1e-12)
				if found && (dx != 0 || dy != 0) {
					moved++
				}
			}
		}
		if !found {
			t.Fatalf("batch row %d is no shift of training row %d", a, i)
		}
	}
	// 81 rows, each left in place with probability 1/25: nearly all must have moved.
	if moved < 60 {
		t.Errorf("only %d of %d rows moved", moved, tr.batchHi-tr.batchLo)
	}
}

func closeSlices(a, b []float64, tol float64) bool {
	for i := range a {
		if math.Abs(a[i]-b[i]) > tol*(1+math.Abs(b[i])) {
			return false
		}
	}
	return len(a) == len(b)
}

func TestAugmentBadShape(t *testing.T) {
	square := blobs(60, 9, 3, 10) // a 3×3 image
	odd := blobs(60, 10, 3, 10)   // not square
	for _, c := range []struct {
		name string
		a    Augment
		d    *dataset.Set
	}{
		{"10 features, no shape", Augment{Shift: 1}, odd},
		{"shift = side", Augment{Shift: 3}, square},
		{"shift ≥ height", Augment{Shift: 2, Width: 5, Height: 2}, odd},
		{"shape of another size", Augment{Shift: 1, Width: 4, Height: 4}, square},
		{"width without height", Augment{Shift: 1, Width: 5}, odd},
		{"negative shift", Augment{Shift: -1}, square},
		{"rotation beyond 45°", Augment{Rotate: 60}, square},
		{"NaN rotation", Augment{Rotate: math.NaN()}, square},
		{"a wrong shape alone", Augment{Width: 4, Height: 4}, square},
	} {
		e := Embedder{Sigmoid: true, Factors: 4, Hidden: 4, Epochs: 1, Augment: c.a}
		if _, err := e.Fit(context.Background(), c.d); !errors.Is(err, dataset.ErrInvalid) {
			t.Errorf("%s: %v, want an ErrInvalid error", c.name, err)
		}
	}
	// 5×2 images of 10 features take a shift of 1.
	e := Embedder{Sigmoid: true, Factors: 4, Hidden: 4, Epochs: 1, Augment: Augment{Shift: 1, Width: 5, Height: 2}}
	if _, err := e.Fit(context.Background(), odd); err != nil {
		t.Errorf("shift 1 on 5×2 images: %v", err)
	}
}
