// Command mnistcompare times quality.Trustworthiness (and optionally every measure) on the first N
// MNIST training images with their 2-D PCA embedding, and writes the embedding as CSV so that
// compare_sklearn.py can time scikit-learn on the same data. Run it through compare_sklearn.sh.
//
//	go run ./quality/testdata/mnistcompare -n 10000 -out /tmp/y.csv [-all]
package main

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"runtime"
	"time"

	"gonum.org/v1/gonum/mat"

	"lowdim/quality"
)

func main() {
	n := flag.Int("n", 10000, "number of MNIST training images")
	k := flag.Int("k", 20, "neighbourhood size")
	out := flag.String("out", "", "write the 2-D PCA embedding here (CSV)")
	all := flag.Bool("all", false, "run quality.Evaluate (every measure) instead of trustworthiness only")
	images := flag.String("images", "../shared/data/mnist/train-images-idx3-ubyte.gz", "MNIST image file")
	flag.Parse()
	x, err := readIDX(*images, *n)
	if err != nil {
		log.Fatal(err)
	}
	y := pca2(x)
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			log.Fatal(err)
		}
		w := bufio.NewWriter(f)
		for i := 0; i < *n; i++ {
			fmt.Fprintf(w, "%.17g,%.17g\n", y.At(i, 0), y.At(i, 1))
		}
		w.Flush()
		f.Close()
	}
	ctx := context.Background()
	start := time.Now()
	if *all {
		r, err := quality.Evaluate(ctx, x, y, nil, quality.Options{Neighbors: *k})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("lowdim Evaluate n=%d: %.2fs T(%d)=%.12f C=%.12f smoothed P=%.6g R=%.6g rank P=%.6g R=%.6g\n", *n, time.Since(start).Seconds(),
			*k, r.Trustworthiness[*k-1], r.Continuity[*k-1], r.SmoothedPrecisionLoss, r.SmoothedRecallLoss, r.RankPrecisionLoss, r.RankRecallLoss)
	} else {
		t, err := quality.Trustworthiness(ctx, x, y, quality.Options{Neighbors: *k})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("lowdim trustworthiness n=%d k=%d: %.12f in %.2fs\n", *n, *k, t[*k-1], time.Since(start).Seconds())
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("Go heap: %d MB obtained from the OS\n", ms.Sys>>20)
}

// readIDX reads the first n images of an IDX3 file (gzip) as an n×784 matrix of pixel values 0..255.
func readIDX(path string, n int) (*mat.Dense, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	var hdr [4]uint32
	if err := binary.Read(z, binary.BigEndian, &hdr); err != nil {
		return nil, err
	}
	if int(hdr[1]) < n {
		return nil, fmt.Errorf("%s holds %d images, asked for %d", path, hdr[1], n)
	}
	d := int(hdr[2] * hdr[3])
	buf := make([]byte, n*d)
	if _, err := io.ReadFull(z, buf); err != nil {
		return nil, err
	}
	x := mat.NewDense(n, d, nil)
	raw := x.RawMatrix().Data
	for i, b := range buf {
		raw[i] = float64(b)
	}
	return x, nil
}

// pca2 projects the centred x onto its two leading principal axes (eigenvectors of the covariance).
func pca2(x *mat.Dense) *mat.Dense {
	n, d := x.Dims()
	c := mat.NewDense(n, d, nil)
	mean := make([]float64, d)
	for i := 0; i < n; i++ {
		for j, v := range x.RawRowView(i) {
			mean[j] += v / float64(n)
		}
	}
	for i := 0; i < n; i++ {
		for j, v := range x.RawRowView(i) {
			c.Set(i, j, v-mean[j])
		}
	}
	var cov mat.SymDense
	cov.SymOuterK(1, c.T())
	var es mat.EigenSym
	if !es.Factorize(&cov, true) {
		log.Fatal("eigendecomposition failed")
	}
	var v mat.Dense
	es.VectorsTo(&v)
	axes := v.Slice(0, d, d-2, d) // eigenvalues ascend: the last two columns
	y := mat.NewDense(n, 2, nil)
	y.Mul(c, axes)
	return y
}
