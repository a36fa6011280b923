#!/usr/bin/env python3
"""Times scikit-learn (Debian python3-sklearn 1.2.1) on the rows the baselines' Go benchmarks use:
the first 5,000 rows of MNIST's training set (../shared/data/mnist, 784 pixels, 10 classes).

Run from the module root:  nice -n 5 /usr/bin/python3 baseline/testdata/bench_sklearn.py [runs] [method ...]
methods: lda (LinearDiscriminantAnalysis(n_components=2).fit(X, y).transform(X)) and nca
(NeighborhoodComponentsAnalysis(n_components=2).fit(X, y).transform(X), its defaults: "auto" start =
LDA, max_iter 50, tol 1e-5). Prints each run's wall time and the median. Compare with
  go test -run - -bench 'MNIST5000' ./baseline/lda ./baseline/nca
run interleaved on the same machine.
"""
import gzip
import os
import statistics
import sys
import time

import numpy as np
import sklearn
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.neighbors import NeighborhoodComponentsAnalysis

N = 5000
here = os.path.dirname(os.path.abspath(__file__))
mnist = os.path.join(here, "..", "..", "..", "shared", "data", "mnist")
with gzip.open(os.path.join(mnist, "train-images-idx3-ubyte.gz")) as f:
    X = np.frombuffer(f.read(), dtype=np.uint8, offset=16).reshape(-1, 784)[:N].astype(np.float64)
with gzip.open(os.path.join(mnist, "train-labels-idx1-ubyte.gz")) as f:
    y = np.frombuffer(f.read(), dtype=np.uint8, offset=8)[:N].astype(int)

fits = {
    "lda": lambda: LinearDiscriminantAnalysis(n_components=2).fit(X, y).transform(X),
    "nca": lambda: NeighborhoodComponentsAnalysis(n_components=2).fit(X, y).transform(X),
}
runs = int(sys.argv[1]) if len(sys.argv) > 1 else 3
names = sys.argv[2:] or list(fits)
print("scikit-learn", sklearn.__version__, "numpy", np.__version__, "on", X.shape, file=sys.stderr)
for name in names:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fits[name]()
        times.append(time.perf_counter() - t)
    print("%s: %s s, median %.3f s" % (name, " ".join("%.3f" % v for v in times), statistics.median(times)))
