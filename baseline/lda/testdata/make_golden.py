#!/usr/bin/env python3
"""Golden LDA outputs from scikit-learn (Debian python3-sklearn 1.2.1) for package lda's tests.

Run from baseline/lda/:  /usr/bin/python3 testdata/make_golden.py
Writes, with np.savetxt (%.17g):
  testdata/digits_lda2_embedding.txt   LinearDiscriminantAnalysis(n_components=2).fit(X, y).transform(X)
                                       of load_digits() (1797x64, 10 classes; 6 constant pixels make the
                                       within-class covariance singular)
  testdata/digits_lda2_scalings.txt    its scalings_[:, :2] (64x2)
  testdata/synth.csv                   a synthetic set: 150 rows, 5 features (the 5th = 1st + 2nd, so the
                                       covariance is singular), 4 classes of 20, 30, 40 and 60 rows, label last
  testdata/synth_lda2_embedding.txt    the same transform of synth.csv
The default solver ("svd", tol=1e-4) is what package lda follows step for step.
"""
import sys

import numpy as np
import sklearn
from sklearn.datasets import load_digits
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

print("scikit-learn", sklearn.__version__, file=sys.stderr)
ver = "sklearn %s LinearDiscriminantAnalysis(n_components=2)" % sklearn.__version__

d = load_digits()
X, y = d.data.astype(np.float64), d.target
lda = LinearDiscriminantAnalysis(n_components=2).fit(X, y)
np.savetxt("testdata/digits_lda2_embedding.txt", lda.transform(X), fmt="%.17g",
           header=ver + " of digits 1797x64: transform")
np.savetxt("testdata/digits_lda2_scalings.txt", lda.scalings_[:, :2], fmt="%.17g",
           header=ver + " of digits 1797x64: scalings_[:, :2]")

rng = np.random.RandomState(17)
sizes = [20, 30, 40, 60]
rows, labels = [], []
for c, m in enumerate(sizes):
    centre = rng.normal(scale=3.0, size=4)
    rows.append(centre + rng.normal(size=(m, 4)) * rng.uniform(0.5, 2.0, size=4))
    labels += [c] * m
Z = np.vstack(rows)
Z = np.hstack([Z, Z[:, :1] + Z[:, 1:2]])
labels = np.array(labels)
with open("testdata/synth.csv", "w") as f:
    f.write("a,b,c,d,e,label\n")
    for z, l in zip(Z, labels):
        f.write(",".join("%.17g" % v for v in z) + ",c%d\n" % l)
lda = LinearDiscriminantAnalysis(n_components=2).fit(Z, labels)
np.savetxt("testdata/synth_lda2_embedding.txt", lda.transform(Z), fmt="%.17g",
           header=ver + " of testdata/synth.csv: transform")
