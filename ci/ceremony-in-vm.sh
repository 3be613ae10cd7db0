# Guest half of the end-to-end BLE ceremony (sourced by ci/ble-in-vm.sh, busybox sh): a tunnel
# relay on the guest's loopback, `hybrid-authenticator --ble BACKEND --adapter hci0` as the phone
# and `hybrid-client --ble BACKEND --adapter hci1` register a passkey and then sign in with it;
# proximity (the encrypted EID advert) goes through the kernel's Bluetooth stack.
#
# The WebAuthn option files come from the host (run-ble-proof.sh copies them to
# /blevm/work/ceremony); each client result is printed between
#   CEREMONY-RESULT <backend> <create|get> BEGIN / END
# lines so that the host verifies it with py_webauthn (the guest has no Python).

ceremony_dir=/blevm/work/ceremony
ceremony_origin=https://example.com

# ceremony_wait_line FILE SED-EXPRESSION: waits up to 60 s for the expression to print something.
ceremony_wait_line() {
    i=0
    while [ $i -lt 600 ]; do
        found=$(sed -n "$2" "$1" 2>/dev/null | head -n 1)
        [ -n "$found" ] && { echo "$found"; return 0; }
        sleep 0.1
        i=$((i + 1))
    done
    return 1
}

# ceremony_run BACKEND: relay + create + get over BACKEND (hci or bluez). Non-zero on failure.
ceremony_run() {
    backend=$1
    work=/tmp/ceremony-$backend
    rm -rf "$work" && mkdir -p "$work"
    /usr/local/bin/tunnel-relay --host 127.0.0.1 --port 0 >"$work/relay.out" 2>"$work/relay.err" &
    relay=$!
    port=$(ceremony_wait_line "$work/relay.out" 's/.*listening on [0-9.]*:\([0-9][0-9]*\).*/\1/p') || {
        echo "ceremony: FAIL: tunnel-relay did not start" >&2; cat "$work/relay.err" >&2
        kill $relay 2>/dev/null; return 1
    }
    status=0
    for operation in create get; do
        ceremony_once "$backend" "$operation" "$port" || { status=1; break; }
        mark "ceremony $backend $operation"
    done
    kill $relay 2>/dev/null
    wait $relay 2>/dev/null
    return $status
}

# ceremony_once BACKEND OPERATION PORT: one hybrid-client run answered by one hybrid-authenticator.
ceremony_once() {
    backend=$1 operation=$2 port=$3
    /usr/local/bin/hybrid-client "$operation" --options "$ceremony_dir/$backend-$operation-options.json" \
        --origin "$ceremony_origin" --ble "$backend" --adapter hci1 --json --timeout 120 \
        --tunnel-override "0=ws://127.0.0.1:$port" >"$work/$operation.json" 2>"$work/$operation.events" &
    client=$!
    # The client scans before it shows the QR code; a phone's camera would read this string.
    qr=$(ceremony_wait_line "$work/$operation.events" 's/.*"url":"\(FIDO:\\\{0,1\}\/[0-9]*\)".*/\1/p' | tr -d '\\') || {
        echo "ceremony: FAIL: hybrid-client showed no QR code" >&2; cat "$work/$operation.events" >&2
        kill $client 2>/dev/null; return 1
    }
    # An encrypted store: its passphrase stands for the phone's user verification (uv: true), which
    # the client requires for the discoverable sign-in, as Chrome does.
    HYBRID_AUTHENTICATOR_PASSPHRASE="ceremony-$backend" \
        /usr/local/bin/hybrid-authenticator "$qr" --tunnel-url "ws://127.0.0.1:$port" --ble "$backend" \
        --adapter hci0 --yes --json --store "$work/passkeys.json" >"$work/$operation.authenticator" 2>&1 &
    authenticator=$!
    wait $client
    client_status=$?
    wait $authenticator
    authenticator_status=$?
    echo "---- $backend $operation: hybrid-client events (exit $client_status)"
    sed 's/^/   /' "$work/$operation.events"
    echo "---- $backend $operation: hybrid-authenticator events (exit $authenticator_status)"
    sed 's/^/   /' "$work/$operation.authenticator"
    echo "CEREMONY-RESULT $backend $operation BEGIN"
    cat "$work/$operation.json"
    echo
    echo "CEREMONY-RESULT $backend $operation END"
    [ $client_status -eq 0 ] && [ $authenticator_status -eq 0 ]
}
