#!/usr/bin/python3
"""Golden values for the multinomial naive Bayes of package posterior.

Run from posterior/testdata with Debian's python3-sklearn (scikit-learn 1.2.1):

    /usr/bin/python3 gen_nb_golden.py > nb_golden.json

A small synthetic count matrix (seeded numpy generator): 40 training documents over 30 words
in 3 classes, each class drawing its tokens from its own Dirichlet word distribution, and 12
test documents. MultinomialNB is fitted with fixed alphas (alpha plays the part of λ), once
with the class priors from the class frequencies and once with given priors. The file holds
the data, the fitted log θ (feature_log_prob_), log π (class_log_prior_) and the posteriors
of the test documents (predict_proba), all as shortest round-trip decimals.
"""
import json

import numpy as np
import sklearn
from sklearn.naive_bayes import MultinomialNB

rng = np.random.default_rng(20070101)
n, ntest, v, k = 40, 12, 30, 3
theta = rng.dirichlet(np.full(v, 0.3), size=k)
y = np.arange(n) % k
lengths = rng.integers(5, 60, size=n + ntest)
X = np.array([rng.multinomial(lengths[i], theta[y[i] if i < n else i % k]) for i in range(n + ntest)])
Xtrain, Xtest = X[:n], X[n:]

cases = []
for alpha, prior in [(0.5, None), (2.0, None), (0.05, [0.2, 0.5, 0.3])]:
    m = MultinomialNB(alpha=alpha, class_prior=prior).fit(Xtrain, y)
    cases.append({
        "alpha": alpha,
        "priors": prior,
        "log_theta": m.feature_log_prob_.tolist(),
        "log_prior": m.class_log_prior_.tolist(),
        "proba": m.predict_proba(Xtest).tolist(),
    })

json.dump({
    "generator": "gen_nb_golden.py, scikit-learn " + sklearn.__version__ + ", numpy " + np.__version__,
    "classes": k,
    "x_train": Xtrain.tolist(),
    "y_train": y.tolist(),
    "x_test": Xtest.tolist(),
    "cases": cases,
}, __import__("sys").stdout)
print()
