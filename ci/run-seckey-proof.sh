#!/usr/bin/env bash
# The phone as a security key, proven in the blevm guest (see ci/seckey-in-vm.sh): libfido2's
# fido2-token/-cred/-assert and OpenSSH's ssh-keygen, as an ordinary user, use the key that
# hybrid-key-broker (started as its units start it, ci/broker/guest-broker.sh) made for that user's
# hybrid-security-key agent, whose requests our hybrid-authenticator answers over BLE (btvirt)
# and a loopback relay.
# Fails loudly (never skips) when blevm is missing or the VM cannot start. Prints the duration of
# each guest step (host clock) and the whole run.
# Env: BLEVM_DIR (default Tools/blevm), SECKEY_PROOF_TIMEOUT (default 1800 s),
#      SECKEY_PROOF_STORE=plaintext (the phone's store unencrypted: quicker, for local runs),
#      SECKEY_CEREMONY_TIMEOUT (seconds per phone ceremony, default 600).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
blevm=${BLEVM_DIR:-Tools/blevm}
die() { echo "run-seckey-proof: FAIL: $*" >&2; exit 1; }
[ -x "$blevm/blevm-run" ] || die "blevm not found at $blevm (set BLEVM_DIR)"
"$blevm/setup-host.sh" || die "blevm host setup failed"
"$blevm/build-image.sh" >/dev/null || die "blevm guest image could not be built"
for tool in fido2-token fido2-cred fido2-assert ssh-keygen /usr/lib/openssh/ssh-sk-helper; do
  command -v "$tool" >/dev/null || die "$tool missing (scripts/setup.sh installs fido2-tools and openssh-client)"
done
. ci/broker/host-args.sh
broker_host_check

for product in hybrid-key-broker hybrid-security-key hybrid-authenticator tunnel-relay; do
  swift build --product "$product" >/dev/null || die "swift build --product $product failed"
done
bin="$(swift build --show-bin-path)"
work=$(mktemp -d "${TMPDIR:-/tmp}/seckey-proof.XXXXXX")
trap 'rm -rf "$work"' EXIT
for program in hybrid-key-broker hybrid-security-key hybrid-authenticator tunnel-relay; do
  strip --strip-debug -o "$work/$program" "$bin/$program"
done

start=$EPOCHREALTIME
set +e
BLEVM_KARGS="${BLEVM_KARGS:+$BLEVM_KARGS }blevm.modules=uhid,hid_generic" \
  "$blevm/blevm-run" -v -m 2048 -t "${SECKEY_PROOF_TIMEOUT:-1800}" "${broker_vm_args[@]}" \
  -e "SECKEY_PROOF_STORE=${SECKEY_PROOF_STORE:-encrypted}" -e "SECKEY_CEREMONY_TIMEOUT=${SECKEY_CEREMONY_TIMEOUT:-600}" \
  -b "$work/hybrid-key-broker" -b "$work/hybrid-security-key" -b "$work/hybrid-authenticator" -b "$work/tunnel-relay" \
  -b "$(command -v fido2-token)" -b "$(command -v fido2-cred)" -b "$(command -v fido2-assert)" \
  -b "$(command -v ssh-keygen)" -b /usr/lib/openssh/ssh-sk-helper:/usr/lib/openssh/ssh-sk-helper \
  -f ci/ceremony-in-vm.sh -S ci/seckey-in-vm.sh 2>&1 |
  while IFS= read -r line; do
    printf '[+%6.1fs] %s\n' "$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN{print b-a}')" "$line"
  done | tee "$work/guest.log"
rc=${PIPESTATUS[0]}
set -e
echo "== guest steps (host clock; each since the previous mark)"
awk '/SECKEY-MARK /{ match($0, /^\[\+ *[0-9.]+/); t = substr($0, 3, RLENGTH - 2) + 0
  sub(/^\[[^]]*\] SECKEY-MARK /, ""); printf "   %6.1f s  %s\n", t - prev, $0; prev = t }' "$work/guest.log"
echo "== whole VM run: $(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.1f", b-a}') s"
[ $rc -eq 124 ] && die "the guest timed out"
[ $rc -eq 125 ] && die "the blevm VM could not start; this is not a skip"
[ $rc -eq 0 ] || die "the security-key proof failed in the guest (exit $rc)"
grep -q "seckey-in-vm: PASS" "$work/guest.log" || die "the guest did not report PASS"
echo "run-seckey-proof: PASS"
