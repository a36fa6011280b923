package scale

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/quality"
	"github.com/lowdim/lowdim/reproduce"
)

// RScript is the R program that runs Rtsne on a CSV (Rscript rtsne.R IN.csv OUT.csv SEED).
//
//go:embed rtsne.R
var RScript string

// Parts names the three parts of the report, in the order they run.
var Parts = []string{"mnist", "tradeoff", "scaling"}

// Config holds the settings of the scale report. The zero value of each field means the
// documented default.
type Config struct {
	// DataDir holds the staged data sets (mnist/); "" means ../shared/data next to the module root.
	DataDir string
	// Binary is the lowdim executable run as a subprocess; "" means the running one (os.Executable).
	Binary string
	// Rscript is the R front end; "" means "Rscript" on the PATH.
	Rscript string
	// Parts chooses among "mnist", "tradeoff" and "scaling"; nil means all three.
	Parts []string
	// N lists the MNIST sizes: the first n training rows, and all 70,000 (training then test
	// rows) for n = 70000. nil means 10000, 20000, 70000.
	N []int
	// Runs is the number of runs whose medians are reported; 0 means 1 for n ≥ 70,000 and 3 below.
	Runs int
	// TradeOffN is the number of MNIST rows of the λ trade-off; 0 means 70000.
	TradeOffN int
	// Lambdas is the λ grid of the trade-off; nil means 0, 0.1, 0.3, 0.5, 0.7, 1.
	Lambdas []float64
	// TradeMethods are the methods of the trade-off, of nerv and tnerv; nil means both.
	TradeMethods []string
	// ScalingN lists the sizes of the scaling table; nil means 10k, 30k, 100k, 300k, 1M.
	ScalingN []int
	// MaxN drops the scaling sizes above it; 0 means no bound.
	MaxN int
	// Approx passes -approx to every lowdim embed (the fast path even below nerv.ApproxMin; the
	// sizes of the full report are above it anyway, so this is for small test runs).
	Approx bool
	// Seed is passed to every embedding (lowdim -seed, Rtsne's set.seed) and seeds the mixture.
	Seed uint64
	// TempDir holds the CSV and IDX files written for the subprocesses; "" means os.TempDir().
	// The files are removed at the end.
	TempDir string
	// Log receives progress lines; nil means none.
	Log io.Writer
}

// Neighbors is the k_eff of every lowdim embedding (-neighbors) and Rtsne's perplexity.
const Neighbors = 30

// EvalNeighbors is k of T(k) and of the smoothed precision and recall (lowdim eval's default);
// EvalKNN is k of the k-NN error.
const (
	EvalNeighbors = 20
	EvalKNN       = 5
)

// Mixture describes the scaling table's data: Components Gaussian components in Dim dimensions,
// with means drawn from N(0, MeanSD²·I) and unit covariance, each row's component drawn uniformly.
const (
	MixtureComponents = 20
	MixtureDim        = 50
	MixtureMeanSD     = 4.0
)

func (c *Config) defaults() error {
	if c.Parts == nil {
		c.Parts = Parts
	}
	for _, p := range c.Parts {
		if !slices.Contains(Parts, p) {
			return dataset.Invalidf("scale: part %q; expected mnist, tradeoff or scaling", p)
		}
	}
	if c.N == nil {
		c.N = []int{10000, 20000, 70000}
	}
	if c.TradeOffN == 0 {
		c.TradeOffN = 70000
	}
	if c.Lambdas == nil {
		c.Lambdas = []float64{0, 0.1, 0.3, 0.5, 0.7, 1}
	}
	if c.ScalingN == nil {
		c.ScalingN = []int{10000, 30000, 100000, 300000, 1000000}
	}
	for _, n := range append(append([]int{c.TradeOffN}, c.N...), c.ScalingN...) {
		if n < 100 {
			return dataset.Invalidf("scale: n = %d; expected at least 100 rows", n)
		}
	}
	for _, n := range append([]int{c.TradeOffN}, c.N...) {
		if n > mnistRows {
			return dataset.Invalidf("scale: MNIST n = %d; it has %d rows", n, mnistRows)
		}
	}
	for _, l := range c.Lambdas {
		if !(l >= 0 && l <= 1) {
			return dataset.Invalidf("scale: λ = %g; expected a number in [0, 1]", l)
		}
	}
	if c.Runs < 0 || c.MaxN < 0 {
		return dataset.Invalidf("scale: -runs and -max-n: expected non-negative numbers")
	}
	if c.Binary == "" {
		exe, err := os.Executable()
		if err != nil {
			return fmt.Errorf("scale: the lowdim executable: %w", err)
		}
		c.Binary = exe
	}
	if c.Rscript == "" {
		c.Rscript = "Rscript"
	}
	if c.TempDir == "" {
		c.TempDir = os.TempDir()
	}
	return nil
}

