# Guest half of the BLE proof: runs inside the blevm guest (busybox sh), started by
# ci/run-ble-proof.sh through `blevm-run -b <test bundle> -S ci/ble-in-vm.sh`.
#   1. raw HCI:    btvirt -l2 (hci0 + hci1 on one virtual air, no bluetoothd);
#                  HYBRID_BLE_PROOF=hci runs KernelHCITests.
#   2. ceremony over raw HCI: fresh btvirt; relay + hybrid-authenticator (hci0) + hybrid-client
#                  (hci1) register and sign in (ci/ceremony-in-vm.sh).
#   2b. l2cap:     fresh btvirt with the mgmt LE setting on and hci0 advertising connectable;
#                  HYBRID_BLE_PROOF=l2cap runs KernelL2CAPTests (a hybrid session over an LE
#                  credit-based L2CAP channel, CTAP 2.3, no relay).
#   3. bluetoothd: fresh btvirt, dbus-daemon and bluetoothd;
#                  HYBRID_BLE_PROOF=bluez runs KernelBlueZTests.
#   4. ceremony over bluetoothd: the same ceremony with --ble bluez on both ends.
#   2d. conformance-l2cap: hybrid-conformance client --channel l2cap judges hybrid-authenticator
#                  (client.l2cap.session passes) and a phone closing its PSM (it fails), no relay.
# Optional argument: the phases to run, from `hci ceremony-hci l2cap ceremony-l2cap conformance-l2cap bluez ceremony-bluez`
# (default: all), or `repeat-bluez-l2cap` (a flake hunt: BLE_PROOF_REPEAT runs, BLE_PROOF_LOAD).
# Prints a GUEST-MARK line after each step (run-ble-proof.sh turns the gaps between them into
# durations with host timestamps: the guest clock under TCG can jump while the kernel recalibrates
# its TSC) and the tests' TIMING lines; exits non-zero if either phase fails.
. /usr/bin/blevm-lib.sh

bundle=/usr/local/bin/${HYBRID_TEST_BUNDLE:-swift-hybrid-transportPackageTests.xctest}
[ -x "$bundle" ] || { echo "ble-in-vm: FAIL: test bundle $bundle missing" >&2; exit 1; }
. /blevm/work/ceremony-in-vm.sh

mark() { echo "GUEST-MARK $1 (guest uptime $(cut -d' ' -f1 /proc/uptime) s)"; }
fail() { echo "ble-in-vm: FAIL: $*" >&2; [ -f /tmp/btvirt.log ] && cat /tmp/btvirt.log >&2; exit 1; }

mark "guest userspace ready"
phases=${*:-hci ceremony-hci l2cap ceremony-l2cap conformance-l2cap bluez ceremony-bluez}
rc_hci=0 rc_bluez=0 rc_ceremony_hci=0 rc_ceremony_bluez=0 rc_l2cap=0 rc_ceremony_l2cap=0 rc_conformance_l2cap=0

# air_recorded NAME COMMAND...: COMMAND with btmon recording every controller's traffic; when it
# fails, the tail of the decoded record follows (did the SDU cross the air, who stopped?).
air_recorded() {
    ar_name=$1
    shift
    btmon -w "/tmp/air-$ar_name.snoop" >/dev/null 2>&1 &
    ar_monitor=$!
    "$@"
    ar_status=$?
    kill $ar_monitor 2>/dev/null
    wait $ar_monitor 2>/dev/null
    if [ $ar_status -ne 0 ]; then
        echo "---- $ar_name: btmon record (last 300 lines)"
        btmon -r "/tmp/air-$ar_name.snoop" 2>&1 | tail -n 300
    fi
    rm -f "/tmp/air-$ar_name.snoop"
    return $ar_status
}

# Fresh btvirt (hci0 + hci1) with both controllers up, no daemons.
fresh_air() {
    blevm_btvirt_stop 2>/dev/null
    blevm_btvirt 2 || fail "btvirt did not create hci0 and hci1"
    blevm_up hci0 hci1 || fail "hci0/hci1 did not come up"
}

