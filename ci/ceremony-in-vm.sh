# Guest half of the end-to-end BLE ceremony (sourced by ci/ble-in-vm.sh, busybox sh): a tunnel
# relay on the guest's loopback, `hybrid-authenticator --ble BACKEND --adapter hci0` as the phone
# and `hybrid-client --ble BACKEND --adapter hci1` register a passkey and then sign in with it;
# proximity (the encrypted EID advert) goes through the kernel's Bluetooth stack.
#
# The WebAuthn option files come from the host (run-ble-proof.sh copies them to
# /blevm/work/ceremony); each client result is printed between
#   CEREMONY-RESULT <name> <create|get> BEGIN / END
# lines so that the host verifies it with py_webauthn (the guest has no Python).

ceremony_dir=/blevm/work/ceremony
ceremony_origin=https://example.com

# ceremony_wait_line FILE SED-EXPRESSION: waits up to 60 s for the expression to print something.
ceremony_wait_line() {
    cw_ticks=0
    while [ $cw_ticks -lt 600 ]; do
        found=$(sed -n "$2" "$1" 2>/dev/null | head -n 1)
        [ -n "$found" ] && { echo "$found"; return 0; }
        sleep 0.1
        cw_ticks=$((cw_ticks + 1))
    done
    return 1
}

# ceremony_run NAME: relay + create + get (CEREMONY_OPERATIONS). NAME is the backend (hci or
# bluez), or `fallback` (hci; see ble-in-vm.sh). Non-zero on failure.
ceremony_run() {
    run_name=$1
    work=/tmp/ceremony-$run_name
    rm -rf "$work" && mkdir -p "$work"
    /usr/local/bin/tunnel-relay --host 127.0.0.1 --port 0 >"$work/relay.out" 2>"$work/relay.err" &
    relay=$!
    port=$(ceremony_wait_line "$work/relay.out" 's/.*listening on [0-9.]*:\([0-9][0-9]*\).*/\1/p') || {
        echo "ceremony: FAIL: tunnel-relay did not start" >&2; cat "$work/relay.err" >&2
        kill $relay 2>/dev/null; return 1
    }
    status=0
    for operation in ${CEREMONY_OPERATIONS:-create get}; do
        ceremony_once "$run_name" "$operation" "$port" || { status=1; break; }
        mark "ceremony $run_name $operation"
    done
    kill $relay 2>/dev/null
    wait $relay 2>/dev/null
    return $status
}

# ceremony_run_without_relay NAME: create + get with no relay running at all (hci; the client
# insists on the phone's BLE L2CAP channel, CTAP 2.3). Non-zero on failure.
ceremony_run_without_relay() {
    work=/tmp/ceremony-$1
    rm -rf "$work" && mkdir -p "$work"
    for operation in create get; do
        # Port 1: nothing listens there, so neither side can open a tunnel.
        ceremony_once "$1" "$operation" 1 || return 1
        mark "ceremony $1 $operation"
    done
}

# ceremony_stamp: each input line with the guest's uptime in seconds in front.
ceremony_stamp() {
    while IFS= read -r line; do echo "$(cut -d' ' -f1 /proc/uptime) $line"; done
}