func (c *Config) has(part string) bool { return slices.Contains(c.Parts, part) }

func (c *Config) runs(n int) int {
	if c.Runs > 0 {
		return c.Runs
	}
	if n >= 70000 {
		return 1
	}
	return 3
}

func (c *Config) logf(format string, args ...any) {
	if c.Log != nil {
		fmt.Fprintf(c.Log, format+"\n", args...)
	}
}

// Measure is one subprocess run: its wall time, its peak resident set and, for a map, the
// figures of lowdim eval -neighbors 20 (NaN when not measured).
type Measure struct {
	Seconds    float64 // wall time of the whole process, reading the input included
	InnerSecs  float64 // Rtsne: the time of the Rtsne call alone; NaN for lowdim
	PeakRSS    int64   // bytes: the child's VmHWM (see subprocess)
	T20        float64 // trustworthiness T(20)
	KNNError   float64 // leave-one-out 5-NN error in the map
	SmPrecLoss float64 // mean smoothed precision loss, KL(q‖p) (lowdim eval)
	SmRecLoss  float64 // mean smoothed recall loss, KL(p‖q)
}

// Row is a tool or method at one size: the medians over its runs, or why it did not run.
type Row struct {
	Tool    string // "lowdim tsne", "Rtsne", "lowdim nerv", …
	Lambda  float64
	N, Runs int
	Median  Measure
	Runs1   []Measure
	Missing string // why there are no numbers ("Rscript not found …"); "" when measured
	Map     string // PNG file of the first run's map in the report directory; "" when none
}

// Report is the whole scale report.
type Report struct {
	Config  Config
	Command string
	Machine reproduce.Machine
	Load    string // /proc/loadavg at the start: the machine is shared
	// RtsneVersion is the R package's version, "" when it did not run.
	RtsneVersion string
	Started      time.Time
	MNIST        []Row // per size: lowdim tsne, then Rtsne
	Trade        []Row // lowdim tsne, then nerv and tnerv at each λ
	Scaling      []Row
	// Slope is the least-squares slope of log wall time against log n over Scaling (NaN with
	// fewer than two sizes).
	Slope   float64
	Seconds float64
	maps    map[string]*mapData // PNG name → map, drawn by WriteDir
}

type mapData struct {
	y      *mat.Dense
	labels []int
	names  []string
	title  string
	png    []byte // lowdim's own -plot output, copied as is
}