# btvirt plus dbus-daemon and bluetoothd, started once per VM and then kept for later phases.
bluez_stack() {
    [ -n "$bluez_started" ] && return 0
    fresh_air
    mark "btvirt restart + hciconfig up"
    blevm_dbus || fail "dbus-daemon did not start"
    mark "dbus-daemon"
    # EATT off (one ATT channel) unless BLE_PROOF_EATT=1. Linux 6.1 matches an LE Connection
    # Response to a channel by its ident alone (__l2cap_get_chan_by_ident), and a channel accepted
    # from the peer keeps the ident of the peer's request: when a side accepts our channel (ident 1
    # of the client) and its bluetoothd then opens EATT with its own ident 1, the response for EATT
    # can rebind our channel's destination CID to the peer's EATT channel. btmon shows it (phone's
    # msg2 sent to the client's EATT CID, answered by bluetoothd as a bad ATT PDU; a Disconnection
    # Response whose CIDs do not match the request): the bluez-l2cap flake, 2 of 3 under load with
    # EATT on. docs/bluetooth.md, "EATT and the L2CAP channel on Linux 6.1".
    eatt_config=
    if [ -z "${BLE_PROOF_EATT:-}" ]; then
        eatt_config=/tmp/bluetoothd-main.conf
        printf '[GATT]\nChannels = 1\n' >"$eatt_config"
    fi
    blevm_bluetoothd ${eatt_config:+-f "$eatt_config"} || fail "bluetoothd did not start"
    mark "bluetoothd owns org.bluez${BLE_PROOF_EATT:+ (EATT on)}"
    bluez_started=1
    # Our D-Bus code must honour DBUS_SYSTEM_BUS_ADDRESS; point it at the guest's bus explicitly.
    export DBUS_SYSTEM_BUS_ADDRESS=unix:path=/run/dbus/system_bus_socket
}
bluez_started=

# ---- phase 1: raw HCI ----------------------------------------------------------------------
case " $phases " in *" hci "*)
fresh_air
mark "btvirt + hciconfig up"
HYBRID_BLE_PROOF=hci "$bundle" --testing-library swift-testing --filter KernelHCITests
rc_hci=$?
mark "raw HCI tests"
;; esac

# ---- phase 2: full ceremony over raw HCI ------------------------------------------------------
case " $phases " in *" ceremony-hci "*)
fresh_air
mark "btvirt restart + hciconfig up"
ceremony_run hci
rc_ceremony_hci=$?
;; esac

# Fresh btvirt with the mgmt LE setting on for both controllers: the kernel opens LE L2CAP
# channels only then (else ECONNREFUSED at once); mgmt may answer "Invalid Index" for a moment
# after btvirt starts.
fresh_air_le() {
    fresh_air
    i=0; until blevm_nostdin btmgmt --index 0 info 2>&1 | grep -q 'current settings'; do
        i=$((i + 1)); [ $i -gt 50 ] && fail "mgmt does not know hci0"; sleep 0.1
    done
    for index in 0 1; do blevm_nostdin btmgmt --index $index le on >/dev/null || fail "btmgmt le on (hci$index)"; done
}

# ---- phase 2b: CTAP 2.3 data channel over an LE L2CAP channel ----------------------------------
case " $phases " in *" l2cap "*)
fresh_air_le
blevm_nostdin btmgmt --index 0 connectable on >/dev/null && blevm_nostdin btmgmt --index 0 advertising on >/dev/null ||
    fail "hci0 did not start connectable advertising"
mark "btvirt + mgmt LE on + hci0 connectable"
HYBRID_BLE_PROOF=l2cap "$bundle" --testing-library swift-testing --filter KernelL2CAPTests
rc_l2cap=$?
mark "L2CAP channel tests"
;; esac

