package pepaper

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/lowdim/lowdim/pe"
	"github.com/lowdim/lowdim/reproduce"
	"github.com/lowdim/lowdim/viz"
)

// PEReportFile is the name of the PE markdown report inside the output directory.
const PEReportFile = "pe.md"

// PE plot file names, relative to the report's directory.
func peSlug(data string) string {
	return strings.ReplaceAll(strings.ToLower(data), " ", "-")
}
func pePlot(data, method string) string { return method + "-" + peSlug(data) + ".png" }
func digitsPlot(per int) string         { return fmt.Sprintf("digits-%d.png", per) }

const (
	topicsPlot = "topics-bbc.png"
	timePlot   = "time.png"
	itersPlot  = "iterations.png"
)

// paperTable1 is the paper's Table 1 (per-class F-measure of the naive Bayes posteriors on its
// 5,000 Japanese web pages, 10 classes), quoted for context.
const paperTable1 = "arts 0.973, sports 0.978, business 0.929, computers 0.924, health 0.967, home 0.957, recreation 0.958, regional 0.909, science 0.964, online-shopping 0.941"

// WriteDir writes the plots and then DIR/pe.md (creating DIR).
func (r *PEReport) WriteDir(dir string) error {
	return reproduce.WriteReportDir(dir, PEReportFile, r.writePlots, r.WriteMarkdown)
}

func (r *PEReport) writePlots(dir string) error {
	save := func(f viz.Drawer, w, h vg.Length, name string) error {
		if err := viz.Save(f, w, h, filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("reproduce: writing %s: %w", name, err)
		}
		return nil
	}
	for _, t := range r.Text {
		sp, err := viz.Scatter{Title: fmt.Sprintf("PE, %s (n = %d): naive Bayes posteriors", t.Data, t.N), ClassPoints: t.PE.Phi}.Plot(t.PE.Y, t.Labels, t.ClassNames)
		if err != nil {
			return err
		}
		if err := save(sp, 0, 0, pePlot(t.Data, "pe")); err != nil {
			return err
		}
		sp, err = viz.Scatter{Title: fmt.Sprintf("MDS2 (classical MDS of posteriors), %s", t.Data)}.Plot(t.MDS2, t.Labels, t.ClassNames)
		if err != nil {
			return err
		}
		if err := save(sp, 0, 0, pePlot(t.Data, "mds2")); err != nil {
			return err
		}
		sp, err = viz.Scatter{Title: fmt.Sprintf("SNE on √(symmetrised KL), %s", t.Data)}.Plot(t.SNE, t.Labels, t.ClassNames)
		if err != nil {
			return err
		}
		if err := save(sp, 0, 0, pePlot(t.Data, "sne")); err != nil {
			return err
		}
		pp, err := PrecPlot(t)
		if err != nil {
			return err
		}
		if err := save(pp, 5.5*vg.Inch, 4.5*vg.Inch, pePlot(t.Data, "prec")); err != nil {
			return err
		}
	}
	for _, g := range r.Digits {
		sp, err := viz.Scatter{
			Title:       fmt.Sprintf("PE, MNIST 0–4 (n = %d), soft-NN with %d labels per class", g.N, g.PerClass),
			ClassPoints: g.PE.Phi, Highlight: g.Examples, HighlightName: "labelled examples",
		}.Plot(g.PE.Y, g.Labels, g.ClassNames)
		if err != nil {
			return err
		}
		if err := save(sp, 0, 0, digitsPlot(g.PerClass)); err != nil {
			return err
		}
	}
	if t := r.Topics; t != nil {
		sp, err := viz.Scatter{
			Title:       fmt.Sprintf("PE of %d BBC words over 5 of %d LDA topics", t.Words, t.Topics),
			ClassPoints: t.PE.Phi, Annotations: t.Annotations, Width: 8 * vg.Inch, Height: 7 * vg.Inch,
		}.Plot(t.PE.Y, t.Labels, t.TopicNames)
		if err != nil {
			return err
		}
		if err := save(sp, 0, 0, topicsPlot); err != nil {
			return err
		}
	}
	if r.Time != nil {
		for _, f := range []struct {
			name  string
			iters bool
		}{{timePlot, false}, {itersPlot, true}} {
			p, err := TimePlot(r.Time, f.iters)
			if err != nil {
				return err
			}
			if err := save(p, 5.5*vg.Inch, 4.5*vg.Inch, f.name); err != nil {
				return err
			}
		}
	}
	return nil
}