// Run measures the chosen parts. The lowdim runs are subprocesses of Binary, the Rtsne runs of
// Rscript; a missing Rscript or Rtsne leaves its rows without numbers and says why.
func Run(ctx context.Context, c Config, command string) (*Report, error) {
	if err := c.defaults(); err != nil {
		return nil, err
	}
	start := time.Now()
	r := &Report{Config: c, Command: command, Machine: reproduce.ThisMachine(), Load: loadAverage(), Started: start, maps: map[string]*mapData{}}
	tmp, err := os.MkdirTemp(c.TempDir, "lowdim-scale-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	if c.has("mnist") || c.has("tradeoff") {
		dir, err := reproduce.DataDirOr(c.DataDir)
		if err != nil {
			return nil, err
		}
		c.logf("scale: reading MNIST from %s", dir)
		all, err := LoadMNIST(dir)
		if err != nil {
			return nil, err
		}
		if c.has("mnist") {
			if err := r.runMNIST(ctx, &c, all, tmp); err != nil {
				return nil, err
			}
		}
		if c.has("tradeoff") {
			if err := r.runTradeOff(ctx, &c, all, tmp); err != nil {
				return nil, err
			}
		}
	}
	if c.has("scaling") {
		if err := r.runScaling(ctx, &c, tmp); err != nil {
			return nil, err
		}
	}
	r.Seconds = time.Since(start).Seconds()
	return r, nil
}

// mnistRows is the number of MNIST rows, training and test together.
const mnistRows = 70000

// LoadMNIST reads MNIST from dataDir/mnist: the 60,000 training rows, then the 10,000 test rows.
func LoadMNIST(dataDir string) (*dataset.Set, error) {
	train, err := reproduce.Load(filepath.Join(dataDir, "mnist", "train-images-idx3-ubyte.gz"), dataset.Options{})
	if err != nil {
		return nil, err
	}
	test, err := reproduce.Load(filepath.Join(dataDir, "mnist", "t10k-images-idx3-ubyte.gz"), dataset.Options{})
	if err != nil {
		return nil, err
	}
	return reproduce.Concat("MNIST", train, test)
}

// firstRows returns the first n rows of d.
func firstRows(d *dataset.Set, n int) *dataset.Set {
	if n >= d.Len() {
		return d
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return d.Subset(idx)
}

func writeCSV(path string, d *dataset.Set) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := dataset.WriteCSV(f, d); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// subprocess runs name with args and returns its wall time, peak RSS and standard output.
//
// The peak RSS is the child's VmHWM (/proc/PID/status), read every 20 ms while it runs. The
// child's getrusage maxrss is not used on Linux: Go starts children with clone(CLONE_VM|
// CLONE_VFORK), and execve records the high-water mark of the memory it leaves — this process's,
// which holds MNIST and the evaluations — into the child's maxrss, so every child would report at
// least the parent's peak. Where /proc is absent maxrss is the fallback (an upper bound).
func subprocess(ctx context.Context, name string, args ...string) (secs float64, rss int64, stdout string, err error) {
	cmd := exec.CommandContext(ctx, name, args...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	t0 := time.Now()
	if err = cmd.Start(); err != nil {
		return 0, 0, "", fmt.Errorf("%s: %w", filepath.Base(name), err)
	}
	status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
	done := make(chan struct{})
	peak := make(chan int64)
	go func() {
		var hwm int64
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			if v := vmHWM(status); v > hwm {
				hwm = v
			}
			select {
			case <-done:
				peak <- hwm
				return
			case <-tick.C:
			}
		}
	}()
	err = cmd.Wait()
	secs = time.Since(t0).Seconds()
	close(done)
	rss = <-peak
	if err != nil {
		msg := strings.TrimSpace(errb.String())
		if len(msg) > 2000 {
			msg = "…" + msg[len(msg)-2000:]
		}
		return secs, 0, out.String(), fmt.Errorf("%s %s: %w\n%s", filepath.Base(name), strings.Join(args, " "), err, msg)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && rss == 0 {
		rss = ru.Maxrss * 1024 // kilobytes on Linux
	}
	return secs, rss, out.String(), nil
}

// vmHWM returns the VmHWM line of a /proc/PID/status file in bytes, 0 when unreadable.
func vmHWM(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kb * 1024
		}
	}
	return 0
}