# ---- phase 2c: the whole ceremony over L2CAP with no relay, then the fallback -------------------
# Our phone listens on a PSM and advertises it connectable through raw HCI (CTAP 2.3); the
# client connects from the advert. No relay runs: neither side can open a tunnel.
case " $phases " in *" ceremony-l2cap "*)
fresh_air_le
mark "btvirt + mgmt LE on"
CEREMONY_CLIENT_ARGS="--channel l2cap" air_recorded l2cap ceremony_run_without_relay l2cap
rc_ceremony_l2cap=$?
# Fallback: a relay runs, and hybrid-conformance's phone advertises a PSM it closed at once
# (--fault closed-l2cap-psm): the client (--channel auto) must give up on L2CAP within
# --l2cap-timeout and register over the tunnel. The phone's store is in memory: create only.
if [ $rc_ceremony_l2cap -eq 0 ]; then
    CEREMONY_CLIENT_ARGS="--channel auto --l2cap-timeout 4" CEREMONY_PHONE_FAULT=closed-l2cap-psm \
        CEREMONY_OPERATIONS=create ceremony_run fallback
    rc_ceremony_l2cap=$?
    events=/tmp/ceremony-fallback/create.events
    grep -q '"event":"connectingL2CAP"' $events && grep -q '"event":"channel","channel":"tunnel"' $events || {
        echo "ble-in-vm: FAIL: the fallback client did not try L2CAP first, then the tunnel" >&2
        rc_ceremony_l2cap=1
    }
fi
;; esac

# ---- phase 2d: hybrid-conformance client judges a phone over the kernel's L2CAP channels -------
# The judge's client insists on L2CAP (--channel l2cap) and no relay runs. Against
# hybrid-authenticator (one process per QR code, one store) every check must pass and
# client.l2cap.session must name the sessions it saw on the channel; against hybrid-conformance's
# own phone that advertises a PSM it closed at once (--fault closed-l2cap-psm), that check must fail.
# conformance_l2cap NAME PHONE-KIND: PHONE-KIND is `ours` (no relay: only L2CAP can carry the
# sessions) or `closed-psm` (a relay runs, so that the faulty phone gets a tunnel and advertises);
# the report is /tmp/conformance-NAME/report.txt, the judge's exit status .../status.
conformance_l2cap() {
    cl_work=/tmp/conformance-$1
    rm -rf "$cl_work" && mkdir -p "$cl_work"
    cl_port=1 cl_relay= cl_phones=
    if [ "$2" = closed-psm ]; then
        /usr/local/bin/tunnel-relay --host 127.0.0.1 --port 0 >"$cl_work/relay.out" 2>"$cl_work/relay.err" &
        cl_relay=$!
        cl_port=$(ceremony_wait_line "$cl_work/relay.out" 's/.*listening on [0-9.]*:\([0-9][0-9]*\).*/\1/p') || {
            echo "conformance-l2cap: tunnel-relay did not start" >&2; kill $cl_relay; echo 1 >"$cl_work/status"; return
        }
    fi
    {
        /usr/local/bin/hybrid-conformance client --ble hci --adapter hci1 --channel l2cap \
            --tunnel-url "ws://127.0.0.1:$cl_port" --timeout 60 --refusal-wait 5 --json-events \
            --events-file "$cl_work/events" >"$cl_work/report.txt"
        echo $? >"$cl_work/status"
    } 2>"$cl_work/client.err" &
    cl_judge=$!
    cl_count=0
    # One phone per QR code, as a camera would read each, until the judge ends (its --timeout
    # bounds each ceremony).
    while [ ! -f "$cl_work/status" ]; do
        cl_qr=$(sed -n 's/.*"url":"\(FIDO:\\\{0,1\}\/[0-9]*\)".*/\1/p' "$cl_work/events" 2>/dev/null |
            sed -n "$((cl_count + 1))p" | tr -d '\\')
        if [ -z "$cl_qr" ]; then sleep 0.1; continue; fi
        cl_count=$((cl_count + 1))
        if [ "$2" = closed-psm ]; then
            printf '%s\n' "$cl_qr" | /usr/local/bin/hybrid-conformance phone - --tunnel-url "ws://127.0.0.1:$cl_port" \
                --ble hci --adapter hci0 --fault closed-l2cap-psm >"$cl_work/phone-$cl_count.out" 2>&1 &
        else
            printf '%s\n' "$cl_qr" | HYBRID_AUTHENTICATOR_PASSPHRASE="conformance-$1" HYBRID_ALLOW_INSECURE_FAST_KDF=1 \
                /usr/local/bin/hybrid-authenticator - --tunnel-url "ws://127.0.0.1:$cl_port" --ble hci --adapter hci0 \
                --yes --json --insecure-fast-store-kdf --store "$cl_work/passkeys.json" >"$cl_work/phone-$cl_count.out" 2>&1 &
        fi
        cl_phones="$cl_phones $!"
    done
    wait $cl_judge
    # The judge is done with every phone: any still waiting (the faulty one for a tunnel client) ends.
    [ -n "$cl_phones" ] && { kill $cl_phones 2>/dev/null; wait $cl_phones 2>/dev/null; }
    [ -n "$cl_relay" ] && { kill $cl_relay 2>/dev/null; wait $cl_relay 2>/dev/null; }
    echo "conformance-l2cap $1: $cl_count QR codes, judge exit $(cat "$cl_work/status")"
    grep -A1 "client.l2cap.session" "$cl_work/report.txt"
    tail -n 1 "$cl_work/report.txt"
}

