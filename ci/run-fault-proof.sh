#!/usr/bin/env bash
# The phone as a security key through the faults of daily use, proven in the blevm guest (see
# ci/faults-in-vm.sh): the phone killed after the handshake, the relay restarted mid-ceremony,
# the Bluetooth adapter powered off (and rfkill'd) while the key waits, hybrid-client and
# hybrid-authenticator losing their adapter, two callers at once, the key SIGKILLed and
# restarted, and FAULTS_LONG_USE sign-ins in a row with the key's RSS, fds and threads. The key is
# uid 1001's agent, its device made and handed over by hybrid-key-broker started as its units
# start it (ci/broker/guest-broker.sh, a fake logind); libfido2's fido2-cred / fido2-assert as
# uid 1001 are the callers, our hybrid-authenticator the phone over kernel BLE (btvirt) and a
# loopback relay. Prints each FAULT-TIME (fault -> caller's error, fault -> next
# success). Fails loudly (never skips) when blevm is missing or the VM cannot start.
# Env: BLEVM_DIR (default Tools/blevm), FAULTS_LONG_USE (sign-ins in a row, default 20),
#      FAULT_PROOF_TIMEOUT (default 1800 s).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
blevm=${BLEVM_DIR:-Tools/blevm}
die() { echo "run-fault-proof: FAIL: $*" >&2; exit 1; }
[ -x "$blevm/blevm-run" ] || die "blevm not found at $blevm (set BLEVM_DIR)"
"$blevm/setup-host.sh" >/dev/null || die "blevm host setup failed"
"$blevm/build-image.sh" >/dev/null || die "blevm guest image could not be built"
for tool in fido2-cred fido2-assert; do
    command -v "$tool" >/dev/null || die "$tool missing (scripts/setup.sh installs fido2-tools)"
done
busybox sh ci/tests/guest-wait-test.sh || die "the guest's wait helpers (ci/guest-wait.sh) fail their test"
. ci/broker/host-args.sh
broker_host_check

programs="hybrid-key-broker hybrid-security-key hybrid-authenticator hybrid-client tunnel-relay"
for product in $programs; do
    swift build --product "$product" >/dev/null || die "swift build --product $product failed"
done
bin="$(swift build --show-bin-path)"
work=$(mktemp -d "${TMPDIR:-/tmp}/fault-proof.XXXXXX")
trap 'rm -rf "$work"' EXIT
binaries=()
for program in $programs; do
    strip --strip-debug -o "$work/$program" "$bin/$program"
    binaries+=(-b "$work/$program")
done

start=$EPOCHREALTIME
set +e
BLEVM_KARGS="${BLEVM_KARGS:+$BLEVM_KARGS }blevm.modules=uhid,hid_generic" \
    "$blevm/blevm-run" -m 2048 -t "${FAULT_PROOF_TIMEOUT:-1800}" -e "FAULTS_LONG_USE=${FAULTS_LONG_USE:-20}" \
    "${broker_vm_args[@]}" "${binaries[@]}" -b "$(command -v fido2-cred)" -b "$(command -v fido2-assert)" \
    -f ci/ceremony-in-vm.sh -f ci/guest-wait.sh -S ci/faults-in-vm.sh >"$work/vm.log" 2>&1
rc=$?
set -e
cat "$work/vm.log"
echo "== fault timings (guest clock)"
grep "^FAULT-TIME " "$work/vm.log" | sed 's/^FAULT-TIME /   /' || true
echo "== whole VM run: $(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.1f", b-a}') s"
[ $rc -eq 124 ] && die "the guest timed out"
[ $rc -eq 125 ] && die "the blevm VM could not start; this is not a skip"
[ $rc -eq 0 ] || die "the fault proof failed in the guest (exit $rc)"
grep -q "faults-in-vm: PASS" "$work/vm.log" || die "the guest did not report PASS"
echo "run-fault-proof: PASS"
