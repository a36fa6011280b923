#!/usr/bin/python3
"""Writes the .npy/.npz peer files of dataset's tests with Debian's python3-numpy
(apt-get install python3-numpy; run from dataset/: testdata/make_npy.py), and the values
they hold, in C order, to testdata/npy/expected.json.

With --check FILE.npz it instead loads an archive lowdim wrote (lowdim embed -o FILE.npz)
and prints what numpy sees, failing unless it has an n×2 float64 "embedding" and n labels."""
import json
import os
import sys

import numpy as np

if len(sys.argv) == 3 and sys.argv[1] == "--check":
    z = np.load(sys.argv[2])
    e = z["embedding"]
    assert e.dtype == np.float64 and e.ndim == 2 and e.shape[1] == 2, (e.dtype, e.shape)
    assert "labels" in z and z["labels"].shape == (e.shape[0],), list(z.keys())
    print("numpy", np.__version__, "reads", sys.argv[2], {k: (str(z[k].dtype), z[k].shape) for k in z})
    sys.exit(0)

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "npy")
os.makedirs(out, exist_ok=True)
expected = {}


def save(name, a, **kw):
    np.save(os.path.join(out, name), a, **kw)
    expected[name] = {"shape": list(a.shape), "values": np.ascontiguousarray(a).astype(np.float64).ravel().tolist()}


base = (np.arange(15, dtype=np.float64).reshape(5, 3) - 7) / 8  # exact binary fractions
save("f8.npy", base)
save("f4.npy", (base * 3).astype(np.float32))
save("i8.npy", np.arange(-6, 6, dtype=np.int64).reshape(4, 3) * 1000003)
save("i2be.npy", np.arange(-3, 3, dtype=">i2").reshape(3, 2))
save("u1_3d.npy", (np.arange(24) * 11 % 256).astype(np.uint8).reshape(4, 2, 3))  # images: 4 × (2·3)
save("fortran.npy", np.asfortranarray(np.arange(12, dtype=np.float64).reshape(3, 4)))
save("fortran_3d.npy", np.asfortranarray(np.arange(24, dtype=np.float64).reshape(2, 3, 4)))
save("f8be.npy", base.astype(">f8"))
save("bool.npy", np.array([[True, False], [False, True], [True, True]]))
save("vector.npy", np.array([1.5, -2.0, 3.25]))
with open(os.path.join(out, "v2.npy"), "wb") as f:  # format version 2.0 (4-byte header length)
    np.lib.format.write_array(f, base, version=(2, 0))
expected["v2.npy"] = expected["f8.npy"]

# Archives: named members with string labels; positional members, compressed, integer labels.
labels = np.array(["cat", "dog", "cat", "émeu", "dog"])
np.savez(os.path.join(out, "Xy.npz"), X=base, y=labels)
expected["Xy.npz"] = {"shape": [5, 3], "values": expected["f8.npy"]["values"], "labels": labels.tolist()}
np.savez_compressed(os.path.join(out, "positional.npz"), base, np.array([3, 1, 3, 2, 1]))
expected["positional.npz"] = {"shape": [5, 3], "values": expected["f8.npy"]["values"], "labels": ["3", "1", "3", "2", "1"]}

# Bad input: dtypes lowdim does not read, a truncated file, a NaN.
np.save(os.path.join(out, "complex.npy"), np.ones((2, 2), dtype=np.complex128))
np.save(os.path.join(out, "object.npy"), np.array([1, "a"], dtype=object), allow_pickle=True)
with open(os.path.join(out, "f8.npy"), "rb") as f:
    whole = f.read()
with open(os.path.join(out, "truncated.npy"), "wb") as f:
    f.write(whole[: len(whole) - 20])
np.save(os.path.join(out, "nan.npy"), np.array([[1.0, np.nan], [2.0, 3.0]]))

with open(os.path.join(out, "expected.json"), "w") as f:
    json.dump({"numpy": np.__version__, "files": expected}, f, indent=1, sort_keys=True)
    f.write("\n")
print("numpy", np.__version__, "wrote", len(os.listdir(out)), "files to", out)

# A precomputed k-NN graph as umap saves it (knn_indices int64 with the row itself first,
# knn_dists), beside the same graph as text (np.savetxt): neighbors' TestReadGraphNPY reads both.
pts = np.array([[0, 0], [1, 0], [0, 2], [3, 1], [2, 2], [5, 5]], dtype=np.float64)
d = np.sqrt(((pts[:, None, :] - pts[None, :, :]) ** 2).sum(-1))
order = np.argsort(d, axis=1, kind="stable")[:, :3]
graph = os.path.join(os.path.dirname(out), "..", "..", "neighbors", "testdata")
os.makedirs(graph, exist_ok=True)
np.save(os.path.join(graph, "knn_idx.npy"), order.astype(np.int64))
np.save(os.path.join(graph, "knn_dist.npy"), np.take_along_axis(d, order, axis=1))
np.savetxt(os.path.join(graph, "knn_idx.txt"), order, fmt="%d")
np.savetxt(os.path.join(graph, "knn_dist.txt"), np.take_along_axis(d, order, axis=1))
print("and a 6-row k-NN graph to", os.path.normpath(graph))
