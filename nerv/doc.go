// Package nerv embeds data by Neighbor Retrieval Visualization (Venna, Peltonen, Nybo, Aidos and
// Kaski, JMLR 2010): NeRV, t-NeRV, their λ = 1 cases SNE and t-SNE, and supervised NeRV on
// learning-metric distances. The mathematics is METHODS.md §2; this page says what the code does
// where a choice had to be made.
//
// # Cost
//
// Input dissimilarities d_ij (Euclidean between rows, or Embedder.Distances) are divided by their
// mean over the n(n−1) ordered pairs. Each point's σ_i² is calibrated (package affinity) so that
// p_·|i has entropy ln k_eff — exactly by default, or where dredviz's golden-section search stops
// (Calibration: affinity.Dredviz). NeRV minimises, per point,
//
//	E = (1/n) Σ_i [λ KL(p_i‖q_i) + (1−λ) KL(q_i‖p_i)],
//	p_j|i ∝ exp(−min(d_ij²/σ_i², 450)),  q_j|i ∝ exp(−min(e_ij/σ_i², 450)),
//
// with e_ij the squared output distance DIVIDED BY THE MEAN OUTPUT DISTANCE SQUARED (unless
// RawScale). That makes E exactly the smoothed precision/recall cost that package quality and
// dredviz's klmeasure report for the result — both rescale each space by its own mean — so the
// cost NeRV reports is the cost `lowdim eval` measures (to the calibration). Without it NeRV's
// optimum has its own scale, and the rescaled measure can be far worse than the optimised cost
// (S-curve: 0.19 optimised, 0.74 measured). The 450 floor on the exponent is dredviz's and
// quality's; logarithms are computed directly, so nothing underflows to log 0. The gradient adds
// to METHODS.md's w_ij terms the derivative of the mean-distance scale (checked by finite
// differences).
//
// t-NeRV uses p_ij = (p_j|i + p_i|j)/(2n) and q_ij ∝ (1 + e_ij)⁻¹ on the raw output coordinates.
//
// # Optimisation
//
// gonum's nonlinear conjugate gradient (Hestenes–Stiefel, Moré–Thuente line search), with the first
// step's bounds opened (gonum clamps it to [1e-3, 1]/‖g‖∞, far too short here). Annealing as in the
// paper and dredviz: 10 rounds in which σ_i² = max(2r², σ_i²), r falling linearly from half the
// input diameter, then CG at the calibrated σ_i until the cost changes by less than Tolerance
// (relative) over 3 iterations or Iterations is reached. We take 3 CG iterations a round where
// dredviz takes 2, because its golden-section line search walks to the line minimum and gonum's
// stops at the first strong-Wolfe point: with 2 the S-curve ends at cost 0.35, with 3 at 0.28
// (after 40 final iterations, dredviz's count) — below dredviz's 0.2835.
//
// Start: PCA of the features divided by the mean input distance (classical MDS for a given matrix),
// random in the unit square (Init: InitRandom, from Seed), or Start.
//
// # Cost of an evaluation
//
// Exact: O(n²·D) per cost-and-gradient evaluation, no approximation. Row i needs three sweeps
// over j (output distances and their minimum; exponentials, the normaliser and both divergences in
// one; the gradient, whose w_ij is added to row i and scattered to row j). Exponentials more than
// e^−45 below a row's largest weight are not computed (their terms are below 1e-19 of the row's
// cost). Work is split over Workers goroutines that live as long as the fit; rows are grouped in
// 16 fixed blocks with their own accumulators, summed in order, so the output is the same bytes
// whatever the number of cores. An evaluation allocates nothing (tested).
//
// Memory: the n×n input distances are kept as float64 when they fit MemoryBudget (default 2 GiB),
// else float32, else recomputed from the features for every row of every evaluation (O(n·H) per
// row); NeRV caches p and log p (16·n² bytes) when those fit too. t-NeRV needs its joint p in
// memory and says so when it does not fit.
//
// Duplicate rows are at input distance 0: each is the other's most likely neighbour and NeRV
// pulls them together; Embedder.Warn is told how many pairs there are. All-identical data (mean
// distance 0), fewer than 3 points, and k_eff outside (1, n−1) are errors wrapping
// dataset.ErrInvalid, as are bad distance matrices (see dataset.SquaredDistances).
package nerv
