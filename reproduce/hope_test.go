package reproduce

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHOPEQuick runs the quick HOPE reproduction on USPS and checks the report: every method
// row with the paper's number, four embeddings and the curve, and test errors far better than
// chance (90 % for 10 digits).
func TestHOPEQuick(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("a few seconds of fits; skipped under -short and -race")
	}
	shared, err := FindShared()
	if err != nil {
		t.Skipf("shared data not available: %v", err)
	}
	c := HOPEConfig{DataDir: filepath.Join(shared, "data"), Quick: true, Seed: 1, Sets: []string{"USPS"}}
	r, err := RunHOPE(context.Background(), c, "test")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := r.WriteDir(out); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, HOPEReportFile))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, m := range HOPEMethods {
		if !strings.Contains(text, "| "+m+" |") {
			t.Errorf("no row for %s", m)
		}
	}
	// 5 figures: 4 embeddings and the curve; 4 rows × (paper, test, validation) numbers.
	checkFiguresAndNumbers(t, out, text, 5, 10)
	s := r.Sets[0]
	if s.NTrain != 800 || s.NTest != 400 || len(s.Results) != 4 {
		t.Fatalf("quick USPS: %d/%d rows, %d results", s.NTrain, s.NTest, len(s.Results))
	}
	for _, res := range s.Results {
		// Quick fits are tiny, but every one must learn something: chance is 90 %.
		if !(res.TestError < 0.6) {
			t.Errorf("%s: test error %.3f", res.Method, res.TestError)
		}
	}
	if z, _ := s.Results[3].Exemplars.Dims(); z != 20 {
		t.Errorf("%d joint exemplars, want 20", z)
	}
}
