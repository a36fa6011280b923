package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/lowdim/lowdim/quality"
)

func printQualityJSON(w io.Writer, r *quality.Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r.Summary())
}

// printQualityTable writes the readable quality table.
func printQualityTable(w io.Writer, r *quality.Report, knn int) {
	j := r.Summary()
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
