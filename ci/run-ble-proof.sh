#!/usr/bin/env bash
# Host side of the BLE proof on the real Linux Bluetooth stack. This machine's kernel has no
# Bluetooth, so the test bundle runs inside blevm (qemu + Debian's kernel + btvirt; see
# ../shared/tools/blevm/README.md) with ci/ble-in-vm.sh as the guest script:
#   raw HCI: our HCIAdvertiser on hci0 -> our HCIScanner on hci1 (legacy, extended, automatic);
#   D-Bus:   our BlueZDBusAdvertiser on hci0 -> our BlueZDBusScanner on hci1 through bluetoothd.
# Fails loudly (never skips) when blevm is missing or the VM cannot start.
# Env: BLEVM_DIR (default ../shared/tools/blevm), BLE_PROOF_TIMEOUT (default 900 s),
#      BLE_PROOF_VERBOSE=1 (print bluetoothd's log from the guest).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
blevm=${BLEVM_DIR:-../shared/tools/blevm}
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
bundle="$(swift build --show-bin-path)/swift-hybrid-transportPackageTests.xctest"
[ -x "$bundle" ] || die "test bundle $bundle not found"

log=$(mktemp "${TMPDIR:-/tmp}/ble-proof.XXXXXX")
trap 'rm -f "$log"' EXIT
extra=()
[ -n "${BLE_PROOF_VERBOSE:-}" ] && extra=(-e BLE_PROOF_VERBOSE=1)
start=$EPOCHREALTIME
set +e
# Every guest line gets the host's elapsed time since the VM was started.
"$blevm/blevm-run" -v -t "${BLE_PROOF_TIMEOUT:-900}" ${extra[@]+"${extra[@]}"} -b "$bundle" -S ci/ble-in-vm.sh 2>&1 |
  while IFS= read -r line; do
    printf '[+%6.1fs] %s\n' "$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN{print b-a}')" "$line"
  done | tee "$log"
rc=${PIPESTATUS[0]}
set -e

echo "== guest timings (host clock; each step since the previous mark, from VM start for the first)"
awk '/GUEST-MARK /{ match($0, /^\[\+ *[0-9.]+/); t = substr($0, 3, RLENGTH - 2) + 0
  sub(/^\[[^]]*\] GUEST-MARK /, ""); printf "   %6.1f s  %s\n", t - prev, $0; prev = t }' "$log"
echo "== inside the tests (guest monotonic clock)"
grep -E '\] (TIMING|blevm-run:)' "$log" | sed 's/^\[[^]]*\] /   /' || true
case $rc in
  0) echo "run-ble-proof: PASS (raw HCI and bluetoothd D-Bus, hci0 -> hci1 in the blevm guest)";;
  124) die "the guest timed out after ${BLE_PROOF_TIMEOUT:-900} s";;
  125) die "the blevm VM could not start (see the console tail above); this is not a skip";;
  *) die "BLE proof failed in the guest (exit $rc)";;
esac