// embedArgs returns lowdim embed's arguments for method on the input file in, writing out (and
// the map plot, when plot is not "").
func (c *Config) embedArgs(method string, lambda float64, in, out, plot string, extra ...string) []string {
	a := []string{"embed", "-method", method, "-neighbors", strconv.Itoa(Neighbors), "-seed", strconv.FormatUint(c.Seed, 10), "-o", out}
	if method == "nerv" || method == "tnerv" {
		a = append(a, "-lambda", strconv.FormatFloat(lambda, 'g', -1, 64))
	}
	if plot != "" {
		a = append(a, "-plot", plot)
	}
	if c.Approx {
		a = append(a, "-approx")
	}
	return append(append(a, extra...), in)
}

// readMap reads a 2-D map written as CSV with columns x, y (and perhaps label).
func readMap(path string, n int) (*mat.Dense, error) {
	s, err := dataset.Load(path, dataset.Options{Warn: func(string) {}, Label: "", NoLabel: true})
	if err != nil {
		return nil, err
	}
	if r, d := s.X.Dims(); r != n || d != 2 {
		return nil, fmt.Errorf("scale: map %s is %d×%d; expected %d×2", path, r, d, n)
	}
	return s.X, nil
}

// evaluate fills m's map figures: what lowdim eval -neighbors 20 prints.
func evaluate(ctx context.Context, m *Measure, d *dataset.Set, y *mat.Dense) error {
	q, err := quality.Evaluate(ctx, d.X, y, d.Labels, quality.Options{Neighbors: EvalNeighbors, KNN: EvalKNN})
	if err != nil {
		return err
	}
	s := q.Summary()
	m.T20, m.SmPrecLoss, m.SmRecLoss = s.Trustworthiness, s.SmoothedPrecisionLoss, s.SmoothedRecallLoss
	m.KNNError = math.NaN()
	if s.KNNError != nil {
		m.KNNError = *s.KNNError
	}
	return nil
}

// medians returns the field-wise medians of ms.
func medians(ms []Measure) Measure {
	f := func(get func(Measure) float64) float64 {
		v := make([]float64, 0, len(ms))
		for _, m := range ms {
			if x := get(m); !math.IsNaN(x) {
				v = append(v, x)
			}
		}
		if len(v) == 0 {
			return math.NaN()
		}
		return reproduce.Median(v)
	}
	return Measure{
		Seconds:    f(func(m Measure) float64 { return m.Seconds }),
		InnerSecs:  f(func(m Measure) float64 { return m.InnerSecs }),
		PeakRSS:    int64(f(func(m Measure) float64 { return float64(m.PeakRSS) })),
		T20:        f(func(m Measure) float64 { return m.T20 }),
		KNNError:   f(func(m Measure) float64 { return m.KNNError }),
		SmPrecLoss: f(func(m Measure) float64 { return m.SmPrecLoss }),
		SmRecLoss:  f(func(m Measure) float64 { return m.SmRecLoss }),
	}
}

func nanMeasure() Measure {
	nan := math.NaN()
	return Measure{Seconds: nan, InnerSecs: nan, T20: nan, KNNError: nan, SmPrecLoss: nan, SmRecLoss: nan}
}

// lowdimMap runs lowdim embed on in (the rows of d) runs times and measures each map.
func (r *Report) lowdimMap(ctx context.Context, c *Config, d *dataset.Set, in, tmp, method string, lambda float64, runs int, mapName string) (Row, error) {
	tool := "lowdim " + method
	row := Row{Tool: tool, Lambda: lambda, N: d.Len(), Runs: runs}
	for k := 0; k < runs; k++ {
		out, plot := filepath.Join(tmp, "out.csv"), ""
		if k == 0 && mapName != "" {
			plot = filepath.Join(tmp, "map.png")
		}
		what := tool
		if method == "nerv" || method == "tnerv" { // tsne has no λ (the row's field is unused)
			what = fmt.Sprintf("%s λ=%g", tool, lambda)
		}
		c.logf("scale: %s n=%d run %d/%d", what, d.Len(), k+1, runs)
		secs, rss, _, err := subprocess(ctx, c.Binary, c.embedArgs(method, lambda, in, out, plot)...)
		if err != nil {
			return row, err
		}
		m := nanMeasure()
		m.Seconds, m.PeakRSS = secs, rss
		y, err := readMap(out, d.Len())
		if err != nil {
			return row, err
		}
		if err := evaluate(ctx, &m, d, y); err != nil {
			return row, err
		}
		c.logf("scale:   %.1f s, %.2f GB, T(20) %.4f, 5-NN error %.4f", m.Seconds, float64(m.PeakRSS)/1e9, m.T20, m.KNNError)
		row.Runs1 = append(row.Runs1, m)
		if plot != "" {
			b, err := os.ReadFile(plot)
			if err != nil {
				return row, err
			}
			r.maps[mapName] = &mapData{png: b}
			row.Map = mapName
		}
	}
	row.Median = medians(row.Runs1)
	return row, nil
}

