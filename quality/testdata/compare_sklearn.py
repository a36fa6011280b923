"""Time scikit-learn's trustworthiness on the first N MNIST training images and the 2-D embedding
written by mnistcompare; print the value with 12 decimals. Usage: compare_sklearn.py N K Y.csv"""
import gzip, sys, time
import numpy as np
from sklearn.manifold import trustworthiness

n, k, ypath = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
with gzip.open("../shared/data/mnist/train-images-idx3-ubyte.gz") as f:
    f.read(16)
    x = np.frombuffer(f.read(n * 784), dtype=np.uint8).reshape(n, 784).astype(np.float64)
y = np.loadtxt(ypath, delimiter=",")
start = time.time()
t = trustworthiness(x, y, n_neighbors=k)
print("sklearn trustworthiness n=%d k=%d: %.12f in %.2fs" % (n, k, t, time.time() - start))
