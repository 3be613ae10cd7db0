#!/usr/bin/env bash
# Real Chromium (Debian's chromium, through Tools/chromium-peer) as the hybrid client
# against OUR tunnel-relay (TLS, the peer's test PKI) and OUR hybrid-authenticator as the phone,
# all inside the peer's private network namespace: prf + credProps on create(), prf eval /
# evalByCredential on get(), then N discoverable create()+get() pairs in a row
# (ci/chromium/prf_interop.py has the checks).
#
#   ci/run-chromium-interop.sh [N]      N = pairs in a row (default 10, or CHROMIUM_INTEROP_REPEAT)
#   ci/run-chromium-interop.sh --phone-conformance
#                                       instead: one create() and one get() judged by
#                                       `hybrid-conformance phone` (ci/chromium/phone_conformance.py)
#   ci/run-chromium-interop.sh --digital-credentials
#                                       instead: navigator.credentials.get({digital}) answered by our
#                                       phone over hybrid (ci/chromium/dc_interop.py)
#
# Needs root (namespaces) and the packages of scripts/setup.sh's chromium set; builds nothing:
# run `swift build` first. Exits non-zero when a check fails; prints timings.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
mode=interop
if [ "${1:-}" = --phone-conformance ]; then mode=phone-conformance; shift; fi
if [ "${1:-}" = --digital-credentials ]; then mode=digital-credentials; shift; fi
repeat=${1:-${CHROMIUM_INTEROP_REPEAT:-10}}
peer=$(cd "${CHROMIUM_PEER_DIR:-Tools/chromium-peer}" && pwd)
bin=$(swift build --show-bin-path)
for tool in tunnel-relay hybrid-authenticator hybrid-conformance; do
    [ -x "$bin/$tool" ] || { echo "chromium interop: $bin/$tool missing: run swift build" >&2; exit 1; }
done

export CP_RUN=$(mktemp -d /tmp/hybrid-chromium.XXXXXX)
export CP_DISPLAY=${CP_DISPLAY:-:98}
source "$peer/env.sh"
start=$(date +%s.%N)

# Everything the namespace runs ends with it; the holder's process group is ours alone.
cleanup() {
    "$peer/teardown.sh" > /dev/null 2>&1 || true
    echo "chromium interop: logs in $CP_RUN/logs"
}
trap cleanup EXIT

# 1. Namespace, buses, fake BlueZ, Xvfb, page server and chromium; no tunnel server of theirs.
CP_WITH_CHROME=1 setsid "$peer/netns.sh" "$peer/start_stack.sh" > "$CP_RUN/stack.out" 2>&1 < /dev/null &
wait_for() {  # wait_for SECONDS COMMAND...: polls an event (a file, a port), not a fixed sleep
    local deadline=$(( $(date +%s) + $1 )); shift
    until "$@" > /dev/null 2>&1; do
        [ "$(date +%s)" -lt "$deadline" ] || { echo "chromium interop: timed out waiting for: $*" >&2; return 1; }
        sleep 0.1
    done
}
wait_for 30 grep -q "stack up" "$CP_RUN/stack.out"

# 2. The test PKI (CA trusted in the namespace's NSS db), then our relay on 127.0.0.1:443.
"$peer/inns.sh" "$peer/make_certs.sh" > "$CP_RUN/logs/certs.log" 2>&1
"$peer/inns.sh" "$bin/tunnel-relay" --host 127.0.0.1 --port 443 \
    --tls-cert "$CP_RUN/pki/chain.pem" --tls-key "$CP_RUN/pki/leaf.key" --log-level info \
    > "$CP_RUN/logs/tunnel.log" 2>&1 &
wait_for 30 grep -q "listening on" "$CP_RUN/logs/tunnel.log"
wait_for 60 "$peer/inns.sh" "$PY" "$peer/cdp.py" result
ready=$(date +%s.%N)
echo "chromium interop: stack, relay and $(chromium --version 2>/dev/null | head -1) ready in $(echo "$ready - $start" | bc) s"

# 3. The ceremonies. A fresh encrypted store: UV counts as done with --yes (getInfo uv: true).
export HYBRID_AUTHENTICATOR_PASSPHRASE="chromium interop $(date +%s%N)"
status=0
if [ "$mode" = phone-conformance ]; then
    # The reports (text and JUnit) also stay in $CHROMIUM_CONFORMANCE_OUT (default: the run directory).
    out=${CHROMIUM_CONFORMANCE_OUT:-$CP_RUN/conformance}
    mkdir -p "$out"
    "$peer/inns.sh" "$PY" -u "$repo/ci/chromium/phone_conformance.py" --peer "$peer" \
        --conformance "$bin/hybrid-conformance" --store "$CP_RUN/conformance-passkeys.json" --out "$out" || status=$?
elif [ "$mode" = digital-credentials ]; then
    "$peer/inns.sh" "$PY" -u "$repo/ci/chromium/dc_interop.py" --peer "$peer" \
        --authenticator "$bin/hybrid-authenticator" --store "$CP_RUN/passkeys.json" || status=$?
else
    "$peer/inns.sh" "$PY" -u "$repo/ci/chromium/prf_interop.py" --peer "$peer" \
        --authenticator "$bin/hybrid-authenticator" --store "$CP_RUN/passkeys.json" --repeat "$repeat" || status=$?
fi
echo "chromium interop: total $(echo "$(date +%s.%N) - $start" | bc) s"
exit $status
