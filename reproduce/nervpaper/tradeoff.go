package nervpaper

import (
	"context"
	"math"
	"time"

	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/linproj"
)

// TradeOff is the precision–recall trade-off of NeRV on one data set: the smoothed precision
// and recall losses (20 effective neighbours) as λ runs over the grid, with PCA for reference.
type TradeOff struct {
	Data    string
	N       int
	Sweep   []Score // NeRV at each λ, in grid order
	Best    int     // largest rank-based F-measure
	PCA     Score
	Seconds float64
}

// RunTradeOff fits NeRV at every λ of c's grid on d and measures each embedding.
func RunTradeOff(ctx context.Context, c Config, d *dataset.Set) (*TradeOff, error) {
	c.RandomStarts = -1 // the curve is the PCA-start sweep's
	c.defaults()
	start := time.Now()
	sweep, best, _, _, err := c.sweep(ctx, d)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	pm, err := linproj.PCA{}.Fit(ctx, d)
	if err != nil {
		return nil, err
	}
	pca, err := c.score(ctx, "PCA", math.NaN(), d, pm.Embedding(), time.Since(t0).Seconds())
	if err != nil {
		return nil, err
	}
	return &TradeOff{Data: d.Name, N: d.Len(), Sweep: sweep, Best: best, PCA: pca, Seconds: time.Since(start).Seconds()}, nil
}
