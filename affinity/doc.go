// Package affinity turns one point's squared distances into neighbour probabilities: it finds the
// bandwidth σ_i² at which the row distribution
//
//	p_j|i = exp(−a_ij/σ_i²) / Σ_{k≠i} exp(−a_ik/σ_i²)
//
// has the wanted entropy log k_eff (k_eff, the "perplexity", is the effective number of
// neighbours), and it writes such rows. Package quality (smoothed precision/recall) and package
// nerv (NeRV, t-NeRV, SNE, t-SNE) both calibrate through it.
//
// Two calibrations are offered:
//
//   - Exact: the root of H(σ²) = ln k_eff, to 1e-10 nats, by a safeguarded Newton iteration on
//     ln β (β = 1/σ²) inside a bisection bracket; 5–10 row evaluations per point. This is what
//     METHODS.md §2 asks for.
//   - Dredviz: where the golden-section line search of dredviz 1.0.2 (the NeRV authors' code)
//     stops when it minimises |H − log₂ k| over σ², with its coarse absolute bracket width 0.01
//     and its quirks (see Dredviz). Its rows have entropy ≈ 4.36 bits instead of log₂ 20 = 4.32
//     on the S-curve. The quality measures use it by default, so that they reproduce dredviz's
//     klmeasure and klrank.
//
// Every function here shifts exponents by the row minimum before exp (normalisation cancels the
// shift), so nothing underflows; weights more than e^−SkipExp below a row's largest are left out
// of sums (effect below 1e-20 relative).
package affinity
