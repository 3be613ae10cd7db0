#!/usr/bin/env bash
# Host side of the BLE proof on the real Linux Bluetooth stack. This machine's kernel has no
# Bluetooth, so the test bundle and the three programs run inside blevm (qemu + Debian's kernel +
# btvirt; see Tools/blevm/README.md) with ci/ble-in-vm.sh as the guest script:
#   raw HCI:  our HCIAdvertiser on hci0 -> our HCIScanner on hci1 (legacy, extended, automatic);
#   ceremony: tunnel-relay on the guest's loopback, hybrid-authenticator --ble hci --adapter hci0 and
#             hybrid-client --ble hci --adapter hci1 register a passkey and sign in with it;
#   L2CAP:    a hybrid session (handshake, request, response) over an LE L2CAP channel hci1 -> hci0,
#             the PSM taken from the advert suffix (CTAP 2.3), no relay;
#   ceremony: hybrid-authenticator listens on a PSM and advertises it connectable through raw HCI,
#             hybrid-client --channel l2cap connects from the advert: the whole ceremony with no
#             relay running at all;
#   D-Bus:    our BlueZDBusAdvertiser on hci0 -> our BlueZDBusScanner on hci1 through bluetoothd;
#   ceremony: the same ceremony with --ble bluez on both ends, over the tunnel, then over L2CAP
#             with no relay (bluetoothd places the phone's connectable advert).
# The eight client results are then verified here by py_webauthn (Tests/Interop/verify_webauthn.py).
# Fails loudly (never skips) when blevm is missing or the VM cannot start. Arguments: guest phases
# to run (hci, ceremony-hci, l2cap, ceremony-l2cap, conformance-l2cap, bluez, ceremony-bluez, repeat-bluez-l2cap;
# default all, the repetition shortened to 3 runs).
# Env: BLEVM_DIR (default Tools/blevm), BLE_PROOF_TIMEOUT (default 900 s),
#      BLE_PROOF_VERBOSE=1 (print bluetoothd's log from the guest); for the phase
#      repeat-bluez-l2cap: BLE_PROOF_REPEAT (runs, default 50; 3 in the default run), BLE_PROOF_LOAD=1 (busy loops),
#      BLE_PROOF_REPEAT_AS_CI=1 (each after a tunnel ceremony, as the proof runs them);
#      BLE_PROOF_EATT=1: bluetoothd with EATT on (its default; off otherwise, see ci/ble-in-vm.sh).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
blevm=${BLEVM_DIR:-Tools/blevm}
die() { echo "run-ble-proof: FAIL: $*" >&2; exit 1; }
ts() { date +%s.%N; }
el() { awk -v a="$1" -v b="$(ts)" 'BEGIN{printf "%.1f", b-a}'; }

[ -x "$blevm/blevm-run" ] || die "blevm not found at $blevm (set BLEVM_DIR)"

t=$(ts)
"$blevm/setup-host.sh" || die "blevm host setup failed"
"$blevm/build-image.sh" >/dev/null || die "blevm guest image could not be built"
echo "== blevm setup + image: $(el "$t") s"

t=$(ts)
swift build --build-tests || die "swift build --build-tests failed"
echo "== swift build --build-tests: $(el "$t") s"
bin="$(swift build --show-bin-path)"
bundle="$bin/swift-hybrid-transportPackageTests.xctest"
[ -x "$bundle" ] || die "test bundle $bundle not found"
for program in tunnel-relay hybrid-authenticator hybrid-client hybrid-conformance; do
  [ -x "$bin/$program" ] || die "$bin/$program not found"
done

work=$(mktemp -d "${TMPDIR:-/tmp}/ble-proof.XXXXXX")
trap 'rm -rf "$work"' EXIT
log="$work/guest.log"
# Debug builds without their debug info: the guest's initramfs holds every byte in memory.
mkdir -p "$work/bin"
for program in swift-hybrid-transportPackageTests.xctest tunnel-relay hybrid-authenticator hybrid-client \
  hybrid-conformance; do
  strip --strip-debug -o "$work/bin/$program" "$bin/$program"
done

# WebAuthn requests as a relying party would send them, one fresh challenge per ceremony.
origin=https://example.com rp_id=example.com
mkdir -p "$work/ceremony"
random_b64url() { python3 -c 'import base64,os; print(base64.urlsafe_b64encode(os.urandom(32)).rstrip(b"=").decode())'; }
for backend in hci l2cap fallback bluez bluez-l2cap; do
  random_b64url >"$work/ceremony/$backend-create.challenge"
  random_b64url >"$work/ceremony/$backend-get.challenge"
  cat >"$work/ceremony/$backend-create-options.json" <<JSON
{"rp": {"id": "$rp_id", "name": "Example"},
 "user": {"id": "$(random_b64url)", "name": "alice@example.com", "displayName": "Alice"},
 "challenge": "$(cat "$work/ceremony/$backend-create.challenge")",
 "pubKeyCredParams": [{"type": "public-key", "alg": -7}],
 "authenticatorSelection": {"residentKey": "required", "userVerification": "preferred"},
 "attestation": "none"}
JSON
  cat >"$work/ceremony/$backend-get-options.json" <<JSON
{"challenge": "$(cat "$work/ceremony/$backend-get.challenge")", "rpId": "$rp_id", "userVerification": "preferred"}
JSON
done

