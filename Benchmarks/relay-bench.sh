#!/usr/bin/env bash
# Benchmark tunnel-relay on loopback: builds both binaries in release mode, raises the fd limit
# (each tunnel is 2 client + 2 relay sockets), and runs relay-bench, which starts the relay,
# opens the tunnels and prints the numbers. Extra arguments go to relay-bench, e.g.
#   Benchmarks/relay-bench.sh --tunnels 5000
set -euo pipefail
cd "$(dirname "$0")/.."

FDS=${RELAY_BENCH_FDS:-200000}
if ! ulimit -n "$FDS" 2>/dev/null; then
    echo "relay-bench: cannot raise the fd limit to $FDS (hard limit $(ulimit -Hn)); run as root or raise it" >&2
    echo "relay-bench: continuing with $(ulimit -n) descriptors: pass a smaller --tunnels" >&2
fi

swift build -c release --product tunnel-relay
swift build -c release --product relay-bench
exec .build/release/relay-bench --relay-binary .build/release/tunnel-relay "$@"
