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
//
// A row with m ≥ k_eff duplicates has no σ_i of entropy ln k_eff; it gets the σ_i of entropy
// ln(m + ½) (package affinity), and every σ_i² is floored at 1e-30 (distances scaled to mean 1).
// Near-duplicates, whose neighbourhoods lie within rounding (near-one-hot posteriors, or Fisher
// distances where a posterior is flat), still make σ_i, and with it NeRV's output kernel, so
// narrow that q_·|i is a hard nearest-neighbour choice: the cost then has flat plateaus between
// local minima, and the layout depends on the start (reproduce pe's SNE on BBC's √KL distances,
// 2,138 of 2,225 rows so: final cost 1.9 to 20 from starts that agree to 1e-12). t-SNE's output
// kernel does not use σ_i and has no such plateaus.
//
// # At scale
//
// Above ApproxMin = 3,000 rows t-SNE and t-NeRV take the approximate path (fast.go), after Yang,
// Peltonen and Kaski (ICML 2013) and van der Maaten (JMLR 2014): O(n·k) memory, O(n·k + n log n)
// per evaluation. Path forces either (CLI -exact, -approx). NeRV and SNE take it too, above the
// same n, when given the rows and a 2-D output: their Gaussian output kernel is summed on an FFT
// grid (below, "Gaussian NeRV at scale"); from a graph or distances alone, or in 1-D or 3-D, SNE
// has the tree path when asked and NeRV with λ < 1 none.
//
// Input side (sparse.go). Rows of more than PCADims = 50 features are first projected on their
// first 50 principal components (fitted on at most 20,000 evenly spaced rows); neighbours are
// searched there. A graph of GraphK = ⌈3·k_eff⌉ nearest neighbours per row (package neighbors;
// or Embedder.Graph, precomputed) carries σ_i, calibrated on the row's graph distances to entropy
// ln k_eff, and P in compressed sparse rows: NeRV/SNE the conditional p_j|i over G_i, t-SNE/t-NeRV
// the joint p_ij = (p_j|i + p_i|j)/(2n) over the symmetrised graph. The mean input distance that
// NeRV's scale needs is exact up to 5,000 rows, else the mean of 200,000 seeded random pairs.
//
// Output side (sptree.go, approx_student.go, approx_gauss.go). A quadtree (octree in 3-D, binary
// tree in 1-D) of the layout with leaves of at most 8 points; a cell of side s whose centre of
// mass lies at squared distance d² from the query is summed as one point when s/d < θ (Theta,
// default 0.5), and never when the query lies inside it. For the Student-t kernel u = (1+e)⁻¹
// the tree gives Z = Σ u, Σ u²(y_i − y_j) and, when λ < 1, Σ u log(1+e) and Σ u² log(1+e)(y_i − y_j);
// with them (approx_student.go, studentEval)
//
//	KL(p‖q) = Σ_G p log p + Σ_G p log(1+e) + log Z
//	KL(q‖p) = Σ q log q − Σ_G q log p − log ε · (1 − Σ_G q)
//	        = −(1/Z) Σ u log(1+e) − log Z − Σ_G q (log p − log ε) − log ε,
//
// where G are the stored pairs and ε the probability that stands in for every pair outside them
// (non-neighbour p floored): for the conditional rows of NeRV ε_i lies halfway, in logarithm,
// between the row's smallest kept probability and the row's Gaussian at the mean squared
// distance to the rows outside its graph (sparseP); t-NeRV takes the median of these over n, less
// log n. A floor alone would price every false neighbour the same, so t-NeRV also adds to G, with
// p = 0 in the recall term and their true input log p in the precision term, each row's 90
// nearest points in the current layout (augment.go), renewed every 50 iterations: the precision
// gradient then pushes away exactly the output neighbours that are far in the input. For NeRV's
// Gaussian q_j|i ∝ exp(−b_i e_ij) with per-point bandwidths the row sums are walked once per row
// at its own b_i, the column sums once per source, and a cell is far only when also b·s·d < 0.1·θ
// (approx_gauss.go derives the terms; the weights of NeRV's two halves nearly cancel, so the
// kernel must be flat across a far cell).
//
// Continuing a fit (run.go). Fit on the approximate path cannot be resumed: given its own
// result as Start it would run early exaggeration again (and restart the optimiser's momentum and
// gains), and recompute the k-NN graph and P. Embedder.Begin returns a Run that keeps all of it —
// the input probabilities, the layout, the optimiser state and the iteration count — and Step
// advances it any number of iterations at a time: exaggeration happens once, in the first
// ExaggerationIterations of the Run, and a Run stepped in pieces computes Fit's layout bit for
// bit (TestRunEqualsFit; SetLambda, as Fit's t-NeRV phase, restarts the optimiser from the
// current layout). lowdim serve's live t-SNE and t-NeRV fits run on it above ApproxMin rows.
//
// Gaussian NeRV at scale (approx_grid.go, fftgrid.go). NeRV's output kernel uses the input's σ_i
// on the mean-normalised layout, and σ_i is not small against the layout: on MNIST σ_i² is
// 0.01–0.1 of the squared mean distance, so a row's output Gaussian reaches 15 % of the points
// within 2σ_i (3,000 digits: 445 in the t-SNE map). Two things follow. The precision term
// Σ_j q_j|i log p_j|i needs the input log p of all those pairs, far beyond a k-NN graph: a floor ε
// for the pairs outside the graph is gamed (from the t-SNE start of 3,000 digits the floored
// precision term fell from 4.00 to 2.36 while the true one rose from 4.47 to 5.29). And a
// Barnes–Hut cell is far only where such a kernel is flat across it, so the tree sums stay nearly
// O(n²) (1.66 s per evaluation at n = 10,000 against t-SNE's 13 ms). Both are answered by sums
// over all pairs that a wide kernel makes cheap on a grid:
//
//   - log p of every pair, exactly: log p_j|i = τ_i − β_i a_ij with a_ij = ν_i + ν_j − 2 u_i·u_j
//     (u the centred rows in the search space over the mean input distance, ν = ‖u‖²), so
//     Σ_j q_j|i log p_j|i needs only the kernel sums of the charges ν_j and u_j beside Z_i. u keeps
//     the first GridPCs = 30 principal components and ν the whole norm; the graph's own pairs get
//     their exact a_ij. Fewer components are not free: at the t-SNE layout of MNIST's 10,000 test
//     digits the precision term reads 6.15 with all 50, 6.20 with 40, 6.27 with 30, 6.59 with 20
//     and 7.78 with 10 — the dropped cross terms are positive among output neighbours of one class.
//   - every output-side sum (row sums of query i at its bandwidth, column sums of sources j at
//     theirs, with their coefficients as charges) by polynomial interpolation on a regular grid and
//     FFT convolution (Linderman et al. 2019's FIt-SNE, here for the kernels e^{−br}, r·e^{−br},
//     Δ·e^{−br} and Δ·r·e^{−br}); 4×4 Lagrange nodes per box, spacing 0.4 of the kernel's standard
//     deviation 1/√(2b).
//   - per-row bandwidths β_i quantised to GridLevels = 3 levels of equal count (each the geometric
//     mean of its rows' β), one grid per level: the model optimised is NeRV with the output
//     bandwidths so quantised, the input side untouched. At the same layout the precision term
//     reads 6.15 with 6 levels, 6.22 with 3, 6.30 with 2, and each level costs one set of FFTs.
//   - the mean-distance scale by the chain rule, E(y) = F(y/m): ∂E/∂y = g − (Σ_k y_k·g_k/m) ∂m/∂y
//     with g the gradient at a fixed scale, and m, ∂m/∂y from one more grid pass.
//   - rows whose grid Z_i is below 0.05 (nearly isolated: interpolation errors are absolute and
//     1/Z_i magnifies them) are summed directly, and their column terms added directly. So are far
//     outliers: when all points would need a square 1.5 times wider than the central ones (the
//     0.1–99.9 % quantiles, widened by a tenth), the grids cover the central square only; one
//     point 40 layout widths away otherwise took the gradient's error from 0.4 % to 250 %
//     (TestGridFarOutlier). A level's grid has at most 128 nodes a side: a wide halo, as NeRV
//     draws around all of MNIST, coarsens it rather than growing its cost with the extent.
//
// Summed directly the same model equals the exact path's cost and gradient to 1e-10 with every
// row at its own bandwidth and the complete graph (TestGridDirectEqualsExact); on the grid the
// error falls about 16-fold per halving of the spacing (TestGridConvergesToDirect). On the 8×8
// digits' t-SNE layout (λ = 0.1, all 64 components) the gradient's relative error against the
// direct sums was 0.9 % at the default spacing and 0.1 % at half of it. The optimiser is the
// exact path's conjugate gradient from the t-SNE layout (gaussMinimize); Figures at scale:
// README, "NeRV at scale". SNE (λ = 1) takes the same grid.
//
// Accuracy: with the complete graph and θ = 0 nothing is approximated, and the cost, both
// divergences and the gradient equal the exact path's to 1e-10 relative for every member
// (TestApproxEqualsExactAtFullGraph); on a sparse graph the gradient of the floored cost matches
// central differences to 1e-6 (TestApproxGradientFiniteDifferences); as θ shrinks the Student-t
// gradient converges to the exact one (2.3e-2 at θ = 1, 5.2e-3 at 0.5, 4.9e-5 at 0.1, 1.6e-15 at
// 0; TestApproxConvergesAsThetaShrinks). For NeRV at θ = 0.5 on 3,000 random points the gradient's
// relative error was 0.07 %.
//
// Optimiser (gd.go). Gradient descent with momentum 0.5, then 0.8 after early exaggeration, and
// per-coordinate gains (+0.2 on a sign change, ×0.8 otherwise, at least 0.01), the layout
// re-centred every step; the attraction is exaggerated 12× for the first 250 iterations, then 500
// more; learning rate max(n/12, 200) (Belkina et al. 2019, openTSNE and scikit-learn's "auto").
// The start is the PCA layout scaled to a standard deviation of 10⁻⁴ in its first coordinate
// (openTSNE's), or N(0, 10⁻⁸) with InitRandom. t-NeRV first runs this t-SNE schedule, then 500
// iterations at its λ without exaggeration, with the output neighbours augmented. SNE on the
// approximate path starts from that t-SNE layout and runs the conjugate gradients of the exact
// path. Rows are processed in chunks; every per-row result goes to its own slot and sums are
// added in row order, so the layout is the same bytes for any number of workers and GOMAXPROCS
// (TestApproxDeterministicAcrossWorkers).
//
// Memory and caches at 10⁶ rows. What stays through the descent is the data, the joint P (an
// int32 column and a float64 p per stored pair; t-SNE keeps no log p — it is taken from p for the
// reported cost — while t-NeRV keeps it for its precision term) and O(n) vectors; the k-NN graph and
// the conditional probabilities are dead once P is built, and the lowdim command runs the
// collector at GOGC 25 so that garbage does not double the peak. The tree build carries the
// coordinates with the points through its counting sorts, and the far-field queries run in tree
// order, so both read memory in order instead of one cache miss per point and level.
// Measured (lowdim reproduce scale -parts scaling, 20-component mixture in 50-D, one run each):
// 10⁴ rows 10 s, 10⁵ 173 s and 0.57 GB, 3·10⁵ 742 s and 1.67 GB, 10⁶ 2,892 s and 5.54 GB; log-log
// slope 1.24 (before the three changes that follow; after them, 2026-11-26: 8.6 s, 155 s, 558 s
// and 1.68 GB, 2,539 s and 5.57 GB; slope 1.227). After early exaggeration, from 50,000 rows,
// the rows are renumbered in the layout's tree order (renumber.go), so the attraction reads its
// neighbours' coordinates near its own instead of at random (an evaluation at 300,000 rows 1.13 s
// against 1.53 s); t-SNE's attraction runs while the tree is built, which is sequential; the
// gradient step runs on every core.
//
// The walk in the plane (t-SNE, θ < 1/√2) reads compact 32-byte cells (wnode) rather than the
// build's 96-byte spNode, and tests a cell's children from the cell, so a far child is summed
// without a push and pop. Under cachegrind, one pass of the walk over 10⁶ points of a 20-cluster
// layout took 20.2·10⁹ instructions and 1.5·10⁶ L1 misses, against 26.8·10⁹ and 186·10⁶ on
// spNode (BenchmarkTreeWalk). The joint P is built by merging each row with the transpose on the
// workers (sparse.go); it was a sequential scan of the partner's row per pair, O(n·k²), 186 s of
// CPU at 10⁶ rows.
//
// Why the slope stays above 1.15 (the scaling-table goal): the walk is compute-bound once queries
// run in tree order (the L1 misses above are one per 280 cells read), and the number of cells it
// sums grows as log n. On BenchmarkTreeWalk's layout at θ = 0.5 a query sums 92 far cells and 90
// leaf points at 10⁴ points, 189 and 88 at 10⁵, 281 and 74 at 10⁶: 1.95 times as many
// interactions per point over the table's range, a log-log slope of 1.145 for the walk alone,
// before the k-NN search (NN-descent, 17–20 rounds, more than linear on the mixture's 50
// intrinsic dimensions) and the attraction's reads of 10⁸ graph entries. Only a far-field method
// without the log n (FIt-SNE's grid, below) could meet it.
//
// Why no FFT grid for the Student-t kernel (FIt-SNE), which would drop the walk's log n: tried on
// grid2 (fftgrid.go) with FIt-SNE's three nodes a unit box, it took 7 min 7 s against the tree's
// 1 min 41 s on the scaling table's 30,000 mixture rows (2 cores, load 5) and ended at a higher
// KL (3.257 against 3.199). The grid must cover the layout's area, most of it empty between the
// mixture's clusters, at a spacing set by the kernel's width; at 30,000 rows that is already the
// 600-node cap, and a 1,200² complex transform by gonum's FFT (a port of FFTPACK) takes about
// 0.1 s, six per evaluation. Its error is also larger: 4 % of the gradient (relative, on 400
// points over 30 units) at spacing 1/3, falling as h³ (0.6 % at 1/6), where the tree at θ = 0.5
// has 0.5 %. With a transform several times faster (FFTW's) the balance would differ.
//
// New rows (transform.go). A t-SNE or t-NeRV fit from features returns a *Map, which keeps the
// training rows in the search space and places new rows into the fixed layout (Map.Transform,
// lowdim transform): see Map.
//
// Measured (the 2-core machine, plain go build, lowdim embed -method tsne -neighbors 30, lowdim
// eval -neighbors 20, lowdim reproduce scale): the first 10,000 MNIST digits in 12 s and 0.18 GB,
// T(20) 0.9798 and 5-NN error 0.0430 (Rtsne, same run: 23 s, 0.44 GB, 0.9797, 0.0444; medians of
// 3); all 70,000 in 94 s and 1.19 GB (one run; an earlier build's 110 s run had T(20) 0.9915 and
// 5-NN error 0.0216 against Rtsne's 0.9818 and 0.0233).
// t-NeRV λ = 0.1 on the 10,000: T(20) 0.984 (t-SNE 0.980), smoothed precision loss 6.78 (t-SNE
// 6.48). The report `lowdim reproduce scale` reruns these side by side with Rtsne.
package nerv
