package reproduce

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHOPEQuick runs the quick HOPE reproduction on USPS and checks the report: every method
// row with the paper's number, the unaugmented S-HOPE baseline row, five embeddings and the
// curve, and test errors far better than chance (90 % for 10 digits).
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
	for _, m := range append([]string{HOPEBaseline}, HOPEMethods...) {
		if !strings.Contains(text, "| "+m+" |") {
			t.Errorf("no row for %s", m)
		}
	}
	if !strings.Contains(text, "shifted by up to 1 px") || !strings.Contains(text, "shift of up to 1 pixel") {
		t.Error("the report does not say that S-HOPE was trained on shifted rows")
	}
	// 6 figures: 5 embeddings and the curve; 4 rows × (paper, test, validation) numbers and
	// the baseline's test and validation errors.
	checkFiguresAndNumbers(t, out, text, 6, 12)
	s := r.Sets[0]
	if s.NTrain != 800 || s.NTest != 400 || len(s.Results) != 5 {
		t.Fatalf("quick USPS: %d/%d rows, %d results", s.NTrain, s.NTest, len(s.Results))
	}
	for _, res := range s.Results {
		// Quick fits are tiny, but every one must learn something: chance is 90 %.
		if !(res.TestError < 0.6) {
			t.Errorf("%s: test error %.3f", res.Method, res.TestError)
		}
	}
	if s.Results[1].Method != HOPEBaseline || s.Results[2].Method != "S-HOPE" {
		t.Errorf("rows %q, %q: want the baseline before S-HOPE", s.Results[1].Method, s.Results[2].Method)
	}
	if z, _ := s.Results[4].Exemplars.Dims(); z != 20 {
		t.Errorf("%d joint exemplars, want 20", z)
	}
}
