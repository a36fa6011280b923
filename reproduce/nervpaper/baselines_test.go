package nervpaper

import (
	"context"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/reproduce"
)

// TestBaselinesQuick runs the quick protocol on a small Phoneme subset: every computable
// row gets a result with a finite 5-NN error, MVU and LMVU stay the paper's.
func TestBaselinesQuick(t *testing.T) {
	dir, err := reproduce.DataDirOr("")
	if err != nil {
		t.Skipf("shared data not found (%v)", err)
	}
	d, err := LoadPhoneme(dir)
	if err != nil {
		t.Skipf("phoneme data not staged: %v", err)
	}
	d = reproduce.RandomSubset(d, 200, 1)
	bs, err := RunBaselines(context.Background(), Config{Quick: true, Seed: 1}, d)
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != len(PaperTable2Rows)-len(paperOnly) {
		t.Fatalf("%d rows, want %d", len(bs), len(PaperTable2Rows)-len(paperOnly))
	}
	for _, b := range bs {
		if b.Err != "" || math.IsNaN(b.KNNError) || b.KNNError < 0 || b.KNNError > 1 || b.Fits < 1 {
			t.Errorf("%s: %+v", b.Row, b)
		}
	}
	var sb strings.Builder
	writeBaselines(&sb, []*Unsupervised{{Data: "Phoneme", Baselines: bs}})
	for _, want := range []string{"| Isomap |", "paper 0.134", "MVU: the paper's numbers only"} {
		if !strings.Contains(sb.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, sb.String())
		}
	}
}

// TestBaselinesFull is the full protocol on the n = 1,500 subsets `lowdim reproduce nerv`
// uses (seed 1); it takes many minutes, so it runs only with LOWDIM_NERV_BASELINES=1 and
// prints the table.
func TestBaselinesFull(t *testing.T) {
	if os.Getenv("LOWDIM_NERV_BASELINES") == "" || testing.Short() {
		t.Skip("set LOWDIM_NERV_BASELINES=1 to run the full Table 2 baselines (many minutes)")
	}
	dir, err := reproduce.DataDirOr("")
	if err != nil {
		t.Skipf("shared data not found (%v)", err)
	}
	c := Config{Seed: 1, Log: os.Stderr}
	var us []*Unsupervised
	loaders := map[string]func(string) (*dataset.Set, error){"Letter": LoadLetter, "Phoneme": LoadPhoneme, "Landsat": LoadLandsat}
	for _, name := range UnsupervisedSets {
		d, err := loaders[name](dir)
		if err != nil {
			t.Fatal(err)
		}
		d = reproduce.RandomSubset(d, 1500, c.Seed)
		bs, err := RunBaselines(context.Background(), c, d)
		if err != nil {
			t.Fatal(err)
		}
		us = append(us, &Unsupervised{Data: name, Baselines: bs})
	}
	var sb strings.Builder
	writeBaselines(&sb, us)
	t.Log("\n" + sb.String())
}
