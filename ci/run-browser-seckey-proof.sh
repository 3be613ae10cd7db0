#!/usr/bin/env bash
# The phone as a security key in real programs (a proof in .ci/run): Firefox ESR,
# Chromium and python-fido2 2.x from PyPI, run as an ordinary user (uid 1001), use the key as
# installed in the blevm guest: hybrid-key-broker under its unit's restrictions creates the device
# for that user's hybrid-security-key agent and hands the user its node; our hybrid-authenticator
# answers as the phone over kernel BLE (btvirt) and a loopback relay.
# Guest half: ci/browser-seckey-in-vm.sh; the programs run in a chroot of the host's /usr and /etc
# (9p, read-only), driven by ci/browser-seckey/driver.py. Cases 1-7 of ci/browser-seckey/README.md per
# program.
# Here: every credential and assertion is verified with py_webauthn (ci/browser-seckey/judge.py),
# each failing step is shown with the CTAP requests the program sent and the key's answers
# (the key's --trace-reports file, decoded by ci/browser-seckey/ctaphid_trace.py), and a PASS/FAIL
# table per program ends with "N passed, M failed". Fails loudly, never skips.
# Env: BLEVM_DIR (default Tools/blevm), SECKEY_PROGRAMS (default "firefox chromium fido2"),
#      BROWSER_SECKEY_TIMEOUT (VM limit, default 2700 s), BROWSER_SECKEY_KEEP=DIR (keep records),
#      SECKEY_PHONE_STORE=plaintext (quicker; the phone then cannot verify users, see the guest script),
#      SECKEY_LOAD_REPEAT=N (instead of cases 1-7: a registration, then N sign-ins with the longest
#      list under a busy loop per guest core, each tried once; not in scripts/test.sh, which runs
#      python-fido2's load proof).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
blevm=${BLEVM_DIR:-Tools/blevm}
die() { echo "run-browser-seckey-proof: FAIL: $*" >&2; exit 1; }
[ -x "$blevm/blevm-run" ] || die "blevm not found at $blevm (set BLEVM_DIR)"
"$blevm/setup-host.sh" || die "blevm host setup failed"
"$blevm/build-image.sh" >/dev/null || die "blevm guest image could not be built"
for tool in firefox-esr chromium /usr/bin/python3; do
    command -v "$tool" >/dev/null || die "$tool missing (scripts/setup.sh installs firefox-esr and chromium)"
done
/usr/bin/python3 -c "import websocket, cbor2" 2>/dev/null || die "python3-websocket / python3-cbor2 missing (scripts/setup.sh)"
python3 -c "import webauthn" 2>/dev/null || die "py_webauthn missing (scripts/setup.sh)"
python3 ci/browser-seckey/judge_test.py >/dev/null 2>&1 || die "the judge's own tests fail (python3 ci/browser-seckey/judge_test.py)"
. ci/broker/host-args.sh
broker_host_check

swift build --product hybrid-key-broker >/dev/null || die "swift build failed"
swift build --product hybrid-security-key >/dev/null || die "swift build failed"
swift build --product hybrid-authenticator >/dev/null || die "swift build failed"
swift build --product tunnel-relay >/dev/null || die "swift build failed"
bin="$(swift build --show-bin-path)"
work=$(mktemp -d "${TMPDIR:-/tmp}/browser-seckey.XXXXXX")
trap 'rm -rf "$work"' EXIT
for program in hybrid-key-broker hybrid-security-key hybrid-authenticator tunnel-relay; do
    strip --strip-debug -o "$work/$program" "$bin/$program"
done

# python-fido2: the current 2.x release from PyPI, unpatched (Debian's 0.9.1 never probes). Its
# one dependency, cryptography, comes from Debian's python3-cryptography in the chroot.
mkdir -p "$work/pyfido2" "$work/out"
# The programs run as uid 1001 in the guest and write their records here (over 9p, whose
# security_model=none checks the host's mode): open to all, inside $work, which is root's alone.
chmod 777 "$work/out"
/usr/bin/python3 -m pip --version >/dev/null 2>&1 && pip=(/usr/bin/python3 -m pip) || pip=(python3 -m pip)
"${pip[@]}" install --quiet --disable-pip-version-check --no-deps --target "$work/pyfido2" "fido2>=2,<3" ||
    die "pip could not install python-fido2 2.x"
