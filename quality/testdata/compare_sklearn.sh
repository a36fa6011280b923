#!/bin/sh
# Side-by-side: lowdim's quality.Trustworthiness vs scikit-learn's, MNIST first N images, 2-D PCA.
# Run from the repository root: sh quality/testdata/compare_sklearn.sh [N] [K]
# TAGS=openblas sh quality/testdata/compare_sklearn.sh 10000 selects the OpenBLAS build.
set -e
N=${1:-10000}
K=${2:-20}
Y=$(mktemp)
BIN=$(mktemp)
go build ${TAGS:+-tags "$TAGS"} -o "$BIN" ./quality/testdata/mnistcompare
/usr/bin/time -f "lowdim: %e s wall, %M KB peak" "$BIN" -n "$N" -k "$K" -out "$Y"
/usr/bin/time -f "sklearn: %e s wall, %M KB peak" python3 quality/testdata/compare_sklearn.py "$N" "$K" "$Y"
rm -f "$Y" "$BIN"
