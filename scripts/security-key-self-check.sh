#!/usr/bin/env bash
# Self-check of an installed hybrid-security-key: the key broker answers (hybrid-key-broker.socket),
# the virtual key appears as a hidraw node of yours, `fido2-token -L` lists it (when fido2-tools is
# present) and the key answers getInfo (`fido2-token -I`). Starts its own instance (no window, no
# notifications) and stops it. Run it as the user at the seat: the broker gives a key only to the
# active local session. HYBRID_SELF_CHECK_UHID=/dev/uhid checks the direct mode instead (root).
# Usage: scripts/security-key-self-check.sh [BINARY]   (default: hybrid-security-key on PATH)
# Prints "self-check: hidraw NODE" and "self-check: PASS"; exits non-zero on any failure.
set -euo pipefail
binary=${1:-hybrid-security-key}
die() { echo "self-check: FAIL: $*" >&2; exit 1; }
[ -c /dev/uhid ] || die "/dev/uhid is missing (sudo modprobe uhid)"
device=(--broker-socket "${HYBRID_KEY_BROKER_SOCKET:-/run/hybrid-key-broker/socket}")
if [ -n "${HYBRID_SELF_CHECK_UHID:-}" ]; then
    [ -r "$HYBRID_SELF_CHECK_UHID" ] && [ -w "$HYBRID_SELF_CHECK_UHID" ] || die "no access to $HYBRID_SELF_CHECK_UHID as $(id -un)"
    device=(--uhid "$HYBRID_SELF_CHECK_UHID")
else
    [ -S "${device[1]}" ] || die "the key broker's socket ${device[1]} is missing (systemctl enable --now hybrid-key-broker.socket)"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/self-check.XXXXXX")
pid=""
cleanup() {
    [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
mkfifo "$work/events"
"$binary" "${device[@]}" --json --no-window --no-notifications >"$work/events" 2>"$work/stderr" &
pid=$!
exec 7<"$work/events"
ready=""
# The ready event (or an error), after any report of the Bluetooth adapter's state (the key
# says at start whether its adapter is there); bounded so a hung start fails.
while :; do
    IFS= read -r -t 20 ready <&7 || die "no ready event from $binary: $(cat "$work/stderr")"
    [[ "$ready" == *'"event":"bluetooth"'* ]] || break
done
hidraw=$(printf '%s' "$ready" | sed -n 's/.*"hidraw":"\([^"]*\)".*/\1/p')
if [ -z "$hidraw" ] && [[ "$ready" == *'"event":"unavailable"'*"already has the key"* ]]; then
    # Your session's key is already served by your running agent (the user unit): check that one.
    command -v fido2-token >/dev/null || die "your agent holds the key; install fido2-tools to check it"
    hidraw=$(fido2-token -L | sed -n 's/^\(\/dev\/hidraw[0-9]*\): .*Hybrid security key.*/\1/p' | head -n 1)
    echo "self-check: your running hybrid-security-key holds the key"
fi
[ -n "$hidraw" ] || die "the key did not appear: $ready $(cat "$work/stderr")"
[ -c "$hidraw" ] || die "$hidraw is not a character device"
echo "self-check: hidraw $hidraw"
if command -v fido2-token >/dev/null; then
    fido2-token -L | grep "^$hidraw:" >/dev/null || die "fido2-token -L does not list $hidraw"
    echo "self-check: fido2-token -L lists it"
    info=$(fido2-token -I "$hidraw") || die "fido2-token -I $hidraw failed (no getInfo answer)"
    grep -q "FIDO_2_0" <<<"$info" || die "getInfo has no FIDO_2_0 version: $info"
    echo "self-check: getInfo answered ($(grep -m1 '^version strings' <<<"$info"))"
else
    echo "self-check: fido2-token not found (apt install fido2-tools): getInfo not checked"
fi
echo "self-check: PASS"
