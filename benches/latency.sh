#!/usr/bin/env bash
# Delivery across a real round trip: an S3 server (s3s-fs) in one network namespace, the
# client in another, joined by ../shared/tools/latency/ (a userspace delay: this kernel
# has no netem) at 0 and 50 ms round trip. Publish after a one-table change of a
# 500-table build (1,501 objects), each binary on a bucket of its own holding the first
# build. Anchor: `aws s3 sync` (awscli from PyPI) of the same change, on a bucket of its
# own — of a fresh build folder (every file newer than the bucket's copy, as CI makes
# one), and with `--size-only` (only files whose size changed: the fastest it offers,
# which misses a change that keeps a file's size). Needs root (namespaces) and gcc; the
# link and the server are torn down on exit.
# Targets are only the namespaces' own addresses.
#
#   benches/latency.sh                      # WORK=DIR keeps the data
#   BEFORE=/path/to/masterctl benches/latency.sh   # the same for another binary, alternated
#   BEFORE=… PAIRS=15 benches/latency.sh   # then 15 publishes of each at 50 ms, taking
#                                          # turns: medians and means, for changes
#                                          # smaller than a best-of-N run's noise
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/common.sh
begin
before=${BEFORE:-}
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
command -v s3s-fs >/dev/null || cargo install -q s3s-fs@0.14.1 --features binary --locked
command -v aws >/dev/null || python3 -m pip install -q awscli
# awscli's newer default checksums are more than s3s-fs takes.
export AWS_REQUEST_CHECKSUM_CALCULATION=when_required AWS_RESPONSE_CHECKSUM_VALIDATION=when_required
export LATENCY_STATE="$work/latency"

server=10.78.0.1 port=9000
export AWS_ACCESS_KEY_ID=AKIDBENCH AWS_SECRET_ACCESS_KEY=bench-secret AWS_REGION=us-east-1
export AWS_ENDPOINT_URL="http://$server:$port"
s3pid=""
stop() {
  [ -n "$s3pid" ] && kill "$s3pid" 2>/dev/null || true
  "$latency/down.sh" >/dev/null 2>&1 || true
}
trap stop EXIT

# link DELAY_MS: the two namespaces, DELAY each way, and the S3 server in mc-srv.
link() {
  stop
  "$latency/up.sh" "$1" >/dev/null
  ip netns exec mc-srv s3s-fs --host "$server" --port "$port" --access-key "$AWS_ACCESS_KEY_ID" \
    --secret-key "$AWS_SECRET_ACCESS_KEY" "$work/s3" >/dev/null 2>&1 &
  s3pid=$!
  timeout 10 bash -c "until ip netns exec mc-cli bash -c 'echo >/dev/tcp/$server/$port' 2>/dev/null; do sleep 0.1; done"
}

# The builds: the 500 tables, then one price of the first table changed.
[ -f "$work/t500/masterctl.toml" ] || "$synth" --out "$work/t500" --tables 500 --rows 1000 --format csv >/dev/null
if [ ! -f "$work/build2/manifest.json" ]; then
  repo=$(fresh_repo "$work/t500")
  "$masterctl" --repo "$repo" import --region jp "$work/t500/data" >/dev/null
  "$masterctl" --repo "$repo" build --region jp --out "$work/build1" >/dev/null
  table=$(first_file "$work/t500/data")
  last_price "$work/t500/data/$table" "$repo/$table"
  "$masterctl" --repo "$repo" import --region jp "$repo/$table" >/dev/null
  "$masterctl" --repo "$repo" build --region jp --out "$work/build2" >/dev/null
  rm -rf "$repo"
fi
objects=$(python3 -c 'import json,sys; print(len({f["blake3"] for f in json.load(open(sys.argv[1]))["files"]}) + 1)' "$work/build2/manifest.json")

# fetch_change BIN BUCKET: after publish_change, a fetch of build2 into a new folder with
# every object already in the cache (a first fetch, untimed, fills it): what a fetch
# reads besides objects — the pointer and the manifest. Prints seconds.
fetch_change() {
  local bin=$1 bucket=$2 start end
  rm -rf "${work:?}/fetch-$bucket" && mkdir -p "$work/fetch-$bucket"
  cp -r "$work/build1" "$work/fetch-$bucket/out"
  ip netns exec mc-cli "$bin" fetch --from "s3://$bucket/m" --region jp --out "$work/fetch-$bucket/out" \
    --cache "$work/fetch-$bucket/cache" >/dev/null 2>&1 || true
  start=$(date +%s%N)
  ip netns exec mc-cli "$bin" fetch --from "s3://$bucket/m" --region jp --out "$work/fetch-$bucket/out2" \
    --cache "$work/fetch-$bucket/cache" >/dev/null
  end=$(date +%s%N)
  awk "BEGIN{printf \"%.3f\", ($end - $start) / 1e9}"
}

