// Package linproj holds linear projections: principal component analysis (PCA), and the
// interactive LSP and Most Likely Embedding (MLE) whose maps follow control points that an
// analyst places (METHODS.md §4; the thesis in ../shared/papers/mle-interactive-embedding-thesis.txt).
//
// Every method here is parametric: its fitted model maps new rows by a fixed affine map
// (Transform), and the model can be saved with package modelio (kinds "pca" and "linproj").
//
// # Interactive projections
//
// Interactive{…}.Start(ctx, x) normalises the n×H data (centring, then none, z-score or max
// scaling per column) and returns a Session. The analyst pins m records ("control points") at
// positions Y_m (D×m); with X_m their normalised rows:
//
//   - LSP: P = Y_m (X_mᵀ)^†, the minimum-norm least-squares map. With no control points every
//     record is at the origin, as the thesis says.
//   - MLE: the prior R ~ MN(M, I, Ψ) with placements Y_m = R X_mᵀ + E, E iid N(0, σ²), gives the
//     posterior mean M_post = M + (Y_m − M X_mᵀ) A, A = (X_m Ψ X_mᵀ + σ²I)^† X_m Ψ (eq. 3.5), and
//     Ψ_post = Ψ − Ψ X_mᵀ (X_m Ψ X_mᵀ + σ²I)^† X_m Ψ (eq. 3.6). Defaults are the reference tool's
//     (InVis): M = the top-D principal directions (so m = 0 shows PCA, with scikit-learn's signs),
//     Ψ = the sample covariance of the normalised data, σ = 0.1·|smallest entry of Ψ|; Ψ = I
//     and a given M or σ are settings. With M = 0, Ψ = I and σ → 0 MLE is LSP (tested).
//
// The session caches, per control point, Ψx_r and the column X Ψ x_r, and per selection the gain
// A and A·Xᵀ (as K^† applied to those columns). A move changes one column of Y_m: M_post is
// updated in O(D·H) and the embedding U = M Xᵀ + (Y_m − M X_mᵀ)(A Xᵀ) in O(D·m·n), in
// parallel. Adding or removing a control point costs O(H²) (O(H) for Ψ = I) plus O(m²H + m³)
// for the gain and, at the next embedding, O(n·H) for the new record's column. The
// pseudo-inverse (eigenvalues below 1e-12 of the largest dropped) keeps exact placements of
// linearly dependent records defined.
//
// Per-point uncertainty is x_iᵀ Ψ_post x_i (for LSP, with Ψ = I and σ = 0, the squared distance
// of x_i from the span of the control records); Suggest returns the most uncertain record that
// is not a control point. Session.Model freezes the current map as a *LinearModel.
//
// Must-link and cannot-link hints (the thesis's optional constraints) are not implemented.
package linproj
