// Package pipeline builds lowdim's Apache Beam pipelines: a PCA fit from partial sums combined
// across workers, a seeded sample for fitting any other method in one worker, a sharded map of
// any saved model, and sampled quality measures with confidence intervals — trustworthiness,
// continuity and k-NN error (measure.go), the smoothed precision and recall with their σ
// calibration in passes (smooth.go) and the rank-based precision and recall by a distributed
// sort (rank.go), each equal to package quality's figure when every row is a query. Shards are
// CSV/TSV (optionally gzip'd) or Parquet files, read by lowdim's own readers; map writes CSV or
// Parquet.
package pipeline