// rtsneStatus returns Rtsne's version, or why it cannot run.
func rtsneStatus(ctx context.Context, rscript string) (version, missing string) {
	if _, err := exec.LookPath(rscript); err != nil {
		return "", fmt.Sprintf("not run: %s not found (apt-get install r-cran-rtsne)", rscript)
	}
	cmd := exec.CommandContext(ctx, rscript, "-e",
		`if (!requireNamespace("Rtsne", quietly = TRUE)) quit(status = 3); cat(as.character(packageVersion("Rtsne")))`)
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 3 {
			return "", "not run: R package Rtsne not installed (apt-get install r-cran-rtsne)"
		}
		return "", fmt.Sprintf("not run: %s fails: %v", rscript, err)
	}
	return strings.TrimSpace(string(out)), ""
}

func (r *Report) rtsneMap(ctx context.Context, c *Config, d *dataset.Set, in, tmp, script string, runs int, mapName string) (Row, error) {
	row := Row{Tool: "Rtsne", N: d.Len(), Runs: runs}
	for k := 0; k < runs; k++ {
		out := filepath.Join(tmp, "rtsne.csv")
		c.logf("scale: Rtsne n=%d run %d/%d", d.Len(), k+1, runs)
		secs, rss, stdout, err := subprocess(ctx, c.Rscript, script, in, out, strconv.FormatUint(c.Seed, 10))
		if err != nil {
			return row, err
		}
		m := nanMeasure()
		m.Seconds, m.PeakRSS = secs, rss
		for _, line := range strings.Split(stdout, "\n") {
			if v, ok := strings.CutPrefix(line, "rtsne_seconds "); ok {
				m.InnerSecs, _ = strconv.ParseFloat(strings.TrimSpace(v), 64)
			}
		}
		y, err := readMap(out, d.Len())
		if err != nil {
			return row, err
		}
		if err := evaluate(ctx, &m, d, y); err != nil {
			return row, err
		}
		c.logf("scale:   %.1f s, %.2f GB, T(20) %.4f, 5-NN error %.4f", m.Seconds, float64(m.PeakRSS)/1e9, m.T20, m.KNNError)
		row.Runs1 = append(row.Runs1, m)
		if k == 0 {
			r.maps[mapName] = &mapData{y: y, labels: d.Labels, names: d.ClassNames, title: fmt.Sprintf("Rtsne, MNIST n = %d", d.Len())}
			row.Map = mapName
		}
	}
	row.Median = medians(row.Runs1)
	return row, nil
}

