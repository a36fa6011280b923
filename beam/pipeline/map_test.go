package pipeline

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/linproj"
	"github.com/lowdim/lowdim/modelio"
)

func digitsModel(t testing.TB) ([]byte, *linproj.PCAModel) {
	t.Helper()
	m, err := linproj.PCA{}.Fit(context.Background(), dataset.Digits())
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := modelio.Encode(&b, m.(*linproj.PCAModel)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), m.(*linproj.PCAModel)
}

// TestMapKeepsOrder: mapping 5 shards of the digits gives, shard after shard, the bytes that
// the whole file's transform (lowdim transform's writer) gives, header aside.
func TestMapKeepsOrder(t *testing.T) {
	in, out := t.TempDir(), t.TempDir()
	d := dataset.Digits()
	glob := writeShards(t, in, d, 5)
	model, pca := digitsModel(t)
	shards, err := ListShards(context.Background(), glob)
	if err != nil {
		t.Fatal(err)
	}
	p, s := beam.NewPipelineWithRoot()
	n, err := Map(s, shards, ReadOptions{}, model, "digits.pca", out, "")
	if err != nil {
		t.Fatal(err)
	}
	passert.Equals(s, n, d.Len())
	if err := run(t, p); err != nil {
		t.Fatal(err)
	}
	var y mat.Dense
	if err := pca.Transform(&y, d.X); err != nil {
		t.Fatal(err)
	}
	var whole bytes.Buffer
	if err := dataset.WriteEmbeddingCSV(&whole, &y, d); err != nil {
		t.Fatal(err)
	}
	want := strings.SplitAfterN(whole.String(), "\n", 2)
	var got strings.Builder
	got.WriteString(want[0])
	for _, sh := range shards {
		b, err := os.ReadFile(OutputName(out, sh.Path, "csv"))
		if err != nil {
			t.Fatal(err)
		}
		head, rows, _ := strings.Cut(string(b), "\n")
		if head+"\n" != want[0] {
			t.Fatalf("%s: header %q, want %q", sh.Path, head, want[0])
		}
		got.WriteString(rows)
	}
	if got.String() != whole.String() {
		t.Error("the mapped shards, concatenated, differ from the whole file's transform")
	}
	left, _ := filepath.Glob(filepath.Join(out, "*.partial"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestMapWidthError: a shard with another column count fails naming the shard and the line of
// its first row, and writes no output for it.
func TestMapWidthError(t *testing.T) {
	in, out := t.TempDir(), t.TempDir()
	glob := writeShards(t, in, dataset.Digits(), 3)
	bad := filepath.Join(in, "part-002.csv")
	if err := os.WriteFile(bad, []byte("a,b,c\n1,2,3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	model, _ := digitsModel(t)
	shards, err := ListShards(context.Background(), glob)
	if err != nil {
		t.Fatal(err)
	}
	p, s := beam.NewPipelineWithRoot()
	if _, err := Map(s, shards, ReadOptions{}, model, "digits.pca", out, ""); err != nil {
		t.Fatal(err)
	}
	err = run(t, p)
	want := bad + ":2: expected 64 feature columns (as the model digits.pca), found 3"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want an error containing %q", err, want)
	}
	if _, err := os.Stat(OutputName(out, bad, "csv")); !os.IsNotExist(err) {
		t.Errorf("output written for the bad shard: %v", err)
	}
}