echo "python-fido2 $(sed -n 's/^Version: //p' "$work"/pyfido2/fido2-*.dist-info/METADATA) (PyPI)," \
    "$(firefox-esr --version 2>/dev/null)," "$(chromium --version 2>/dev/null)"

start=$EPOCHREALTIME
set +e
# clocksource=hpet: under a loaded host, the guest kernel's TSC calibration can be far off
# (measured: guest uptime 87 s at 37 s of wall time), which would shorten every timeout the key,
# the phone and the driver measure. qemu's HPET runs on the host's clock.
BLEVM_KARGS="${BLEVM_KARGS:+$BLEVM_KARGS }blevm.modules=uhid,hid_generic clocksource=hpet" \
  "$blevm/blevm-run" -v -m 3072 -c 2 -t "${BROWSER_SECKEY_TIMEOUT:-2700}" -l "$work/out/console.log" \
  -e "SECKEY_PROGRAMS=${SECKEY_PROGRAMS:-firefox chromium fido2}" -e "SECKEY_PHONE_STORE=${SECKEY_PHONE_STORE:-encrypted}" \
  ${SECKEY_UNKNOWN_COUNT:+-e SECKEY_UNKNOWN_COUNT=$SECKEY_UNKNOWN_COUNT} \
  ${SECKEY_LOAD_REPEAT:+-e SECKEY_LOAD_REPEAT=$SECKEY_LOAD_REPEAT} \
  "${broker_vm_args[@]}" -s "$work/pyfido2:/opt/pyfido2:ro" -s "$work/out:/out" \
  -b "$work/hybrid-key-broker" -b "$work/hybrid-security-key" -b "$work/hybrid-authenticator" -b "$work/tunnel-relay" \
  -f ci/ceremony-in-vm.sh -f ci/browser-seckey -S ci/browser-seckey-in-vm.sh 2>&1 |
  while IFS= read -r line; do
    printf '[+%6.1fs] %s\n' "$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN{print b-a}')" "$line"
  done | tee "$work/guest.log"
rc=${PIPESTATUS[0]}
set -e
echo "== guest steps (host clock; each since the previous mark)"
awk '/SECKEY-MARK /{ match($0, /^\[\+ *[0-9.]+/); t = substr($0, 3, RLENGTH - 2) + 0
  sub(/^\[[^]]*\] SECKEY-MARK /, ""); printf "   %6.1f s  %s\n", t - prev, $0; prev = t }' "$work/guest.log"
echo "== whole VM run: $(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.1f", b-a}') s"
keep() { [ -z "${BROWSER_SECKEY_KEEP:-}" ] || { mkdir -p "$BROWSER_SECKEY_KEEP"; cp -r "$work/out/." "$BROWSER_SECKEY_KEEP/"; }; }
trap 'keep; rm -rf "$work"' EXIT
grep -q "Output queue is full" "$work/out/console.log" 2>/dev/null &&
    echo "NOTE: the kernel dropped output reports (uhid: Output queue is full): the key read /dev/uhid too slowly"
[ $rc -eq 125 ] && die "the blevm VM could not start; this is not a skip"
[ -s "$work/out/records.jsonl" ] || die "the guest wrote no records (exit $rc)"
# The table also after a guest failure or timeout: the steps that ran are judged, the rest FAIL.
touch "$work/out/reports.trace"
/usr/bin/python3 ci/browser-seckey/ctaphid_trace.py "$work/out/reports.trace" >"$work/out/ctap.jsonl" ||
    die "could not decode the key's CTAPHID trace"
judged=0
python3 ci/browser-seckey/judge.py --records "$work/out/records.jsonl" --ctap "$work/out/ctap.jsonl" \
    --origin http://localhost:8000 --programs "${SECKEY_PROGRAMS:-firefox chromium fido2}" || judged=1
[ $rc -eq 124 ] && die "the guest timed out (table above: what ran)"
[ $rc -eq 0 ] || die "the guest script failed (exit $rc)"
grep -q "browser-seckey-in-vm: DONE" "$work/guest.log" || die "the guest did not finish"
[ $judged -eq 0 ] || die "some cases failed (table above)"
echo "run-browser-seckey-proof: PASS"