func (r *Report) runMNIST(ctx context.Context, c *Config, all *dataset.Set, tmp string) error {
	var status string
	r.RtsneVersion, status = rtsneStatus(ctx, c.Rscript)
	script := filepath.Join(tmp, "rtsne.R")
	if err := os.WriteFile(script, []byte(RScript), 0o644); err != nil {
		return err
	}
	for _, n := range c.N {
		d := firstRows(all, n)
		in := filepath.Join(tmp, fmt.Sprintf("mnist%d.csv", n))
		if err := writeCSV(in, d); err != nil {
			return err
		}
		runs := c.runs(n)
		row, err := r.lowdimMap(ctx, c, d, in, tmp, "tsne", 0, runs, fmt.Sprintf("mnist-%d-lowdim.png", n))
		if err != nil {
			return err
		}
		r.MNIST = append(r.MNIST, row)
		if status != "" {
			r.MNIST = append(r.MNIST, Row{Tool: "Rtsne", N: n, Missing: status, Median: nanMeasure()})
		} else {
			row, err := r.rtsneMap(ctx, c, d, in, tmp, script, runs, fmt.Sprintf("mnist-%d-rtsne.png", n))
			if err != nil {
				return err
			}
			r.MNIST = append(r.MNIST, row)
		}
		os.Remove(in)
	}
	return nil
}

func (r *Report) runTradeOff(ctx context.Context, c *Config, all *dataset.Set, tmp string) error {
	n := c.TradeOffN
	d := firstRows(all, n)
	in := filepath.Join(tmp, fmt.Sprintf("mnist%d.csv", n))
	if err := writeCSV(in, d); err != nil {
		return err
	}
	defer os.Remove(in)
	// The t-SNE map of the MNIST part at the same n, when there is one.
	var tsne *Row
	for i := range r.MNIST {
		if r.MNIST[i].Tool == "lowdim tsne" && r.MNIST[i].N == n {
			tsne = &r.MNIST[i]
		}
	}
	if tsne == nil {
		row, err := r.lowdimMap(ctx, c, d, in, tmp, "tsne", 0, 1, "")
		if err != nil {
			return err
		}
		tsne = &row
	}
	r.Trade = append(r.Trade, *tsne)
	methods := c.TradeMethods
	if methods == nil {
		methods = []string{"nerv", "tnerv"}
	}
	for _, method := range methods {
		if method != "nerv" && method != "tnerv" {
			return dataset.Invalidf("scale: trade-off method %q; expected nerv or tnerv", method)
		}
		for _, l := range c.Lambdas {
			mapName := ""
			if l == 0.1 {
				mapName = fmt.Sprintf("tradeoff-%s-0.1.png", method)
			}
			row, err := r.lowdimMap(ctx, c, d, in, tmp, method, l, 1, mapName)
			if err != nil {
				return err
			}
			r.Trade = append(r.Trade, row)
		}
	}
	return nil
}

func (r *Report) runScaling(ctx context.Context, c *Config, tmp string) error {
	var logN, logT []float64
	for _, n := range c.ScalingN {
		if c.MaxN > 0 && n > c.MaxN {
			continue
		}
		in := filepath.Join(tmp, fmt.Sprintf("mixture%d.idx", n))
		if err := WriteMixtureIDX(in, n, c.Seed); err != nil {
			return err
		}
		runs := c.runs(n)
		row := Row{Tool: "lowdim tsne", N: n, Runs: runs}
		for k := 0; k < runs; k++ {
			c.logf("scale: mixture n=%d run %d/%d", n, k+1, runs)
			out := filepath.Join(tmp, "out.csv")
			secs, rss, _, err := subprocess(ctx, c.Binary, c.embedArgs("tsne", 0, in, out, "", "-format", "idx")...)
			if err != nil {
				return err
			}
			m := nanMeasure()
			m.Seconds, m.PeakRSS = secs, rss
			c.logf("scale:   %.1f s, %.2f GB", secs, float64(rss)/1e9)
			row.Runs1 = append(row.Runs1, m)
		}
		os.Remove(in)
		row.Median = medians(row.Runs1)
		r.Scaling = append(r.Scaling, row)
		logN = append(logN, math.Log(float64(n)))
		logT = append(logT, math.Log(row.Median.Seconds))
	}
	r.Slope = slope(logN, logT)
	return nil
}

// loadAverage returns the first three fields of /proc/loadavg, or "" where there is none.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}
