// Package reproduce runs the experiments of the NeRV paper (Venna, Peltonen, Nybo, Aidos and
// Kaski, "Information retrieval perspective to nonlinear dimensionality reduction for data
// visualization", JMLR 11, 2010) with lowdim's methods and writes them up as a markdown report
// with plots (`lowdim reproduce nerv`).
//
// Each experiment is a function returning typed results:
//
//   - RunUnsupervised: the 5-NN classification error of unsupervised 2-D embeddings (paper §4.5,
//     Table 2) — NeRV with λ chosen by the paper's rule (the largest F-measure 2PR/(P+R) of the
//     rank-based smoothed precision P and recall R over a λ grid, §4.3.2), PCA, classical MDS and
//     t-SNE — on random subsets of Letter, Phoneme and Landsat.
//   - RunSupervised: k-fold cross-validation of supervised NeRV (SNeRV, λ = 0.1 and 0.3, composed
//     here as SNeRV from posterior, learnmetric and nerv) against PCA: held-out rows are embedded
//     with their labels hidden and classified by 5-NN among the training rows; the two best
//     methods are compared by a paired t-test (PairedTTest) (paper §5, Figure 13, Table 3).
//   - RunTradeOff: mean smoothed precision and recall as λ runs over [0, 1] (paper Figure 4).
//
// Run runs them all; Report.WriteDir writes nerv.md and its PNG figures. The data are read from
// ../shared/data next to the module root (FindShared); a missing file is named in the error.
// Everything random is seeded by Config.Seed: the same seed gives the same report apart from its
// wall times.
package reproduce
