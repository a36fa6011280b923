#!/usr/bin/env bash
# Prism throughput of the Beam pipelines on a million rows (issue 19): writes ROWS rows of 50
# small-integer columns (10 noisy clusters, a label column) in SHARDS CSV shards, then times
# fit (distributed PCA), map and measure (-queries QUERIES) with the in-process prism runner.
# Usage: beam/testdata/throughput.sh [ROWS [SHARDS [QUERIES [RUNS]]]]   (defaults 1000000 10 100 1)
# MEASURE_FLAGS adds flags to measure (e.g. -rank=false: the rank-based measures' sort moves
# every row's distances to every query through the shuffle, 3.2 GB for 100 queries of 1M rows).
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-1000000} shards=${2:-10} queries=${3:-100} runs=${4:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/lowdim-beam" ./cmd/lowdim-beam
per=$(( (rows + shards - 1) / shards ))
for s in $(seq 0 $((shards - 1))); do
  awk -v seed=$((s + 1)) -v n=$per 'BEGIN {
    srand(seed)
    for (j = 1; j <= 50; j++) { printf "x%d,", j } ; print "label"
    for (i = 0; i < n; i++) {
      c = int(rand() * 10)
      for (j = 1; j <= 50; j++) { v = int(16 * ((c * j) % 13) + 24 * rand()); printf "%d,", v }
      print c
    }
  }' > "$tmp/part-$(printf %03d "$s").csv" &
done
wait
echo "$rows rows x 50 in $shards shards: $(du -sh "$tmp" | cut -f1) of CSV; GOMAXPROCS=${GOMAXPROCS:-$(nproc)}"
timeit() { # label, then the command: wall and CPU seconds (CPU is the steadier figure on a shared machine)
  /usr/bin/time -f "$1: %e s wall, %U s user + %S s system CPU, %M KB peak RSS" "${@:2}" >/dev/null
}
for r in $(seq 1 "$runs"); do
  rm -rf "$tmp/out"
  timeit "run $r fit (pca)" "$tmp/lowdim-beam" fit -model "$tmp/pca.lowdim" "$tmp/part-*.csv"
  timeit "run $r map" "$tmp/lowdim-beam" map -model "$tmp/pca.lowdim" -o "$tmp/out" "$tmp/part-*.csv"
  timeit "run $r measure" "$tmp/lowdim-beam" measure -model "$tmp/pca.lowdim" -queries "$queries" ${MEASURE_FLAGS:-} -o "$tmp/m.json" "$tmp/part-*.csv"
done
cat "$tmp/m.json"