case " $phases " in *" conformance-l2cap "*)
fresh_air_le
mark "btvirt + mgmt LE on"
conformance_l2cap ours ours
if [ "$(cat /tmp/conformance-ours/status)" != 0 ] ||
    ! grep -A1 "^PASS client.l2cap.session" /tmp/conformance-ours/report.txt |
        grep -q "makeCredential over PSM.*getAssertion over PSM"; then
    echo "ble-in-vm: FAIL: hybrid-conformance client over L2CAP did not pass hybrid-authenticator" >&2
    cat /tmp/conformance-ours/report.txt /tmp/conformance-ours/client.err /tmp/conformance-ours/phone-*.out >&2
    rc_conformance_l2cap=1
fi
mark "hybrid-conformance client over L2CAP: hybrid-authenticator"
conformance_l2cap closed-psm closed-psm
if [ "$(cat /tmp/conformance-closed-psm/status)" = 0 ] ||
    ! grep -q "^FAIL client.l2cap.session" /tmp/conformance-closed-psm/report.txt; then
    echo "ble-in-vm: FAIL: a phone that closes its advertised PSM did not fail client.l2cap.session" >&2
    cat /tmp/conformance-closed-psm/report.txt /tmp/conformance-closed-psm/client.err /tmp/conformance-closed-psm/phone-*.out >&2
    rc_conformance_l2cap=1
fi
mark "hybrid-conformance client over L2CAP: a phone that closes its PSM"
;; esac

# ---- phase 3: bluetoothd over D-Bus --------------------------------------------------------
case " $phases " in *" bluez "*)
bluez_stack
HYBRID_BLE_PROOF=bluez "$bundle" --testing-library swift-testing --filter KernelBlueZTests
rc_bluez=$?
mark "bluetoothd D-Bus tests"
[ $rc_bluez -eq 0 ] || { echo "---- bluetoothd log" >&2; cat /tmp/bluetoothd.log >&2; }
;; esac

# ---- phase 4: full ceremony over bluetoothd ---------------------------------------------------
case " $phases " in *" ceremony-bluez "*)
bluez_stack
CEREMONY_CLIENT_ARGS="--channel tunnel" ceremony_run bluez
rc_ceremony_bluez=$?
# Then over L2CAP with no relay: bluetoothd places the phone's "peripheral" advert with the
# suffix, and the kernel carries the channel as with raw HCI.
if [ $rc_ceremony_bluez -eq 0 ]; then
    CEREMONY_CLIENT_ARGS="--channel l2cap" air_recorded bluez-l2cap ceremony_run_without_relay bluez-l2cap
    rc_ceremony_bluez=$?
