#!/usr/bin/env bash
# The security key as the .deb installs it, run by systemd as the blevm guest's PID 1: the units,
# their sandbox and capabilities as users get them, not a proof's copy of them. The guest boots Debian's kernel, builds a root of the host's /usr, /etc and
# /var/lib/dpkg under writable overlays (ci/systemd/root-in-vm.sh) and switches to it with systemd
# as PID 1 (Tools/blevm/guest/init); there blevm-proof.service runs ci/systemd/systemd-proof-in-vm.sh:
# systemd-udevd, `dpkg -i` of the .deb (its postinst enables and starts hybrid-key-broker.socket and
# enables the user unit globally), Debian's dbus.service and systemd-logind, alice (uid 1001)
# logging in on tty1 through PAM (logind starts user@1001.service), her graphical session starting
# the .deb's hybrid-security-key.service, the broker started by its socket with its whole sandbox,
# her hidraw node (hers alone) answering libfido2's getInfo as her, the broker's capabilities,
# NoNewPrivs, seccomp and read-only /usr as the kernel reports them; then bob logging in on tty2,
# refused a key in the background, and `loginctl activate` switching the seat to him: alice's key
# goes, bob gets his own.
# Usage: ci/run-systemd-proof.sh DEB. Prints "run-systemd-proof: PASS". About 2 minutes (TCG).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
die() { echo "run-systemd-proof: FAIL: $*" >&2; exit 1; }
deb=${1:?usage: ci/run-systemd-proof.sh DEB}
[ -f "$deb" ] || die "no .deb at $deb"
[ -x /usr/lib/systemd/systemd ] && [ -x /usr/lib/systemd/systemd-udevd ] || die "the host has no systemd/udev to lend the guest (scripts/setup.sh)"
command -v fido2-token >/dev/null || die "fido2-token missing (scripts/setup.sh: fido2-tools)"
blevm=${BLEVM_DIR:-Tools/blevm}
"$blevm/setup-host.sh" >/dev/null || die "blevm host setup failed"
"$blevm/build-image.sh" >/dev/null || die "blevm guest image could not be built"
work=$(mktemp -d "${TMPDIR:-/tmp}/systemd-proof.XXXXXX")
trap 'rm -rf "$work"' EXIT
start=$EPOCHREALTIME
status=0
BLEVM_KARGS="${BLEVM_KARGS:+$BLEVM_KARGS }blevm.modules=uhid,hid_generic,overlay" \
    "$blevm/blevm-run" -m 1024 -t 400 -l "$work/console.log" \
    -s /usr:/host/usr:ro -s /etc:/host/etc:ro -s /var/lib/dpkg:/host/var/lib/dpkg:ro -f "$deb" \
    -f ci/systemd/blevm-proof.service -f ci/systemd/systemd-proof-in-vm.sh -f ci/systemd/desktop-proof.target \
    -f ci/guest-wait.sh \
    -S ci/systemd/root-in-vm.sh >"$work/vm.log" 2>&1 || status=$?
grep -E '^(systemd-root|SYSTEMD-MARK|systemd-proof)' "$work/vm.log" | sed 's/^/   /'
if [ "$status" != 0 ] || ! grep -q '^systemd-proof: PASS' "$work/vm.log"; then
    echo "---- the guest's output" >&2
    cat "$work/vm.log" >&2
    echo "---- the guest's console (last 40 lines)" >&2
    tail -n 40 "$work/console.log" >&2
    die "the guest exited $status"
fi
echo "run-systemd-proof: PASS (VM $(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.1f", b-a}') s)"
