package hope

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/modelio"
	"github.com/lowdim/lowdim/modelio/modeliotest"
)

var (
	_ lowdim.Embedder    = Embedder{}
	_ lowdim.Transformer = (*Model)(nil)
	_ modelio.Model      = (*Model)(nil)
)

// small is a quick S-HOPE setting for the 3-class blobs.
func small(opt Optimizer) Embedder {
	return Embedder{Sigmoid: true, Factors: 8, Hidden: 8, Epochs: 6, Batch: 60, Optimizer: opt, LearningRate: 0.01, Seed: 3}
}

func TestFitSeparatesClasses(t *testing.T) {
	train, test := blobs(300, 10, 3, 5), blobs(150, 10, 3, 5)
	_ = test
	for _, opt := range []Optimizer{CG, Adam} {
		m, err := small(opt).Train(context.Background(), train)
		if err != nil {
			t.Fatal(err)
		}
		if len(m.History) != 6 {
			t.Fatalf("%v: %d epochs recorded, want 6", opt, len(m.History))
		}
		first, last := m.History[0].Cost, m.History[len(m.History)-1].Cost
		if !(last < first) {
			t.Errorf("%v: cost went from %v to %v", opt, first, last)
		}
		// The blobs are 2σ apart in each of 10 dimensions: a working map classifies the
		// held-out rows almost perfectly; 0.05 is far below chance (2/3).
		if !(m.ValidError < 0.05) {
			t.Errorf("%v: validation 5-NN error %v", opt, m.ValidError)
		}
	}
}

