package scale

import (
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/lowdim/lowdim/reproduce/internal/reprotest"
)

func TestSlopeOfAPowerLaw(t *testing.T) {
	// t = 3·n^1.1 exactly: the slope of log t on log n is 1.1.
	var x, y []float64
	for _, n := range []float64{1e4, 3e4, 1e5, 3e5} {
		x, y = append(x, math.Log(n)), append(y, math.Log(3*math.Pow(n, 1.1)))
	}
	if s := slope(x, y); math.Abs(s-1.1) > 1e-12 {
		t.Errorf("slope %v, want 1.1", s)
	}
	if s := slope(x[:1], y[:1]); !math.IsNaN(s) {
		t.Errorf("slope of one point %v, want NaN", s)
	}
}

func TestMixtureIsSeededAndNested(t *testing.T) {
	rows := func(n int, seed uint64) [][]float64 {
		var out [][]float64
		if err := MixtureRows(n, seed, func(_ int, x []float64) error {
			out = append(out, append([]float64(nil), x...))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	a, b, c := rows(500, 1), rows(1000, 1), rows(500, 2)
	for i := range a {
		for j := range a[i] {
			if a[i][j] != b[i][j] {
				t.Fatalf("row %d differs between n = 500 and n = 1000", i)
			}
		}
	}
	if a[0][0] == c[0][0] {
		t.Error("seeds 1 and 2 give the same first value")
	}
	// Per coordinate the variance is MixtureMeanSD² (the means) + 1 (the noise) = 17 in
	// expectation; with 20 components the spread of the sample variance is wide, so only a
	// factor of 3 is asserted.
	var s, ss float64
	for _, r := range b {
		s += r[0]
		ss += r[0] * r[0]
	}
	n := float64(len(b))
	if v := ss/n - (s/n)*(s/n); v < 17.0/3 || v > 17*3 {
		t.Errorf("variance of the first coordinate %.2f, want about 17", v)
	}
}

func TestWriteMixtureIDXSize(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.idx")
	if err := WriteMixtureIDX(path, 100, 1); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	// 12 header bytes (magic, two dimensions) and 100 × 50 float32s.
	if want := int64(12 + 100*MixtureDim*4); fi.Size() != want {
		t.Errorf("size %d, want %d", fi.Size(), want)
	}
}

func TestMissingRscriptIsSaid(t *testing.T) {
	_, msg := rtsneStatus(context.Background(), "no-such-Rscript-here")
	if !strings.Contains(msg, "not found") || !strings.Contains(msg, "apt-get install r-cran-rtsne") {
		t.Errorf("message %q should say Rscript is missing and how to install Rtsne", msg)
	}
}

// buildLowdim builds the command into a temporary directory, or skips the test.
func buildLowdim(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go tool on the PATH to build lowdim: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "lowdim")
	out, err := exec.Command(goTool, "build", "-o", bin, "github.com/lowdim/lowdim/cmd/lowdim").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestQuickReport runs every part on small sizes (MNIST 1,500, the trade-off at 1,500 with
// λ ∈ {0, 1}, the mixture at 1,000 and 2,000) and checks the report's rows and numbers.
func TestQuickReport(t *testing.T) {
	if testing.Short() || reprotest.RaceEnabled {
		t.Skip("about a minute of subprocess fits; skipped under -short and -race")
	}
	data := reprotest.DataDir(t)
	if _, err := os.Stat(filepath.Join(data, "mnist", "train-images-idx3-ubyte.gz")); err != nil {
		t.Skipf("MNIST not staged: %v", err)
	}
	c := Config{DataDir: data, Binary: buildLowdim(t), N: []int{1500}, TradeOffN: 1500, Lambdas: []float64{0, 1},
		ScalingN: []int{1000, 2000}, Runs: 1, Approx: true, Seed: 1, TempDir: t.TempDir()}
	r, err := Run(context.Background(), c, "go test")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := r.WriteDir(out); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, ReportFile))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if len(r.MNIST) != 2 || r.MNIST[0].Tool != "lowdim tsne" || r.MNIST[1].Tool != "Rtsne" {
		t.Fatalf("MNIST rows %+v, want lowdim tsne then Rtsne", r.MNIST)
	}
	want := []string{"| 1,500 | lowdim tsne | 1 |", "| 1,500 | Rtsne |", "| lowdim tsne | — |", "| lowdim nerv | 0 |",
		"| lowdim nerv | 1 |", "| lowdim tnerv | 0 |", "| lowdim tnerv | 1 |", "| 1,000 | 1 |", "| 2,000 | 1 |",
		"Log-log slope", "Command: `go test`", "load average"}
	if rt := r.MNIST[1]; rt.Missing != "" {
		// Without R the row must say so, and how to get Rtsne.
		if !strings.Contains(rt.Missing, "apt-get install r-cran-rtsne") {
			t.Errorf("Rtsne row: %q should say how to install Rtsne", rt.Missing)
		}
		want = append(want, rt.Missing)
	} else {
		// A 2-D map of 1,500 digits that keeps neighbourhoods: T(20) well above the 0.5 of a
		// random map, 5-NN error far below the 0.9 of chance (lowdim's own maps of the first
		// 1,500 digits measure T(20) ≈ 0.98, error ≈ 0.1).
		if m := rt.Median; !(m.T20 > 0.8 && m.KNNError < 0.3) {
			t.Errorf("Rtsne map: T(20) %v, 5-NN error %v", m.T20, m.KNNError)
		}
		want = append(want, "mnist-1500-rtsne.png")
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("report lacks %q", w)
		}
	}
	if m := r.MNIST[0].Median; !(m.T20 > 0.8 && m.KNNError < 0.3 && m.Seconds > 0 && m.PeakRSS > 1<<20) {
		t.Errorf("lowdim map: %+v", m)
	}
	if len(r.Trade) != 5 {
		t.Errorf("%d trade-off rows, want t-SNE and 2 methods × 2 λ", len(r.Trade))
	}
	// λ = 0 is all precision, λ = 1 all recall: NeRV's precision loss must be lower at λ = 0.
	if p0, p1 := r.Trade[1].Median.SmPrecLoss, r.Trade[2].Median.SmPrecLoss; !(p0 < p1) {
		t.Errorf("NeRV smoothed precision loss %v at λ = 0, %v at λ = 1: want lower at 0", p0, p1)
	}
	if len(r.Scaling) != 2 || math.IsNaN(r.Slope) || math.IsInf(r.Slope, 0) {
		t.Errorf("scaling rows %d, slope %v", len(r.Scaling), r.Slope)
	}
	m := regexp.MustCompile(`\*\*(-?[0-9.]+)\*\*`).FindStringSubmatch(text)
	if m == nil {
		t.Error("no slope in bold in the report")
	} else if v, err := strconv.ParseFloat(m[1], 64); err != nil || math.Abs(v-r.Slope) > 1e-3 {
		t.Errorf("report's slope %q, want %.3f", m[1], r.Slope)
	}
	reprotest.CheckFiguresAndNumbers(t, out, text, 2, 20)
}

// TestPeakRSSIsTheChilds: with 200 MB touched in this process, a `sleep` child must report its
// own few megabytes, not this process's peak (what getrusage's maxrss of a Go child reports).
func TestPeakRSSIsTheChilds(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc: the peak RSS falls back to getrusage")
	}
	if _, err := exec.LookPath("sleep"); err != nil {
		t.Skip("no sleep command")
	}
	big := make([]byte, 200<<20)
	for i := range big {
		big[i] = byte(i)
	}
	_, rss, _, err := subprocess(context.Background(), "sleep", "0.2")
	if err != nil {
		t.Fatal(err)
	}
	if rss <= 0 || rss > 50<<20 {
		t.Errorf("sleep's peak RSS %d bytes; want a few MB (this process holds %d)", rss, len(big))
	}
	runtime.KeepAlive(big)
}
