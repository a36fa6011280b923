// Package scale measures lowdim's embeddings at scale (`lowdim reproduce scale`, scale.md), the
// targets of issue 16, side by side on the machine it runs on:
//
//   - MNIST (the first n training rows, or all 70,000): `lowdim embed -method tsne -neighbors 30`
//     against Rtsne (Barnes–Hut, θ 0.5, perplexity 30, 1,000 iterations, 2 threads, through
//     Rscript and the embedded rtsne.R) on the same CSV: wall time, peak RSS, T(20) and the
//     5-NN error of each map, medians over the runs, and the maps.
//   - The NeRV trade-off: -method nerv and tnerv over a λ grid at one MNIST size, with the mean
//     smoothed precision and recall losses of lowdim eval, next to the t-SNE map's.
//   - Scaling: t-SNE on a seeded Gaussian mixture in 50-D for n = 10k … 1M, wall and peak RSS,
//     and the least-squares slope of log time against log n.
//
// Every embedding is a subprocess (the lowdim binary, Config.Binary), so each row's time and
// memory are those a user sees, reading the input included. A missing Rscript or Rtsne leaves its
// rows without numbers and says why; nothing is estimated. The map figures are computed in this
// process by package quality, as lowdim eval computes them.
package scale
