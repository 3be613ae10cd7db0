#!/usr/bin/env bash
# Relay benchmark: builds tunnel-relay and relay-bench in release mode, then opens many tunnel
# pairs against a relay on loopback and prints concurrent tunnels, RSS per tunnel, frames/s, MB/s
# and round-trip latency p50/p99 through the relay and, in the same run, direct (WebSocket echo).
# Extra arguments go to relay-bench (see `relay-bench --help`), e.g. --tunnels 5000.
set -euo pipefail
cd "$(dirname "$0")/.."
ulimit -n 1048576 2>/dev/null || ulimit -n "$(ulimit -Hn)"
swift build -c release --product tunnel-relay
swift build -c release --product relay-bench
exec .build/release/relay-bench --relay-binary .build/release/tunnel-relay "$@"
