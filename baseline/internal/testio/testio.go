// Package testio reads the golden files of the baselines' tests (np.savetxt output).
package testio

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// ReadTxt reads an np.savetxt file (comment lines start with #) as a matrix; a file of one
// column is n×1.
func ReadTxt(t testing.TB, path string) *mat.Dense {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var data []float64
	rows, cols := 0, 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		fields := strings.Fields(line)
		cols = len(fields)
		for _, s := range fields {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatal(err)
			}
			data = append(data, v)
		}
		rows++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return mat.NewDense(rows, cols, data)
}
