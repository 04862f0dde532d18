#!/usr/bin/env bash
# Fetching a release over HTTPS at 0 and 50 ms round trip: nginx from Debian in one
# network namespace serving a folder store (HTTP/2 on 10.78.0.1:8443, HTTP/1.1 only on
# :9443, a certificate made here and trusted through SSL_CERT_FILE), the client in
# another, joined by ../shared/tools/latency/ (a userspace delay: this kernel has no
# netem). The release: 500 tables × 1,000 rows (1,502 objects, ~20 MB). Anchor: h2load
# (nghttp2-client) fetching the same objects over one HTTP/2 connection with 256
# streams, and one file of the same bytes. Then a fleet: 20 servers fetching at once.
# Needs root (namespaces) and gcc; every client run is bounded (300 s); nginx and the
# link are stopped on exit.
# Targets are only the namespaces' own addresses.
#
#   benches/fetch_https.sh             # WORK=DIR keeps the data; RUNS=N (default 3)
#   FLEET=20 benches/fetch_https.sh    # the fleet's size
#   FETCH_DIR=DIR                      # where fetches write their builds and caches
#
# Fetches write to a tmpfs by default (/dev/shm): this machine's disk is ext4 without a
# journal, where creating files soon after thousands were deleted (every run deletes the
# last run's) makes ext4 scan for inodes it may reuse, one creator at a time — seconds
# of kernel time that a server's disk does not spend. FETCH_DIR=$WORK/f measures it.
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/common.sh
begin
runs=${RUNS:-3} fleet=${FLEET:-20}
fetches=${FETCH_DIR:-/dev/shm/masterctl-fetch-bench}
mkdir -p "$fetches"
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || apt-get install -y -q nginx-light >/dev/null
command -v h2load >/dev/null || apt-get install -y -q nghttp2-client >/dev/null
export LATENCY_STATE="$work/latency"
server=10.78.0.1
nginx_pid=""
stop() {
  [ -n "$nginx_pid" ] && kill "$nginx_pid" 2>/dev/null || true
  "$latency/down.sh" >/dev/null 2>&1 || true
}
finish() {
  stop
  [ -n "${FETCH_DIR:-}" ] || rm -rf "$fetches"
}
trap finish EXIT

# The release, published to a folder the server serves.
[ -f "$work/t500/masterctl.toml" ] || "$synth" --out "$work/t500" --tables 500 --rows 1000 --format csv >/dev/null
if [ ! -f "$work/store/regions/jp/current.json" ]; then
  repo=$(fresh_repo "$work/t500")
  "$masterctl" --repo "$repo" import --region jp "$work/t500/data" >/dev/null
  "$masterctl" --repo "$repo" build --region jp --out "$work/build" >/dev/null
  "$masterctl" publish "$work/build" --to "file://$work/store" >/dev/null
  rm -rf "$repo"
fi
# The anchor's inputs: every object's URL, and one file of all their bytes.
(cd "$work/store" && find objects -type f | sort | sed "s|^|https://$server:8443/|") >"$work/urls"
objects=$(wc -l <"$work/urls")
find "$work/store/objects" -type f -print0 | sort -z | xargs -0 cat >"$work/store/all.bin"
bytes=$(stat -c %s "$work/store/all.bin")

# A certificate authority and the server's certificate for 10.78.0.1.
tls=$work/tls
if [ ! -f "$tls/server.pem" ]; then
  mkdir -p "$tls"
  ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
  openssl req -x509 -days 7 -subj "/CN=masterctl bench CA" "${ec[@]}" -keyout "$tls/ca.key" -out "$tls/ca.pem" 2>/dev/null
  openssl req -subj "/CN=$server" "${ec[@]}" -keyout "$tls/server.key" -out "$tls/server.csr" 2>/dev/null
  printf 'subjectAltName=IP:%s,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' "$server" >"$tls/server.ext"
  openssl x509 -req -days 7 -in "$tls/server.csr" -CA "$tls/ca.pem" -CAkey "$tls/ca.key" -CAcreateserial \
    -extfile "$tls/server.ext" -out "$tls/server.pem" 2>/dev/null
