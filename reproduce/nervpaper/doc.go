// Package nervpaper reruns the experiments of the NeRV paper (`lowdim reproduce nerv`, nerv.md):
//
// Venna, Peltonen, Nybo, Aidos and Kaski, "Information retrieval perspective to nonlinear
// dimensionality reduction for data visualization", JMLR 11, 2010. Each experiment is a function
// returning typed results:
//
//   - RunUnsupervised: the 5-NN classification error of unsupervised 2-D embeddings (paper §4.5,
//     Table 2) — NeRV with λ chosen by the paper's rule (the largest F-measure 2PR/(P+R) of the
//     rank-based smoothed precision P and recall R over a λ grid, §4.3.2), PCA, classical MDS and
//     t-SNE — on random subsets of Letter, Phoneme and Landsat.
//   - RunSupervised: k-fold cross-validation of supervised NeRV (SNeRV, λ = 0.1 and 0.3, composed
//     here as SNeRV from posterior, learnmetric and nerv), Parametric Embedding of the same fold's
//     discriminative mixture, PCA, NCA, supervised Isomap (its RBF network places the held-out
//     rows) and MRE: held-out rows are embedded with their labels hidden and classified by 5-NN among the
//     training rows; the best method and the best of another family are compared by a paired
//     t-test (reproduce.PairedTTest) (paper §5, Figure 13, Table 3).
//   - RunTradeOff: mean smoothed precision and recall as λ runs over [0, 1] (paper Figure 4).
//
// Run (settings in Config) runs them all, or those Config.Parts names; Report.WriteDir writes
// nerv.md and its PNG figures.
//
// It reads its data from ../shared/data next to the module root (reproduce.FindShared); a missing file
// is named in the error. Everything random is seeded by the configuration's Seed: the same seed
// gives the same report apart from its wall times.
package nervpaper
