package pipeline

import (
	"bytes"
	"context"
	"slices"
	"sort"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/modelio"
)

// The seeded sample is the m rows with the smallest keys splitmix64(seed ⊕ splitmix64(gid)):
// a function of the seed and of each row's place in the global order only, so the same rows are
// drawn whatever the runner, the bundling or the number of workers — and every row when m ≥ n.
// Each shard keeps its own m smallest keys; a combine keeps the m smallest of those.

// SampleKey is a row's sampling key.
type SampleKey struct {
	Key uint64
	Gid int64
}

func (a SampleKey) less(b SampleKey) bool { return a.Key < b.Key || a.Key == b.Key && a.Gid < b.Gid }

func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

func sampleKey(seed uint64, g int64) uint64 { return splitmix64(seed ^ splitmix64(uint64(g))) }

// smallest keeps the m smallest keys of keys (sorted).
func smallest(keys []SampleKey, m int) []SampleKey {
	sort.Slice(keys, func(a, b int) bool { return keys[a].less(keys[b]) })
	if len(keys) > m {
		keys = keys[:m]
	}
	return keys
}

// ShardSummary is what the first pass learns from a shard: its row count, its labelled rows
// and its m smallest sampling keys.
type ShardSummary struct {
	N, Labelled int
	Keys        []SampleKey
}

type summaryFn struct {
	Opt  ReadOptions
	Seed uint64
	M    int
}

func (f *summaryFn) ProcessElement(ctx context.Context, sh Shard, emit func(int, ShardSummary)) error {
	s, err := readShard(ctx, sh.Path, f.Opt)
	if err != nil {
		return err
	}
	n := s.Len()
	keys := make([]SampleKey, n)
	sum := ShardSummary{N: n}
	for i := range keys {
		keys[i] = SampleKey{sampleKey(f.Seed, gid(sh.Index, i)), gid(sh.Index, i)}
		if labelOf(s, i) != "" {
			sum.Labelled++
		}
	}
	sum.Keys = smallest(keys, f.M)
	emit(0, sum)
	return nil
}

// Selection is the drawn sample: the total row counts and the chosen rows' gids, sorted.
type Selection struct {
	N, Labelled int
	Gids        []int64
}

type selectFn struct {
	M int
}

func (f *selectFn) ProcessElement(_ int, iter func(*ShardSummary) bool) Selection {
	var sel Selection
	var all []SampleKey
	var s ShardSummary
	for iter(&s) {
		sel.N += s.N
		sel.Labelled += s.Labelled
		all = smallest(append(all, s.Keys...), f.M)
		s = ShardSummary{}
	}
	for _, k := range all {
		sel.Gids = append(sel.Gids, k.Gid)
	}
	slices.Sort(sel.Gids)
	return sel
}

// SampleRow is one drawn row: its features, its embedding under the model (measure only) and
// its label as text ("" for none).
type SampleRow struct {
	Gid   int64
	X, Y  []float64
	Label string
}

// pickFn emits a shard's drawn rows, embedded by Model when one is given.
type pickFn struct {
	Opt   ReadOptions
	Model []byte
	Name  string
	Width int

	t lowdim.Transformer
}

func (f *pickFn) Setup() error {
	if f.Model == nil {
		return nil
	}
	t, _, err := DecodeModel(f.Model, f.Name)
	f.t = t
	return err
}

// readEmbedded reads a shard and, with a model, embeds it.
func readEmbedded(ctx context.Context, sh Shard, opt ReadOptions, t lowdim.Transformer, width int, name string) (*dataset.Set, *mat.Dense, error) {
	s, err := readShard(ctx, sh.Path, opt)
	if err != nil {
		return nil, nil, err
	}
	if width > 0 && s.Dim() != width {
		return nil, nil, widthError(sh.Path, s, width, "as the model "+name)
	}
	if t == nil {
		return s, nil, nil
	}
	var y mat.Dense
	if err := t.Transform(&y, s.X); err != nil {
		return nil, nil, &dataset.ParseError{File: sh.Path, Err: err}
	}
	return s, &y, nil
}

