#!/usr/bin/env bash
# Abuse and fault harness: builds tunnel-relay in release mode and runs
# Benchmarks/relay-abuse.py against it on loopback. Per pattern (ping flood, pre-pairing flood,
# partly sent maximum-size messages, pending-cap hogging, descriptor exhaustion, idle rate-limited sockets, RSV frames, slowloris,
# half-open sockets, malformed/oversized frames, garbage requests, peers SIGKILLed mid-ceremony)
# a fresh relay with default limits, real ceremonies from 127.0.0.1 and the attacker on its own
# loopback address; it prints peak RSS, RSS after the settle time, /healthz answers, ceremony
# success and median next to an idle relay. About (1 + 12) × (attack + settle + 2) s: ~12 min
# with the defaults (20 s + 30 s).
# Usage: Benchmarks/relay-abuse.sh [--attack-seconds S] [--settle S] [--patterns a,b] [--short]
set -euo pipefail
cd "$(dirname "$0")/.."
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
swift build -c release --product tunnel-relay >/dev/null
bin="$(swift build -c release --show-bin-path)"
exec python3 Benchmarks/relay-abuse.py --relay "$bin/tunnel-relay" "$@"
