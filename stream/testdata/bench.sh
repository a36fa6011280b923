#!/bin/sh
# The streaming benchmark of issue 19: N (default 10 million) MNIST-like rows × 784, generated
# on the fly into a pipe, through `lowdim transform` with a 2-D PCA fitted on 10,000 of them.
# Prints rows/s (wall), the CPU seconds lowdim used and its peak RSS (VmHWM, from GNU time).
# Run from the module root: stream/testdata/bench.sh [N] [RUNS]
# Needs ../shared/data/mnist for real digits (synthetic rows otherwise; see genrows).
set -eu
N=${1:-10000000}
RUNS=${2:-3}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
go build -o "$T/lowdim" ./cmd/lowdim
go build -o "$T/genrows" ./stream/testdata/genrows
MNIST=../shared/data/mnist/train-images-idx3-ubyte.gz
"$T/genrows" -mnist "$MNIST" -n 10000 > "$T/fit.csv"
"$T/lowdim" embed -model "$T/pca.lowdim" -o "$T/fit-y.csv" "$T/fit.csv"
rm "$T/fit.csv"
for r in $(seq "$RUNS"); do
	# Standard output goes to wc through a pipe (never -o /dev/null).
	"$T/genrows" -mnist "$MNIST" -n "$N" 2>/dev/null |
		/usr/bin/time -f '%e %U %S %M' -o "$T/time" "$T/lowdim" transform -model "$T/pca.lowdim" - | wc -l > "$T/lines"
	read -r wall user sys kb < "$T/time"
	lines=$(cat "$T/lines")
	echo "run $r: $((lines - 1)) rows in ${wall} s wall = $(echo "($lines - 1) / $wall" | bc) rows/s; lowdim CPU ${user} s user + ${sys} s sys = $(echo "scale=2; ($user + $sys) * 1000000 / ($lines - 1)" | bc) µs/row; peak RSS $((kb / 1024)) MB; load $(cut -d' ' -f1-3 /proc/loadavg)"
done
