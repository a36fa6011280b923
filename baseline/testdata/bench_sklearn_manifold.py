#!/usr/bin/python3
"""Times scikit-learn 1.2 (Debian python3-sklearn) on the rows the Go benchmarks use: a
5,000-point S-curve (make_s_curve(5000, noise=0.05, random_state=0); the Go side draws the
same distribution with its own generator). Prints the median wall time of RUNS fits per
method. Run beside `go test ./baseline/... -bench N5000` on the same machine:

    /usr/bin/python3 baseline/testdata/bench_sklearn_manifold.py [RUNS] [CASE ...]
"""
import sys
import time
import warnings

import numpy as np
from sklearn.datasets import make_s_curve
from sklearn.manifold import MDS, Isomap, LocallyLinearEmbedding, SpectralEmbedding

runs = int(sys.argv[1]) if len(sys.argv) > 1 else 3
only = sys.argv[2:]
X, _ = make_s_curve(5000, noise=0.05, random_state=0)
init = np.random.RandomState(0).uniform(size=(5000, 2))

cases = {
    "isomap_k10": lambda: Isomap(n_neighbors=10).fit(X),
    "lle_standard_k10": lambda: LocallyLinearEmbedding(n_neighbors=10, random_state=0).fit(X),
    # With the default ARPACK solver Hessian LLE stops here with "Factor is exactly singular"
    # (SuperLU with σ = 0); scikit-learn's message recommends the dense solver, timed second.
    "lle_hessian_k12": lambda: LocallyLinearEmbedding(n_neighbors=12, method="hessian", random_state=0).fit(X),
    "lle_hessian_k12_dense": lambda: LocallyLinearEmbedding(n_neighbors=12, method="hessian", eigen_solver="dense").fit(X),
    "lle_ltsa_k10": lambda: LocallyLinearEmbedding(n_neighbors=10, method="ltsa", random_state=0).fit(X),
    "lle_ltsa_k10_dense": lambda: LocallyLinearEmbedding(n_neighbors=10, method="ltsa", eigen_solver="dense").fit(X),
    "laplacian_k10": lambda: SpectralEmbedding(affinity="nearest_neighbors", n_neighbors=10, random_state=0).fit(X),
    "smacof_300": lambda: MDS(n_init=1, max_iter=300, eps=1e-3, normalized_stress=False).fit(X, init=init),
}
warnings.simplefilter("ignore")
for name, fit in cases.items():
    if only and name not in only:
        continue
    t = []
    try:
        for _ in range(runs):
            t0 = time.perf_counter()
            est = fit()
            t.append(time.perf_counter() - t0)
    except Exception as e:
        print("%-20s fails: %s" % (name, str(e).split(".")[0]), flush=True)
        continue
    extra = " (%d iterations)" % est.n_iter_ if hasattr(est, "n_iter_") else ""
    print("%-20s median %.3f s of %d: %s%s" % (name, float(np.median(t)), runs, " ".join("%.3f" % v for v in t), extra), flush=True)
