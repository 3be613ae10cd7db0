#!/usr/bin/env bash
# The install proof, on the CI machine (root) and in the blevm guest:
#  1. `DESTDIR=… scripts/install.sh --no-build` stages exactly the expected files with the expected modes;
#  2. scripts/package-deb.sh builds the .deb (its path is the last output line), lintian reports no
#     error, `dpkg -i` installs it, the binary runs --help, `dpkg --purge` removes every file it
#     installed (the lists of paths under /usr /etc /lib /var/lib before and after are equal);
#  3. `scripts/install.sh --user root` then `--uninstall` leaves those lists as before;
#  in 1-3 the installed binary needs no Swift toolchain: `ldd` names nothing under the toolchain's
#  directory and it runs --help in a mount namespace where that directory is an empty tmpfs;
#  4. in the blevm guest, where /dev/uhid exists: the .deb's hybrid-key-broker started as the
#     .deb's units start it (ci/broker/guest-broker.sh, a fake logind naming uid 1001's session the
#     active one), and the .deb's hybrid-security-key as uid 1001 in a chroot of the host's /usr and
#     /etc without /opt, its key from the broker (ci/install-proof-in-vm.sh,
#     ci/install-window-in-chroot.sh): the self-check (scripts/security-key-self-check.sh) reports
#     the key's hidraw node and its getInfo answer; then the key's own QR window under Xvfb in the
#     guest (the node uid 1001's alone, mode 600): fido2-cred -M's request opens
#     it (title names the RP ID), the screenshot decodes to exactly the key's qr event URL, its
#     Cancel gives fido2-cred FIDO_ERR_KEEPALIVE_CANCEL within 1 s, and the window goes away;
#  4b. in the blevm guest with systemd as PID 1 (ci/run-systemd-proof.sh): dpkg -i of the .deb, whose
#     units systemd runs with their whole sandbox, and alice's user manager and graphical session
#     starting the .deb's user unit, which gets its key from the broker;
#  5. the QR window under Xvfb (ci/run-window-test.sh).
# Packages the debug build scripts/test.sh already made (--no-build --bin-dir), which brings its
# Swift runtime along: a release build of hybrid-security-key (--static-swift-stdlib) from a fresh
# clone took 24 min here (niced, on the shared 2 cores); install.sh and package-deb.sh build it
# themselves when run without --no-build. Takes about 3 min here, 1 of them the VM.
# Usage: ci/run-install-proof.sh [BIN_DIR]. Env: INSTALL_PROOF_SKIP_VM=1 skips step 4 (local runs).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
die() { echo "run-install-proof: FAIL: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "needs root (dpkg -i, install.sh)"
start=$EPOCHREALTIME
since() { awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.1f", b-a}'; }
bin="${1:-}"
if [ -z "$bin" ]; then
    for product in hybrid-security-key hybrid-key-broker hybrid-client; do
        swift build --product "$product" >/dev/null || die "swift build failed"
    done
    bin="$(swift build --show-bin-path)"
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/install-proof.XXXXXX")
trap 'rm -rf "$work"' EXIT
# The toolchain's root (/opt/swift here: …/usr/bin/swift), which no installed file may need.
toolchain=$(readlink -f "$(dirname "$(readlink -f "$(command -v swift)")")/../..")
[ -d "$toolchain/usr/lib/swift" ] || die "no Swift toolchain found at $toolchain"
# The Swift runtime libraries the binary we install links from the toolchain (none when static).
runtime_libraries=$(ldd "$bin/hybrid-security-key" "$bin/hybrid-key-broker" "$bin/hybrid-client" | awk -v t="$toolchain/" 'index($3, t) == 1 {print $1}' | sort -u)

# without_toolchain BINARY WHAT: BINARY resolves no library inside the toolchain, and runs --help
# where the toolchain's directory is hidden (an empty tmpfs over it, in a private mount namespace).
without_toolchain() {
    local binary=$1 what=$2
    ldd "$binary" >"$work/ldd" || die "$what: ldd $binary failed"
    if grep -F "$toolchain/" "$work/ldd"; then die "$what: $binary still loads the libraries above from $toolchain"; fi
    if grep 'not found' "$work/ldd"; then die "$what: $binary has unresolved libraries (above)"; fi
    unshare -m sh -c 'mount -t tmpfs none "$1" && "$2" --help' sh "$toolchain" "$binary" >"$work/help-hidden" 2>&1 ||
        die "$what: $binary does not run with $toolchain hidden: $(head -3 "$work/help-hidden")"
    grep -q "security key" "$work/help-hidden" || die "$what: --help with $toolchain hidden says nothing about a security key"
    echo "run-install-proof: $what: ldd names nothing under $toolchain; --help runs with $toolchain hidden"
}

# Every path under the places an install touches, with type and mode (not times).
snapshot() {
    find /usr /etc /lib /var/lib /root/.config -xdev \
        \( -path /var/lib/dpkg -o -path /var/lib/apt -o -path /var/lib/ucf -o -path /etc/ld.so.cache \
           -o -path /var/lib/systemd/deb-systemd-helper-enabled -o -path /var/lib/man-db \) -prune \
        -o -printf '%y %m %p\n' 2>/dev/null | sort
}

echo "== 1. DESTDIR staging"
stage="$work/stage"
DESTDIR="$stage" scripts/install.sh --no-build --bin-dir "$bin" --prefix /usr/local >"$work/stage.log" ||
    die "staging failed: $(cat "$work/stage.log")"
(cd "$stage" && find . -mindepth 1 -printf '%y %m /%P\n' | sort) >"$work/staged"
cat >"$work/expected" <<'EOF'
d 755 /etc
d 755 /etc/modules-load.d
d 755 /etc/udev
d 755 /etc/udev/rules.d
d 755 /usr
d 755 /usr/local
d 755 /usr/local/bin
d 755 /usr/local/lib
d 755 /usr/lib
d 755 /usr/lib/mozilla
d 755 /usr/lib/mozilla/native-messaging-hosts
d 755 /usr/local/lib/hybrid-client
d 755 /usr/local/lib/systemd
d 755 /usr/local/lib/systemd/system
d 755 /usr/local/lib/systemd/user
d 755 /var
d 755 /var/lib
d 755 /var/lib/hybrid-security-key
f 644 /etc/modules-load.d/hybrid-security-key.conf
f 644 /etc/udev/rules.d/70-hybrid-security-key.rules
f 644 /etc/udev/rules.d/71-hybrid-security-key-no-uaccess.rules
f 644 /usr/lib/mozilla/native-messaging-hosts/hybrid_transport.json
f 644 /usr/local/lib/systemd/system/hybrid-key-broker.service
f 644 /usr/local/lib/systemd/system/hybrid-key-broker.socket
f 644 /usr/local/lib/systemd/user/hybrid-security-key.service
f 644 /var/lib/hybrid-security-key/install-manifest
f 755 /usr/local/bin/hybrid-client
f 755 /usr/local/bin/hybrid-key-broker
f 755 /usr/local/lib/hybrid-client/firefox-native-messaging-host
f 755 /usr/local/bin/hybrid-security-key
EOF
# A binary that links the toolchain's runtime brings it along (scripts/bundle-swift-runtime.sh).
if [ -n "$runtime_libraries" ]; then
    echo "d 755 /usr/local/lib/hybrid-security-key" >>"$work/expected"
    sed 's|^|f 644 /usr/local/lib/hybrid-security-key/|' <<<"$runtime_libraries" >>"$work/expected"
fi
sort -o "$work/expected" "$work/expected"
diff "$work/expected" "$work/staged" || die "the staged files differ from the expected list (above)"
without_toolchain "$stage/usr/local/bin/hybrid-security-key" "staged binary"
grep -qx "ExecStart=/usr/local/bin/hybrid-security-key --ble bluez" "$stage/usr/local/lib/systemd/user/hybrid-security-key.service" ||
    die "the staged unit does not start the staged binary"
grep -qx "ExecStart=/usr/local/bin/hybrid-key-broker" "$stage/usr/local/lib/systemd/system/hybrid-key-broker.service" ||
    die "the staged broker unit does not start the staged broker"
without_toolchain "$stage/usr/local/bin/hybrid-key-broker" "staged broker"
# The broker's sandbox, as systemd rates it (exposure 0.0 = locked down … 10.0 = unconfined).
systemd-analyze security --offline=true --threshold=20 "$stage/usr/local/lib/systemd/system/hybrid-key-broker.service" \
    >"$work/exposure" 2>&1 || die "the broker's unit is exposed more than 2.0: $(tail -n 3 "$work/exposure")"
echo "run-install-proof: $(grep -o 'Overall exposure level.*' "$work/exposure")"
echo "run-install-proof: staging OK ($(wc -l <"$work/staged") paths, modes as expected) [$(since) s]"

echo "== 2. the .deb: build, lintian, dpkg -i, --help, dpkg --purge"
scripts/package-deb.sh --no-build --bin-dir "$bin" --out "$work/deb" >"$work/deb.log" 2>&1 || die "package-deb.sh failed: $(cat "$work/deb.log")"
deb=$(tail -1 "$work/deb.log")
[[ "$deb" == */hybrid-security-key_*_"$(dpkg --print-architecture)".deb ]] && [ -f "$deb" ] || die "last line is not the .deb: $deb"
echo "built $deb"
# Accepted (see scripts/package-deb.sh): custom-library-search-path, overridden in the package
# when it bundles the Swift runtime (RUNPATH $ORIGIN/../lib/hybrid-security-key); warnings maintainer-script-calls-systemctl (the user unit is
# enabled with systemctl --global, no debhelper) and appstream-metadata-missing-modalias-provide.
lintian --tag-display-limit 0 "$deb" >"$work/lintian" 2>&1 || true
sed 's/^/   lintian: /' "$work/lintian"
if grep -q '^E:' "$work/lintian"; then die "lintian reports errors"; fi
snapshot >"$work/before-deb"
dpkg -i "$deb" >"$work/dpkg.log" 2>&1 || die "dpkg -i failed: $(cat "$work/dpkg.log")"
/usr/bin/hybrid-security-key --help >"$work/help" || die "the installed binary does not run --help"
grep -q "security key" "$work/help" || die "--help says nothing about a security key"
without_toolchain /usr/bin/hybrid-security-key ".deb's binary"
# The Firefox host's manifest as Firefox reads it (MDN, native manifests): "name" is the file's name
# without .json, "path" an absolute path to an executable the .deb installed, "type" stdio, and
# "allowed_extensions" exactly the id of our extension (extension/firefox/manifest.json).
python3 - /usr/lib/mozilla/native-messaging-hosts/hybrid_transport.json extension/firefox/manifest.json <<'PY' ||
import json, os, sys
host_manifest, extension_manifest = sys.argv[1], sys.argv[2]
with open(host_manifest) as f:
    host = json.load(f)
with open(extension_manifest) as f:
    extension_id = json.load(f)["browser_specific_settings"]["gecko"]["id"]
problems = []
if host.get("name") != os.path.basename(host_manifest)[: -len(".json")]:
    problems.append(f"name {host.get('name')!r} is not the file's name")
path = host.get("path", "")
if not (os.path.isabs(path) and os.path.isfile(path) and os.access(path, os.X_OK)):
    problems.append(f"path {path!r} is not an installed executable")
if host.get("type") != "stdio":
    problems.append(f"type {host.get('type')!r} is not stdio")
if host.get("allowed_extensions") != [extension_id]:
    problems.append(f"allowed_extensions {host.get('allowed_extensions')!r} is not [{extension_id!r}]")
if problems:
    sys.exit("; ".join(problems))
print(f"run-install-proof: the .deb's Firefox host manifest names {path} for {extension_id}")
PY
    die "the .deb's Firefox host manifest (above)"
for path in /lib/udev/rules.d/70-hybrid-security-key.rules /lib/udev/rules.d/71-hybrid-security-key-no-uaccess.rules \
    /usr/lib/modules-load.d/hybrid-security-key.conf \
    /usr/lib/systemd/user/hybrid-security-key.service /usr/share/man/man1/hybrid-security-key.1.gz \
    /usr/bin/hybrid-key-broker /usr/lib/systemd/system/hybrid-key-broker.socket \
    /usr/lib/mozilla/native-messaging-hosts/hybrid_transport.json /usr/lib/hybrid-client/firefox-native-messaging-host \
    /usr/lib/systemd/system/hybrid-key-broker.service /usr/share/man/man1/hybrid-key-broker.1.gz; do
    [ -f "$path" ] || die "the .deb did not install $path"
done
dpkg --purge hybrid-security-key >>"$work/dpkg.log" 2>&1 || die "dpkg --purge failed: $(cat "$work/dpkg.log")"
snapshot >"$work/after-deb"
diff "$work/before-deb" "$work/after-deb" || die "dpkg --purge left the file system changed (above)"
echo "run-install-proof: .deb installed, ran --help, purged without a trace [$(since) s]"

echo "== 3. install.sh then --uninstall"
snapshot >"$work/before-install"
scripts/install.sh --no-build --bin-dir "$bin" --user root --no-self-check >"$work/install.log" 2>&1 ||
    die "install.sh failed: $(cat "$work/install.log")"
sed 's/^/   /' "$work/install.log"
[ -x /usr/local/bin/hybrid-security-key ] || die "install.sh did not install the binary"
[ -L /root/.config/systemd/user/graphical-session.target.wants/hybrid-security-key.service ] || die "the user unit is not enabled"
[ -L /etc/systemd/system/sockets.target.wants/hybrid-key-broker.socket ] || die "the broker's socket is not enabled"
without_toolchain /usr/local/bin/hybrid-security-key "install.sh's binary"
scripts/install.sh --uninstall >"$work/uninstall.log" 2>&1 || die "install.sh --uninstall failed: $(cat "$work/uninstall.log")"
snapshot >"$work/after-install"
diff "$work/before-install" "$work/after-install" || die "install.sh --uninstall left the file system changed (above)"
echo "run-install-proof: install.sh --uninstall restored the file system [$(since) s]"

if [ "${INSTALL_PROOF_SKIP_VM:-0}" = 1 ]; then
    echo "== 4. self-check and the key's QR window in the blevm guest: SKIPPED (INSTALL_PROOF_SKIP_VM=1)"
else
    echo "== 4. self-check and the key's QR window in the blevm guest"
    blevm=${BLEVM_DIR:-Tools/blevm}
    [ -x "$blevm/blevm-run" ] || die "blevm not found at $blevm"
    "$blevm/setup-host.sh" >/dev/null || die "blevm host setup failed"
    "$blevm/build-image.sh" >/dev/null || die "blevm guest image could not be built"
    # The .deb's files as installed (binary, bundled runtime if any), for the guest's chroot.
    dpkg-deb -x "$deb" "$work/pkg" || die "dpkg-deb -x $deb failed"
    # Its broker as its units start it (ci/broker/guest-broker.sh, with the .deb's own unit files):
    # the binary at the path the unit's ExecStart names, its bundled runtime beside it.
    . ci/broker/host-args.sh
    broker_host_check
    unit_dir="$work/pkg/usr/lib/systemd/system"
    broker_exec=$(sed -n 's/^ExecStart=//p' "$unit_dir/hybrid-key-broker.service")
    [ "$broker_exec" = /usr/bin/hybrid-key-broker ] || die "the .deb's broker unit starts '$broker_exec', not /usr/bin/hybrid-key-broker"
    deb_broker=(-b "$work/pkg$broker_exec:$broker_exec"
        -f "$unit_dir/hybrid-key-broker.service" -f "$unit_dir/hybrid-key-broker.socket")
    [ -d "$work/pkg/usr/lib/hybrid-security-key" ] &&
        deb_broker+=(-f "$work/pkg/usr/lib/hybrid-security-key:/usr/lib/hybrid-security-key")
    vm_start=$EPOCHREALTIME
    # clocksource=hpet: a loaded host can throw the guest's TSC calibration far off (see
    # ci/run-browser-seckey-proof.sh), which would distort the 1 s the Cancel may take.
    BLEVM_KARGS="${BLEVM_KARGS:+$BLEVM_KARGS }blevm.modules=uhid,hid_generic clocksource=hpet" \
        "$blevm/blevm-run" -m 1024 -t 300 "${broker_vm_tool_args[@]}" "${deb_broker[@]}" -s "$work/pkg:/pkg:ro" \
        -f ci/ceremony-in-vm.sh -f scripts/security-key-self-check.sh -f ci/window-test-lib.sh \
        -f ci/install-window-in-chroot.sh -S ci/install-proof-in-vm.sh >"$work/vm.log" 2>&1 || die "the guest step failed: $(cat "$work/vm.log")"
    grep -E '^(self-check|install-window|install-proof-in-vm|INSTALL-MARK|broker:|logind.py)' "$work/vm.log" | sed 's/^/   /'
    grep -q '^self-check: hidraw /dev/hidraw[0-9]' "$work/vm.log" || die "the self-check did not report a hidraw node"
    grep -q '^self-check: PASS' "$work/vm.log" || die "the self-check did not pass"
    grep -q '^install-window: the broker handed uid 1001 ' "$work/vm.log" || die "the key's device did not come from the broker"
    grep -q '^install-window: PASS' "$work/vm.log" || die "the key's QR window test did not pass"
    grep -q '^install-proof-in-vm: PASS' "$work/vm.log" || die "the guest did not finish"
    echo "run-install-proof: the VM run took $(awk -v a="$vm_start" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.1f", b-a}') s"
    echo "run-install-proof: self-check and the key's QR window passed in the guest [$(since) s]"

    echo "== 4b. the .deb under systemd as the guest's PID 1: dpkg -i, its units, alice's session (ci/run-systemd-proof.sh)"
    ci/run-systemd-proof.sh "$deb" || die "the .deb under systemd (above)"
    echo "run-install-proof: the .deb's units ran under systemd and handed alice her key [$(since) s]"
fi

echo "== 5. the QR window under Xvfb"
ci/run-window-test.sh "$bin"
echo "run-install-proof: PASS in $(since) s"