fi
export SSL_CERT_FILE=$tls/ca.pem
cat >"$work/nginx.conf" <<EOF
daemon off; master_process off; worker_processes 1; pid $work/nginx.pid; error_log $work/nginx.log;
events { worker_connections 4096; }
http {
  access_log off; sendfile on; keepalive_requests 100000;
  client_body_temp_path $work/nt; proxy_temp_path $work/nt; fastcgi_temp_path $work/nt;
  uwsgi_temp_path $work/nt; scgi_temp_path $work/nt;
  ssl_certificate $tls/server.pem; ssl_certificate_key $tls/server.key;
  # Debian 12's nginx (1.22) offers TLS 1.3 only when asked (1.23.4 and later do by
  # default): a handshake of one round trip, as every current server and CDN has.
  ssl_protocols TLSv1.2 TLSv1.3;
  root $work/store;
  server { listen $server:8443 ssl http2; }
  server { listen $server:9443 ssl; }
}
EOF

# link DELAY_MS: the namespaces, DELAY each way, nginx in mc-srv.
link() {
  stop
  "$latency/up.sh" "$1" >/dev/null
  ip netns exec mc-srv nginx -c "$work/nginx.conf" -p "$work" &
  nginx_pid=$!
  timeout 10 bash -c "until ip netns exec mc-cli bash -c 'echo >/dev/tcp/$server/8443' 2>/dev/null; do sleep 0.1; done"
}

# fetch_once PORT DIR: a fetch of the release into DIR with an empty cache; prints
# "<seconds> <user+sys seconds> <peak MB> <protocol> <connections>".
fetch_once() {
  local port=$1 dir=$2 start end usage
  rm -rf "$dir" && mkdir -p "$dir"
  start=$(date +%s%N)
  usage=$( { timeout 300 ip netns exec mc-cli /usr/bin/time -f "%U %S %M" "$masterctl" --format json fetch \
    --from "https://$server:$port/" --region jp --out "$dir/out" --cache "$dir/cache" >"$dir/fetched.json"; } 2>&1 | tail -1)
  end=$(date +%s%N)
  python3 - "$dir/fetched.json" "$start" "$end" $usage <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))
start, end, user, sys_, peak = int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6])
t = f["transport"]
print(f"{(end - start) / 1e9:.3f} {user + sys_:.2f} {peak / 1024:.0f} {t['protocol']} {t['connections']}")
PY
}

# best PORT: the fastest of RUNS fetches.
best() {
  fastest "$runs" fetch_once "$1" "$fetches/fetch"
}

# h2load_once ARGS...: one h2load run from the client's namespace; prints seconds.
h2load_once() {
  timeout 300 ip netns exec mc-cli h2load "$@" 2>&1 | awk '/^finished in/ { v = $3; sub(/,$/, "", v);
    if (v ~ /ms$/) { sub(/ms$/, "", v); v /= 1000 } else { sub(/s$/, "", v) } printf "%.3f\n", v }'
}

# h2load_best ARGS...: the fastest of RUNS h2load runs; prints seconds.
h2load_best() {
  fastest "$runs" h2load_once "$@"
}

# cpu_of PID: the CPU seconds the process has used so far.
cpu_of() {
  awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$1/stat"
}

