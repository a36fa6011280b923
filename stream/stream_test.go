package stream

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/linproj"
)

// mnistLike returns a header and rows distinct CSV lines of 784 pixels with MNIST's sparsity
// (about 19% non-zero, values 1…255; seeded), and the rows as a Set to fit a PCA on.
func mnistLike(rows int) (head []byte, lines [][]byte, d *dataset.Set) {
	rng := rand.New(rand.NewPCG(1, 19))
	x := mat.NewDense(rows, 784, nil)
	for j := range 784 {
		if j > 0 {
			head = append(head, ',')
		}
		head = strconv.AppendInt(append(head, 'x'), int64(j+1), 10)
	}
	head = append(head, '\n')
	for i := range rows {
		var b []byte
		for j := range 784 {
			v := 0
			if rng.Float64() < 0.19 {
				v = 1 + rng.IntN(255)
			}
			x.Set(i, j, float64(v))
			if j > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(v), 10)
		}
		lines = append(lines, append(b, '\n'))
	}
	return head, lines, &dataset.Set{X: x}
}

// cycle reads a header and then n rows cycling through lines, as a pipe from a generator would.
type cycle struct {
	head  []byte
	lines [][]byte
	n, i  int
	cur   []byte
}

func (c *cycle) Read(p []byte) (int, error) {
	k := 0
	for k < len(p) {
		if len(c.cur) == 0 {
			switch {
			case c.head != nil:
				c.cur, c.head = c.head, nil
			case c.i < c.n:
				c.cur = c.lines[c.i%len(c.lines)]
				c.i++
			default:
				if k == 0 {
					return 0, io.EOF
				}
				return k, nil
			}
		}
		m := copy(p[k:], c.cur)
		c.cur = c.cur[m:]
		k += m
	}
	return k, nil
}

func pcaFunc(t testing.TB, d *dataset.Set) Func {
	m, err := linproj.PCA{}.Fit(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	tr := m.(*linproj.PCAModel)
	return func(ctx context.Context, dst *mat.Dense, d *dataset.Set) error { return tr.Transform(dst, d.X) }
}

// The stream writes what the in-memory path writes, for every block size, worker count and a
// last block of any length.
func TestTransformEqualsInMemory(t *testing.T) {
	head, lines, d := mnistLike(300)
	fn := pcaFunc(t, d)
	for _, n := range []int{1, 255, 256, 257, 1000} {
		input := &cycle{head: head, lines: lines, n: n}
		data, _ := io.ReadAll(input)
		whole, err := dataset.Read(bytes.NewReader(data), "in.csv", dataset.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var y mat.Dense
		if err := fn(context.Background(), &y, whole); err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := dataset.WriteEmbeddingCSV(&want, &y, whole); err != nil {
			t.Fatal(err)
		}
		for _, opt := range []Options{{Rows: 256, Workers: 1}, {Rows: 256, Workers: 3}, {}} {
			s, err := dataset.NewStream(bytes.NewReader(data), "in.csv", dataset.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			st, err := Transform(context.Background(), &got, s, fn, opt)
			if err != nil || st.Rows != n || !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Errorf("%d rows, %+v: %+v, %v; output equal %v", n, opt, st, err, bytes.Equal(got.Bytes(), want.Bytes()))
			}
		}
	}
	if _, err := Transform(context.Background(), io.Discard, nil, fn, Options{Rows: 100}); !errors.Is(err, dataset.ErrInvalid) {
		t.Errorf("100 rows per block: %v", err)
	}
}

// An error of the model stops the output after the blocks before it; cancellation stops it too.
func TestTransformStops(t *testing.T) {
	head, lines, _ := mnistLike(10)
	input := func() *dataset.Stream {
		s, err := dataset.NewStream(&cycle{head: head, lines: lines, n: 2000}, "in.csv", dataset.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	var calls atomic.Int32
	boom := errors.New("boom")
	fn := func(ctx context.Context, dst *mat.Dense, d *dataset.Set) error {
		if calls.Add(1) == 3 {
			return boom
		}
		if dst.IsEmpty() {
			dst.ReuseAs(d.Len(), 2)
		}
		return nil
	}
	var out bytes.Buffer
	st, err := Transform(context.Background(), &out, input(), fn, Options{Rows: 256, Workers: 1})
	if !errors.Is(err, boom) || st.Rows != 512 || strings.Count(out.String(), "\n") != 513 {
		t.Errorf("model error: %+v, %v, %d lines", st, err, strings.Count(out.String(), "\n"))
	}
	after := calls.Load()
	time.Sleep(50 * time.Millisecond)
	if calls.Load() != after {
		t.Error("the model was called after Transform returned")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Transform(ctx, io.Discard, input(), fn, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// BenchmarkTransformMNISTLike maps MNIST-like rows (784 pixels as CSV, generated on the fly
// from 1000 distinct rows) through a 2-D PCA with the default blocks and workers; rows/s is
// the figure issue 19 asks ≥ 150,000 of. stream/testdata/bench.sh measures the same through a
// pipe into the binary, with peak RSS.
func BenchmarkTransformMNISTLike(b *testing.B) {
	head, lines, d := mnistLike(1000)
	fn := pcaFunc(b, d)
	const rows = 100000
	b.ReportAllocs()
	for b.Loop() {
		s, err := dataset.NewStream(&cycle{head: head, lines: lines, n: rows}, "in.csv", dataset.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Transform(context.Background(), io.Discard, s, fn, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
}
