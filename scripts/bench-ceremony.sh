#!/usr/bin/env bash
# Benchmark (release build): N full hybrid ceremonies on loopback — relay, client and authenticator
# in one process, simulated air, auto-approve — timed from "QR shown" to the response JSON (median
# and p99), then the CPU time of one Noise KNpsk0 handshake per side next to the raw P-256
# operations it needs (swift-crypto, and `openssl speed ecdhp256` for reference).
# Usage: scripts/bench-ceremony.sh [N ceremonies, default 200]
set -euo pipefail
cd "$(dirname "$0")/.."
ceremonies="${1:-200}"

swift build -c release --product hybrid-bench >/dev/null
bin="$(swift build -c release --show-bin-path)"
output="$("$bin/hybrid-bench" --ceremonies "$ceremonies" --handshakes 2000)"
printf '%s\n' "$output"

if command -v openssl >/dev/null; then
    # "ecdh (nistp256)   <op/s>" → microseconds per ECDH (one scalar multiplication).
    ops="$(openssl speed -seconds 2 ecdhp256 2>/dev/null | awk '/nistp256/ && /ecdh/ {print $(NF)}' | tail -1)"
    if [ -n "$ops" ]; then
        # The second yardstick: a side needs three scalar multiplications (its key, ee, se),
        # each priced at openssl's ECDH; stricter is the swift-crypto ratio printed above.
        printf '%s\n' "$output" | awk -v ops="$ops" '/handshake CPU per side/ {
            for (i = 1; i <= NF; i++) { if ($i == "initiator") ini = $(i + 1); if ($i == "responder") res = $(i + 1) }
            us = 1e6 / ops
            printf "openssl speed ecdhp256: %.0f op/s = %.1f µs per ECDH; 3 per side = %.1f µs\n", ops, us, 3 * us
            printf "  ratio handshake / (3 × openssl ECDH): initiator %.2f   responder %.2f\n", ini / (3 * us), res / (3 * us) }'
    fi
fi
