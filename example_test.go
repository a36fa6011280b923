package lowdim_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/linproj"
	"github.com/lowdim/lowdim/modelio"
	"github.com/lowdim/lowdim/quality"
)

// Example is the README's library snippet, compiled and run: load a data set, fit a method
// (settings as fields, zero = default), measure the embedding, save the model and embed new
// rows with it. The figures are those of the README's first command (lowdim embed -quality).
func Example() {
	ctx := context.Background()
	d, err := dataset.Load("dataset/digits.csv.gz", dataset.Options{Label: "last"})
	if err != nil {
		log.Fatal(err)
	}
	m, err := linproj.PCA{Dim: 2}.Fit(ctx, d)
	if err != nil {
		log.Fatal(err)
	}
	r, err := quality.Evaluate(ctx, d.X, m.Embedding(), d.Labels, quality.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("n = %d: T(20) %.6f, C(20) %.6f, 5-NN error %.6f\n", r.N, r.Trustworthiness[19], r.Continuity[19], *r.KNNError)

	dir, err := os.MkdirTemp("", "lowdim-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "digits.lowdim")
	if err := modelio.Save(path, m.(*linproj.PCAModel)); err != nil {
		log.Fatal(err)
	}
	saved, err := modelio.Load(path)
	if err != nil {
		log.Fatal(err)
	}
	var y mat.Dense // parametric models embed new rows: here the first two digits again
	if err := saved.(lowdim.Transformer).Transform(&y, d.X.Slice(0, 2, 0, d.Dim())); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%.4f\n", mat.Formatted(&y))
	// Output:
	// n = 1797: T(20) 0.829011, C(20) 0.942116, 5-NN error 0.371731
	// ⎡ -1.2595   21.2749⎤
	// ⎣  7.9576  -20.7687⎦
}
