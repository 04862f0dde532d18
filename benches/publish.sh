#!/usr/bin/env bash
# Publishing and fetching through a real S3 server on 127.0.0.1 (s3s-fs), side by side
# with `aws s3 sync` (awscli from PyPI) of the same build directories to the same
# server: the first time, unchanged, and after one table changed. Two builds: 500 tables
# × 1,000 rows, and runtime.sh's large set (20 tables, one of 1,000,000 rows). Prints a
# Markdown table for BENCHMARKS.md with each time and masterctl/aws, and the bytes
# masterctl moved for the one-table change against the size of that table's files.
#
#   benches/publish.sh        # WORK=DIR keeps the data; installs s3s-fs when missing
set -euo pipefail
cd "$(dirname "$0")/.."
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
. benches/common.sh
prepare
masterctl=$PWD/target/release/masterctl
synth=$PWD/target/release/synth
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
command -v s3s-fs >/dev/null || cargo install -q s3s-fs@0.14.1 --features binary --locked
command -v aws >/dev/null || python3 -m pip install -q awscli

# The server, with a bucket; stopped on exit.
rm -rf "$work/s3" && mkdir -p "$work/s3/bench"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export AWS_ACCESS_KEY_ID=AKIDBENCH AWS_SECRET_ACCESS_KEY=bench-secret AWS_REGION=us-east-1
export AWS_ENDPOINT_URL="http://127.0.0.1:$port"
# awscli's newer default checksums are more than s3s-fs takes.
export AWS_REQUEST_CHECKSUM_CALCULATION=when_required AWS_RESPONSE_CHECKSUM_VALIDATION=when_required
s3s-fs --host 127.0.0.1 --port "$port" --access-key "$AWS_ACCESS_KEY_ID" \
  --secret-key "$AWS_SECRET_ACCESS_KEY" "$work/s3" >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
until (echo >/dev/tcp/127.0.0.1/"$port") 2>/dev/null; do sleep 0.1; done
aws() { command aws --endpoint-url "$AWS_ENDPOINT_URL" --only-show-errors "$@"; }

# seconds CMD...: wall time of one run.
seconds() {
  local start end
  start=$(date +%s%N)
  "$@" >/dev/null
  end=$(date +%s%N)
  awk "BEGIN{printf \"%.3f\", ($end - $start) / 1e9}"
}

row() { awk -v l="$1" -v m="$2" -v a="$3" 'BEGIN { printf "| %s | %.3f s | %.3f s | %.2f |\n", l, m, a, m / a }'; }

# change DATA REPO TABLE: one price of TABLE changed, imported, built; both tools publish
# it and fetch it; the bytes masterctl uploaded against the size of that table's files.
change() {
  local data=$1 repo=$2 table=$3 start end out uploaded table_bytes rows m a
  last_price "$data/data/$table" "$repo/$table"
  rows=$(($(wc -l <"$repo/$table") - 1))
  "$masterctl" --repo "$repo" import --region jp "$repo/$table" >/dev/null
  "$masterctl" --repo "$repo" build --region jp --out "$repo/build" >/dev/null
  start=$(date +%s%N)
  out=$("$masterctl" publish "$repo/build" --to "s3://bench/$name-m" --format json)
  end=$(date +%s%N)
  m=$(awk "BEGIN{printf \"%.3f\", ($end - $start) / 1e9}")
  a=$(seconds aws s3 sync "$repo/build" "s3://bench/$name-a")
  row "publish after one table of $rows rows changed (a fresh build dir)" "$m" "$a"
  m=$(seconds "$masterctl" fetch --from "s3://bench/$name-m" --region jp --out "$repo/fetched-m")
  a=$(seconds aws s3 sync "s3://bench/$name-a" "$repo/fetched-a")
  row "fetch after one table of $rows rows changed" "$m" "$a"
  uploaded=$(echo "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["uploaded_bytes"])')
  table_bytes=$(python3 - "$repo/build/manifest.json" "${table%.csv}" <<'PY'
import json, sys
manifest = json.load(open(sys.argv[1]))
print(sum(f["size"] for f in manifest["files"] if f["name"] == sys.argv[2] or f.get("table") == sys.argv[2]))
PY
)
  echo "| bytes uploaded for that change: masterctl $uploaded (compressed), that table's files $table_bytes (plain) | | | |"
}

# bench NAME DATA: build DATA's tables, then time both tools on it.
bench() {
  name=$1
  local data=$2 repo m a
  repo=$(fresh_repo "$data")
  "$masterctl" --repo "$repo" import --region jp "$data/data" >/dev/null
  "$masterctl" --repo "$repo" build --region jp --out "$repo/build" >/dev/null
  local size
  size=$(du -sb "$repo/build" | cut -f1)
  echo "| $name ($(awk -v b="$size" 'BEGIN{printf "%.0f MB", b / 1e6}'), $(ls "$repo"/build/tables | wc -l) tables) | masterctl | aws s3 sync | ratio |"
  m=$(seconds "$masterctl" publish "$repo/build" --to "s3://bench/$name-m")
  a=$(seconds aws s3 sync "$repo/build" "s3://bench/$name-a")
  row "first publish" "$m" "$a"
  m=$(seconds "$masterctl" publish "$repo/build" --to "s3://bench/$name-m")
  a=$(seconds aws s3 sync "$repo/build" "s3://bench/$name-a")
  row "unchanged republish" "$m" "$a"
  m=$(seconds "$masterctl" fetch --from "s3://bench/$name-m" --region jp --out "$repo/fetched-m")
  a=$(seconds aws s3 sync "s3://bench/$name-a" "$repo/fetched-a")
  row "first fetch" "$m" "$a"

  # One table changes: the last row of its CSV gets another price. Every build changes
  # its first table; the large one also a small table (its first is the 1,000,000-row one).
  change "$data" "$repo" "$(first_file "$data/data")"
  if [ "$name" = large ]; then change "$data" "$repo" "$(last_file "$data/data")"; fi
  rm -rf "$repo"
}

[ -f "$work/t500/masterctl.toml" ] || "$synth" --out "$work/t500" --tables 500 --rows 1000 --format csv >/dev/null
if [ ! -f "$work/large/masterctl.toml" ]; then
  "$synth" --out "$work/large" --tables 20 --rows 10000 --format csv >/dev/null
  "$synth" --out "$work/large-big" --tables 1 --rows 1000000 --format csv >/dev/null
  cp "$work/large-big/data/t0000.csv" "$work/large/data/t0000.csv"
fi
bench t500 "$work/t500"
bench large "$work/large"
