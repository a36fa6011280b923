package hopepaper

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/lowdim/lowdim/baseline/deepae"
	"github.com/lowdim/lowdim/baseline/dtse"
	"github.com/lowdim/lowdim/ptsne"
	"github.com/lowdim/lowdim/reproduce"
	"github.com/lowdim/lowdim/viz"
)

func hopePlot(set, method string) string {
	r := strings.NewReplacer(" + ", "-", " ", "-")
	return "hope-" + strings.ToLower(set) + "-" + strings.ToLower(r.Replace(method)) + ".png"
}

func hopeCurvePlot(set string) string { return "hope-" + strings.ToLower(set) + "-curve.png" }

// WriteDir writes the plots and then DIR/hope.md (creating DIR).
func (r *HOPEReport) WriteDir(dir string) error {
	return reproduce.WriteReportDir(dir, HOPEReportFile, r.writePlots, r.WriteMarkdown)
}

func (r *HOPEReport) writePlots(dir string) error {
	for _, s := range r.Sets {
		for _, res := range s.Results {
			y, labels := res.Y, s.TestLabels
			sc := viz.Scatter{Title: fmt.Sprintf("%s, %s test set: 5-NN error %.2f %%", res.Method, s.Data, 100*res.TestError)}
			if res.Exemplars != nil {
				n, d := y.Dims()
				z, _ := res.Exemplars.Dims()
				all := mat.NewDense(n+z, d, nil)
				all.Slice(0, n, 0, d).(*mat.Dense).Copy(y)
				all.Slice(n, n+z, 0, d).(*mat.Dense).Copy(res.Exemplars)
				y = all
				labels = append(append([]int(nil), labels...), res.ExLabels...)
				for j := range z {
					sc.Highlight = append(sc.Highlight, n+j)
				}
				sc.HighlightName = "exemplars"
			}
			p, err := sc.Plot(y, labels, s.ClassNames)
			if err != nil {
				return err
			}
			if err := viz.Save(p, 0, 0, filepath.Join(dir, hopePlot(s.Data, res.Method))); err != nil {
				return fmt.Errorf("reproduce: writing %s: %w", hopePlot(s.Data, res.Method), err)
			}
		}
		if r.Config.ComparisonOnly {
			continue
		}
		p, err := HOPECurvePlot(s)
		if err != nil {
			return err
		}
		if err := viz.Save(p, 6*vg.Inch, 4*vg.Inch, filepath.Join(dir, hopeCurvePlot(s.Data))); err != nil {
			return fmt.Errorf("reproduce: writing %s: %w", hopeCurvePlot(s.Data), err)
		}
	}
	return nil
}

// HOPECurvePlot draws the validation 5-NN error of every epoch against the training time.
func HOPECurvePlot(s *HOPESet) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: validation 5-NN error against training time", s.Data)
	p.X.Label.Text = "training time (minutes)"
	p.Y.Label.Text = "validation 5-NN error (%)"
	p.Add(plotter.NewGrid())
	for i, res := range s.Results {
		if len(res.History) == 0 {
			continue
		}
		pts := make(plotter.XYs, 0, len(res.History))
		for _, h := range res.History {
			if math.IsNaN(h.ValidError) {
				continue
			}
			pts = append(pts, plotter.XY{X: h.Elapsed.Minutes(), Y: 100 * h.ValidError})
		}
		if len(pts) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, err
		}
		line.Color, points.Color = viz.ClassColor(i), viz.ClassColor(i)
		p.Add(line, points)
		p.Legend.Add(res.Method, line, points)
	}
	p.Legend.Top = true
	return p, nil
}

// hasSet reports whether the report has the named data set.
func (r *HOPEReport) hasSet(name string) bool {
	for _, s := range r.Sets {
		if strings.EqualFold(s.Data, name) {
			return true
		}
	}
	return false
}

