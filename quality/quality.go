package quality

import (
	"context"
	"math"
	"runtime"

	"gonum.org/v1/gonum/mat"

	"github.com/lowdim/lowdim"
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/neighbors"
)

// Options are the settings of Evaluate and of the individual measures.
type Options struct {
	Neighbors    int             // k of T(k), C(k) and the P/R relevant set; k_eff of the smoothed and rank-based measures. 0 means 20
	KNN          int             // k of the k-NN classification error. 0 means 5
	MaxRetrieved int             // P/R curves: retrieved 1..MaxRetrieved. 0 means 100
	Workers      int             // goroutines; 0 means runtime.NumCPU()
	Progress     lowdim.Progress // receives ("mean distance", …), ("input pass", …); may be nil
}

func (o Options) neighbors() int {
	if o.Neighbors > 0 {
		return o.Neighbors
	}
	return 20
}

func (o Options) knn() int {
	if o.KNN > 0 {
		return o.KNN
	}
	return 5
}

func (o Options) maxRetrieved() int {
	if o.MaxRetrieved > 0 {
		return o.MaxRetrieved
	}
	return 100
}

func (o Options) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return runtime.NumCPU()
}

// Report holds every measure of one embedding.
type Report struct {
	N, Neighbors int
	// Trustworthiness[k-1] and Continuity[k-1] hold T(k) and C(k) for k = 1..Neighbors.
	Trustworthiness, Continuity []float64
	// Mean over points of KL(q_i‖p_i) and KL(p_i‖q_i) (dredviz klmeasure's sums divided by n).
	SmoothedPrecisionLoss, SmoothedRecallLoss float64
	// Rank-based losses normalised to [0,1] by the reversed-ranking worst case.
	RankPrecisionLoss, RankRecallLoss float64
	// MeanPrecision[r-1], MeanRecall[r-1]: r output neighbours retrieved, r = 1..MaxRetrieved;
	// the relevant set is the Neighbors nearest input neighbours.
	MeanPrecision, MeanRecall []float64
	KNNError                  *float64 // nil without (known) labels
}

// Summary is a Report at its neighbourhood size: one number per measure, with the JSON keys of
// `lowdim eval -json` (part of the CLI's contract, and of the web page's API).
type Summary struct {
	N                     int      `json:"n"`
	Neighbors             int      `json:"neighbors"`
	Trustworthiness       float64  `json:"trustworthiness"` // T(Neighbors)
	Continuity            float64  `json:"continuity"`      // C(Neighbors)
	SmoothedPrecisionLoss float64  `json:"smoothed_precision_loss"`
	SmoothedRecallLoss    float64  `json:"smoothed_recall_loss"`
	RankPrecisionLoss     float64  `json:"rank_precision_loss"`
	RankRecallLoss        float64  `json:"rank_recall_loss"`
	KNNError              *float64 `json:"knn_error"` // null without labels
}

// Summary returns the report's numbers at k = Neighbors.
func (r *Report) Summary() Summary {
	return Summary{
		N:                     r.N,
		Neighbors:             r.Neighbors,
		Trustworthiness:       r.Trustworthiness[len(r.Trustworthiness)-1],
		Continuity:            r.Continuity[len(r.Continuity)-1],
		SmoothedPrecisionLoss: r.SmoothedPrecisionLoss,
		SmoothedRecallLoss:    r.SmoothedRecallLoss,
		RankPrecisionLoss:     r.RankPrecisionLoss,
		RankRecallLoss:        r.RankRecallLoss,
		KNNError:              r.KNNError,
	}
}

// check validates the pair (x, y) and returns n.
func check(x, y *mat.Dense, k int) (int, error) {
	if x == nil || y == nil {
		return 0, dataset.Invalidf("quality: missing data or embedding")
	}
	n, _ := x.Dims()
	m, d := y.Dims()
	if n != m {
		return 0, dataset.Invalidf("quality: the data has %d rows but the embedding %d: expected one embedded row per data row", n, m)
	}
	if d == 0 {
		return 0, dataset.Invalidf("quality: the embedding has no columns")
	}
	if k >= n-1 {
		return 0, dataset.Invalidf("quality: %d neighbours of %d points: expected fewer than n−1", k, n)
	}
	for i := 0; i < n; i++ {
		for _, v := range y.RawRowView(i) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, dataset.Invalidf("quality: embedded row %d holds %v: expected finite numbers", i+1, v)
			}
		}
	}
	return n, nil
}

// Evaluate computes every measure of the embedding y (n×D) of the data x (n×H). labels (may be
// nil; −1 marks an unknown label) feed the k-NN error. It makes one pass over the unordered pairs
// of input rows for the mean input distance that the smoothed measures rescale by, then one pass
// over the full input distance rows for everything else, and holds O(n·(Neighbors+MaxRetrieved))
// memory.
func Evaluate(ctx context.Context, x, y *mat.Dense, labels []int, opt Options) (*Report, error) {
	k := opt.neighbors()
	n, err := check(x, y, k)
	if err != nil {
		return nil, err
	}
	if labels != nil && len(labels) != n {
		return nil, dataset.Invalidf("quality: %d labels for %d rows", len(labels), n)
	}
	mr := min(opt.maxRetrieved(), n-1)
	meanX, meanY, err := means(ctx, x, y, opt)
	if err != nil {
		return nil, err
	}
	pr, err := inputPass(ctx, x, y, passWant{trust: true, cont: true, pr: true, rank: true, smooth: true}, k, mr, meanX, meanY, opt)
	if err != nil {
		return nil, err
	}
	r := &Report{N: n, Neighbors: k,
		Trustworthiness: pr.trust, Continuity: pr.cont,
		SmoothedPrecisionLoss: pr.smPrec, SmoothedRecallLoss: pr.smRec,
		RankPrecisionLoss: pr.rankPrec, RankRecallLoss: pr.rankRec,
		MeanPrecision: pr.prec, MeanRecall: pr.rec}
	if labels != nil {
		e, err := KNNError(ctx, y, labels, opt)
		if err == nil {
			r.KNNError = &e
		} else if err != ErrNoLabels {
			return nil, err
		}
	}
	return r, nil
}

