#!/bin/sh
# Writes peer.parquet (and expected.json) with hyparquet-writer from npm — pyarrow is not in
# Debian and PyPI is not reachable here — for TestPeerFile, or, with --check FILE, reads a file
# lowdim wrote (lowdim embed -o FILE.parquet) with hyparquet and prints what it sees.
# Run from dataset/parquet: testdata/make_parquet.sh [--check FILE]. Needs node and npm.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
(cd "$T" && npm install --silent --no-save hyparquet-writer@0.17.0 hyparquet@1.33.0 >/dev/null)
if [ "${1:-}" = "--check" ]; then
	cp "$2" "$T/check.parquet"
	cd "$T" && node --input-type=module -e '
import { asyncBufferFromFile, parquetReadObjects, parquetMetadataAsync } from "hyparquet"
const file = await asyncBufferFromFile("check.parquet")
const meta = await parquetMetadataAsync(file)
const rows = await parquetReadObjects({ file })
console.log("hyparquet reads", rows.length, "rows; schema", meta.schema.slice(1).map(s => s.name + ":" + s.type).join(" "), "; first", JSON.stringify(rows[0]))
if (rows.length === 0 || typeof rows[0].x !== "number") process.exit(1)
'
	exit 0
fi
cd "$T" && node --input-type=module -e '
import { parquetWriteFile } from "hyparquet-writer"
import { writeFileSync } from "fs"
const a = [0.5, -1.25, 3, 1e-3, 2.75, 100]
const b = [1, 2, 3, -4, 5, 6]
const c = [0.5, 0.25, -8, 1.5, 2, 4]            // exact in float32
const flag = [true, false, true, true, false, false]
const note = ["x", "y", "z", "u", "v", "w"]    // text, not a feature
const label = ["cat", "dog", null, "cat", "emu", "dog"]
parquetWriteFile({ filename: "peer.parquet", columnData: [
  { name: "a", data: a, type: "DOUBLE" },
  { name: "b", data: b, type: "INT32" },
  { name: "c", data: c, type: "FLOAT" },
  { name: "flag", data: flag, type: "BOOLEAN" },
  { name: "note", data: note, type: "STRING" },
  { name: "label", data: label, type: "STRING" },
] })
const rows = a.map((_, i) => [a[i], b[i], c[i], flag[i] ? 1 : 0])
writeFileSync("expected.json", JSON.stringify({ writer: "hyparquet-writer 0.17.0", features: ["a", "b", "c", "flag"], rows, labels: label.map(l => l ?? "?") }, null, 1) + "\n")
'
cp "$T/peer.parquet" "$T/expected.json" "$HERE/"
echo "hyparquet-writer wrote $HERE/peer.parquet"
