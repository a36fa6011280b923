package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"lowdim/quality"
)

// qualityJSON is the machine-readable form of a quality report (lowdim eval -json). Its keys are
// part of the CLI's contract.
type qualityJSON struct {
	N                     int      `json:"n"`
	Neighbors             int      `json:"neighbors"`
	Trustworthiness       float64  `json:"trustworthiness"`
	Continuity            float64  `json:"continuity"`
	SmoothedPrecisionLoss float64  `json:"smoothed_precision_loss"`
	SmoothedRecallLoss    float64  `json:"smoothed_recall_loss"`
	RankPrecisionLoss     float64  `json:"rank_precision_loss"`
	RankRecallLoss        float64  `json:"rank_recall_loss"`
	KNNError              *float64 `json:"knn_error"`
}

func toJSON(r *quality.Report) qualityJSON {
	return qualityJSON{
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

func printQualityJSON(w io.Writer, r *quality.Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(toJSON(r))
}

// printQualityTable writes the readable quality table.
func printQualityTable(w io.Writer, r *quality.Report, knn int) {
	j := toJSON(r)
	k := r.Neighbors
	fmt.Fprintf(w, "Quality of the embedding (n = %d, %d neighbours)\n", r.N, k)
	row := func(name string, v float64, note string) {
		fmt.Fprintf(w, "  %-34s %10.6f   %s\n", name, v, note)
	}
	row(fmt.Sprintf("trustworthiness T(%d)", k), j.Trustworthiness, "1 is best")
	row(fmt.Sprintf("continuity C(%d)", k), j.Continuity, "1 is best")
	row("smoothed precision loss", j.SmoothedPrecisionLoss, "mean KL(q‖p), 0 is best")
	row("smoothed recall loss", j.SmoothedRecallLoss, "mean KL(p‖q), 0 is best")
	row("rank-based precision loss", j.RankPrecisionLoss, "normalised to [0,1], 0 is best")
	row("rank-based recall loss", j.RankRecallLoss, "normalised to [0,1], 0 is best")
	if j.KNNError != nil {
		row(fmt.Sprintf("%d-NN error", knn), *j.KNNError, "leave-one-out, 0 is best")
	} else {
		fmt.Fprintf(w, "  %-34s %10s   %s\n", "k-NN error", "—", "no labels")
	}
}

func sortedStrings(s []string) []string {
	sort.Strings(s)
	return s
}
