package quality

import (
	"context"

	"gonum.org/v1/gonum/mat"
)

// PointLosses returns each point's smoothed precision loss KL(q_i‖p_i) and recall loss
// KL(p_i‖q_i), with opt.Neighbors effective neighbours and the conventions of Smoothed (dredviz
// klmeasure; see the package documentation). They are the terms whose means Smoothed and Evaluate
// report: Σ_i precision[i] = n·SmoothedPrecisionLoss, Σ_i recall[i] = n·SmoothedRecallLoss. A
// point's share of the loss says where the picture misleads: a high precision loss marks a point
// whose displayed neighbours are not its neighbours in the data, a high recall loss one whose data
// neighbours are drawn far away. Like Smoothed it makes two passes over the input distances.
func PointLosses(ctx context.Context, x, y *mat.Dense, opt Options) (precision, recall []float64, err error) {
	k := opt.neighbors()
	n, err := check(x, y, k)
	if err != nil {
		return nil, nil, err
	}
	meanX, meanY, err := means(ctx, x, y, opt)
	if err != nil {
		return nil, nil, err
	}
	sx, sy := 1/(meanX*meanX), 1/(meanY*meanY)
	if meanX == 0 {
		sx = 1
	}
	if meanY == 0 {
		sy = 1
	}
	ws := make([]*worker, opt.workers())
	for w := range ws {
		ws[w] = &worker{}
	}
	precision, recall = make([]float64, n), make([]float64, n)
	err = bothRows(ctx, x, y, opt, "point losses", func(w, i int, dx, dy []float64) error {
		wk := ws[w]
		loX, _, loY, _ := rowRanges(i, dx, dy)
		precision[i], recall[i] = smoothedRow(wk, i, dx, dy, sx, sy, loX, loY, k)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return precision, recall, nil
}
