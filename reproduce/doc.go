// Package reproduce reruns the experiments of two papers with lowdim's methods and writes each
// up as a markdown report with plots.
//
// # NeRV (`lowdim reproduce nerv`, nerv.md)
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
//     discriminative mixture, and PCA: held-out rows are embedded with their labels hidden and
//     classified by 5-NN among the training rows; the two best methods are compared by a paired
//     t-test (PairedTTest) (paper §5, Figure 13, Table 3).
//   - RunTradeOff: mean smoothed precision and recall as λ runs over [0, 1] (paper Figure 4).
//
// Run (settings in Config) runs them all; Report.WriteDir writes nerv.md and its PNG figures.
//
// # Parametric Embedding (`lowdim reproduce pe`, pe.md)
//
// Iwata, Saito, Ueda, Stromsten, Griffiths and Tenenbaum, "Parametric embedding for class
// visualization", Neural Computation 19, 2007:
//
//   - RunPEText (§5, Fig. 1–2, Table 1): leave-one-out naive Bayes posteriors of BBC news and
//     Reuters R8 embedded by PE (from the MDS start and from PEConfig.Seeds random starts), by
//     classical MDS of the posterior rows (MDS2, ClassicalMDSRows) and by SNE on symmetrised KL
//     divergences (SymmetricKLDistances); prec(h) for h = 10 … 500 and per-class F-measures.
//   - RunPEDigits (§6, Fig. 5): the semi-supervised soft nearest-neighbour classifier on MNIST
//     digits 0–4 with 10 and 100 labelled examples per class, its posteriors embedded by PE.
//   - RunPETopics (§7, Fig. 6): LDA on BBC, every word's posterior over five chosen topics
//     embedded by PE, with example words labelled.
//   - RunPETime (§5.5, Fig. 3–4, Table 2): PE's fit time, L-BFGS iterations and sweeps for
//     n = 1e3 … 1e6 (Dirichlet-mixture and real posteriors, with and without the warm-up sample)
//     and the log-log slope.
//
// RunPE (settings in PEConfig) runs them all; PEReport.WriteDir writes pe.md and its figures.
//
// Both read their data from ../shared/data next to the module root (FindShared); a missing file
// is named in the error. Everything random is seeded by the configuration's Seed: the same seed
// gives the same report apart from its wall times.
package reproduce