# publish_change BIN BUCKET: BUCKET holds build1 (published with BIN, not timed); the
# publish of build2 timed. Prints "<seconds> <objects asked about>".
publish_change() {
  local bin=$1 bucket=$2 start end out
  rm -rf "${work:?}/s3/$bucket" && mkdir -p "$work/s3/$bucket"
  ip netns exec mc-cli "$bin" publish "$work/build1" --to "s3://$bucket/m" >/dev/null
  start=$(date +%s%N)
  out=$(ip netns exec mc-cli "$bin" publish "$work/build2" --to "s3://$bucket/m" --format json)
  end=$(date +%s%N)
  echo "$(awk "BEGIN{printf \"%.3f\", ($end - $start) / 1e9}") $(echo "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("asked", "all"))')"
}

# sync_change [FLAG]: the anchor. bench-aws holds build1 (synced, not timed); the sync of
# build2 — copied to a new folder first, as a fresh build is — timed. Prints seconds.
sync_change() {
  local start end
  rm -rf "${work:?}/s3/bench-aws" "$work/build2-fresh" && mkdir -p "$work/s3/bench-aws"
  ip netns exec mc-cli aws --endpoint-url "$AWS_ENDPOINT_URL" --only-show-errors \
    s3 sync "$work/build1" s3://bench-aws/m >/dev/null
  cp -r "$work/build2" "$work/build2-fresh"
  start=$(date +%s%N)
  ip netns exec mc-cli aws --endpoint-url "$AWS_ENDPOINT_URL" --only-show-errors \
    s3 sync "$@" "$work/build2-fresh" s3://bench-aws/m >/dev/null
  end=$(date +%s%N)
  awk "BEGIN{printf \"%.3f\", ($end - $start) / 1e9}"
}

mkdir -p "$work/s3"
echo "| publish after a one-table change ($objects objects) | round trip | wall time (best of ${RUNS:-3}) | objects asked about |"
echo "| --- | --- | --- | --- |"
for delay in 0 25; do
  link "$delay"
  for label in ${before:+before} now; do
    bin=$masterctl; [ "$label" = before ] && bin=$before
    best=$(fastest "${RUNS:-3}" publish_change "$bin" "bench-$label")
    echo "| masterctl publish, $label | $((delay * 2)) ms | ${best% *} s | ${best#* } |"
    fetched=$(fetch_change "$bin" "bench-$label")
    echo "| masterctl fetch of that release, every object cached, $label | $((delay * 2)) ms | ${fetched} s | |"
  done
  echo "| aws s3 sync, a fresh build folder | $((delay * 2)) ms | $(fastest "${RUNS:-3}" sync_change) s | |"
  echo "| aws s3 sync --size-only | $((delay * 2)) ms | $(fastest "${RUNS:-3}" sync_change --size-only) s | |"
done

# PAIRS: the two binaries taking turns at 50 ms (the link is still up from the loop).
if [ -n "$before" ] && [ -n "${PAIRS:-}" ]; then
  for _ in $(seq "$PAIRS"); do
    a=$(publish_change "$before" bench-before) b=$(publish_change "$masterctl" bench-now)
    echo "${a% *} ${b% *}"
  done >"$work/pairs"
  echo
  echo "| publish after a one-table change, 50 ms, $PAIRS turns each | before | now |"
  echo "| --- | --- | --- |"
  python3 - "$work/pairs" <<'PY'
import statistics, sys
pairs = [tuple(map(float, line.split())) for line in open(sys.argv[1])]
before, now = zip(*pairs)
lower = sum(n < b for b, n in pairs)
print(f"| median | {statistics.median(before):.3f} s | {statistics.median(now):.3f} s |")
print(f"| mean | {statistics.mean(before):.3f} s | {statistics.mean(now):.3f} s |")
print(f"| fastest, slowest | {min(before):.3f} s, {max(before):.3f} s | {min(now):.3f} s, {max(now):.3f} s |")
print(f"| turns in which now was faster | | {lower} of {len(pairs)} |")
PY
fi
