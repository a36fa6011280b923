package scale

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/lowdim/lowdim/nerv"
	"github.com/lowdim/lowdim/reproduce"
	"github.com/lowdim/lowdim/viz"
)

// ReportFile is the name of the markdown report inside the output directory.
const ReportFile = "scale.md"

// tradeOffPlot is the file name of the λ trade-off figure.
const tradeOffPlot = "tradeoff.png"

// WriteDir writes the maps and figures and then DIR/scale.md (creating DIR).
func (r *Report) WriteDir(dir string) error {
	return reproduce.WriteReportDir(dir, ReportFile, r.writePlots, r.WriteMarkdown)
}

func (r *Report) writePlots(dir string) error {
	for name, m := range r.maps {
		path := filepath.Join(dir, name)
		if m.png != nil {
			if err := os.WriteFile(path, m.png, 0o644); err != nil {
				return err
			}
			continue
		}
		sp, err := viz.Scatter{Title: m.title}.Plot(m.y, m.labels, m.names)
		if err != nil {
			return err
		}
		if err := viz.Save(sp, 0, 0, path); err != nil {
			return fmt.Errorf("scale: writing %s: %w", name, err)
		}
	}
	if len(r.Trade) > 1 {
		p, err := r.tradeOffFigure()
		if err != nil {
			return err
		}
		if err := viz.Save(p, 5.5*vg.Inch, 5*vg.Inch, filepath.Join(dir, tradeOffPlot)); err != nil {
			return fmt.Errorf("scale: writing %s: %w", tradeOffPlot, err)
		}
	}
	return nil
}

// tradeOffFigure draws −(mean smoothed precision loss) against −(mean smoothed recall loss) of
// NeRV and t-NeRV at each λ, joined in λ order, and t-SNE as a point: better is up and right.
func (r *Report) tradeOffFigure() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("NeRV and t-NeRV trade-off, MNIST n = %d", r.Config.TradeOffN)
	p.X.Label.Text = "− mean smoothed recall loss  KL(p‖q)"
	p.Y.Label.Text = "− mean smoothed precision loss  KL(q‖p)"
	p.Add(plotter.NewGrid())
	for k, method := range []string{"lowdim nerv", "lowdim tnerv"} {
		var pts plotter.XYs
		var labels []string
		for _, row := range r.Trade {
			if row.Tool == method && !math.IsNaN(row.Median.SmPrecLoss) {
				pts = append(pts, plotter.XY{X: -row.Median.SmRecLoss, Y: -row.Median.SmPrecLoss})
				labels = append(labels, fmt.Sprintf("λ=%g", row.Lambda))
			}
		}
		if len(pts) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, err
		}
		line.Color, points.Color = viz.ClassColor(k), viz.ClassColor(k)
		points.Shape = draw.CircleGlyph{}
		lb, err := plotter.NewLabels(plotter.XYLabels{XYs: pts, Labels: labels})
		if err != nil {
			return nil, err
		}
		lb.Offset = vg.Point{X: 3, Y: 3}
		for i := range lb.TextStyle {
			lb.TextStyle[i].Font.Size = 8
		}
		p.Add(line, points, lb)
		p.Legend.Add(strings.TrimPrefix(method, "lowdim ")+", λ = 0 … 1", line, points)
	}
	if t := r.Trade[0]; t.Tool == "lowdim tsne" && !math.IsNaN(t.Median.SmPrecLoss) {
		s, err := plotter.NewScatter(plotter.XYs{{X: -t.Median.SmRecLoss, Y: -t.Median.SmPrecLoss}})
		if err != nil {
			return nil, err
		}
		s.Color, s.Shape, s.Radius = viz.ClassColor(2), draw.BoxGlyph{}, 4
		p.Add(s)
		p.Legend.Add("t-SNE", s)
	}
	p.Legend.Top, p.Legend.Left = false, false
	p.Legend.YOffs = 2 * vg.Centimeter
	return p, nil
}

func gb(b int64) string {
	if b <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f GB", float64(b)/1e9)
}

