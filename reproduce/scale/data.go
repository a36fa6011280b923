package scale

import (
	"bufio"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"

	"gonum.org/v1/gonum/stat"
)

// MixtureRows calls row(i, x) for the n rows of the scaling table's Gaussian mixture
// (MixtureComponents components in MixtureDim dimensions, means from N(0, MixtureMeanSD²·I), unit
// covariance, components drawn uniformly), all from a PCG source seeded with seed: the same seed
// gives the same rows, and the first rows of a larger n are those of a smaller one. x is reused.
func MixtureRows(n int, seed uint64, row func(i int, x []float64) error) error {
	rng := rand.New(rand.NewPCG(seed, 0x5ca1e))
	means := make([][]float64, MixtureComponents)
	for k := range means {
		means[k] = make([]float64, MixtureDim)
		for j := range means[k] {
			means[k][j] = MixtureMeanSD * rng.NormFloat64()
		}
	}
	x := make([]float64, MixtureDim)
	for i := 0; i < n; i++ {
		mu := means[rng.IntN(MixtureComponents)]
		for j := range x {
			x[j] = mu[j] + rng.NormFloat64()
		}
		if err := row(i, x); err != nil {
			return err
		}
	}
	return nil
}

// WriteMixtureIDX writes the mixture's n rows to path as an IDX file of float32 (type 0x0D,
// n × MixtureDim, big-endian), which lowdim reads with -format idx much faster than a CSV.
func WriteMixtureIDX(path string, n int, seed uint64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	head := []byte{0, 0, 0x0D, 2, 0, 0, 0, 0, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(head[4:], uint32(n))
	binary.BigEndian.PutUint32(head[8:], MixtureDim)
	w.Write(head)
	var buf [4]byte
	err = MixtureRows(n, seed, func(_ int, x []float64) error {
		for _, v := range x {
			binary.BigEndian.PutUint32(buf[:], math.Float32bits(float32(v)))
			if _, err := w.Write(buf[:]); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// slope returns the least-squares slope of y on x, NaN with fewer than two points.
func slope(x, y []float64) float64 {
	if len(x) < 2 {
		return math.NaN()
	}
	_, b := stat.LinearRegression(x, y, nil, false)
	return b
}
