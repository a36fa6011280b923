// Package pe is Parametric Embedding (Iwata, Saito, Ueda, Stromsten, Griffiths and Tenenbaum,
// "Parametric embedding for class visualization", Neural Computation 19, 2007).
//
// PE embeds n objects and K classes from the objects' class posteriors p_ik = p(c_k|x_i) alone:
// objects r_i and class points φ_k in D dimensions define a unit-variance Gaussian mixture
//
//	q_ik = π_k exp(−½‖r_i − φ_k‖²) / Σ_l π_l exp(−½‖r_i − φ_l‖²),
//
// and PE minimises J = −Σ_i Σ_k p_ik log q_ik + η_r Σ_i ‖r_i‖² + η_φ Σ_k ‖φ_k‖². Any
// probabilistic classifier, mixture or topic model can feed it (package posterior has four).
//
// # Algorithm
//
// For fixed Φ every object's part of J is strictly convex in r_i (its Hessian is
// Cov_{q_i}(φ) + 2η_r I), so each object has one optimum r_i*(Φ), found by damped Newton
// (Armijo backtracking; full steps once the Newton decrement is below 1e-8; stop at
// ‖∂J/∂r_i‖ ≤ 1e-7), in parallel over fixed blocks of 2,048 objects whose partial sums are
// added in block order, so the result has the same bytes for any number of workers. The class
// points are fitted by L-BFGS (gonum/optimize) on F(Φ) = min_R J(R, Φ): each evaluation solves
// every object from its previous optimum (a "sweep", O(nKD)), and by the envelope theorem
// ∂F/∂φ_k = Σ_i (p_ik − q_ik)(φ_k − r_i*) + 2η_φ φ_k. This is the paper's alternation of Newton
// steps on R and quasi-Newton steps on Φ, arranged so that L-BFGS always sees one consistent
// function and its curvature memory stays valid. It stops when every entry of ∂F/∂Φ is at most
// Tolerance·n (default 1e-6 per object) or F stalls (relative change below 1e-13 over 10
// iterations).
//
// Large n: when n > 2·Warmup (default 20,000), Φ is first fitted on a seeded random sample of
// Warmup objects (with η_φ scaled to the sample). The exact Hessian of F at that optimum
// (implicit differentiation through r_i*, see hessian.go; its one zero eigenvalue — F does not
// change when Φ and R rotate together — is clamped) preconditions the full-size L-BFGS, whose
// first step is then a Newton step. The full fit still runs to the same tolerance on all n
// objects: the warm-up changes only the number of full-size sweeps (n = 1,000,000, K = 10:
// 12 instead of 53). Warmup < 0 turns it off.
//
// # Settings and why
//
//   - η_r = 0.1, the paper's value. It sets how far confident objects may move out past their
//     class point.
//   - η_φ = 0.01·n. The paper used η_φ = 50 at n = 5,000. The data term grows with n while
//     Σ‖φ_k‖² does not, so a fixed η_φ squeezes the classes together at n = 100 and has no effect
//     at n = 10⁶; scaling it with n gives the same picture at every n (and the paper's value at
//     its n). Measured on K = 10 Dirichlet posteriors (pe.DirichletMixture(n, 10, 5, 1)), the RMS
//     radius of Φ is 1.08, 1.06, 1.07, 1.10, 1.10 at n = 10², 10³, 10⁴, 10⁵, 10⁶ with the
//     default, and 0.00 (all classes at the origin), 0.51, 1.44, 3.07, 6.09 with η_φ = 50.
//   - Φ starts from classical MDS of a class dissimilarity (the paper's suggestion when classes
//     are known): class k's profile is the p_ik-weighted mean posterior row, d_kl the Euclidean
//     distance between profiles. The layout is scaled to an RMS radius of 2. InitRandom draws a
//     seeded standard normal Φ instead (the paper's step 1); Start gives Φ outright. Only Φ's
//     start matters: each r_i starts at Σ_k p_ik φ_k and has a unique optimum.
//   - J in Φ has local minima: a start can fold two groups of classes through each other. On
//     the BBC naive Bayes posteriors the MDS start alone ends at J = 1519 and prec(10) = .76,
//     random starts at J = 1461 ± 15 and prec(10) ≈ .96 (`lowdim reproduce pe`). So by default
//     Φ is also fitted from DefaultRestarts = 4 seeded random starts — on the warm-up sample
//     when there is one, where a fit is cheap, else on all objects — and the lowest J is kept
//     (Model.Starts counts the starts). Restarts < 0 runs the one start, as the paper does.
//   - Class priors π default to uniform; with a naive Bayes producer pass its priors.
//
// The fitted *Model holds Φ, π and η_r, which define the map from any posterior row to its
// coordinates: Transform solves each new row's convex problem (transforming the training
// posteriors gives the fitted coordinates), and the model saves through modelio as kind "pe".
// Embedder.Begin returns a Run, the same fit stepped an L-BFGS iteration on Φ at a time (lowdim
// serve's live PE): Fit's own code parks between iterations, so a Run stepped to its end returns
// Fit's Model bit for bit, and Run.Result shows every object solved for the current Φ between
// steps.
// Check validates posterior matrices (finite, non-negative, rows summing to 1 within 1e-6 unless
// normalised, at least 2 classes) with errors that locate the bad entry.
package pe