// WriteMarkdown writes the report as markdown; the figures it links are those WriteDir writes.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	c := r.Config
	m := r.Machine
	p("# lowdim at scale: MNIST against Rtsne, the NeRV trade-off, and a scaling table\n\n")
	p("- Command: `%s`\n", r.Command)
	p("- Machine: %s/%s, %d CPUs (%s), %s; load average at the start %s (the machine may be shared: wall times are upper bounds)\n",
		m.OS, m.Arch, m.CPUs, m.CPUModel, m.GoVersion, r.Load)
	p("- Started %s; total wall time %s. Seed %d.\n", r.Started.UTC().Format("2006-01-02 15:04 UTC"), reproduce.Secs(r.Seconds), c.Seed)
	p("- Every lowdim run is a subprocess: `lowdim embed -method M -neighbors %d -seed %d -o out.csv [-plot map.png] IN`, timed from start to exit (reading the input and writing the map included); peak RSS is the child's own high-water mark (VmHWM of /proc/PID/status, read every 20 ms: getrusage's maxrss of a child started by Go includes the parent's memory).\n", Neighbors, c.Seed)
	p("- Map figures are lowdim eval's (package quality, `lowdim eval -neighbors %d`): T(%d) trustworthiness, mean smoothed precision loss KL(q‖p) and recall loss KL(p‖q) at k_eff = %d, and the leave-one-out %d-NN error of the labels in the map. Each number is the median over the runs.\n\n",
		EvalNeighbors, EvalNeighbors, EvalNeighbors, EvalKNN)

	if len(r.MNIST) > 0 {
		p("## 1. MNIST: lowdim t-SNE against Rtsne\n\n")
		p("The first n training rows (n = 70,000: the 60,000 training then the 10,000 test rows), pixels 0–255 as stored, written to one CSV that both read. ")
		p("Rtsne (R package %s) runs `Rtsne(x, dims=2, perplexity=30, theta=0.5, max_iter=1000, num_threads=2, check_duplicates=FALSE, pca=TRUE)` through `Rscript rtsne.R` (the script is embedded in lowdim, reproduce/scale/rtsne.R); its column \"Rtsne call\" is the time of that call alone, without R reading the CSV.\n\n", orDash(r.RtsneVersion))
		var t strings.Builder
		reproduce.TableHead(&t, "n", true, "tool", "runs", "wall", "Rtsne call", "peak RSS", "T(20)", "5-NN error", "wall ÷ Rtsne's")
		var rtsneWall = map[int]float64{}
		for _, row := range r.MNIST {
			if row.Tool == "Rtsne" && row.Missing == "" {
				rtsneWall[row.N] = row.Median.Seconds
			}
		}
		for _, row := range r.MNIST {
			if row.Missing != "" {
				fmt.Fprintf(&t, "| %s | %s | — | — | — | — | — | — | %s |\n", reproduce.Thousands(float64(row.N), 0), row.Tool, row.Missing)
				continue
			}
			ratio := "—"
			if rw, ok := rtsneWall[row.N]; ok && row.Tool != "Rtsne" {
				ratio = fmt.Sprintf("%.2f", row.Median.Seconds/rw)
			}
			md := row.Median
			fmt.Fprintf(&t, "| %s | %s | %d | %s | %s | %s | %s | %s | %s |\n", reproduce.Thousands(float64(row.N), 0), row.Tool, len(row.Runs1),
				reproduce.Secs(md.Seconds), secsOrDash(md.InnerSecs), gb(md.PeakRSS), reproduce.Num("%.4f", md.T20), reproduce.Num("%.4f", md.KNNError), ratio)
		}
		p("%s\n", t.String())
		p("Targets (issue 16): at 10,000–20,000 rows lowdim's wall at most half of Rtsne's (ratio ≤ 0.50) with T(20) and 5-NN error at least as good; all 70,000 rows in ≤ 150 s and ≤ 4 GB with figures no worse than Rtsne's.\n\n")
		for _, row := range r.MNIST {
			if row.Map != "" {
				p("![%s, n = %s](%s)\n", row.Tool, reproduce.Thousands(float64(row.N), 0), row.Map)
			}
		}
		p("\n")
	}

	if len(r.Trade) > 0 {
		p("## 2. The NeRV trade-off on MNIST (n = %s)\n\n", reproduce.Thousands(float64(c.TradeOffN), 0))
		var ms []string
		for _, m := range c.TradeMethods {
			ms = append(ms, "`-method "+m+"`")
		}
		methods := "`lowdim embed -method nerv` and `-method tnerv`"
		if len(ms) > 0 {
			methods = "`lowdim embed` " + strings.Join(ms, " and ")
		}
		p("%s with `-lambda λ` for λ ∈ %s, one run each, against the t-SNE map of the same rows. Smaller losses are better; λ = 0 is all precision (KL(q‖p)), λ = 1 all recall (KL(p‖q)).\n\n", methods, grid(c.Lambdas))
		if c.TradeOffN > nerv.ApproxMin {
			p("Above %s rows NeRV runs on its FFT grid path (`nerv/doc.go`, \"Gaussian NeRV at scale\"), t-NeRV on the Barnes–Hut path.\n\n", reproduce.Thousands(float64(nerv.ApproxMin), 0))
		}
		var t strings.Builder
		reproduce.TableHead(&t, "method", false, "λ", "wall", "peak RSS", "smoothed precision loss", "smoothed recall loss", "T(20)", "5-NN error")
		for _, row := range r.Trade {
			md := row.Median
			l := "—"
			if row.Tool != "lowdim tsne" {
				l = fmt.Sprintf("%g", row.Lambda)
			}
			fmt.Fprintf(&t, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", row.Tool, l, reproduce.Secs(md.Seconds), gb(md.PeakRSS),
				reproduce.Num("%.4f", md.SmPrecLoss), reproduce.Num("%.4f", md.SmRecLoss), reproduce.Num("%.4f", md.T20), reproduce.Num("%.4f", md.KNNError))
		}
		p("%s\n", t.String())
		p("Target (issue 16): NeRV λ = 0.1 on all of MNIST in ≤ 5 min with a lower mean smoothed precision loss than t-SNE's map.\n\n")
		p("![trade-off](%s)\n", tradeOffPlot)
		for _, row := range r.Trade {
			if row.Map != "" && row.Tool != "lowdim tsne" {
				p("![%s λ = %g](%s)\n", row.Tool, row.Lambda, row.Map)
			}
		}
		p("\n")
	}

	if len(r.Scaling) > 0 {
		p("## 3. Scaling: t-SNE on a Gaussian mixture\n\n")
		p("n rows of a seeded mixture of %d Gaussians in %d dimensions: component means drawn from N(0, %g²·I), unit covariance, each row's component uniform (MixtureRows, seed %d), written as a float32 IDX file and embedded by `lowdim embed -method tsne -neighbors %d -format idx` (no plot).\n\n",
			MixtureComponents, MixtureDim, MixtureMeanSD, c.Seed, Neighbors)
		var t strings.Builder
		reproduce.TableHead(&t, "n", true, "runs", "wall", "peak RSS", "µs per row")
		for _, row := range r.Scaling {
			md := row.Median
			fmt.Fprintf(&t, "| %s | %d | %s | %s | %s |\n", reproduce.Thousands(float64(row.N), 0), len(row.Runs1), reproduce.Secs(md.Seconds), gb(md.PeakRSS),
				reproduce.Num("%.1f", md.Seconds/float64(row.N)*1e6))
		}
		p("%s\n", t.String())
		if math.IsNaN(r.Slope) {
			p("Log-log slope of wall time against n: — (fewer than two sizes).\n\n")
		} else {
			verdict := "meets"
			if r.Slope > 1.15 {
				verdict = "misses"
			}
			p("Log-log slope of wall time against n (least squares on log t against log n over %d sizes): **%.3f**; it %s the goal ≤ 1.15.\n\n", len(r.Scaling), r.Slope, verdict)
		}
		p("Targets (issue 16): 1,000,000 rows in ≤ 60 min and ≤ 8 GB; slope ≤ 1.15.\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func secsOrDash(s float64) string {
	if math.IsNaN(s) {
		return "—"
	}
	return reproduce.Secs(s)
}

func grid(l []float64) string {
	s := make([]string, len(l))
	for i, v := range l {
		s[i] = fmt.Sprintf("%g", v)
	}
	return "{" + strings.Join(s, ", ") + "}"
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
