#!/usr/bin/env bash
# fuzz.sh [DURATION] [PACKAGE...] runs every fuzz target (func Fuzz… in a _test.go file) of the
# given packages — by default every package of the module that has one — for DURATION each
# (default 10m, issue 18's minimum before a reader counts as fuzzed), one target at a time with
# one worker (-parallel 1) under nice, so that it can share a small machine.
#
# A failing input is written by go test to PKG/testdata/fuzz/TARGET/ — commit it: it then runs
# as a regression case in every plain `go test`. Logs go to $FUZZ_LOGS (default a temporary
# directory). The script prints one line per target and the total fuzz time, and exits 1 if any
# target failed. FUZZ_MATCH (a regexp, default ^Fuzz) picks targets by name. FUZZ_MINIMIZE
# (default 10s) caps each minimization of a new corpus entry: at go's default of 60s a slow
# target (labelled text, ~1,000 inputs/s) spent most of its time minimizing instead of fuzzing.
set -uo pipefail

dur=${1:-10m}
shift || true
cd "$(dirname "$0")/.." || exit 2
logs=${FUZZ_LOGS:-$(mktemp -d -t lowdim-fuzz.XXXXXX)}
mkdir -p "$logs"

if [ $# -gt 0 ]; then
	pkgs=("$@")
else
	mapfile -t pkgs < <(grep -rl --include='*_test.go' '^func Fuzz' . | xargs -n1 dirname | sort -u)
fi

status=0 total=0 count=0
for pkg in "${pkgs[@]}"; do
	targets=$(go test -list "${FUZZ_MATCH:-^Fuzz}" "$pkg" | grep '^Fuzz') || continue
	for t in $targets; do
		log="$logs/$(echo "$pkg" | tr / _)_$t.log"
		start=$(date +%s)
		if nice -n 19 go test -run "^$t\$" -fuzz "^$t\$" -fuzztime "$dur" -fuzzminimizetime "${FUZZ_MINIMIZE:-10s}" -parallel 1 "$pkg" >"$log" 2>&1; then
			result=ok
		else
			result=FAIL status=1
		fi
		secs=$(($(date +%s) - start))
		total=$((total + secs)) count=$((count + 1))
		execs=$(grep -o 'execs: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
		printf '%-4s %-14s %-24s %5ds %12s execs  %s\n' "$result" "$pkg" "$t" "$secs" "${execs:-?}" "$log"
		if [ "$result" = FAIL ]; then
			grep -v '^fuzz: elapsed' "$log" | tail -15
		fi
	done
done
printf 'total fuzz time: %dm%02ds over %d targets (%s each)\n' $((total / 60)) $((total % 60)) "$count" "$dur"
exit $status