# The default run: every phase, and the bluetoothd L2CAP ceremony three times more (the flake it
# had is in docs/bluetooth.md, "EATT and the L2CAP channel on Linux 6.1").
if [ $# -eq 0 ]; then
  set -- hci ceremony-hci l2cap ceremony-l2cap conformance-l2cap bluez ceremony-bluez repeat-bluez-l2cap
  BLE_PROOF_REPEAT=${BLE_PROOF_REPEAT:-3}
fi
extra=()
[ -n "${BLE_PROOF_VERBOSE:-}" ] && extra=(-e BLE_PROOF_VERBOSE=1)
[ -n "${BLE_PROOF_REPEAT:-}" ] && extra+=(-e "BLE_PROOF_REPEAT=$BLE_PROOF_REPEAT")
[ -n "${BLE_PROOF_LOAD:-}" ] && extra+=(-e BLE_PROOF_LOAD=1)
[ -n "${BLE_PROOF_REPEAT_AS_CI:-}" ] && extra+=(-e BLE_PROOF_REPEAT_AS_CI=1)
[ -n "${BLE_PROOF_EATT:-}" ] && extra+=(-e BLE_PROOF_EATT=1)
start=$EPOCHREALTIME
set +e
# Every guest line gets the host's elapsed time since the VM was started.
"$blevm/blevm-run" -v -m 2048 -t "${BLE_PROOF_TIMEOUT:-900}" ${extra[@]+"${extra[@]}"} \
  -b "$work/bin/swift-hybrid-transportPackageTests.xctest" -b "$work/bin/tunnel-relay" \
  -b "$work/bin/hybrid-authenticator" -b "$work/bin/hybrid-client" -b "$work/bin/hybrid-conformance" \
  -f ci/ceremony-in-vm.sh -f "$work/ceremony" -S ci/ble-in-vm.sh -- "$@" 2>&1 |
  while IFS= read -r line; do
    printf '[+%6.1fs] %s\n' "$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN{print b-a}')" "$line"
  done | tee "$log"
rc=${PIPESTATUS[0]}
set -e

echo "== guest timings (host clock; each step since the previous mark, from VM start for the first)"
awk '/GUEST-MARK /{ match($0, /^\[\+ *[0-9.]+/); t = substr($0, 3, RLENGTH - 2) + 0
  sub(/^\[[^]]*\] GUEST-MARK /, ""); printf "   %6.1f s  %s\n", t - prev, $0; prev = t }' "$log"
echo "== ceremony wall times (hybrid-client start to exit, guest clock; hci and bluez over the tunnel, l2cap without)"
grep -E '\] CEREMONY-TIME ' "$log" | sed 's/^\[[^]]*\] CEREMONY-TIME /   /' || true
echo "== inside the tests (guest monotonic clock)"
grep -E '\] (TIMING|blevm-run:)' "$log" | sed 's/^\[[^]]*\] /   /' || true
[ $rc -eq 124 ] && die "the guest timed out after ${BLE_PROOF_TIMEOUT:-900} s"
[ $rc -eq 125 ] && die "the blevm VM could not start (see the console tail above); this is not a skip"
[ $rc -eq 0 ] || die "BLE proof failed in the guest (exit $rc)"

# py_webauthn, as the relying party, verifies what the client printed for each ceremony.
# ceremony_result BACKEND OPERATION: the client's stdout between the guest's marker lines.
ceremony_result() {
  awk -v begin="CEREMONY-RESULT $1 $2 BEGIN" -v end="CEREMONY-RESULT $1 $2 END" '
    { sub(/^\[[^]]*\] /, "") } $0 == end { inside = 0 } inside { print } $0 == begin { inside = 1 }' "$log"
}
verified=0
phases=" $* "
for backend in hci l2cap bluez bluez-l2cap; do
  case $phases in *" ceremony-${backend%-l2cap} "*) ;; *) continue;; esac
  ceremony_result "$backend" create >"$work/$backend-create.json"
  ceremony_result "$backend" get >"$work/$backend-get.json"
  [ -s "$work/$backend-create.json" ] || die "no registration result from the $backend ceremony"
  [ -s "$work/$backend-get.json" ] || die "no authentication result from the $backend ceremony"
  python3 Tests/Interop/verify_webauthn.py register --response "$work/$backend-create.json" \
    --challenge="$(cat "$work/ceremony/$backend-create.challenge")" --origin "$origin" --rp-id "$rp_id" \
    --credential-out "$work/$backend-credential.json" >/dev/null ||
    die "py_webauthn rejected the registration from the $backend ceremony"
  python3 Tests/Interop/verify_webauthn.py authenticate --response "$work/$backend-get.json" \
    --challenge="$(cat "$work/ceremony/$backend-get.challenge")" --origin "$origin" --rp-id "$rp_id" \
    --credential "$work/$backend-credential.json" >/dev/null ||
    die "py_webauthn rejected the authentication from the $backend ceremony"
  echo "== py_webauthn verified the $backend ceremony (registration, then authentication with that passkey)"
  verified=$((verified + 1))
done
# The fallback ceremony (phase ceremony-l2cap): a registration only.
case $phases in *" ceremony-l2cap "*)
  ceremony_result fallback create >"$work/fallback-create.json"
  [ -s "$work/fallback-create.json" ] || die "no registration result from the fallback ceremony"
  python3 Tests/Interop/verify_webauthn.py register --response "$work/fallback-create.json" \
    --challenge="$(cat "$work/ceremony/fallback-create.challenge")" --origin "$origin" --rp-id "$rp_id" \
    --credential-out "$work/fallback-credential.json" >/dev/null ||
    die "py_webauthn rejected the registration from the fallback ceremony"
  echo "== py_webauthn verified the fallback ceremony (registration over the tunnel after the closed PSM)"
  verified=$((verified + 1))
  ;;
esac
echo "run-ble-proof: PASS (guest phases: ${*:-hci ceremony-hci l2cap ceremony-l2cap bluez ceremony-bluez}; $verified ceremonies verified by py_webauthn)"