# fleet PORT: FLEET fetches at once, each with its own empty cache; prints "<wall
# seconds> <mean CPU seconds per fetch> <mean peak MB> <connections in all> <CPU
# seconds of nginx and of the delay link meanwhile>".
fleet() {
  local port=$1 start end
  local tundelay; tundelay=$(cat "$LATENCY_STATE/tundelay.pid")
  local nginx_before link_before
  nginx_before=$(cpu_of "$nginx_pid") link_before=$(cpu_of "$tundelay")
  for i in $(seq "$fleet"); do rm -rf "$fetches/fleet/$i"; mkdir -p "$fetches/fleet/$i"; done
  start=$(date +%s%N)
  for i in $(seq "$fleet"); do
    ( { timeout 300 ip netns exec mc-cli /usr/bin/time -f "%U %S %M" "$masterctl" --format json fetch \
        --from "https://$server:$port/" --region jp --out "$fetches/fleet/$i/out" --cache "$fetches/fleet/$i/cache" \
        >"$fetches/fleet/$i/fetched.json"; } 2>"$fetches/fleet/$i/time" ) &
  done
  wait
  end=$(date +%s%N)
  local others
  others="$(awk "BEGIN{printf \"%.1f\", $(cpu_of "$nginx_pid") - $nginx_before}") $(awk "BEGIN{printf \"%.1f\", $(cpu_of "$tundelay") - $link_before}")"
  python3 - "$fetches/fleet" "$fleet" "$start" "$end" $others <<'PY'
import json, sys
root, n, start, end = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
nginx_cpu, link_cpu = sys.argv[5], sys.argv[6]
cpu = mem = conns = 0
for i in range(1, n + 1):
    user, sys_, peak = open(f"{root}/{i}/time").read().split()[-3:]
    cpu += float(user) + float(sys_); mem += int(peak)
    conns += json.load(open(f"{root}/{i}/fetched.json"))["transport"]["connections"]
print(f"{(end - start) / 1e9:.2f} {cpu / n:.2f} {mem / n / 1024:.0f} {conns} {nginx_cpu} {link_cpu}")
PY
}

echo "Fetch of $objects objects ($((bytes / 1000000)) MB stored) over HTTPS, empty cache; best of $runs"
echo
echo "| round trip | client | wall time | ratio to h2load | CPU | peak memory | protocol, connections |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for delay in 0 25; do
  link "$delay"
  rtt="$((delay * 2)) ms"
  anchor=$(h2load_best -c1 -m256 -n "$objects" -i "$work/urls")
  single=$(h2load_best -c1 -m1 -n1 "https://$server:8443/all.bin")
  echo "| $rtt | h2load, 1 connection, 256 streams | $anchor s | 1.00 | | | HTTP/2, 1 |"
  echo "| $rtt | h2load, the same bytes as one file | $single s | $(awk "BEGIN{printf \"%.2f\", $single / $anchor}") | | | HTTP/2, 1 |"
  for port in 8443 9443; do
    read -r secs cpu peak protocol connections <<<"$(best "$port")"
    echo "| $rtt | masterctl fetch, server offering $([ $port = 8443 ] && echo HTTP/2 || echo HTTP/1.1 only) | $secs s | $(awk "BEGIN{printf \"%.2f\", $secs / $anchor}") | $cpu s | $peak MB | $protocol, $connections |"
  done
done

echo
echo "A fleet: $fleet fetches at once, 50 ms round trip, each with an empty cache; best of $runs"
echo
echo "| client | wall time | every run | ratio to h2load | CPU per fetch | peak memory per fetch | connections in all | CPU of nginx, of the delay link |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
anchor=$(h2load_best -c"$fleet" -m64 -n "$((objects * fleet))" -i "$work/urls")
echo "| h2load, $fleet connections, 64 streams each | $anchor s | | 1.00 | | | $fleet | |"
for port in 8443 9443; do
  # The fastest run's figures, and every run's wall time: a fleet on a small machine
  # varies from run to run more than a lone fetch does.
  best="" every=""
  for _ in $(seq "$runs"); do
    run=$(fleet "$port")
    every="$every${every:+, }${run%% *}"
    if [ -z "$best" ] || awk "BEGIN{exit !(${run%% *} < ${best%% *})}"; then best=$run; fi
  done
  read -r secs cpu peak connections nginx_cpu link_cpu <<<"$best"
  echo "| masterctl fetch ×$fleet, $([ $port = 8443 ] && echo HTTP/2 || echo HTTP/1.1 only) | $secs s | $every | $(awk "BEGIN{printf \"%.2f\", $secs / $anchor}") | $cpu s | $peak MB | $connections | $nginx_cpu s, $link_cpu s |"
done