// exemplarRows returns the results that vote among exemplars in the paper's order (Tables 2 and
// 4): the k-means rows of the comparison maps, then HOPE's and S-HOPE's k-means and joint rows.
func exemplarRows(results []*HOPEResult) []*HOPEResult {
	var order []string
	for _, m := range HOPEBaselines {
		order = append(order, KMeansRow(m))
	}
	order = append(order, "k-means + HOPE", "k-means + S-HOPE", "HOPE + joint exemplars", "S-HOPE + joint exemplars")
	rank := map[string]int{}
	for i, m := range order {
		rank[m] = i + 1
	}
	var out []*HOPEResult
	for _, res := range results {
		if res.Reference == ExemplarReference {
			out = append(out, res)
		}
	}
	// Rows the order does not name keep their place after the named ones.
	sort.SliceStable(out, func(a, b int) bool {
		ra, rb := rank[out[a].Method], rank[out[b].Method]
		if ra == 0 {
			ra = len(order) + 1
		}
		if rb == 0 {
			rb = len(order) + 1
		}
		return ra < rb
	})
	return out
}

// fineSecs formats short durations in milliseconds.
func fineSecs(s float64) string {
	if s < 1 {
		return fmt.Sprintf("%.2f ms", 1000*s)
	}
	return reproduce.Secs(s)
}

