#!/usr/bin/env bash
# Relay benchmark: builds tunnel-relay and relay-bench in release mode, raises the fd limit (each
# tunnel is 2 client + 2 relay sockets), then opens many tunnel pairs against a relay on loopback and
# prints concurrent tunnels, RSS per tunnel, frames/s, MB/s and round-trip latency p50/p99 through the
# relay and, in the same run, direct (WebSocket echo). Extra arguments go to relay-bench (see
# `relay-bench --help`), e.g.
#   Benchmarks/relay-bench.sh --tunnels 5000
#   Benchmarks/relay-bench.sh --instances 3 --tunnels 21000 --relay-event-loops 1
# With --instances N it starts N relay processes (routing prefixes 01…) and N worker processes
# (relay-bench re-run), one per instance, so that no process needs more descriptors than the hard
# limit allows (20 000 in our container: ~9 900 tunnels per process). Results: Benchmarks/RESULTS.md.
# Also:
#   --via-haproxy                     the load goes through HAProxy running deploy/haproxy.cfg
#   --relay-url ws://127.0.0.1:PORT   an already-running relay (any implementation); --relay-pid for CPU/RSS
#   --compare --relay-event-loops 1   side by side: our relay, nginx and HAProxy proxying to an echo, the echo
#                                     (needs Debian's nginx); a table of ratios to the best
#   --fault-run                       3 instances behind HAProxy under a ceremony load; SIGKILL one, restart it;
#                                     failed ceremonies and time to recover; HAProxy's own detection from its
#                                     runtime API (detect_ms: kill to DOWN, up_ms: restart to UP)
# Every load run checks one message each way on every paired tunnel before the throughput phases.
# Every phase prints a "summary phase=… key=value …" line: diff two runs with grep ^summary.
set -euo pipefail
cd "$(dirname "$0")/.."

FDS=${RELAY_BENCH_FDS:-200000}
if ! ulimit -n "$FDS" 2>/dev/null; then
    echo "relay-bench: cannot raise the fd limit to $FDS (hard limit $(ulimit -Hn)); run as root or raise it" >&2
    ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
    echo "relay-bench: continuing with $(ulimit -n) descriptors: pass a smaller --tunnels or more --instances" >&2
fi

swift build -c release --product tunnel-relay
swift build -c release --product relay-bench
exec .build/release/relay-bench --relay-binary .build/release/tunnel-relay "$@"