# ceremony_once NAME OPERATION PORT: one hybrid-client run answered by one hybrid-authenticator.
# NAME picks the option files and the backend (bluez*, else hci); CEREMONY_CLIENT_ARGS and
# CEREMONY_PHONE_ARGS add flags. Prints the client's times as `CEREMONY-TIME NAME OPERATION: ...`.
ceremony_once() {
    name=$1 operation=$2 port=$3
    case $name in bluez*) backend=bluez ;; *) backend=hci ;; esac
    started=$(cut -d' ' -f1 /proc/uptime)
    # The client's event lines get the guest's uptime in front, for the timings below.
    # shellcheck disable=SC2086 # the extra flags are words
    {
        /usr/local/bin/hybrid-client "$operation" --options "$ceremony_dir/$name-$operation-options.json" \
            --origin "$ceremony_origin" --ble "$backend" --adapter hci1 --json --timeout 120 \
            --tunnel-server "0=ws://127.0.0.1:$port" ${CEREMONY_CLIENT_ARGS:-} >"$work/$operation.json"
        echo $? >"$work/$operation.status"
    } 2>&1 | ceremony_stamp >"$work/$operation.events" &
    client=$!
    # The client scans before it shows the QR code; a phone's camera would read this string.
    qr=$(ceremony_wait_line "$work/$operation.events" 's/.*"url":"\(FIDO:\\\{0,1\}\/[0-9]*\)".*/\1/p' | tr -d '\\') || {
        echo "ceremony: FAIL: hybrid-client showed no QR code" >&2; cat "$work/$operation.events" >&2
        kill $client 2>/dev/null; return 1
    }
    # An encrypted store: its passphrase stands for the phone's user verification (uv: true), which
    # the client requires for the discoverable sign-in, as Chrome does. Made with the cheapest
    # scrypt cost the format accepts (N=2^14): at the production N=2^17 each phone start spent
    # 20-30 s of TCG time unlocking it, most of each ceremony's wall time (the libfido2 proof keeps
    # the production cost).
    # With CEREMONY_PHONE_FAULT, the phone is hybrid-conformance's, misbehaving that way (its
    # report says whether the client coped).
    if [ -n "${CEREMONY_PHONE_FAULT:-}" ]; then
        # The QR text on standard input ('-'): an argument would show it to every local user (ps).
        printf '%s\n' "$qr" | /usr/local/bin/hybrid-conformance phone - --tunnel-url "ws://127.0.0.1:$port" --ble "$backend" \
            --adapter hci0 --fault "$CEREMONY_PHONE_FAULT" >"$work/$operation.authenticator" 2>&1 &
    else
        # The phone's lines get the guest's uptime in front as well (its exit status goes to a file).
        # shellcheck disable=SC2086
        {
            printf '%s\n' "$qr" | HYBRID_AUTHENTICATOR_PASSPHRASE="ceremony-$name" HYBRID_ALLOW_INSECURE_FAST_KDF=1 \
                /usr/local/bin/hybrid-authenticator - --tunnel-url "ws://127.0.0.1:$port" --ble "$backend" \
                --adapter hci0 --yes --json --insecure-fast-store-kdf --store "$work/passkeys.json" ${CEREMONY_PHONE_ARGS:-}
            echo $? >"$work/$operation.authenticator-status"
        } 2>&1 | ceremony_stamp >"$work/$operation.authenticator" &
    fi
    authenticator=$!
    wait $client
    client_status=$(cat "$work/$operation.status" 2>/dev/null || echo 1)
    awk -v name="$name" -v op="$operation" -v a="$started" -v b="$(cut -d' ' -f1 /proc/uptime)" '
        /"event":"connecting/ && !connect { connect = $1 } /"event":"channel"/ { channel = $1 }
        /"event":"done"/ { done = $1 }
        END { printf "CEREMONY-TIME %s %s: wall %.2f s; first connect to done %.2f s; channel open to done %.2f s\n",
              name, op, b - a, done - connect, done - channel }' "$work/$operation.events"

    wait $authenticator
    authenticator_status=$?
    [ -f "$work/$operation.authenticator-status" ] && authenticator_status=$(cat "$work/$operation.authenticator-status")
    # The phone's side, from its stamped events: the client's first message to the advert off and
    # to the handshake done (its answers written).
    awk -v name="$name" -v op="$operation" '
        /"event":"connected"/ && !connected { connected = $1 } /"event":"advertisingStopped"/ && !off { off = $1 }
        /"event":"handshakeDone"/ && !done { done = $1 }
        END { if (connected && done) printf "CEREMONY-TIME %s %s phone: connected to advert off %.2f s, to handshake done %.2f s\n",
              name, op, off - connected, done - connected }' "$work/$operation.authenticator"
    echo "---- $name $operation: hybrid-client events (exit $client_status)"
    sed 's/^/   /' "$work/$operation.events"
    echo "---- $name $operation: hybrid-authenticator events (exit $authenticator_status)"
    sed 's/^/   /' "$work/$operation.authenticator"
    echo "CEREMONY-RESULT $name $operation BEGIN"
    cat "$work/$operation.json"
    echo
    echo "CEREMONY-RESULT $name $operation END"
    [ $client_status -eq 0 ] && [ $authenticator_status -eq 0 ]
}
