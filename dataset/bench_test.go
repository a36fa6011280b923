package dataset

import (
	"bytes"
	"fmt"
	"github.com/lowdim/lowdim/internal/shared/sharedtest"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// genTable writes n rows of h random numbers with a trailing class, in the layout of format.
func genTable(format string, n, h int) []byte {
	rng := rand.New(rand.NewPCG(3, 4))
	var buf bytes.Buffer
	switch format {
	case "csv":
		for j := 0; j < h; j++ {
			fmt.Fprintf(&buf, "f%d,", j)
		}
		buf.WriteString("label\n")
	case "arff":
		buf.WriteString("@relation bench\n")
		for j := 0; j < h; j++ {
			fmt.Fprintf(&buf, "@attribute f%d numeric\n", j)
		}
		buf.WriteString("@attribute class {a,b,c,d}\n@data\n")
	case "sompak":
		fmt.Fprintf(&buf, "%d\n", h)
	}
	sep := byte(',')
	if format == "sompak" {
		sep = ' '
	}
	var line []byte
	for i := 0; i < n; i++ {
		line = line[:0]
		for j := 0; j < h; j++ {
			line = strconv.AppendFloat(line, rng.NormFloat64(), 'f', 6, 64)
			line = append(line, sep)
		}
		line = append(line, "abcd"[rng.IntN(4)], '\n')
		buf.Write(line)
	}
	return buf.Bytes()
}

func benchRead(b *testing.B, format string, n, h int) {
	data := genTable(format, n, h)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		s, err := Read(bytes.NewReader(data), "bench", Options{Format: format})
		if err != nil || s.Len() != n {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadCSV reads a generated 100000×10 CSV with a label column.
func BenchmarkReadCSV(b *testing.B) { benchRead(b, "csv", 100000, 10) }

// BenchmarkReadARFF reads a generated 20000×20 ARFF with a nominal class.
func BenchmarkReadARFF(b *testing.B) { benchRead(b, "arff", 20000, 20) }

// BenchmarkReadSOMPAK reads a generated 20000×20 SOM_PAK file (the phoneme layout, 10× longer).
func BenchmarkReadSOMPAK(b *testing.B) { benchRead(b, "sompak", 20000, 20) }

// BenchmarkLoadMNIST loads the gzip'd 60000×784 MNIST training images and labels.
func BenchmarkLoadMNIST(b *testing.B) {
	path := filepath.Join(sharedtest.Data(b), "mnist", "train-images-idx3-ubyte.gz")
	fi, err := os.Stat(path)
	if err != nil {
		b.Skip(err)
	}
	b.ReportAllocs()
	b.SetBytes(fi.Size())
	for b.Loop() {
		s, err := Load(path, Options{})
		if err != nil || s.Len() != 60000 {
			b.Fatal(err)
		}
	}
}

// BenchmarkDuplicateRows hashes the 60000×784 MNIST-sized matrix of a generated set.
func BenchmarkDuplicateRows(b *testing.B) {
	s := randomSet(rand.New(rand.NewPCG(5, 6)), 60000, 784, nil)
	b.ReportAllocs()
	for b.Loop() {
		DuplicateRows(s)
	}
}
