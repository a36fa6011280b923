// Package mlepaper reruns the Most Likely Embedding measurements of Paurat's interactive
// embedding thesis, §3.3.4 (`lowdim reproduce mle`, mle.md): updates per second for moves and
// selection changes next to its Table 3.3, the time to re-embed 100,000 points after a move, and
// the RMSE to PCA components 3–4 as control points are placed (Figure 3.20). RunMLE (settings in
// MLEConfig) runs them; MLEReport.WriteDir writes mle.md and its figures.
//
// It reads its data from ../shared/data next to the module root (reproduce.FindShared); a missing
// file is named in the error.
package mlepaper