// PrecPlot draws prec(h) against h for every method of t; random-start PE carries ± one
// standard deviation as error bars, as the paper's Fig. 2.
func PrecPlot(t *PEText) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("prec(h), %s (n = %d)", t.Data, t.N)
	p.X.Label.Text = "h"
	p.Y.Label.Text = "prec(h)"
	p.Y.Min, p.Y.Max = 0, 1
	p.Add(plotter.NewGrid())
	shapes := []draw.GlyphDrawer{draw.CircleGlyph{}, draw.BoxGlyph{}, draw.TriangleGlyph{}, draw.PyramidGlyph{}, draw.CrossGlyph{}}
	for i, c := range t.Curves {
		pts := make(plotter.XYs, len(t.H))
		for j, h := range t.H {
			pts[j].X, pts[j].Y = float64(h), c.Prec[j]
		}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, err
		}
		line.Color, points.Color = viz.ClassColor(i), viz.ClassColor(i)
		points.Shape = shapes[i%len(shapes)]
		points.Radius = 2
		p.Add(line, points)
		if c.Std != nil {
			eb := make(plotter.YErrors, len(c.Std))
			for j, s := range c.Std {
				eb[j].Low, eb[j].High = s, s
			}
			bars, err := plotter.NewYErrorBars(struct {
				plotter.XYs
				plotter.YErrors
			}{pts, eb})
			if err != nil {
				return nil, err
			}
			bars.Color = viz.ClassColor(i)
			p.Add(bars)
		}
		p.Legend.Add(c.Method, line, points)
	}
	p.Legend.Top = false
	p.Legend.Left = true
	return p, nil
}

// TimePlot draws the fit time (or, with iters, the full-size sweeps) of every series against n
// on log-log (log-linear) axes.
func TimePlot(t *PETime, iters bool) (*plot.Plot, error) {
	p := plot.New()
	p.X.Label.Text = "number of objects n"
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	if iters {
		p.Title.Text = "PE: full-size sweeps (solve all objects for one Φ) against n"
		p.Y.Label.Text = "sweeps"
		p.Y.Min = 0
	} else {
		p.Title.Text = "PE fit time against n"
		p.Y.Label.Text = "seconds"
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	}
	p.Add(plotter.NewGrid())
	for i, s := range t.Series {
		pts := make(plotter.XYs, len(s.Rows))
		for j, row := range s.Rows {
			pts[j].X = float64(row.N)
			if iters {
				pts[j].Y = float64(row.Sweeps)
			} else {
				pts[j].Y = math.Max(row.Seconds, 1e-4)
			}
		}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return nil, err
		}
		line.Color, points.Color = viz.ClassColor(i), viz.ClassColor(i)
		points.Shape = draw.CircleGlyph{}
		p.Add(line, points)
		name := s.Name
		if !iters {
			name = fmt.Sprintf("%s (slope %s)", s.Name, reproduce.Num("%.3f", s.Slope))
		}
		p.Legend.Add(name, line, points)
	}
	p.Legend.Top = true
	p.Legend.Left = true
	return p, nil
}

