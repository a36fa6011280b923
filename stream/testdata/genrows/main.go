// Command genrows writes MNIST-like CSV rows to standard output for the streaming benchmark
// (stream/testdata/bench.sh): a header x1,…,x784 then -n rows, cycling through the first
// -distinct images of MNIST's training set (../shared/data/mnist) formatted once, or, when that
// is absent, seeded synthetic rows with MNIST's sparsity (about 19% of the pixels non-zero,
// values 1…255). Formatting once keeps the generator's own CPU time small: the pipe, not the
// generator, should be what lowdim waits for.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"

	"github.com/lowdim/lowdim/dataset"
)

func main() {
	n := flag.Int("n", 1000, "rows to write")
	distinct := flag.Int("distinct", 10000, "distinct rows to cycle through")
	mnist := flag.String("mnist", "../shared/data/mnist/train-images-idx3-ubyte.gz", "MNIST images (IDX); synthetic rows when absent")
	label := flag.Bool("label", false, "add the digit as a label column (MNIST only)")
	flag.Parse()
	rows, labels := load(*mnist, *distinct)
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	var head []byte
	for j := range 784 {
		if j > 0 {
			head = append(head, ',')
		}
		head = append(head, 'x')
		head = strconv.AppendInt(head, int64(j+1), 10)
	}
	if *label && labels != nil {
		head = append(head, ",label"...)
	}
	w.Write(append(head, '\n'))
	lines := make([][]byte, len(rows))
	for i, r := range rows {
		var b []byte
		for j, v := range r {
			if j > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(v), 10)
		}
		if *label && labels != nil {
			b = append(b, ',')
			b = append(b, labels[i]...)
		}
		lines[i] = append(b, '\n')
	}
	for i := range *n {
		if _, err := w.Write(lines[i%len(lines)]); err != nil {
			os.Exit(1) // the reader went away
		}
	}
	if err := w.Flush(); err != nil {
		os.Exit(1)
	}
}

func load(path string, distinct int) ([][]uint8, []string) {
	if d, err := dataset.Load(path, dataset.Options{}); err == nil {
		m := min(distinct, d.Len())
		rows := make([][]uint8, m)
		var labels []string
		for i := range rows {
			rows[i] = make([]uint8, 784)
			for j, v := range d.X.RawRowView(i) {
				rows[i][j] = uint8(v)
			}
			if d.HasLabels() {
				labels = append(labels, d.ClassNames[d.Labels[i]])
			}
		}
		fmt.Fprintf(os.Stderr, "genrows: %d distinct MNIST rows from %s\n", m, path)
		return rows, labels
	}
	rng := rand.New(rand.NewPCG(1, 19))
	rows := make([][]uint8, distinct)
	for i := range rows {
		rows[i] = make([]uint8, 784)
		for j := range rows[i] {
			if rng.Float64() < 0.19 {
				rows[i][j] = uint8(1 + rng.IntN(255))
			}
		}
	}
	fmt.Fprintf(os.Stderr, "genrows: %d distinct synthetic rows (no MNIST at %s)\n", distinct, path)
	return rows, nil
}
