#!/usr/bin/env bash
# No report lost under load, proven in the blevm guest (ci/uhid-load-in-vm.sh): uhid queues 31
# reports and silently drops the rest when its reader is late, and python-fido2 writes every report
# of a request without waiting. ci/uhid-load/long_request.py signs in LOAD_REQUESTS (default 20)
# times with 66 random 64-byte credential IDs through python-fido2's Fido2Client, which probes
# them in chunks of the key's maxCredentialCountInList (20: each chunk fits in uhid's queue), with
# a busy loop on every guest core and no retry: every sign-in must reach the key whole.
# BEFORE_DIR (optional): older hybrid-security-key binaries measured in the same run, for a
# before/after (their failures are reported, not fatal). Fails loudly when blevm is missing.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
blevm=${BLEVM_DIR:-Tools/blevm}
die() { echo "run-uhid-load-proof: FAIL: $*" >&2; exit 1; }
[ -x "$blevm/blevm-run" ] || die "blevm not found at $blevm (set BLEVM_DIR)"
"$blevm/setup-host.sh" >/dev/null || die "blevm host setup failed"
"$blevm/build-image.sh" >/dev/null || die "blevm guest image could not be built"
swift build --product hybrid-security-key >/dev/null || die "swift build failed"
bin="$(swift build --show-bin-path)"
work=$(mktemp -d "${TMPDIR:-/tmp}/uhid-load.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/pyfido2"
/usr/bin/python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$work/pyfido2" "fido2>=2,<3" ||
    die "pip could not install python-fido2 2.x"
strip --strip-debug -o "$work/hybrid-security-key" "$bin/hybrid-security-key"
binaries=(-b "$work/hybrid-security-key") builds=.
if [ -n "${BEFORE_DIR:-}" ]; then
    strip --strip-debug -o "$work/before-hybrid-security-key" "$BEFORE_DIR/hybrid-security-key"
    binaries+=(-b "$work/before-hybrid-security-key:/usr/local/bin/before/hybrid-security-key")
    builds="before ."
fi
set +e
BLEVM_KARGS="${BLEVM_KARGS:+$BLEVM_KARGS }blevm.modules=uhid,hid_generic" \
    "$blevm/blevm-run" -c 2 -m 2048 -t 1500 -s /usr:/host/usr:ro -s /etc:/host/etc:ro -s "$work/pyfido2:/opt/pyfido2:ro" \
    -e "LOAD_REQUESTS=${LOAD_REQUESTS:-20}" -e "LOAD_BUILDS=$builds" "${binaries[@]}" \
    -f ci/ceremony-in-vm.sh -f ci/uhid-load -S ci/uhid-load-in-vm.sh >"$work/vm.log" 2>&1
rc=$?
set -e
cat "$work/vm.log"
grep -q "uhid-load: DONE" "$work/vm.log" || die "the guest run did not finish (exit $rc)"
grep -q "^LOAD-RESULT \. ${LOAD_REQUESTS:-20}/${LOAD_REQUESTS:-20}$" "$work/vm.log" || die "requests were lost under load"
echo "run-uhid-load-proof: PASS"
