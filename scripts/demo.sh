#!/usr/bin/env bash
# The main job, end to end on this machine with nothing to configure: a tunnel relay on loopback,
# the authenticator (the "phone") on the simulated Bluetooth air with --yes, and the client.
# It registers a passkey, then signs in with it, printing the QR codes and both results, and has
# py_webauthn (an independent relying party) verify them. Every process is stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --demo

echo "== building (once)"
swift build --product tunnel-relay >/dev/null
swift build --product hybrid-authenticator >/dev/null
swift build --product hybrid-client >/dev/null
bin="$(swift build --show-bin-path)"

work="$(mktemp -d)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Both processes meet on this simulated air (Unix datagram sockets in a 0700 directory; no radio is used).
export HYBRID_SIMULATED_AIR_DIR="$work/air"
export HYBRID_ALLOW_SIMULATED_AIR=1
origin="https://example.com"
rp_id="example.com"

# Waits up to 10 s for a line matching $2 in file $1 and prints it.
wait_for_line() {
    local file="$1" pattern="$2" line
    for _ in $(seq 200); do
        line="$(grep -m1 -E "$pattern" "$file" 2>/dev/null || true)"
        if [ -n "$line" ]; then printf '%s\n' "$line"; return 0; fi
        sleep 0.05
    done
    echo "demo: timed out waiting for '$pattern' in $file" >&2
    cat "$file" >&2 || true
    return 1
}

"$bin/tunnel-relay" --host 127.0.0.1 --port 0 >"$work/relay.out" 2>"$work/relay.err" &
pids+=($!)
port="$(wait_for_line "$work/relay.out" '^listening on ' | sed -E 's/.*:([0-9]+)$/\1/')"
echo "== relay listening on 127.0.0.1:$port"

# The authenticator's passkey store is encrypted with this passphrase, which also stands for its
# user verification (a phone's screen lock): with --yes it reports uv: true, as phones do.
passphrase="demo-$(python3 -c 'import secrets; print(secrets.token_hex(8))')"

# 32 random bytes, base64url.
random_challenge() { python3 -c 'import base64,os; print(base64.urlsafe_b64encode(os.urandom(32)).rstrip(b"=").decode())'; }

# run_ceremony NAME CLIENT-ARGS...: the client shows a QR code (first --json event); the
# authenticator is started with that QR string, as a phone's camera would read it.
run_ceremony() {
    local name="$1"; shift
    "$bin/hybrid-client" "$@" --origin "$origin" --ble sim --json --timeout 30 \
        --tunnel-server "0=ws://127.0.0.1:$port" >"$work/$name.json" 2>"$work/$name.events" &
    local client=$!
    pids+=("$client")
    local qr
    qr="$(wait_for_line "$work/$name.events" '"event":"qr"' | python3 -c 'import json,sys; print(json.load(sys.stdin)["url"])')"
    echo
    echo "== $name: the client shows this QR code"
    # The QR text goes on standard input ('-'): an argument would show it to every local user (ps).
    printf '%s\n' "$qr" | "$bin/hybrid-client" qr -
    echo "$qr"
    printf '%s\n' "$qr" | HYBRID_AUTHENTICATOR_PASSPHRASE="$passphrase" \
        "$bin/hybrid-authenticator" - --tunnel-url "ws://127.0.0.1:$port" --ble sim --yes --json \
        --store "$work/passkeys.json" >"$work/$name.authenticator" 2>&1 &
    local authenticator=$!
    pids+=("$authenticator")
    local status=0
    wait "$client" || status=$?
    wait "$authenticator" || true
    echo "-- client progress:"
    sed 's/^/   /' "$work/$name.events"
    echo "-- authenticator events:"
    sed 's/^/   /' "$work/$name.authenticator"
    if [ "$status" -ne 0 ]; then
        echo "demo: hybrid-client $name failed (exit $status)" >&2
        exit "$status"
    fi
    echo "-- $name result (hybrid-client stdout):"
    python3 -m json.tool "$work/$name.json"
}

# The requests as a relying party would send them (WebAuthn JSON), with the browsers' default
# userVerification "preferred". The sign-in is discoverable (empty allowCredentials), for which the
# client, like Chrome, requires user verification.
create_challenge="$(random_challenge)"
cat >"$work/create-options.json" <<JSON
{
  "rp": {"id": "$rp_id", "name": "Example"},
  "user": {"id": "$(random_challenge)", "name": "alice@example.com", "displayName": "Alice"},
  "challenge": "$create_challenge",
  "pubKeyCredParams": [{"type": "public-key", "alg": -7}],
  "authenticatorSelection": {"residentKey": "required", "userVerification": "preferred"},
  "attestation": "none"
}
JSON
run_ceremony create create --options "$work/create-options.json"

get_challenge="$(random_challenge)"
cat >"$work/get-options.json" <<JSON
{"challenge": "$get_challenge", "rpId": "$rp_id", "allowCredentials": [], "userVerification": "preferred"}
JSON
run_ceremony get get --options "$work/get-options.json"

echo
echo "== py_webauthn, as the relying party, verifies both results"
python3 Tests/Interop/verify_webauthn.py register --response "$work/create.json" --challenge="$create_challenge" \
    --origin "$origin" --rp-id "$rp_id" --credential-out "$work/credential.json"
python3 Tests/Interop/verify_webauthn.py authenticate --response "$work/get.json" --challenge="$get_challenge" \
    --origin "$origin" --rp-id "$rp_id" --credential "$work/credential.json"
echo
echo "== demo done: a passkey was created on the simulated phone and used to sign in"
