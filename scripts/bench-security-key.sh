#!/usr/bin/env bash
# The security-key bridge's own overhead per request (target: <= 5 ms each):
#   request -> QR event:     the program's CTAPHID reports in, until the phone ceremony starts;
#   response -> last packet: the phone's answer in, until the last CTAPHID report is out.
# A stand-in phone answers at once, so Bluetooth, the tunnel and the phone are not counted.
# Usage: scripts/bench-security-key.sh [ITERATIONS] (default 2000). Release build unless
# SECURITY_KEY_BENCH_CONFIG=debug.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
config=${SECURITY_KEY_BENCH_CONFIG:-release}
swift build -c "$config" --product security-key-bench >/dev/null
"$(swift build -c "$config" --show-bin-path)/security-key-bench" "${1:-2000}"
