package viz_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/viz"
)

// The 8×8 digits projected on their first two principal components, coloured by digit, saved as
// PNG; then the same figure as SVG.
func ExampleScatter_Plot() {
	d := dataset.Digits()
	var pc stat.PC
	if !pc.PrincipalComponents(d.X, nil) {
		log.Fatal("PCA failed")
	}
	var basis, y mat.Dense
	pc.VectorsTo(&basis)
	y.Mul(d.X, basis.Slice(0, d.Dim(), 0, 2))

	fig, err := viz.Scatter{Title: "digits, PCA", XLabel: "PC 1", YLabel: "PC 2"}.Plot(&y, d.Labels, d.ClassNames)
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "viz-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	for _, name := range []string{"digits.png", "digits.svg"} {
		if err := viz.Save(fig, 0, 0, filepath.Join(dir, name)); err != nil { // 0, 0: the Scatter's size
			log.Fatal(err)
		}
	}
	fmt.Println(fig.Title)
	// Output: digits, PCA
}

// Quality curves of one embedding, e.g. the fields of a quality report.
func ExampleCurves() {
	t := []float64{0.99, 0.985, 0.98}
	c := []float64{0.97, 0.972, 0.971}
	prec := []float64{0.9, 0.8, 0.7}
	rec := []float64{0.045, 0.08, 0.105}
	fig, err := viz.Curves(t, c, prec, rec, "quality")
	if err != nil {
		log.Fatal(err)
	}
	path := filepath.Join(os.TempDir(), "viz-example-curves.svg")
	defer os.Remove(path)
	if err := viz.Save(fig, 0, 0, path); err != nil {
		log.Fatal(err)
	}
	w, h := fig.DefaultSize()
	fmt.Println(w/72, "in ×", h/72, "in")
	// Output: 10 in × 4.5 in
}
