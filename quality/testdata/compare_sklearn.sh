#!/bin/sh
# Side-by-side: lowdim's quality.Trustworthiness vs scikit-learn's, MNIST first N images, 2-D PCA.
# Run from the repository root: sh quality/testdata/compare_sklearn.sh [N] [K]
set -e
N=${1:-10000}
K=${2:-20}
Y=$(mktemp)
/usr/bin/time -f "lowdim: %e s wall, %M KB peak" go run ./quality/testdata/mnistcompare -n "$N" -k "$K" -out "$Y"
/usr/bin/time -f "sklearn: %e s wall, %M KB peak" python3 quality/testdata/compare_sklearn.py "$N" "$K" "$Y"
rm -f "$Y"