// means returns the mean input and output distances over the n(n−1) ordered pairs.
func means(ctx context.Context, x, y *mat.Dense, opt Options) (meanX, meanY float64, err error) {
	nopt := neighbors.Options{Workers: opt.workers(), Progress: func(_ string, done, total int) {
		opt.Progress.Report("mean distance", done, total)
	}}
	if meanX, err = neighbors.MeanDistance(ctx, x, nopt); err != nil {
		return 0, 0, err
	}
	if meanY, err = neighbors.MeanDistance(ctx, y, neighbors.Options{Workers: opt.workers()}); err != nil {
		return 0, 0, err
	}
	return meanX, meanY, nil
}

// Trustworthiness returns T(k) for k = 1..opt.Neighbors (index k−1), as scikit-learn's
// sklearn.manifold.trustworthiness and dredviz's measure define it.
func Trustworthiness(ctx context.Context, x, y *mat.Dense, opt Options) ([]float64, error) {
	k := opt.neighbors()
	if _, err := check(x, y, k); err != nil {
		return nil, err
	}
	r, err := inputPass(ctx, x, y, passWant{trust: true}, k, 0, 0, 0, opt)
	if err != nil {
		return nil, err
	}
	return r.trust, nil
}

// Continuity returns C(k) for k = 1..opt.Neighbors (index k−1): trustworthiness with the roles of
// the input and the output space swapped.
func Continuity(ctx context.Context, x, y *mat.Dense, opt Options) ([]float64, error) {
	k := opt.neighbors()
	if _, err := check(x, y, k); err != nil {
		return nil, err
	}
	r, err := inputPass(ctx, x, y, passWant{cont: true}, k, 0, 0, 0, opt)
	if err != nil {
		return nil, err
	}
	return r.cont, nil
}

// PRCurves returns mean precision and mean recall (index r−1) when the r = 1..opt.MaxRetrieved
// nearest output neighbours are retrieved and the opt.Neighbors nearest input neighbours are
// relevant.
func PRCurves(ctx context.Context, x, y *mat.Dense, opt Options) (precision, recall []float64, err error) {
	k := opt.neighbors()
	n, err := check(x, y, k)
	if err != nil {
		return nil, nil, err
	}
	r, err := inputPass(ctx, x, y, passWant{pr: true}, k, min(opt.maxRetrieved(), n-1), 0, 0, opt)
	if err != nil {
		return nil, nil, err
	}
	return r.prec, r.rec, nil
}

// RankBased returns the rank-based precision and recall losses, normalised to [0,1] (see the
// package documentation for the conventions).
func RankBased(ctx context.Context, x, y *mat.Dense, opt Options) (precisionLoss, recallLoss float64, err error) {
	k := opt.neighbors()
	if _, err := check(x, y, k); err != nil {
		return 0, 0, err
	}
	r, err := inputPass(ctx, x, y, passWant{rank: true}, k, 0, 0, 0, opt)
	if err != nil {
		return 0, 0, err
	}
	return r.rankPrec, r.rankRec, nil
}

// Smoothed returns the mean smoothed precision loss E_i[KL(q_i‖p_i)] and recall loss
// E_i[KL(p_i‖q_i)] with opt.Neighbors effective neighbours (dredviz klmeasure's conventions; see the
// package documentation). It makes two passes over the input distances: one over the unordered
// pairs for their mean, one over the rows for the losses.
func Smoothed(ctx context.Context, x, y *mat.Dense, opt Options) (precisionLoss, recallLoss float64, err error) {
	k := opt.neighbors()
	if _, err := check(x, y, k); err != nil {
		return 0, 0, err
	}
	meanX, meanY, err := means(ctx, x, y, opt)
	if err != nil {
		return 0, 0, err
	}
	r, err := inputPass(ctx, x, y, passWant{smooth: true}, k, 0, meanX, meanY, opt)
	if err != nil {
		return 0, 0, err
	}
	return r.smPrec, r.smRec, nil
}

// outRow fills row[j] = ‖y_i − y_j‖², summing coordinates in order (the same arithmetic as
// package neighbors, so that ties agree with its k-NN graph).
func outRow(y *mat.Dense, i int, row []float64) {
	n, d := y.Dims()
	raw := y.RawMatrix()
	yi := y.RawRowView(i)
	if d == 2 && raw.Stride == 2 {
		outRow2(raw.Data[:2*n], i, row[:n])
		return
	}
	for j := 0; j < n; j++ {
		yj := y.RawRowView(j)
		var s float64
		for c, v := range yi {
			t := v - yj[c]
			s += t * t
		}
		row[j] = s
	}
}

// bothRows calls fn(w, i, dx, dy) for every row i with the squared input distances dx and
// squared output distances dy of row i.
func bothRows(ctx context.Context, x, y *mat.Dense, opt Options, stage string, fn func(w, i int, dx, dy []float64) error) error {
	n, _ := y.Dims()
	nw := opt.workers()
	out := make([][]float64, nw)
	for w := range out {
		out[w] = make([]float64, n)
	}
	return neighbors.Rows(ctx, x, neighbors.Options{Workers: nw, Progress: func(_ string, done, total int) {
		opt.Progress.Report(stage, done, total)
	}}, func(w, i int, dx []float64) error {
		dy := out[w]
		outRow(y, i, dy)
		return fn(w, i, dx, dy)
	})
}
