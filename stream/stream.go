// Package stream maps rows through a fitted model as a Unix filter: it reads a
// dataset.Stream a block of rows at a time, transforms the blocks on several goroutines and
// writes the embedding CSV in input order, so that memory does not grow with the number of rows.
//
// The bytes written are those of dataset.WriteEmbeddingCSV on the whole input transformed at
// once (the header once, then the rows in order), because every lowdim model maps a row
// independently of the others and the blocks are cut where the models' own blocks are cut:
// DefaultRows and every Options.Rows are multiples of Align, and the models work in blocks of
// rows that divide it (hope 256, the t-SNE map's neighbour products 64, pca and pe row by
// row), counted from the first row of each call.
//
// What a reader of the output sees when the input goes bad part way (a ragged row, text in a
// numeric column): every row before the bad line is written, then Transform returns the
// *dataset.ParseError; an error of the model on a block (a posterior row not summing to 1)
// ends the output after the previous block. Standard output cannot be taken back, so a consumer
// must look at the exit status; a file written through internal/safeout is replaced only on
// success.
package stream

import (
	"context"
	"io"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
)

// Align is what every block size is a multiple of (see the package comment).
const Align = 256

// DefaultRows is the default number of rows per block: 2048 MNIST rows are 13 MB of float64s
// and about 4 MB of text, so that two workers and the blocks queued for them stay far below
// the 300 MB of issue 19 while a block is large enough for the per-call costs (the t-SNE map
// builds its tree once per call) to vanish.
const DefaultRows = 8 * Align

// Options are the settings of Transform; the zero value means the defaults.
type Options struct {
	// Rows is the number of rows per block: a positive multiple of Align; 0 means DefaultRows.
	Rows int
	// Workers is the number of blocks transformed at once; 0 means GOMAXPROCS.
	Workers int
	// NoHeader leaves out the header line, for tools that concatenate the outputs of many
	// processes (Spark's RDD.pipe, Hadoop streaming).
	NoHeader bool
}

// Func maps the rows of d (one block) into dst; an empty dst is to be resized to rows × D.
type Func func(ctx context.Context, dst *mat.Dense, d *dataset.Set) error

// Stats says what Transform did.
type Stats struct {
	Rows    int // rows written
	Dropped int // rows dropped for missing values (dataset.Options.Missing "drop")
	Blocks  int
}

// job is one block on its way through the pipeline.
type job struct {
	block dataset.Block
	y     mat.Dense
	d     *dataset.Set // the block's rows (when Map emits them)
	out   []byte
	rows  int
	err   error
	done  chan struct{}
}

// Transform reads s, maps every block with fn and writes the embedding CSV to w: a header (x,y,
// x,y,z or y1…yD, plus label when s is labelled and name when it has row names) and one line per
// row, in input order. It stops at the first error (see the package comment for what has been
// written by then) and when ctx is cancelled.
func Transform(ctx context.Context, w io.Writer, s *dataset.Stream, fn Func, opt Options) (Stats, error) {
	headerDone := false
	return run(ctx, s, fn, opt, true, func(j *job) error {
		if j.rows > 0 && !headerDone && !opt.NoHeader {
			_, d := j.y.Dims()
			if _, err := w.Write(dataset.AppendEmbeddingHeader(nil, d, s.Labelled(), s.Named())); err != nil {
				return err
			}
			headerDone = true
		}
		if len(j.out) > 0 {
			_, err := w.Write(j.out)
			return err
		}
		return nil
	})
}

// Map is Transform with the output left to emit, which is called in input order with each
// block's embedding y and rows d (valid until emit returns; on bad input, the rows before the
// bad one). Formats that need the row count first (.npy) collect what emit is given.
func Map(ctx context.Context, s *dataset.Stream, fn Func, opt Options, emit func(y *mat.Dense, d *dataset.Set) error) (Stats, error) {
	return run(ctx, s, fn, opt, false, func(j *job) error {
		if j.rows == 0 {
			return nil
		}
		return emit(&j.y, j.d)
	})
}

// run is the pipeline: a reader cuts blocks, workers parse and map them (and format them as
// CSV when csv is set), and emit receives them in input order.
func run(ctx context.Context, s *dataset.Stream, fn Func, opt Options, csv bool, emit func(*job) error) (Stats, error) {
	var st Stats
	rows := opt.Rows
	if rows == 0 {
		rows = DefaultRows
	}
	if rows < 0 || rows%Align != 0 {
		return st, dataset.Invalidf("stream: %d rows per block: expected a positive multiple of %d", rows, Align)
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancel(ctx)
	// On return no worker is left calling fn: they are cancelled and waited for (a block in
	// progress finishes first). Only the reader may outlive the call, blocked in a Read.
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()

	// free holds the jobs not in use: at most workers+2 blocks exist, which bounds memory.
	free := make(chan *job, workers+2)
	for range cap(free) {
		free <- &job{}
	}
	work := make(chan *job)
	order := make(chan *job, cap(free))
	readErr := make(chan error, 1)

	go func() { // the reader: cuts the input into blocks, in order
		defer close(work)
		defer close(order)
		for ctx.Err() == nil {
			var j *job
			select {
			case j = <-free:
			case <-ctx.Done():
				readErr <- nil
				return
			}
			j.done = make(chan struct{})
			if err := s.Next(&j.block, rows); err != nil {
				if err == io.EOF {
					err = nil
				}
				readErr <- err
				return
			}
			order <- j
			select {
			case work <- j:
			case <-ctx.Done():
				j.err = ctx.Err()
				close(j.done)
			}
		}
		readErr <- nil
	}()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case j, ok := <-work:
					if !ok {
						return
					}
					j.d, j.out, j.rows, j.err = transformBlock(ctx, s, &j.block, &j.y, j.out[:0], fn, csv)
					close(j.done)
				case <-ctx.Done():
					return
				}
			}
		}()
	}

	// The writer: blocks in input order. After an error it returns at once; the reader may
	// still be blocked in a Read of the input, which it leaves when the input ends.
	for j := range order {
		<-j.done
		if err := emit(j); err != nil {
			return st, err
		}
		st.Rows += j.rows
		st.Blocks++
		st.Dropped = s.Dropped()
		if j.err != nil {
			return st, j.err
		}
		free <- j
	}
	if err := <-readErr; err != nil {
		return st, err
	}
	if err := ctx.Err(); err != nil {
		return st, err
	}
	if st.Rows == 0 {
		return st, &dataset.ParseError{File: s.Name(), Expected: "at least one row without missing values", Found: "none"}
	}
	return st, nil
}

// transformBlock parses, maps and (with csv) formats one block; on bad input it returns the
// rows before the bad one with the error.
func transformBlock(ctx context.Context, s *dataset.Stream, b *dataset.Block, y *mat.Dense, out []byte, fn Func, csv bool) (*dataset.Set, []byte, int, error) {
	if err := ctx.Err(); err != nil {
		return nil, out, 0, err
	}
	d, perr := s.Parse(b)
	if d == nil {
		return nil, out, 0, perr
	}
	n := d.Len()
	if r, _ := y.Dims(); r != n {
		*y = mat.Dense{} // a partial last block; a full one reuses y
	}
	if err := fn(ctx, y, d); err != nil {
		return nil, out, 0, err
	}
	if csv {
		var err error
		if out, err = dataset.AppendEmbeddingRows(out, y, d, s.Labelled(), s.Named()); err != nil {
			return nil, out, 0, err
		}
	}
	return d, out, n, perr
}
