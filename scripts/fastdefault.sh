#!/usr/bin/env bash
# Issue 21: the plain build (`go build`, assembly kernels chosen at run time) against
# `-tags openblas` (cgo, C kernels, OpenBLAS), side by side on the issue's cases.
#
# Builds both lowdim binaries (and the test binaries the benchmark cases need), runs every case
# RUNS times (default 3) interleaved — plain, openblas, plain, openblas, … — and prints one row per
# case: the median wall seconds of each build, the ratio plain/openblas (the issue asks ≤ 1.25),
# and the median CPU seconds (user + system) of each. Benchmark cases report the benchmark's own
# ns/op as wall time (their data generation left out) and the process's CPU time.
#
# Usage: scripts/fastdefault.sh [-long]
#   -long   also the slow cases: every measure on all of MNIST (70,000 rows; minutes per run) and
#           the exact k-NN benchmark on MNIST 70,000 (BenchmarkKNNMNIST70000; minutes per run).
# Environment: RUNS (default 3), ONLY (an extended regular expression: only the cases whose name
# matches, e.g. ONLY='eval|HOPE'), MNIST10K (default /tmp/m/mnist10k.csv), MNIST70K
# (default /tmp/m/mnist70k.csv): CSV with header p0..p783,label; the k-NN benchmark reads
# ../shared/data/mnist. LOWDIM_CPU=generic (or avx2, avx512) lowers the kernels of both builds:
# the openblas build's C kernels then leave their AVX-512 paths too, and with LOWDIM_CPU=avx2
# OpenBLAS is given OPENBLAS_CORETYPE=Haswell (Debian's OpenBLAS is DYNAMIC_ARCH), so that the
# two columns compare what a CPU without AVX-512 (Haswell … Alder Lake, Zen 1–3) would run.
# Cases whose data are missing are skipped with a note. On a loaded machine set GOMAXPROCS for
# both (e.g. GOMAXPROCS=4): the openblas build otherwise runs with twice the Ps of the plain one
# (blas.SpareProcs), and more runnable threads win a larger share of contended cores, which
# shows in wall time, not in CPU time. Needs libopenblas.so.0 for the second
# column (Debian: apt-get install libopenblas0); without it the openblas build runs gonum.
set -euo pipefail
cd "$(dirname "$0")/.."
long=false
[ "${1:-}" = -long ] && long=true
runs=${RUNS:-3}
m10=${MNIST10K:-/tmp/m/mnist10k.csv}
m70=${MNIST70K:-/tmp/m/mnist70k.csv}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GOFLAGS="${GOFLAGS:--buildvcs=false}"

if [ "$(echo "${LOWDIM_CPU:-}" | tr -d ' ' | tr A-Z a-z)" = avx2 ]; then
  export OPENBLAS_CORETYPE=Haswell   # only the openblas build reads it; lowdim version shows it
fi

echo "building (plain and -tags openblas) in $tmp" >&2
go build -o "$tmp/plain" ./cmd/lowdim
go build -tags openblas -o "$tmp/openblas" ./cmd/lowdim
go test -c -o "$tmp/pe.plain" ./pe
go test -c -tags openblas -o "$tmp/pe.openblas" ./pe
if $long; then
  go test -c -o "$tmp/nb.plain" ./neighbors
  go test -c -tags openblas -o "$tmp/nb.openblas" ./neighbors
fi
"$tmp/plain" version >&2
"$tmp/openblas" version >&2

# measure BUILD CMD…: runs CMD with {} replaced by the build's name, appends "wall cpu" to
# $tmp/BUILD.times. Wall is the benchmark's ns/op when the output has one.
measure() {
  local b=$1; shift
  local args=("${@//\{\}/$b}")
  /usr/bin/time -f "%e %U %S" -o "$tmp/time" "${args[@]}" >"$tmp/out" 2>"$tmp/err" || {
    echo "failed: ${args[*]}" >&2; cat "$tmp/err" >&2; return 1; }
  local wall cpu ns
  read -r wall u s <"$tmp/time"
  cpu=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
  ns=$(awk '/ns\/op/ { for (i = 1; i < NF; i++) if ($(i+1) == "ns/op") print $i }' "$tmp/out" | tail -1)
  [ -n "$ns" ] && wall=$(awk -v n="$ns" 'BEGIN { printf "%.2f", n / 1e9 }')
  echo "$wall $cpu" >>"$tmp/$b.times"
}

median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# run NAME CMD…: RUNS interleaved runs of both builds, then one table row.
run() {
  local name=$1; shift
  if [ -n "${ONLY:-}" ] && ! [[ $name =~ $ONLY ]]; then return 0; fi
  rm -f "$tmp/plain.times" "$tmp/openblas.times"
  for _ in $(seq "$runs"); do
    measure plain "$@" && measure openblas "$@" || { printf '%-34s failed\n' "$name"; return 0; }
  done
  local pw ow pc oc
  pw=$(cut -d' ' -f1 "$tmp/plain.times" | median); ow=$(cut -d' ' -f1 "$tmp/openblas.times" | median)
  pc=$(cut -d' ' -f2 "$tmp/plain.times" | median); oc=$(cut -d' ' -f2 "$tmp/openblas.times" | median)
  printf '%-34s %9.2f %9.2f %6.2f   %8.2f %8.2f\n' "$name" "$pw" "$ow" "$(awk -v a="$pw" -v b="$ow" 'BEGIN { print a / b }')" "$pc" "$oc"
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $runs runs each, interleaved; GOMAXPROCS ${GOMAXPROCS:-default}"
printf '%-34s %9s %9s %6s   %8s %8s\n' case plain openblas ratio "cpu plain" "cpu oblas"
if [ -f "$m10" ]; then
  "$tmp/plain" embed -method pca -o "$tmp/pca10k.csv" "$m10" 2>/dev/null
  run "eval -neighbors 20, MNIST 10k" "$tmp/{}" eval -neighbors 20 -data "$m10" -embedding "$tmp/pca10k.csv"
  run "HOPE, 1 epoch, MNIST 10k" "$tmp/{}" embed -method hope -epochs 1 -o "$tmp/hope-{}.csv" "$m10"
else
  echo "(MNIST 10k cases skipped: $m10 absent)"
fi
run "NeRV S-curve (README)" "$tmp/{}" embed -method nerv -iterations 40 -o "$tmp/s-{}.csv" nerv/testdata/scurve1000.dat
run "PE fit, n = 1,000,000 (bench)" "$tmp/pe.{}" -test.run '^$' -test.bench 'BenchmarkFit/n=1000000$' -test.benchtime 1x
if $long; then
  if [ -f "$m70" ]; then
    "$tmp/plain" embed -method pca -o "$tmp/pca70k.csv" "$m70" 2>/dev/null
    run "eval -neighbors 20, MNIST 70k" "$tmp/{}" eval -neighbors 20 -data "$m70" -embedding "$tmp/pca70k.csv"
  else
    echo "(eval on MNIST 70k skipped: $m70 absent)"
  fi
  # The benchmark binaries run in their package directory, as go test runs them.
  run "exact k-NN, MNIST 70k PCA-50 (bench)" env -C neighbors LOWDIM_BENCH_EXACT=1 "$tmp/nb.{}" -test.run '^$' -test.bench 'BenchmarkKNNMNIST70000$' -test.benchtime 1x
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
