// Package posterior holds models that produce class posteriors p(c|x): the n×K matrices that
// dataset.Set.Posteriors carries and that Parametric Embedding consumes.
//
// DiscriminativeMixture fits the conditional class density of NeRV (Venna et al., JMLR 2010,
// eq. 10; Peltonen et al., 2004), a mixture of G Gaussians of one common width s, each
// carrying a distribution β_·g over the K classes:
//
//	p̂(c|x) = Σ_g β_cg g_g(x) / Σ_g g_g(x),   g_g(x) = exp(−‖x − m_g‖²/2s²),   β_·g = softmax(γ_·g).
//
// The centres m_g and the logits γ maximise the conditional log-likelihood Σ_i log p̂(L_i|x_i)
// of the labelled rows (L-BFGS from gonum/optimize with the analytic gradient); G and s are
// chosen by internal validation on a seeded held-out part of the rows. The fitted *Mixture
// gives posteriors for any rows, the gradient ∇_x log p̂(c|x) that the Fisher learning metric
// (package learnmetric) is built from, and saves and loads through modelio as kind "dgmm".
package posterior
