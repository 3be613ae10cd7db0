#!/usr/bin/env bash
# No report lost under load, proven in the blevm guest (ci/uhid-load-in-vm.sh): uhid queues 32
# events and drops the rest when its reader is late, while python-fido2 writes a 66-ID
# getAssertion (~90 reports) without waiting. With a busy loop on every guest core, LOAD_REQUESTS
# (default 20) such requests to the key in direct mode, no retry: each must reach the key whole.
# BEFORE_DIR (optional): older hybrid-security-key binaries measured in the same run, for a
# before/after (their failures are reported, not fatal). Fails loudly when blevm is missing.
# Not in scripts/test.sh yet: with the uhid reader at real-time priority, a component run on a
# host at load 15 still had 17 of 20 requests arrive incomplete (Benchmarks/RESULTS.md), so the
# browser proof keeps its retry until this passes.
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
