#!/usr/bin/env python3
"""Golden PCA outputs from scikit-learn (Debian python3-sklearn 1.2.1) for linproj's tests.

Run from linproj/:  python3 testdata/gen_golden.py
Writes testdata/{digits,iris}_pca{2,3}_{embedding,components,variance}.txt (np.savetxt, %.17g).

svd_solver="full" (LAPACK SVD of the centred data) is used on purpose: for digits
(1797x64, 2 components) sklearn's "auto" would pick the randomized solver, which is
approximate and, without a random_state, not reproducible. sklearn 1.2.1 flips signs
with svd_flip(U, Vt) (u_based_decision=True): in each column of U the entry of largest
absolute value is made positive.
"""
import sys

import numpy as np
import sklearn
from sklearn.datasets import load_digits, load_iris
from sklearn.decomposition import PCA

print("scikit-learn", sklearn.__version__, file=sys.stderr)
for name, loader in (("digits", load_digits), ("iris", load_iris)):
    X = loader().data.astype(np.float64)
    for d in (2, 3):
        p = PCA(n_components=d, svd_solver="full")
        Y = p.fit_transform(X)
        base = "testdata/%s_pca%d_" % (name, d)
        hdr = "sklearn %s PCA(n_components=%d, svd_solver='full') of %s %dx%d" % (
            sklearn.__version__, d, name, X.shape[0], X.shape[1])
        np.savetxt(base + "embedding.txt", Y, fmt="%.17g", header=hdr + ": fit_transform")
        np.savetxt(base + "components.txt", p.components_.T, fmt="%.17g",
                   header=hdr + ": components_.T (H x D)")
        np.savetxt(base + "variance.txt",
                   np.append(p.explained_variance_, np.var(X, axis=0, ddof=1).sum()),
                   fmt="%.17g", header=hdr + ": explained_variance_ (D values), then the total variance")