func (f *pickFn) ProcessElement(ctx context.Context, sh Shard, sel Selection, emit func(int, SampleRow)) error {
	lo, _ := slices.BinarySearch(sel.Gids, gid(sh.Index, 0))
	hi, _ := slices.BinarySearch(sel.Gids, gid(sh.Index+1, 0))
	if lo == hi {
		return nil // no drawn row here: the shard is not even read
	}
	s, y, err := readEmbedded(ctx, sh, f.Opt, f.t, f.Width, f.Name)
	if err != nil {
		return err
	}
	for _, g := range sel.Gids[lo:hi] {
		i := int(g - gid(sh.Index, 0))
		r := SampleRow{Gid: g, X: append([]float64(nil), s.X.RawRowView(i)...), Label: labelOf(s, i)}
		if y != nil {
			r.Y = append([]float64(nil), y.RawRowView(i)...)
		}
		emit(0, r)
	}
	return nil
}

// Sample is the drawn rows in the global order, with the totals.
type Sample struct {
	N, Labelled int
	Rows        []SampleRow
}

func collectSample(_ int, iter func(*SampleRow) bool, sel Selection) Sample {
	out := Sample{N: sel.N, Labelled: sel.Labelled}
	var r SampleRow
	for iter(&r) {
		out.Rows = append(out.Rows, r)
		r = SampleRow{}
	}
	sort.Slice(out.Rows, func(a, b int) bool { return out.Rows[a].Gid < out.Rows[b].Gid })
	return out
}

// drawSample adds the two passes that draw m rows with the seed (embedded by model when it is
// not nil) and returns a PCollection of one Sample.
func drawSample(s beam.Scope, in beam.PCollection, opt ReadOptions, m int, seed uint64, model []byte, name string, width int) beam.PCollection {
	sums := beam.ParDo(s, &summaryFn{Opt: opt, Seed: seed, M: m}, in)
	sel := beam.ParDo(s, &selectFn{M: m}, beam.GroupByKey(s, sums))
	rows := beam.ParDo(s, &pickFn{Opt: opt, Model: model, Name: name, Width: width}, in, beam.SideInput{Input: sel})
	return beam.ParDo(s, collectSample, beam.GroupByKey(s, rows), beam.SideInput{Input: sel})
}

// Set returns the sample as a data set (labels by name, in order of first appearance).
func (smp *Sample) Set(name string) *dataset.Set {
	if len(smp.Rows) == 0 {
		return &dataset.Set{Name: name}
	}
	x := mat.NewDense(len(smp.Rows), len(smp.Rows[0].X), nil)
	d := &dataset.Set{Name: name, X: x}
	class := map[string]int{}
	labelled := false
	for i, r := range smp.Rows {
		x.SetRow(i, r.X)
		labelled = labelled || r.Label != ""
	}
	if labelled {
		d.Labels = make([]int, len(smp.Rows))
		for i, r := range smp.Rows {
			if r.Label == "" {
				d.Labels[i] = -1
				continue
			}
			c, ok := class[r.Label]
			if !ok {
				c = len(d.ClassNames)
				class[r.Label] = c
				d.ClassNames = append(d.ClassNames, r.Label)
			}
			d.Labels[i] = c
		}
	}
	return d
}

// Fitter fits a method on the drawn sample; it must be a registered function value or a
// struct with exported fields (Beam serialises it to the worker).
type Fitter interface {
	Fit(ctx context.Context, d *dataset.Set) (lowdim.Model, error)
}

// fitSampleFn fits Method on the sample in one worker and encodes the model.
type fitSampleFn struct {
	Method MethodSpec
}

func (f *fitSampleFn) ProcessElement(ctx context.Context, smp Sample) ([]byte, error) {
	e, err := f.Method.Embedder()
	if err != nil {
		return nil, err
	}
	if len(smp.Rows) < 2 {
		return nil, dataset.Invalidf("%s: the sample has %d rows", f.Method.Name, len(smp.Rows))
	}
	m, err := e.Fit(ctx, smp.Set("sample"))
	if err != nil {
		return nil, err
	}
	saver, ok := m.(modelio.Model)
	if !ok {
		return nil, dataset.Invalidf("%s: this fit is not parametric and cannot place new rows", f.Method.Name)
	}
	var b bytes.Buffer
	if err := modelio.Encode(&b, saver); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// FitSample adds to s a fit of method on m rows drawn with seed, in one worker, and returns one
// element: the modelio file's bytes.
func FitSample(s beam.Scope, shards []Shard, opt ReadOptions, m int, seed uint64, method MethodSpec) beam.PCollection {
	s = s.Scope("FitSample")
	smp := drawSample(s, shardList(s, shards), opt, m, seed, nil, "", 0)
	return beam.ParDo(s, &fitSampleFn{Method: method}, smp)
}
