// Package pipeline builds lowdim's Apache Beam pipelines: a PCA fit from partial sums combined
// across workers, a seeded sample for fitting any other method in one worker, a sharded map of
// any saved model, and sampled quality measures with confidence intervals.
package pipeline
