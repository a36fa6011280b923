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
//
// The producers of the Parametric Embedding paper (Iwata et al., Neural Computation 2007;
// package pe consumes their n×K posteriors) follow the same pattern — a settings value whose
// Fit returns a fitted model — but take a matrix, labels (−1 = unknown, ignored when
// fitting) and the number of classes rather than a dataset.Set:
//
//   - NaiveBayes (Appendix C): multinomial naive Bayes on word counts, θ_kj = (n_kj + λ_k) /
//     (N_k + λ_k V), each λ_k chosen by exact leave-one-out cross-validation over
//     [10⁻³, 10] (counts subtracted, no refit; sparse rows). NaiveBayesModel gives
//     Posteriors for any rows and LeaveOneOutPosteriors for the training documents, each
//     computed as if its own label were unknown. Agrees with scikit-learn's MultinomialNB
//     to 1e-10 (testdata/gen_nb_golden.py). BBC news (2225×9635): fit 0.2 s, leave-one-out
//     posteriors 0.05 s, λ ≈ 0.36–0.47, leave-one-out error 2.0%.
//   - SoftNN (Appendix D): a Gaussian on each of PerClass random labelled examples per
//     class, covariance sΣ_ρ with Σ_ρ the whole data's covariance shrunk towards
//     (tr Σ/H)·I. ρ and s are chosen by the examples' leave-one-out conditional likelihood;
//     on MNIST 0–4 that choice is ρ = 1 (Euclidean): the literal covariance with s = 1 gives
//     one-hot posteriors that are wrong for 76% of the digits. SoftNNModel lists the
//     examples (for marking them in plots) and gives Posteriors for any rows.
//   - LDA (Appendix E): latent Dirichlet allocation by collapsed Gibbs sampling (Griffiths &
//     Steyvers 2004) with SparseLDA's bucket split, deterministic for a seed. LDAModel holds
//     φ, p(z), the documents' topic proportions and a log-likelihood trace;
//     WordPosteriors(topics) inverts it to p(z_k|w) over a subset of topics and TopWords
//     labels topics. BBC with 20 topics and 500 sweeps: about 11 s.
//
// All of them reject bad input (negative or fractional counts, NaN, labels out of range,
// fewer than 2 classes, a class without labelled rows) with errors wrapping
// dataset.ErrInvalid, stop when ctx is cancelled and report progress.
package posterior
