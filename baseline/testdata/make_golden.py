#!/usr/bin/python3
"""Golden files for the spectral and distance-preserving baselines, from scikit-learn 1.2
(Debian python3-sklearn). Run from the repository root:

    /usr/bin/python3 baseline/testdata/make_golden.py   (Debian's python, where python3-sklearn lives)

Writes baseline/testdata/scurve400.csv (the input: sklearn.datasets.make_s_curve(400,
noise=0.05, random_state=0)), scurve_new20.csv (20 more points, random_state=1) and the
embeddings below, all as CSV with full precision.
"""
import os
import sys
import warnings

import numpy as np
import sklearn
from sklearn.datasets import make_s_curve
from sklearn.manifold import MDS, Isomap, LocallyLinearEmbedding, SpectralEmbedding

out = os.path.join(os.path.dirname(os.path.abspath(__file__)))


def save(name, a, header):
    np.savetxt(os.path.join(out, name), a, delimiter=",", fmt="%.17g", header=header, comments="")


X, _ = make_s_curve(400, noise=0.05, random_state=0)
new, _ = make_s_curve(20, noise=0.05, random_state=1)
save("scurve400.csv", X, "x,y,z")
save("scurve_new20.csv", new, "x,y,z")

iso = Isomap(n_neighbors=10, n_components=2).fit(X)
save("isomap_k10.csv", iso.embedding_, "x,y")
save("isomap_k10_new20.csv", iso.transform(new), "x,y")

for method, k in (("standard", 10), ("hessian", 12), ("ltsa", 10)):
    lle = LocallyLinearEmbedding(n_neighbors=k, n_components=2, method=method, eigen_solver="dense", reg=1e-3)
    save("lle_%s_k%d.csv" % (method, k), lle.fit_transform(X), "x,y")
    with open(os.path.join(out, "lle_%s_k%d_error.txt" % (method, k)), "w") as f:
        f.write("%.17g\n" % lle.reconstruction_error_)

se = SpectralEmbedding(n_components=2, affinity="nearest_neighbors", n_neighbors=10, random_state=0)
save("laplacian_k10.csv", se.fit_transform(X), "x,y")

# SMACOF from a given start (uniform on [0,1)², numpy seed 0): scikit-learn's stress_ is the
# raw stress of the configuration before the last Guttman transform.
init = np.random.RandomState(0).uniform(size=(400, 2))
save("smacof_init.csv", init, "x,y")
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # n_init is ignored with an explicit init
    mds = MDS(n_components=2, metric=True, n_init=1, max_iter=300, eps=1e-3, dissimilarity="euclidean", normalized_stress=False)
    y = mds.fit_transform(X, init=init)
save("smacof.csv", y, "x,y")
with open(os.path.join(out, "smacof_stress.txt"), "w") as f:
    f.write("%.17g %d\n" % (mds.stress_, mds.n_iter_))

sys.stderr.write("scikit-learn %s, numpy %s\n" % (sklearn.__version__, np.__version__))
