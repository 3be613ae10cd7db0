#!/usr/bin/env bash
# The security-key bridge's own overhead per request (target: <= 5 ms each):
#   request -> QR event:     the program's CTAPHID reports in, until the phone ceremony starts;
#   response -> last packet: the phone's answer in, until the last CTAPHID report is out.
# A stand-in phone answers at once, so Bluetooth, the tunnel and the phone are not counted.
# Usage: scripts/bench-security-key.sh [ITERATIONS] (default 2000). Release build unless
# SECURITY_KEY_BENCH_CONFIG=debug.
#
# scripts/bench-security-key.sh idle [WINDOW] [BEFORE_DIR]: what the key and its broker cost
# their machine while nobody uses them, and while one request waits for the phone, in the blevm
# guest (ci/idle-bench-in-vm.sh; this host has no uhid and no Bluetooth): wake-ups a second
# (voluntary + nonvoluntary context switches over all threads) and CPU ticks over WINDOW seconds
# (default 30), beside the anchor, a hardware key: 0 and 0. Debug builds, as the guest proofs run
# them. BEFORE_DIR: a directory with older hybrid-security-key and hybrid-key-broker binaries,
# measured in the same guest run for a before/after. IDLE_BENCH_LIMIT=R: exit 1 when the key's or
# the broker's idle rate is above R wake-ups a second (scripts/test.sh). IDLE_PRODUCTS: which of
# the two to build and measure (default both; the broker alone needs no swift-crypto build).
# IDLE_BIN_DIR: take the binaries from this directory instead of building them.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ "${1:-}" = idle ]; then
    blevm=${BLEVM_DIR:-Tools/blevm}
    die() { echo "bench-security-key idle: FAIL: $*" >&2; exit 1; }
    [ -x "$blevm/blevm-run" ] || die "blevm not found at $blevm (set BLEVM_DIR)"
    "$blevm/setup-host.sh" >/dev/null || die "blevm host setup failed"
    "$blevm/build-image.sh" >/dev/null || die "blevm guest image could not be built"
    products=${IDLE_PRODUCTS:-hybrid-security-key hybrid-key-broker}
    if [ -n "${IDLE_BIN_DIR:-}" ]; then
        bin=$IDLE_BIN_DIR  # binaries built elsewhere (no swift build here)
    else
        for product in $products; do
            swift build --product "$product" >/dev/null || die "swift build --product $product failed"
        done
        bin="$(swift build --show-bin-path)"
    fi
    work=$(mktemp -d "${TMPDIR:-/tmp}/idle-bench.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    binaries=() builds=.
    for program in $products; do
        strip --strip-debug -o "$work/$program" "$bin/$program"
        binaries+=(-b "$work/$program")
        if [ -n "${3:-}" ]; then
            strip --strip-debug -o "$work/before-$program" "$3/$program"
            binaries+=(-b "$work/before-$program:/usr/local/bin/before/$program")
            builds="before ."
        fi
    done
    set +e
    BLEVM_KARGS="${BLEVM_KARGS:+$BLEVM_KARGS }blevm.modules=uhid,hid_generic" \
        "$blevm/blevm-run" -m 2048 -t 1200 -s /usr:/host/usr:ro -s /etc:/host/etc:ro \
        -e "IDLE_WINDOW=${2:-30}" -e "IDLE_BUILDS=$builds" "${binaries[@]}" \
        -b "$(command -v fido2-cred)" -b "$(command -v setpriv):/usr/local/bin/util-setpriv" \
        -f ci/ceremony-in-vm.sh -f ci/broker/logind.py -f ci/broker/hold_key.py -S ci/idle-bench-in-vm.sh >"$work/vm.log" 2>&1
    rc=$?
    set -e
    grep -E "^IDLE-(BENCH|THREAD|MEMORY|MAP) |idle-bench: " "$work/vm.log" || cat "$work/vm.log"
    [ $rc -eq 0 ] || die "the guest run failed (exit $rc)"
    echo "== wake-ups a second (anchor: a hardware key, 0) and CPU ticks over ${2:-30} s"
    awk '/^IDLE-BENCH / { b = ($2 == "." ? "now" : $2); printf "   %-7s %-10s %-8s %s %s %s\n", b, $3, $4, $6, $7, $8 }' "$work/vm.log"
    echo "== memory at rest (kB; debug builds; anchor: a hardware key takes none of its host's)"
    awk '/^IDLE-MEMORY / { b = ($2 == "." ? "now" : $2); printf "   %-7s %-10s %s %s\n", b, $3, $4, $5 }' "$work/vm.log"
    if [ -n "${IDLE_BENCH_LIMIT:-}" ]; then
        awk -v limit="$IDLE_BENCH_LIMIT" '/^IDLE-BENCH \. (key-direct|broker) idle / {
            split($6, rate, "="); if (rate[2] + 0 > limit + 0) { print "   above " limit "/s: " $0; bad = 1 } }
            END { exit bad }' "$work/vm.log" || die "idle wake-ups above ${IDLE_BENCH_LIMIT}/s"
    fi
    exit 0
fi
config=${SECURITY_KEY_BENCH_CONFIG:-release}
swift build -c "$config" --product security-key-bench >/dev/null
"$(swift build -c "$config" --show-bin-path)/security-key-bench" "${1:-2000}"
