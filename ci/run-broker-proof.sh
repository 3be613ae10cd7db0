#!/usr/bin/env bash
# The security key's privilege split, proven in the blevm guest (ci/broker-in-vm.sh): the root
# hybrid-key-broker owning /dev/uhid, started as deploy/security-key's units start it (their
# ExecStart, capability bounding and ambient sets, NoNewPrivileges, UMask and socket, read from the
# unit files by ci/broker/guest-broker.sh: setpriv + systemd-socket-activate), a fake systemd-logind (python3-dbusmock's logind template)
# on a private system bus, and two unprivileged users whose hybrid-security-key agents ask the
# broker for a key. libfido2's tools (as the users) and our phone (hybrid-authenticator, simulated
# air, loopback relay) use the key; a user switch removes it. Fails loudly (never skips) when
# blevm is missing or the VM cannot start. Env: BLEVM_DIR (default Tools/blevm).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
blevm=${BLEVM_DIR:-Tools/blevm}
die() { echo "run-broker-proof: FAIL: $*" >&2; exit 1; }
[ -x "$blevm/blevm-run" ] || die "blevm not found at $blevm (set BLEVM_DIR)"
"$blevm/setup-host.sh" >/dev/null || die "blevm host setup failed"
"$blevm/build-image.sh" >/dev/null || die "blevm guest image could not be built"
for tool in fido2-token fido2-cred udevadm; do
    command -v "$tool" >/dev/null || die "$tool missing (scripts/setup.sh installs fido2-tools)"
done
. ci/broker/host-args.sh
broker_host_check

for product in hybrid-key-broker hybrid-security-key hybrid-authenticator tunnel-relay; do
    swift build --product "$product" >/dev/null || die "swift build --product $product failed"
done
bin="$(swift build --show-bin-path)"
work=$(mktemp -d "${TMPDIR:-/tmp}/broker-proof.XXXXXX")
trap 'rm -rf "$work"' EXIT
for program in hybrid-key-broker hybrid-security-key hybrid-authenticator tunnel-relay; do
    strip --strip-debug -o "$work/$program" "$bin/$program"
done

start=$EPOCHREALTIME
set +e
BLEVM_KARGS="${BLEVM_KARGS:+$BLEVM_KARGS }blevm.modules=uhid,hid_generic" \
    "$blevm/blevm-run" -m 2048 -t 900 "${broker_vm_args[@]}" \
    -b "$work/hybrid-key-broker" -b "$work/hybrid-security-key" -b "$work/hybrid-authenticator" -b "$work/tunnel-relay" \
    -b "$(command -v fido2-token)" -b "$(command -v fido2-cred)" \
    -f ci/ceremony-in-vm.sh -f ci/broker/probe.py -f ci/broker/acl.py -f scripts/forget-uhid-acl.sh \
    -f deploy/security-key/70-hybrid-security-key.rules -f deploy/security-key/71-hybrid-security-key-no-uaccess.rules \
    -S ci/broker-in-vm.sh >"$work/vm.log" 2>&1
rc=$?
set -e
cat "$work/vm.log"
echo "== whole VM run: $(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.1f", b-a}') s"
[ $rc -eq 124 ] && die "the guest timed out"
[ $rc -eq 125 ] && die "the blevm VM could not start; this is not a skip"
[ $rc -eq 0 ] || die "the broker proof failed in the guest (exit $rc)"
grep -q "broker-in-vm: PASS" "$work/vm.log" || die "the guest did not report PASS"
echo "run-broker-proof: PASS"
