// Package quality measures how faithfully an embedding y (n×D) keeps the neighbourhoods of its
// data x (n×H): trustworthiness and continuity, smoothed and rank-based precision/recall (Venna et
// al., JMLR 2010), mean precision/recall curves, the k-NN classification error, and prec(h) and the
// per-class F-measure of Parametric Embedding (Iwata et al. 2007).
//
// Memory is O(n·(Neighbors+MaxRetrieved)) plus O(n) per worker: no n×n matrix is ever stored.
// Input distances come from package neighbors (blocked products for H > 8 — exact int8 ones with
// AVX-512 VNNI or AVX2, or exact single precision ones, for small-integer data such as pixels — plain
// loops otherwise); each output row is recomputed next to it. Evaluate makes two passes:
// neighbors.MeanDistance over the unordered pairs (half the products) for the mean distances the
// smoothed measures rescale by, then one pass over the full rows for every measure. Per row it
// ranks the r0 ≈ 0.68·n nearest points of either space by a two-level bucket counting sort (O(n);
// the ranks serve trustworthiness, continuity, the P/R curves and the rank-based measures alike),
// calibrates σ_i with affinity.DredvizSearch (about 6 row entropies instead of dredviz's 16) and
// sums the KL terms once, reading the distance rows in place. With -tags openblas the row
// entropies, KL sums, row ranges, 2-D output rows, the bucket counting and placement and the
// rank-based terms run in C (AVX-512 where the CPU has it); the plain build runs the Go twins of
// the same algorithms, with the row entropies, KL sums, row ranges and bucket arithmetic in
// internal/blas's AVX-512 assembly where the CPU has it (same ranks and buckets; the
// exponentials differ in the last bits). On MNIST 10k (2-D PCA, `lowdim eval -neighbors 20`) the
// two builds now take the same CPU time (scripts/fastdefault.sh).
//
// Measured (MNIST, 2-D PCA, -tags openblas, the 2-core machine, quality/testdata/mnistcompare
// -n 70000 -all): every measure on all 70,000 rows in 92, 97 and 106 s (Evaluate; median 97 s,
// 184–206 s CPU, 1.3 GB peak) with GOMAXPROCS 4, which the lowdim command and mnistcompare set
// when the C kernels are built in (blas.SpareProcs: a goroutine in a long C call hands its P on,
// and with no spare P every handoff wakes a spinning thread that competes with the kernels). The
// same binary with GOMAXPROCS 2: 123 s (217 s CPU, 838,000 voluntary context switches against
// 352,000). Before the σ search's moving bounds (4–6 entropies per row instead of 6–10) and the
// computed rank probabilities (blas.RankKL): 133 s at GOMAXPROCS 2 in the same sitting (149–154 s
// in an earlier, busier one). At n = 35,000 Evaluate takes 48.6 s on one CPU (taskset), 34.3 s on
// two with GOMAXPROCS 2 (1.42×) and 25–27 s with GOMAXPROCS 4 (1.9×): the poor scaling was the
// handoffs, not memory bandwidth (two threads stream and gather at full speed each on this
// machine). The stages before the main pass (mean distances, output neighbours) take 9 s at
// n = 70,000.
//
// Trustworthiness alone at n = 10,000 (quality/testdata/compare_sklearn.sh, two runs): 1.13–1.15 s
// for the measure, 2.5–2.7 s for the whole process, against scikit-learn 1.2.1's 13.2–14.7 s
// (13.9–16.3 s) on the same machine (0.59 against 2.5 GB peak). Where the CPU went at n = 30,000
// (profile, before the σ bounds and RankKL): placing and sorting the
// buckets 40%, the σ search's row entropies 16%, the int8 products 11%, rank-based terms 7.5%,
// bucket counting 6%, range estimate 5.5% (since replaced by a selection), KL sums 3.5%, 2-D
// output rows 2%. The ordering is limited by cache misses, not arithmetic: a scalar C twin of the
// Go code gained nothing; computing the buckets eight lanes at a time did.
//
// # Conventions
//
// Neighbour order: by (squared distance, row index); among equal distances the smaller index is
// nearer. The rank of j with respect to i is 1 + the number of other points nearer than j.
//
// Trustworthiness and continuity (checked against scikit-learn 1.2.1
// sklearn.manifold.trustworthiness to 1e-9, and against dredviz 1.0.2 `measure`, k = 1..20, to its
// 6 printed digits, on the S-curve golden files in testdata/):
//
//	T(k) = 1 − 2/(n k (2n − 3k − 1)) Σ_i Σ_{j ∈ U_k(i)} (r_ij − k)
//
// U_k(i) the output k-NN of i that are not input k-NN, r_ij the input rank; C(k) swaps the spaces.
// Index k−1 of the returned slices holds T(k) (C(k)) for k = 1..Neighbors.
//
// Smoothed precision and recall (dredviz `klmeasure`; reproduces dredviz 1.0.2's golden numbers on
// the S-curve NeRV and PCA embeddings to its 6 printed digits). Input distances and output
// distances are each divided by their own mean over the n(n−1) ordered pairs. Per point i,
//
//	p_j|i ∝ exp(−min(d_ij²/σ_i², 450))     q_j|i ∝ exp(−min(e_ij²/σ_i², 450))   (the SAME σ_i²)
//
// with no per-row shift (the −450 floor on the exponent is dredviz's), and the losses are
// KL(q_i‖p_i) (precision) and KL(p_i‖q_i) (recall), averaged over i (dredviz prints the sums).
// σ_i² is NOT the exact root of H(p_·|i) = log₂ k bits: it is where dredviz's golden-section line
// search on σ² stops — start at DBL_MIN with a unit step, halve (or double) the step to bracket
// the minimum of |H − log₂ k|, then golden sections down to an ABSOLUTE bracket width of 0.01 (at
// most 40 steps), keeping dredviz's quirk that a losing golden point left of the middle inherits
// the right end's cost; a target of 1 bit when k < 2; σ² floored at 1e-10. On the S-curve this
// gives row entropies ≈ 4.36 bits (perplexity ≈ 20.5, not 20). The exact root misses dredviz by
// 2.5e-2 relative, the search without the quirk by 4.8e-3. The consequence is dredviz's, kept on
// purpose: σ² is resolved only to about ±0.005 on the mean-normalised scale, so where
// neighbourhoods are small against the mean distance (large n) σ is coarse. Weights below e^−60
// of a row's largest are left out of the sums (effect below 1e-20 relative). These conventions
// were read from dredviz's public source (nervprobability, inputprobentropy, goldensectionsearch,
// klmeasure, klrank, rankmatrix), then confirmed against the golden files. Cost: dredviz's search
// evaluates about 16 entropies of an O(n) row per point; affinity.DredvizSearch reaches the same
// σ² with 4–6 on MNIST's rows (comparisons the entropy's monotonicity in σ² decides are not
// computed). Skipping the
// weights below e^−60 does not shorten the rows on high-dimensional data: on MNIST (2-D PCA) the
// calibrated σ² is so wide against the concentrated distances that 58,600–69,999 of the 69,999
// weights of a row lie above that threshold.
//
// Rank-based precision and recall (dredviz `klrank`; reproduces its golden numbers to its 6
// printed digits). Distances are replaced by ranks 1..n−1 (ties by the smaller index; dredviz's
// "best" and "worst" tie handling differ from this only when output distances tie), the ranks are
// divided by their mean n/2, and the same machinery applies: p(rank r) ∝ exp(−min((2r/n)²/σ², 450))
// with ONE σ² for all rows from the search above (every row holds the same ranks). KL(q_i‖p_i) and
// KL(p_i‖q_i) are summed and divided by their values in the worst case, output ranks exactly
// reversed (rank r ↦ n−r), so the values lie in [0, 1]. dredviz's klrank prints the normalised
// KL(p‖q) in the column it labels "1−precision" and KL(q‖p) as "1−recall"; here, as in klmeasure
// and the paper, precision is KL(q‖p) (PCA on the S-curve: precision loss 0.0274 > recall loss
// 0.0053, as its trustworthiness 0.935 < continuity 0.982 suggests). Note that dredviz's search
// cannot resolve the exact σ² (≈ (28/n)² for k = 20) and, for k = 20, stops at σ² = 0.004065 for
// every n tried (1000 … 70000): the effective neighbourhood is then about 4.6% of n (46 points
// at n = 1000, entropy 5.5 bits), not k. Only the points among the r0 unclamped nearest ranks of
// either space contribute (beyond them both distributions hold the same clamped value); r0 ≈
// 0.68·n, found per row by a bucket counting sort in O(n).
//
// Mean precision and recall curves: relevant = the Neighbors nearest input neighbours; retrieved =
// the r nearest output neighbours; precision |rel ∩ ret|/r, recall |rel ∩ ret|/Neighbors, averaged
// over points, r = 1..MaxRetrieved.
//
// k-NN error: leave-one-out among labelled rows (label −1 = unknown neither votes nor counts);
// a tied vote goes to the tied class of the nearest neighbour.
//
// prec(h) and F-measure follow METHODS.md §1: ties in the h highest posteriors and in the h nearest
// points go to the smaller row index; an F-measure with no true positives is 0.
package quality
