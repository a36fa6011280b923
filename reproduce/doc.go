// Package reproduce holds what the paper reproductions share: finding the staged data
// (../shared/data next to the module root), loading and subsetting it, the machine description,
// the small statistics (mean and deviation, median, paired t-test, held-out k-NN error) and the
// markdown helpers that write a report directory atomically.
//
// Each paper is its own package below it, and each writes one markdown report with PNG figures
// (`lowdim reproduce PAPER`):
//
//	nervpaper  Venna et al., JMLR 2010: NeRV (nerv.md)
//	pepaper    Iwata et al., Neural Computation 2007: Parametric Embedding (pe.md)
//	hopepaper  Min, Guo and Song: high-order parametric embedding, HOPE (hope.md)
//	mlepaper   Paurat's thesis: Most Likely Embedding (mle.md)
//
// Everything random in them is seeded by the configuration's Seed: the same seed gives the same
// report apart from its wall times.
package reproduce