fi
[ $rc_ceremony_bluez -eq 0 ] || { echo "---- bluetoothd log" >&2; cat /tmp/bluetoothd.log >&2; }
;; esac
# ---- repeat-bluez-l2cap: the bluetoothd L2CAP ceremony BLE_PROOF_REPEAT times (not in CI) ---
# For a flake hunt: each run's air is recorded by btmon; a failing run prints its events, the
# tail of its decoded trace and bluetoothd's log. BLE_PROOF_LOAD=1 adds a busy loop per core;
# BLE_PROOF_REPEAT_AS_CI=1 runs the tunnel ceremony before each, as the proof does.
rc_repeat=0
case " $phases " in *" repeat-bluez-l2cap "*)
bluez_stack
hogs=
if [ -n "${BLE_PROOF_LOAD:-}" ]; then
    for core in $(grep '^processor' /proc/cpuinfo | cut -d: -f2); do (while :; do :; done) & hogs="$hogs $!"; done
fi
passed=0 failed=0 run=1
while [ $run -le "${BLE_PROOF_REPEAT:-50}" ]; do
    btmon -w /tmp/repeat.snoop >/dev/null 2>&1 &
    monitor=$!
    # BLE_PROOF_REPEAT_AS_CI=1: each L2CAP ceremony after a tunnel ceremony on the same bluetoothd,
    # in the order the proof runs them.
    if { [ -z "${BLE_PROOF_REPEAT_AS_CI:-}" ] || CEREMONY_CLIENT_ARGS="--channel tunnel" ceremony_run bluez; } >/tmp/repeat.out 2>&1 &&
        CEREMONY_CLIENT_ARGS="--channel l2cap --verbose" CEREMONY_PHONE_ARGS="--log-level debug" \
            ceremony_run_without_relay bluez-l2cap >>/tmp/repeat.out 2>&1; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "---- repeat $run FAILED: ceremony output"
        cat /tmp/repeat.out
        echo "---- repeat $run: btmon trace (last 400 lines)"
        kill $monitor 2>/dev/null; wait $monitor 2>/dev/null; monitor=
        btmon -r /tmp/repeat.snoop 2>&1 | tail -n 400
        echo "---- repeat $run: every L2CAP signalling packet of the run (connections, credits, CIDs)"
        btmon -r /tmp/repeat.snoop 2>&1 | awk '/^[<>@] /{ keep = 0; header = $0 } / LE L2CAP: /{ keep = 1; print header }
            keep' | grep -v "Flow Control Credit" | tail -n 300
        echo "---- repeat $run: bluetoothd log (last 100 lines)"
        tail -n 100 /tmp/bluetoothd.log
    fi
    [ -n "$monitor" ] && { kill $monitor 2>/dev/null; wait $monitor 2>/dev/null; }
    grep -h CEREMONY-TIME /tmp/repeat.out | sed "s/^/repeat $run: /"
    mark "repeat $run: $passed passed, $failed failed"
    run=$((run + 1))
done
[ -n "$hogs" ] && kill $hogs 2>/dev/null
echo "REPEAT-RESULT bluez-l2cap: $passed of $((passed + failed)) passed${BLE_PROOF_LOAD:+ (a busy loop on every core)}"
[ $failed -eq 0 ] || rc_repeat=1
;; esac

[ -n "${BLE_PROOF_VERBOSE:-}" ] && [ -f /tmp/bluetoothd.log ] && { echo "---- bluetoothd log"; cat /tmp/bluetoothd.log; }

echo "ble-in-vm: raw HCI exit $rc_hci, ceremony over HCI exit $rc_ceremony_hci, L2CAP exit $rc_l2cap," \
    "ceremony over L2CAP exit $rc_ceremony_l2cap, hybrid-conformance over L2CAP exit $rc_conformance_l2cap," \
    "bluetoothd exit $rc_bluez," \
    "ceremony over bluetoothd exit $rc_ceremony_bluez"
[ $rc_hci -eq 0 ] && [ $rc_ceremony_hci -eq 0 ] && [ $rc_l2cap -eq 0 ] && [ $rc_ceremony_l2cap -eq 0 ] &&
    [ $rc_conformance_l2cap -eq 0 ] &&
    [ $rc_bluez -eq 0 ] && [ $rc_ceremony_bluez -eq 0 ] && [ $rc_repeat -eq 0 ]
