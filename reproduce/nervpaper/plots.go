package nervpaper

import (
	"fmt"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/lowdim/lowdim/viz"
)

// writePlots writes every figure the markdown links into dir.
func (r *Report) writePlots(dir string) error {
	save := func(f viz.Drawer, name string) error {
		if err := viz.Save(f, 0, 0, filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("reproduce: writing %s: %w", name, err)
		}
		return nil
	}
	for _, u := range r.Unsupervised {
		nv := u.Methods[3]
		sp, err := viz.Scatter{Title: fmt.Sprintf("NeRV λ = %.1f, %s: 5-NN error %.3f", nv.Lambda, u.Data, nv.KNNError)}.Plot(nv.Y, u.Labels, u.ClassNames)
		if err != nil {
			return err
		}
		if err := save(sp, unsupPlot(u.Data)); err != nil {
			return err
		}
		ts := u.Methods[2]
		sp, err = viz.Scatter{Title: fmt.Sprintf("t-SNE, %s: 5-NN error %.3f", u.Data, ts.KNNError)}.Plot(ts.Y, u.Labels, u.ClassNames)
		if err != nil {
			return err
		}
		if err := save(sp, tsnePlot(u.Data)); err != nil {
			return err
		}
	}
	for _, s := range r.Supervised {
		if s.Example == nil {
			continue // SNeRV did not run
		}
		sp, err := viz.Scatter{Title: fmt.Sprintf("SNeRV λ = 0.1, %s fold 1: held-out 5-NN error %.3f",
			s.Data, s.Methods[0].Errors[0])}.Plot(s.Example, s.Labels, s.ClassNames)
		if err != nil {
			return err
		}
		if err := save(sp, supPlot(s.Data)); err != nil {
			return err
		}
	}
	sets := []*TradeOff{}
	if r.SCurve != nil {
		sets = append(sets, r.SCurve)
	}
	for _, u := range r.Unsupervised {
		sets = append(sets, &TradeOff{Data: u.Data, N: u.N, Sweep: u.Sweep, Best: u.Best, PCA: u.Methods[0]})
	}
	for _, t := range sets {
		p, err := TradeOffPlot(t)
		if err != nil {
			return err
		}
		if err := viz.Save(p, 5.5*vg.Inch, 5*vg.Inch, filepath.Join(dir, tradeOffPlot(t.Data))); err != nil {
			return fmt.Errorf("reproduce: writing %s: %w", tradeOffPlot(t.Data), err)
		}
	}
	return nil
}

// TradeOffPlot draws −(mean smoothed precision loss) against −(mean smoothed recall loss) of
// NeRV at each λ, joined in λ order and labelled with λ, and PCA as a separate point: better is
// up and to the right, as in the paper's Figure 4.
func TradeOffPlot(t *TradeOff) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("NeRV trade-off on %s (n = %d)", t.Data, t.N)
	p.X.Label.Text = "− mean smoothed recall loss  KL(p‖q)"
	p.Y.Label.Text = "− mean smoothed precision loss  KL(q‖p)"
	pts := make(plotter.XYs, len(t.Sweep))
	labels := make([]string, len(t.Sweep))
	for i, s := range t.Sweep {
		pts[i].X, pts[i].Y = -s.SmoothedRecallLoss, -s.SmoothedPrecisionLoss
		labels[i] = fmt.Sprintf("λ=%g", s.Lambda)
	}
	line, points, err := plotter.NewLinePoints(pts)
	if err != nil {
		return nil, err
	}
	line.Color = viz.ClassColor(0)
	points.Color = viz.ClassColor(0)
	points.Shape = draw.CircleGlyph{}
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: pts, Labels: labels})
	if err != nil {
		return nil, err
	}
	lb.Offset = vg.Point{X: 3, Y: 3}
	for i := range lb.TextStyle {
		lb.TextStyle[i].Font.Size = 8
	}
	pca, err := plotter.NewScatter(plotter.XYs{{X: -t.PCA.SmoothedRecallLoss, Y: -t.PCA.SmoothedPrecisionLoss}})
	if err != nil {
		return nil, err
	}
	pca.Color = viz.ClassColor(1)
	pca.Shape = draw.BoxGlyph{}
	pca.Radius = 4
	p.Add(plotter.NewGrid(), line, points, lb, pca)
	p.Legend.Add("NeRV, λ = 0 … 1", line, points)
	p.Legend.Add("PCA", pca)
	p.Legend.Top = false
	p.Legend.Left = false
	p.Legend.YOffs = 2 * vg.Centimeter
	return p, nil
}
