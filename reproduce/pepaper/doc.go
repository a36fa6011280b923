// Package pepaper reruns the experiments of the Parametric Embedding paper (`lowdim reproduce pe`,
// pe.md):
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
// It reads its data from ../shared/data next to the module root (reproduce.FindShared); a missing file
// is named in the error. Everything random is seeded by the configuration's Seed: the same seed
// gives the same report apart from its wall times.
package pepaper