func TestDeterministic(t *testing.T) {
	d := blobs(200, 8, 3, 6)
	e := small(CG)
	e.Epochs = 2
	e.Workers = 1
	a, err := e.Train(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	e.Workers = 3
	b, err := e.Train(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	tr, va, err := e.Split(d)
	if err != nil {
		t.Fatal(err)
	}
	// Classes of 67, 67 and 66 rows: round(6.7) = round(6.6) = 7 held out of each.
	if len(tr)+len(va) != 200 || len(va) != 21 {
		t.Errorf("split %d + %d rows, want 179 + 21", len(tr), len(va))
	}
	c, _ := e.config(8, 3)
	ref := newTrainer(c, d, 3)
	ref.close()
	if fmt.Sprint(ref.valid) != fmt.Sprint(va) {
		t.Error("Split differs from the trainer's hold-out")
	}
	pa, _ := a.MarshalBinary()
	pb, _ := b.MarshalBinary()
	// Compare the parameters and embeddings (the in-memory history holds wall-clock times).
	if !mat.Equal(a.Y, b.Y) || !equalSlices(a.theta, b.theta) {
		t.Error("the same seed gave different models with 1 and 3 workers")
	}
	if len(pa) != len(pb) {
		t.Error("payload sizes differ")
	}
}

func equalSlices(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

func TestSaveLoadTransformIdentical(t *testing.T) {
	train, test := blobs(200, 8, 3, 7), blobs(90, 8, 3, 8)
	e := small(Adam)
	e.Epochs = 2
	e.Exemplars = 2
	e.Joint = true
	e.JointEpochs = 2
	e.Alternate = 1
	m, err := e.Train(context.Background(), train)
	if err != nil {
		t.Fatal(err)
	}
	if z, _ := m.Exemplars.Dims(); z != 6 {
		t.Fatalf("%d exemplars, want 2 per class × 3", z)
	}
	path := filepath.Join(t.TempDir(), "m.lowdim")
	if err := modelio.Save(path, m); err != nil {
		t.Fatal(err)
	}
	got, err := modelio.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	m2 := got.(*Model)
	var y1, y2 mat.Dense
	if err := m.Transform(&y1, test.X); err != nil {
		t.Fatal(err)
	}
	if err := m2.Transform(&y2, test.X); err != nil {
		t.Fatal(err)
	}
	if !equalSlices(y1.RawMatrix().Data, y2.RawMatrix().Data) {
		t.Error("transform after load differs")
	}
	p1, _ := m.MarshalBinary()
	p2, _ := m2.MarshalBinary()
	if !bytes.Equal(p1, p2) {
		t.Error("re-encoded payload differs")
	}
	c1, c2 := make([]int, 90), make([]int, 90)
	if err := m.Classify(context.Background(), c1, test.X, 0); err != nil {
		t.Fatal(err)
	}
	if err := m2.Classify(context.Background(), c2, test.X, 0); err != nil {
		t.Fatal(err)
	}
	wrong := 0
	for i := range c1 {
		if c1[i] != c2[i] {
			t.Fatal("classification after load differs")
		}
		if c1[i] != test.Labels[i] {
			wrong++
		}
	}
	// Separated blobs: 5-NN against 6 exemplars must beat chance (2/3) by far.
	if wrong > 90/5 {
		t.Errorf("%d of 90 test rows misclassified by the exemplars", wrong)
	}
	var bad mat.Dense
	if err := m2.Transform(&bad, mat.NewDense(2, 7, nil)); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("7 features into an 8-feature model: %v", err)
	}
}

func TestCancelKeepsBest(t *testing.T) {
	d := blobs(200, 8, 3, 9)
	e := small(Adam)
	e.Epochs = 50
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e.OnEpoch = func(ep Epoch) {
		if ep.Epoch == 2 {
			cancel()
		}
	}
	m, err := e.Train(ctx, d)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if m == nil || len(m.History) != 2 || m.Y == nil {
		t.Fatalf("cancelled fit: model %v", m)
	}
	best := math.Inf(1)
	for _, h := range m.History {
		best = min(best, h.ValidError)
	}
	if m.ValidError != best {
		t.Errorf("kept validation error %v, best was %v", m.ValidError, best)
	}
	ctx2, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if m, err := e.Train(ctx2, d); m != nil || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled before the first epoch: %v, %v", m, err)
	}
}

func TestBadInput(t *testing.T) {
	d := blobs(60, 4, 3, 10)
	one := blobs(60, 4, 1, 10)
	unl := &dataset.Set{X: d.X}
	missing := blobs(60, 4, 3, 10)
	missing.Labels[5] = -1
	nan := blobs(60, 4, 3, 10)
	nan.X.Set(3, 2, math.NaN())
	for _, c := range []struct {
		name string
		e    Embedder
		d    *dataset.Set
	}{
		{"no labels", Embedder{}, unl},
		{"a missing label", Embedder{}, missing},
		{"one class", Embedder{}, one},
		{"order < 0", Embedder{Order: -1}, d},
		{"more exemplars than rows", Embedder{Exemplars: 21}, d},
		{"joint without exemplars", Embedder{Joint: true}, d},
		{"hidden for HOPE", Embedder{Hidden: 3}, d},
		{"batch 1", Embedder{Batch: 1}, d},
		{"NaN", Embedder{}, nan},
		{"no data", Embedder{}, nil},
	} {
		if _, err := c.e.Fit(context.Background(), c.d); !errors.Is(err, dataset.ErrInvalid) {
			t.Errorf("%s: %v, want an ErrInvalid error", c.name, err)
		}
	}
}

// TestNoAllocations: one mini-batch step (cost, gradient, Adam update) allocates nothing once
// the buffers exist. The shapes are below gonum's threshold for its parallel Dgemm, which starts
// goroutines (and so allocates) for products of 4 or more 64×64 blocks.
func TestNoAllocations(t *testing.T) {
	if raceEnabled {
		// Since DgemmNT is the serial assembly kernel, a step splits its products over the
		// pool's workers, and under the race detector each hand-off allocates.
		t.Skip("the race detector's instrumentation allocates in the worker pool's hand-offs; run without -race")
	}
	// One P. The scratch of the short-k product kernel (internal/blas's sync.Pool) and the
	// runtime's wait records for the workers' hand-offs are cached per P: with many Ps, a worker
	// that lands on a P whose cache is empty allocates until every P's cache has filled, which
	// on a many-core machine outlasts a short warm-up (CI failed here with 1 allocation per
	// S-HOPE step, whose products have k ≤ 128, on a machine this 2-core one could not
	// reproduce). With one P the caches are reused at once and what is counted is ours; four
	// workers keep the hand-offs in the step on any machine.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	d := blobs(120, 20, 3, 11)
	for _, e := range []Embedder{
		{Sigmoid: true, Factors: 30, Hidden: 20, Batch: 60, Optimizer: Adam, Exemplars: 2, Joint: true},
		{Factors: 30, Batch: 60, Optimizer: Adam},
		{Sigmoid: true, Factors: 30, Hidden: 20, Batch: 60, Optimizer: Adam, Augment: Augment{Shift: 1, Rotate: 5, Width: 5, Height: 4}},
	} {
		e.Workers = 4
		tr := testTrainer(t, e, d)
		if e.Joint {
			tr.kmeans()
			tr.joint, tr.upMap, tr.upEx = true, true, true
		}
		for range 20 {
			tr.step()
		}
		if a := testing.AllocsPerRun(10, func() { tr.step() }); a != 0 {
			t.Errorf("%s: %v allocations per step", describe(e), a)
		}
	}
}

func TestKNNClassify(t *testing.T) {
	ref := mat.NewDense(6, 1, []float64{0, 1, 2, 10, 11, 12})
	lab := []int{0, 0, 1, 1, 1, 1}
	q := mat.NewDense(3, 1, []float64{0.4, 1.6, 11})
	got := make([]int, 3)
	if err := KNNClassify(context.Background(), got, ref, lab, q, 3, 2); err != nil {
		t.Fatal(err)
	}
	// 0.4: neighbours 0,1,2 → votes 0,0,1; 1.6: 2,1,0 → 1,0,0; 11: 11,10,12 → 1.
	if got[0] != 0 || got[1] != 0 || got[2] != 1 {
		t.Errorf("3-NN classes %v, want [0 0 1]", got)
	}
	// 1-NN: a tie of distances goes to the smaller index (0.5 is as far from 0 as from 1).
	if err := KNNClassify(context.Background(), got[:1], ref, []int{2, 3, 1, 1, 1, 1}, mat.NewDense(1, 1, []float64{0.5}), 1, 1); err != nil || got[0] != 2 {
		t.Errorf("tie: %v %v", got[0], err)
	}
}

// FuzzDecodeHOPE: the payload decoder never panics, fails only with ErrInvalid, and whatever
// decodes re-encodes to the same bytes.
func FuzzDecodeHOPE(f *testing.F) {
	e := small(Adam)
	e.Factors, e.Hidden, e.Epochs, e.Exemplars = 3, 2, 1, 1
	m, err := e.Train(context.Background(), blobs(30, 3, 2, 12))
	if err != nil {
		f.Fatal(err)
	}
	p, _ := m.MarshalBinary()
	modeliotest.FuzzPayload(f, decodeHOPE, hopeVersion, nil, p)
}

// A Start model continues: Epochs < 0 skips the map's training, the joint stage starts from the
// start model's exemplars, and a start of another shape is refused.
func TestStart(t *testing.T) {
	d := blobs(200, 8, 3, 13)
	e := small(Adam)
	e.Epochs, e.Exemplars = 2, 1
	m, err := e.Train(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	c := Embedder{Sigmoid: true, Start: m, Epochs: -1, Exemplars: 1, Joint: true, JointEpochs: 2, Alternate: -1, Batch: 60, Optimizer: Adam, Seed: 3}
	j, err := c.Train(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	if len(j.History) != 2 || j.History[0].Stage != "exemplars" {
		t.Fatalf("history %+v, want 2 exemplar epochs only", j.History)
	}
	if j.Factors() != m.Factors() || j.Hidden() != m.Hidden() {
		t.Error("the continued model changed shape")
	}
	if mat.Equal(j.Exemplars, m.Exemplars) && equalSlices(j.theta, m.theta) && j.History[1].Best {
		t.Error("joint epochs changed nothing")
	}
	c.Factors = m.Factors() + 1
	if _, err := c.Train(context.Background(), d); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("start of another shape: %v", err)
	}
	if _, err := (Embedder{Epochs: -1}).Train(context.Background(), d); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("negative epochs without a start: %v", err)
	}
}

// TestSameSeedSameFile: two S-HOPE fits with the same seed write byte-identical model files
// (issue 18 item 5: the history's wall-clock times made every file differ). The fit is small
// but has exemplars and the joint stage, so both stages' history entries are written.
func TestSameSeedSameFile(t *testing.T) {
	d := blobs(120, 8, 3, 9)
	e := small(Adam)
	e.Epochs, e.Exemplars, e.Joint, e.JointEpochs, e.Alternate = 2, 2, true, 2, 1
	dir := t.TempDir()
	var files [2][]byte
	for i := range files {
		m, err := e.Train(context.Background(), d)
		if err != nil {
			t.Fatal(err)
		}
		// Make the timings differ for certain, as two real runs' would.
		for j := range m.History {
			m.History[j].Elapsed = time.Duration(i+1) * time.Duration(j+1) * time.Millisecond
		}
		path := filepath.Join(dir, fmt.Sprintf("m%d.lowdim", i))
		if err := modelio.Save(path, m); err != nil {
			t.Fatal(err)
		}
		if files[i], err = os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Fatal("two fits with the same seed wrote different model files")
	}
	got, err := modelio.Decode(bytes.NewReader(files[0]), "m0.lowdim")
	if err != nil {
		t.Fatal(err)
	}
	if h := got.(*Model).History; len(h) != 4 || h[0].Elapsed != 0 {
		t.Errorf("loaded history %+v, want 4 entries (2 map, 2 exemplar epochs) without timings", h)
	}
}

// TestElapsedByVersion: a version-1 payload may carry wall-clock times in the history's
// Elapsed slot (files written before the slot was zeroed) and still loads with them; version 2
// refuses a non-zero slot, so that every version-2 payload re-encodes to its own bytes (the
// FuzzDecodeHOPE input testdata/fuzz/FuzzDecodeHOPE/e71ae7524f16daa2 was such a payload).
func TestElapsedByVersion(t *testing.T) {
	e := small(Adam)
	e.Factors, e.Hidden, e.Epochs, e.Exemplars = 3, 2, 1, 1
	m, err := e.Train(context.Background(), blobs(30, 3, 2, 12))
	if err != nil {
		t.Fatal(err)
	}
	p, _ := m.MarshalBinary()
	// The last history entry's Elapsed is the second-to-last int of the payload.
	var with bytes.Buffer
	with.Write(p[:len(p)-16])
	with.Write([]byte{0x40, 0x42, 0x0f, 0, 0, 0, 0, 0}) // 1,000,000 ns, little-endian
	with.Write(p[len(p)-8:])
	got, err := decodeHOPE(1, with.Bytes())
	if err != nil {
		t.Fatalf("version 1 with a time: %v", err)
	}
	if h := got.(*Model).History; h[len(h)-1].Elapsed != time.Millisecond {
		t.Errorf("version 1: Elapsed %v, want the stored 1ms", h[len(h)-1].Elapsed)
	}
	if _, err := decodeHOPE(2, with.Bytes()); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("version 2 with a time: err %v, want ErrInvalid", err)
	}
	if _, err := decodeHOPE(2, p); err != nil {
		t.Errorf("version 2 as written: %v", err)
	}
}
