#!/usr/bin/env python3
"""Golden NCA values from scikit-learn (Debian python3-sklearn 1.2.1) for package nca's tests.

Run from baseline/nca/:  /usr/bin/python3 testdata/make_golden.py
Data: the first 500 rows of load_digits() (500x64, 10 classes). For two starts A0 (2x64) --
  "lda":    scikit-learn's own "auto" start, LinearDiscriminantAnalysis(n_components=2).scalings_.T[:2]
  "random": 0.01 * RandomState(5).normal(size=(2, 64))
it writes (np.savetxt, %.17g):
  testdata/digits500_<start>_init.txt       A0
  testdata/digits500_<start>_start.txt      f(A0) = sum_i p_i, then the gradient df/dA at A0 (row-major, 128 values),
                                            from NeighborhoodComponentsAnalysis._loss_grad_lbfgs (sign +1)
  testdata/digits500_<start>_fit.txt        f at the fitted components_, n_iter_, then components_ (row-major)
                                            of NeighborhoodComponentsAnalysis(n_components=2, init=A0).fit(X, y)
                                            (defaults: max_iter=50, tol=1e-5, L-BFGS-B)
"""
import sys

import numpy as np
import sklearn
from sklearn.datasets import load_digits
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.neighbors import NeighborhoodComponentsAnalysis

print("scikit-learn", sklearn.__version__, file=sys.stderr)
d = load_digits()
X, y = d.data[:500].astype(np.float64), d.target[:500]
mask = y[:, None] == y[None, :]

starts = {
    "lda": LinearDiscriminantAnalysis(n_components=2).fit(X, y).scalings_.T[:2],
    "random": 0.01 * np.random.RandomState(5).normal(size=(2, 64)),
}
for name, A0 in starts.items():
    base = "testdata/digits500_%s_" % name
    np.savetxt(base + "init.txt", A0, fmt="%.17g", header="start %s (2x64)" % name)
    nca = NeighborhoodComponentsAnalysis(n_components=2, init=A0)
    nca.n_iter_ = 0
    f, g = nca._loss_grad_lbfgs(A0.ravel(), X, mask, 1.0)
    np.savetxt(base + "start.txt", np.concatenate([[f], g]), fmt="%.17g",
               header="sklearn %s: f(A0) = sum_i p_i, then df/dA row-major" % sklearn.__version__)
    nca = NeighborhoodComponentsAnalysis(n_components=2, init=A0).fit(X, y)
    nca.n_iter_, it = 0, nca.n_iter_
    f1, _ = nca._loss_grad_lbfgs(nca.components_.ravel(), X, mask, 1.0)
    np.savetxt(base + "fit.txt", np.concatenate([[f1, it], nca.components_.ravel()]), fmt="%.17g",
               header="sklearn %s NeighborhoodComponentsAnalysis(n_components=2, init=A0).fit: f, n_iter_, components_" % sklearn.__version__)
    print(name, "f(A0) =", f, "fit f =", f1, "n_iter_ =", it, file=sys.stderr)