// WriteMarkdown writes the report as markdown; the plots it links are those WriteDir writes.
func (r *PEReport) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	c := r.Config
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# Parametric Embedding (Iwata, Saito, Ueda, Stromsten, Griffiths and Tenenbaum, Neural Computation 2007) reproduced with lowdim\n\n")
	if c.Quick {
		p("**Quick run** (`-quick`): small subsets, %d random starts, %d LDA sweeps, timing up to n = %d — a smoke test, not the experiment.\n\n", c.Seeds, c.LDAIterations, c.TimeMax)
	}
	p("- Command: `%s`\n", r.Command)
	p("- Machine: %s/%s, %d logical CPUs", r.Machine.OS, r.Machine.Arch, r.Machine.CPUs)
	if r.Machine.CPUModel != "" {
		p(" (%s)", r.Machine.CPUModel)
	}
	p(", %s\n", r.Machine.GoVersion)
	p("- Started %s; total wall time %s\n", r.Started.UTC().Format(time.RFC3339), reproduce.Secs(r.Seconds))
	p("- Seed %d: it seeds the text subsamples (PCG stream 0x70652d74), the random PE starts (seeds %d … %d), SNE, the soft-NN examples, LDA, the synthetic posteriors and the tiling of the timing section (PCG stream 0x74696c65). Same seed, same report apart from the wall times.\n",
		c.Seed, c.Seed+1, c.Seed+uint64(c.Seeds))
	p("- PE settings: the pe package's defaults — η_r = 0.1 and η_φ = 0.01·n (the paper's η_φ = 50 at its n = 5,000; pe scales it with n so that the picture does not depend on n), Φ from the lowest J of the classical-MDS start (class profiles) and 4 seeded random starts unless a single start is named, tolerance 10⁻⁶·n on ∂J/∂Φ. ")
	p("The paper's text experiment used naive Bayes class priors; we pass them as π (class frequencies). Soft-NN posteriors (equal priors) and LDA word posteriors get uniform π.\n\n")

	p("## Data\n\n")
	p("- **BBC news** (`bbc/bbc.mtx.gz` and side files): 2,225 documents × 9,635 stemmed terms, 5 classes. Stands in for the paper's 5,000 Japanese web pages in 10 Open Directory categories, which are not available.\n")
	p("- **Reuters-21578 R8** (`reuters_r8/r8-{train,test}-all-terms.txt.gz` read as one corpus): 7,674 documents, 8 classes, terms in at least %d documents kept.\n", R8MinDocFreq)
	p("- **MNIST** test digits 0–4 (`mnist/t10k-*`): a seeded random %d of the 5,139 (the paper used 2,558 digits 0–4 without saying which).\n\n", c.DigitsN)

	p("## 1. Text: naive Bayes posteriors → PE, against MDS2 and SNE (paper §5, Fig. 1–2, Table 1)\n\n")
	p("**Posteriors.** Multinomial naive Bayes (`posterior.NaiveBayes`, λ_k by exact leave-one-out) is fitted to every labelled document, and each document's posterior is computed **leave-one-out** (its own counts and prior count removed), \"as if its label were unknown\". ")
	p("Corpora with more than %d documents are embedded on a seeded random subsample of %d (posteriors still from the whole corpus): MDS2 and SNE need n×n matrices and SNE is O(n²) per iteration.\n\n", c.TextN, c.TextN)
	p("**Methods.** *PE*: `pe.Embedder` on the posteriors: with its defaults (the lowest J of the MDS start and %d seeded random starts), from the MDS start alone, and from %d single random starts (`pe.InitRandom`, `Restarts: -1`, seeds %d … %d; the paper used 100). ", pe.DefaultRestarts, c.Seeds, c.Seed+1, c.Seed+uint64(c.Seeds))
	p("*MDS2*: classical MDS of the Euclidean distances between posterior rows (the paper's eq. 10 gives their squares, which is what classical MDS double-centres), computed as the top two left singular vectors × singular values of the centred posterior rows (`ClassicalMDSRows`, gonum SVD) — the same embedding as `cmds.FromDistances` of the n×n distances (`TestClassicalMDSRowsMatchesFromDistances`) without the n×n eigenproblem. ")
	p("*SNE*: `nerv.Embedder` with λ = 1 (SNE), 20 effective neighbours, PCA start of the posteriors, on d_ij = √(½[KL(p̃_i‖p̃_j) + KL(p̃_j‖p̃_i)]) with p̃ = (p + ε)/(1 + Kε), ε = %g. ", KLFloor)
	p("The paper feeds SNE KL(p_i‖p_j) in place of a squared distance; nerv needs a symmetric dissimilarity and squares it, hence the symmetrised KL and its square root; the floor keeps the divergence of near one-hot naive Bayes posteriors finite (it caps a term at about log(1/ε) ≈ %.0f nats). ", math.Log(1/KLFloor))
	p("Isomap2, MDS1, Isomap1, FLDA and KDA are not run.\n\n")
	p("**prec(h)** (`quality.PrecH`, h = 10, 20, …, 500): the share of the h documents with the highest p_ik among the h nearest to φ_k, averaged over classes; PE uses its class points, MDS2 and SNE the paper's φ_k = y of the document with the highest p_ik.\n\n")
	p("**F-measure** (`quality.FMeasure`, per class, against the true labels). The paper's Table 1 scores \"the class that has the highest conditional probability\" — the naive Bayes argmax; the MDS2 and SNE embeddings are made from those same posteriors, so by that definition they share the row *posteriors*. We also score each embedding's own classification: PE's argmax_k q_ik (the nearest class point under the priors), and for MDS2 and SNE the nearest representative point φ_k.\n\n")
	hsShow := []int{10, 50, 100, 200, 300, 500}
	for _, t := range r.Text {
		p("### %s (%d documents embedded of %d; %d terms; %d classes; %s)\n\n", t.Data, t.N, t.Docs, t.Vocabulary, len(t.ClassNames), reproduce.Secs(t.Seconds))
		p("Naive Bayes: λ_k = %s; leave-one-out argmax error %.4f over all %d documents; fit and posteriors %s.\n\n", floats("%.3g", t.Lambda), t.NBError, t.Docs, reproduce.Secs(t.NBSeconds))
		p("| Method |")
		var cols []int
		for j, h := range t.H {
			for _, s := range hsShow {
				if h == s {
					cols = append(cols, j)
					p(" prec(%d) |", h)
				}
			}
		}
		p(" fit |\n|---|")
		for range cols {
			p("---:|")
		}
		p("---:|\n")
		times := []float64{t.PESeconds, t.PEMDSSeconds, t.PERandomSeconds, t.MDS2Seconds, t.SNESeconds}
		for i, cv := range t.Curves {
			p("| %s |", cv.Method)
			for _, j := range cols {
				if cv.Std != nil {
					p(" %.3f ± %.3f |", cv.Prec[j], cv.Std[j])
				} else {
					p(" %.3f |", cv.Prec[j])
				}
			}
			p(" %s |\n", msecs(times[i]))
		}
		if t.Priors != nil {
			p("PE's classes carry the naive Bayes priors π = %s, so argmax q (below) can pass over a small class whose documents lie between larger ones.\n\n", floats("%.3f", t.Priors))
		}
		lo, hi := reproduce.MeanStd(t.RandomCosts)
		p("\nFinal J: default %.6g, MDS start alone %.6g, single random starts %.6g ± %.3g over %d seeds. The random-start fit time is the median one. The F-measures and the plot below are the default fit's.\n\n", t.PE.Cost, t.MDSCost, lo, hi, len(t.RandomCosts))
		reproduce.TableHead(&b, "F-measure", false, append(slices.Clone(t.ClassNames), "error")...)
		for _, row := range []struct {
			name string
			f    []float64
			e    float64
		}{
			{"posteriors: argmax p (paper's definition; MDS2 and SNE input)", t.FPosterior, t.ErrPosterior},
			{"PE: argmax q", t.FPE, t.ErrPE},
			{"MDS2: nearest representative", t.FMDS2, t.ErrMDS2},
			{"SNE: nearest representative", t.FSNE, t.ErrSNE},
		} {
			p("| %s |", row.name)
			for _, v := range row.f {
				p(" %.3f |", v)
			}
			p(" %.3f |\n", row.e)
		}
		p("\nPaper's Table 1 (its web pages, posteriors' argmax): %s.\n\n", paperTable1)
		if len(t.EtaSweep) > 0 {
			p("**η_φ.** The penalty η_φ‖φ_k‖²/2 is the same for every class while a class's pull on its point grows with its documents, so at the paper's η_φ = 0.01·n the points of the small classes stay near the origin among the large ones and their documents' argmax q goes to a large class. PE refitted (defaults otherwise) at smaller η_φ:\n\n")
			p("| η_φ | J |")
			for _, j := range cols {
				p(" prec(%d) |", t.H[j])
			}
			for _, name := range t.ClassNames {
				p(" F %s |", name)
			}
			p("\n|---:|---:|")
			for range len(cols) + len(t.ClassNames) {
				p("---:|")
			}
			p("\n")
			for _, row := range t.EtaSweep {
				p("| %.3g (%.3g·n) | %.6g |", row.EtaPhi, row.EtaPhi/float64(t.N), row.Cost)
				for _, j := range cols {
					p(" %.3f |", row.Prec[j])
				}
				for _, v := range row.F {
					p(" %.3f |", v)
				}
				p("\n")
			}
			p("\nprec(h) breaks ties at random in expectation (`quality.PrecH`): naive Bayes gives many documents p = 1 exactly, and breaking those ties by row index on both sides had given MDS2, which maps equal posterior rows to one point, an unearned lead.\n\n")
		}
		p("![PE on %[1]s](%[2]s) ![MDS2 on %[1]s](%[3]s)\n![SNE on %[1]s](%[4]s) ![prec(h) on %[1]s](%[5]s)\n\n",
			t.Data, pePlot(t.Data, "pe"), pePlot(t.Data, "mds2"), pePlot(t.Data, "sne"), pePlot(t.Data, "prec"))
	}

	p("## 2. Digits: semi-supervised soft nearest-neighbour classifier (paper §6, Fig. 5)\n\n")
	p("`posterior.SoftNN` draws PerClass labelled examples of each class (seeded) and sees no other label; every digit's posterior over the 5 classes goes to PE. ")
	p("The covariance shrinkage ρ and scale s are chosen by the examples' leave-one-out likelihood (the paper's literal fixed covariance gives one-hot, mostly wrong posteriors; see the posterior package). ")
	p("Error and confusion count the digits that are not examples; F-measures cover all digits. The examples are drawn crossed in the plots, as the paper's ×'s.\n\n")
	p("| labels per class | ρ | s | argmax-p error | soft-NN fit | PE fit |")
	if len(r.Digits) > 0 {
		for _, h := range r.Digits[0].H {
			p(" PE prec(%d) |", h)
		}
	}
	p("\n|---:|---:|---:|---:|---:|---:|")
	if len(r.Digits) > 0 {
		for range r.Digits[0].H {
			p("---:|")
		}
	}
	p("\n")
	for _, g := range r.Digits {
		p("| %d | %.3g | %.3g | %.4f | %s | %s |", g.PerClass, g.Shrinkage, g.Scale, g.Error, reproduce.Secs(g.SoftNNSeconds), msecs(g.PESeconds))
		for _, v := range g.Prec {
			p(" %.3f |", v)
		}
		p("\n")
	}
	p("\n")
	for _, g := range r.Digits {
		p("**%d labels per class.** Per-class F-measure:\n\n", g.PerClass)
		reproduce.TableHead(&b, "", false, g.ClassNames...)
		p("| argmax p |")
		for _, v := range g.FPosterior {
			p(" %.3f |", v)
		}
		p("\n| PE argmax q |")
		for _, v := range g.FPE {
			p(" %.3f |", v)
		}
		p("\n\nConfusion of argmax p (rows: true digit, columns: assigned):\n\n")
		reproduce.TableHead(&b, "true \\ assigned", false, g.ClassNames...)
		for i, row := range g.Confusion {
			p("| %s |", g.ClassNames[i])
			for _, v := range row {
				p(" %d |", v)
			}
			p("\n")
		}
		p("\n![PE of digits, %d labels per class](%s)\n\n", g.PerClass, digitsPlot(g.PerClass))
	}

	if t := r.Topics; t != nil {
		p("## 3. Topics: LDA word posteriors (paper §7, Fig. 6)\n\n")
		p("LDA (`posterior.LDA`, collapsed Gibbs, %d topics, %d sweeps, α = 50/K, β = 0.01) on the %d BBC documents (the paper: 50 topics on the TASA corpus); final log p(w|z) %.6g; fit %s. ", t.Topics, t.Iterations, t.Docs, t.LogLikelihood, reproduce.Secs(t.LDASeconds))
		p("Five topics are chosen, one per BBC class: the not yet chosen topic with the largest mean proportion θ_dk over that class's documents. ")
		p("Every one of the %d words gets its posterior over those five topics, p(z_k|w) ∝ φ_kw p(z_k) renormalised (`WordPosteriors`), and PE embeds them (n = %d, K = 5, uniform π; fit %s). ", t.Words, t.Words, msecs(t.PESeconds))
		p("Words are coloured by their most probable topic. Labelled words: the 4 most probable words of each topic, and for each pair of topics the word among the 2,000 most frequent with p_a + p_b ≥ 0.8 and the largest min(p_a, p_b) — words between two topics.\n\n")
		p("| topic | chosen for class | top words |\n|---:|---|---|\n")
		for i, k := range t.Chosen {
			p("| %d | %s | %s |\n", k, t.ChosenFor[i], t.TopicNames[i])
		}
		var shared []string
		for _, a := range t.Annotations[min(len(t.Annotations), 4*len(t.Chosen)):] {
			shared = append(shared, a.Text)
		}
		p("\nWords between two topics: %s.\n\n![PE of BBC words over five LDA topics](%s)\n\n", strings.Join(shared, ", "), topicsPlot)
	}

	if t := r.Time; t != nil {
		p("## 4. Time (paper §5.5, Fig. 3–4, Table 2)\n\n")
		p("Wall time of `pe.FitPosteriors` (median of %d fit(s) per size; posteriors given, as the paper omits preprocessing) with the pe defaults but one start (the MDS start, `Restarts: -1`, as the paper's algorithm; %d workers). ", t.Repeats, r.Machine.CPUs)
		p("Inputs: K = %d posteriors drawn by `pe.DirichletMixture` (concentration %d); the same without the warm-up sample (`Warmup: -1`, differs only for n > %d, where pe otherwise first fits Φ on %d sampled rows); and the R8 leave-one-out naive Bayes posteriors of §1 (K = 8), in a seeded random order tiled (or cut) to n. ",
			TimeClasses, DirichletConcentration, 2*20000, 20000)
		p("*Iterations* are L-BFGS iterations on Φ at full size, *sweeps* the full-size passes that solve every object for one Φ (the paper's outer iterations).\n\n")
		var cols []string
		for _, s := range t.Series {
			cols = append(cols, s.Name+": s", "it", "sweeps")
		}
		reproduce.TableHead(&b, "n", true, cols...)
		for i, n := range t.Sizes {
			p("| %d |", n)
			for _, s := range t.Series {
				row := s.Rows[i]
				p(" %.3f | %d | %d |", row.Seconds, row.Iterations, row.Sweeps)
			}
			p("\n")
		}
		p("\n| log-log slope | all n | n ≤ 10,000 |\n|---|---:|---:|\n")
		for _, s := range t.Series {
			p("| %s | %s | %s |\n", s.Name, reproduce.Num("%.3f", s.Slope), reproduce.Num("%.3f", s.SlopeSmall))
		}
		p("| *paper (n = 500 … 5,000, Xeon 3.2 GHz)* | | *0.749* |\n\n")
		for i, n := range t.Sizes {
			if n == 5000 {
				p("At the paper's n = 5,000: %.3f s on Dirichlet posteriors, %.3f s on the R8 posteriors (paper: 3.13 s on its web pages, K = 10).\n\n", t.Series[0].Rows[i].Seconds, t.Series[len(t.Series)-1].Rows[i].Seconds)
			}
		}
		p("![fit time against n](%s) ![sweeps against n](%s)\n\n", timePlot, itersPlot)
	}

	p("## What is not reproduced\n\n")
	p("- The paper's data: 5,000 Japanese Open Directory web pages (BBC and R8 instead), the TASA corpus (BBC instead), and its exact 2,558 digits.\n")
	p("- MDS1, Isomap1, Isomap2, FLDA and KDA (Fig. 1, Table 2): lowdim has no Isomap on a given asymmetric divergence, FLDA or KDA; the timings of the other methods are not redone (MDS2's and SNE's fit times are in §1).\n")
	p("- 100 random starts for the error bars (we run %d) and 1,000 for the iteration counts (we run the deterministic MDS start).\n", c.Seeds)
	_, err := io.WriteString(w, b.String())
	return err
}

// msecs formats a short wall time with millisecond resolution.
func msecs(s float64) string {
	if s < 10 {
		return fmt.Sprintf("%.3f s", s)
	}
	return reproduce.Secs(s)
}

func floats(format string, v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf(format, x)
	}
	return strings.Join(s, ", ")
}