// WriteMarkdown writes the report; the plots it links are those WriteDir writes.
func (r *HOPEReport) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	c := r.Config
	p("# HOPE and S-HOPE (Min, Guo and Song) — reproduction\n\n")
	p("Command: `%s`  \nMachine: %s/%s, %d CPUs (%s), %s. Started %s; %s in all.\n\n",
		r.Command, r.Machine.OS, r.Machine.Arch, r.Machine.CPUs, r.Machine.CPUModel, r.Machine.GoVersion, r.Started.Format("2006-01-02 15:04 MST"), reproduce.Secs(r.Seconds))
	if c.Quick {
		p("**Quick mode**: 800 training and 400 test rows per set, F = m = 40, batches of 100, 6 epochs — a smoke test, not the paper's numbers.\n\n")
	}
	if c.ComparisonOnly {
		p("**Comparison rows only** (`-only baselines`): no HOPE or S-HOPE map was trained. The 20 k-means centres are S-HOPE's supervised k-means on its training split, run alone (`hope.Embedder.KMeans`): the same procedure as in a full run, another draw of it.\n\n")
	}
	if len(c.Methods) > 0 {
		var out []string
		for _, m := range HOPEBaselines {
			if !slices.Contains(c.Methods, m) {
				out = append(out, m)
			}
		}
		p("**Comparison rows run** (`-methods`): %s. Left out, with their k-means rows: %s.\n\n", strings.Join(c.Methods, ", "), strings.Join(out, ", "))
	}
	p("Every map is trained on 90 %% of the training rows; the other 10 %% (per class, seeded) pick the kept epoch by their 5-NN error ")
	p("against the embedded training rows (against the embedded exemplars in the joint stage). The test rows are used for nothing but the ")
	p("numbers below. Each fit stops after the first epoch past its time budget (budget scale %g) or at its epoch cap. Optimiser: %s.\n\n", c.Budget, map[bool]string{false: "Adam, learning rate 3e-3", true: "CG, 3 iterations per mini-batch"}[c.CG])
	for _, s := range r.Sets {
		p("## %s (%d training, %d test rows, %d features)\n\n", s.Data, s.NTrain, s.NTest, s.H)
		paperOf := func(method string) float64 {
			if v, ok := HOPEPaper[strings.ToUpper(s.Data)][method]; ok {
				return v
			}
			return math.NaN()
		}
		row := func(res *HOPEResult) {
			t, ep := "—", "—"
			if res.Seconds > 0 {
				t = reproduce.Secs(res.Seconds)
			}
			if res.Epochs > 0 {
				ep = fmt.Sprint(res.Epochs)
			}
			p("| %s | %s | %s | %s | %s | %s | %s | %s |\n", res.Method, reproduce.Num("%.2f", paperOf(res.Method)), reproduce.Num("%.2f", 100*res.TestError), reproduce.Num("%.2f", 100*res.ValidError),
				res.Reference, t, ep, res.Settings)
		}
		head := func() {
			reproduce.TableHead(&b, "method", false, "paper 5-NN error (%)", "our test 5-NN error (%)", "validation error (%)", "5-NN against", "training time", "epochs", "settings")
		}
		table, exTable := "1", "2"
		if isUSPS(strings.ToUpper(s.Data)) {
			table, exTable = "3", "4"
		}
		p("**The maps (the paper's Table %s)**: the test rows' 5-NN vote among all embedded training rows.\n\n", table)
		head()
		for _, res := range s.Results {
			if res.Reference != ExemplarReference {
				row(res)
			}
		}
		p("\n")
		p("**Exemplar learning (the paper's Table %s)**: the test rows' 5-NN vote among 20 embedded exemplars, 2 per class: ", exTable)
		p("S-HOPE's supervised k-means centres in the input space, mapped by each method's fitted map, or exemplars learnt jointly with the map. ")
		p("A k-means row's training time is that of the map that embeds the centres; a joint row's includes the map it continues from.\n\n")
		head()
		for _, res := range exemplarRows(s.Results) {
			row(res)
		}
		p("\n")
		writeCentres(p, &b, s.Results)
		if s.FullKNNSeconds > 0 {
			p("k-NN speed: the %d embedded test rows against all %d embedded training rows took %s; against the 20 embedded exemplars %s",
				s.NTest, s.NTrain, fineSecs(s.FullKNNSeconds), fineSecs(s.ExemplarKNNSeconds))
			if s.ExemplarKNNSeconds > 0 {
				p(" (%.0f× faster)", s.FullKNNSeconds/s.ExemplarKNNSeconds)
			}
			p(". ")
		}
		if !math.IsNaN(s.InputKNNError) {
			p("For comparison, 5-NN in the %d-dimensional input space: test error %s %% in %s (paper: 4.77 %% on its 8,000/3,000 USPS split, 3.05 %% on MNIST)", s.H, reproduce.Num("%.2f", 100*s.InputKNNError), fineSecs(s.InputKNNSeconds))
			p("; on the validation split %s %%: the test rows are that much harder than the held-out training rows.", reproduce.Num("%.2f", 100*s.InputValidError))
		}
		p("\n\n")
		for _, res := range s.Results {
			if len(res.Curve) == 0 {
				continue
			}
			p("%s's test 5-NN error (%%) after each fine-tuning epoch (read off, not used to choose anything; its encodings and 5-NN passes took %s of the row's %s):", res.Method, secs2(res.CurveSeconds), secs2(res.Seconds))
			for i, v := range res.Curve {
				p(" %d: %s", i+1, reproduce.Num("%.2f", 100*v))
				if i < len(res.Curve)-1 {
					p(",")
				}
			}
			p(".\n\n")
		}
		if !c.ComparisonOnly {
			p("![validation error against time](%s)\n\n", hopeCurvePlot(s.Data))
		}
		for _, res := range s.Results {
			p("![%s](%s)\n", res.Method, hopePlot(s.Data, res.Method))
		}
		p("\n")
	}
	p("## Notes\n\n")
	if r.hasSet("USPS") {
		p("- The USPS files are the ESL 7,291/2,007 split (values in [−1, 1]), not the paper's 8,000/3,000 split of 11,000 images; the numbers are comparable in kind, not digit for digit. The ESL test digits are markedly harder than held-out training digits (compare the input-space 5-NN errors on the validation split and on the test set above).\n")
	}
	if r.hasSet(USPSMixed) {
		p("- %s pools the ESL split's 9,298 rows and splits them again at random, stratified by class and seeded, into 7,291 training and 2,007 test rows: like the paper's random 8,000/3,000 split of 11,000 images, training and test digits come from the same writers.\n", USPSMixed)
	}
	if !c.ComparisonOnly {
		p("- The joint-exemplar rows' training times and curves include the HOPE or S-HOPE fit they continue from.\n")
	}
	if !c.NoAugment && !c.ComparisonOnly && len(r.Sets) > 0 {
		p("- S-HOPE (and the exemplar rows that continue from it) trained on rows moved by a fresh random shift of up to %d pixel(s) along each axis whenever they entered a mini-batch (`hope.Augment`), vacated pixels set to the training rows' minimum (−1 on USPS, 0 on MNIST); the validation and test rows are never moved. The shift was chosen on USPS's validation split only; the row \"%s\" is the same map trained on the plain rows with the earlier settings (at most 40 epochs on USPS, 25 on MNIST%s).\n", AugmentShift, HOPEBaseline,
			map[bool]string{true: "; on the ESL split, given the full 15 minutes instead, it reached 6.43 % test error with seed 1, see the hope package documentation"}[r.hasSet("USPS")])
	}
	p("- Exemplars are 2 per class (z = 20), as in the paper. k-means exemplars are centres in the input space, found once (in S-HOPE's fit, on its training split) and embedded by every map of the k-means rows; joint exemplars start from them and are learnt with the map (HOPE's or S-HOPE's) on eq. 9 (alternating for the first epochs).\n")
	p("- LDA, LPP, NCA, MCML, LMNN and pt-SNE are lowdim's own (packages baseline/… and ptsne): each map is learnt from the training rows (NCA and LMNN from 5,000, MCML from 2,000 random ones on 50 principal components: their cost is quadratic in n), and the test rows' 5-NN vote among all embedded training rows. pt-SNE pretrains the network as a stack of RBMs (CD-1, package ptsne's default of 10 epochs a layer), then fine-tunes it by conjugate gradients on mini-batches of 5,000 rows (USPS's 7,291 make one batch), both as the paper did, with %s a batch (the paper's code, minimize.m, takes three line searches; quick mode: Adam on small batches). deep-AE is Hinton and Salakhutdinov's deep autoencoder (package baseline/deepae): the same 500–500–2000 encoder with a 2-unit linear code (the paper does not give its network; theirs for MNIST was 1000–500–250), pretrained the same way, unrolled into an encoder–decoder and fine-tuned on the cross-entropy of the reconstructed [0, 1]-scaled pixels with %s per mini-batch of 100 rows (Hinton and Salakhutdinov used 1,000, but on USPS that stalls at 55.90 %% test error for want of updates; see package deepae); its code is the map. dt-NCA and dt-MCML (Min et al. 2010, package baseline/dtse) pretrain the same network the same way and fine-tune it to collapse the classes in the 2-D code, with Student-t similarities (α = 1) and %s per mini-batch of 1,000 rows: dt-MCML on KL(P‖Q), P uniform over the batch's same-class pairs and Q normalised over all pairs (S-HOPE's objective), dt-NCA on NCA's expected fraction of rows whose stochastic neighbour (q normalised per row) is of their class.\n", cgIters(c.CGIterations, ptsne.DefaultCGIterations), cgIters(c.CGIterations, deepae.DefaultCGIterations), cgIters(c.CGIterations, dtse.DefaultCGIterations))
	p("- Times were taken on a shared 2-core machine with other jobs running.\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// cgIters says how many CG iterations a batch a network's rows took, set is the run's
// -cg-iterations (0 for the package's default def), and how many line searches that is.
func cgIters(set, def int) string {
	n := orInt(set, def)
	searches := fmt.Sprintf("%d line searches", n-1)
	if n == 2 {
		searches = "one line search"
	}
	return fmt.Sprintf("%d conjugate-gradient iterations (%s, gonum counting the start as the first iteration)", n, searches)
}

// writeCentres tabulates where each map carries the k-means centres (centres.go).
func writeCentres(p func(string, ...any), b *strings.Builder, results []*HOPEResult) {
	var rows []*HOPEResult
	for _, res := range exemplarRows(results) {
		if res.Centres != nil {
			rows = append(rows, res)
		}
	}
	if len(rows) == 0 {
		return
	}
	p("**Where the maps carry the k-means centres.** A map f sends centre c_j to f(c_j), while the training rows nearest c_j among their class's centres lie around m_j, the mean of their embeddings. ")
	p("For a linear map f(c_j) = m_j; for a curved one (HOPE's powers of its factors, a network's sigmoids) f of a blurred mean digit can land elsewhere. ")
	p("The offset is ‖f(c_j) − m_j‖ in units of the members' RMS distance to m_j, the median over the 20 centres (near 0, not 0, for a linear map: the centres average the k-means split, the members are all training rows); the last column is the test 5-NN error had the test rows voted among the m_j.\n\n")
	reproduce.TableHead(b, "k-means row", false, "test 5-NN error among f(c_j) (%)", "offset (median)", "test 5-NN error among m_j (%)")
	for _, res := range rows {
		o := res.Centres
		p("| %s | %s | %s | %s |\n", res.Method, reproduce.Num("%.2f", 100*res.TestError), reproduce.Num("%.2f", o.Median), reproduce.Num("%.2f", 100*o.MembersError))
	}
	p("\n")
}
