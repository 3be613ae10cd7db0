#!/usr/bin/env bash
# Builds hybrid-security-key_<version>_<arch>.deb with dpkg-deb: the agent (hybrid-security-key)
# and the key broker (hybrid-key-broker, the one privileged part: docs/security-key.md), the
# broker's system units (its socket enabled), the udev rule, the modules-load.d file for uhid, the
# systemd user unit (enabled for every user with `systemctl --global`, bound to
# graphical-session.target; the broker gives a key only to the active local session's user, so a
# key left running after a user switch is removed), a man page made from --help (help2man),
# copyright and changelog; postinst reloads udev, loads uhid and starts the broker's socket, prerm
# stops it and disables the units, postrm reloads udev and systemd. The maintainer scripts act only
# on system paths (/etc/systemd), never in a user's home. It also carries hybrid-client and the
# Firefox extension's native messaging host: /usr/lib/hybrid-client/firefox-native-messaging-host
# and its manifest /usr/lib/mozilla/native-messaging-hosts/hybrid_transport.json (docs/firefox.md). The .deb's path is the LAST line of output (stable for harnesses).
# Usage: scripts/package-deb.sh [--no-build] [--bin-dir DIR] [--out DIR] [--version V]
#   default: a release build (several minutes), output in .build/deb. DEBFULLNAME/DEBEMAIL name
#   the maintainer.
# No Swift toolchain is needed where the package is installed. The default build links the Swift
# runtime statically (--static-swift-stdlib). A binary that links the toolchain's runtime (the
# debug build CI packages with --no-build) gets those libraries, as `ldd` names them, in the
# private /usr/lib/hybrid-security-key/ and RUNPATH $ORIGIN/../lib/hybrid-security-key
# (scripts/bundle-swift-runtime.sh, patchelf).
# lintian, accepted: maintainer-script-calls-systemctl (`systemctl --global enable` of the user
# unit, without debhelper), appstream-metadata-missing-modalias-provide (no AppStream metadata
# for a virtual device); with bundled libraries, custom-library-search-path (overridden: the
# private directory above) and the tags of those libraries that ride with them (see
# ci/run-install-proof.sh's list).
#   CI packages the debug build scripts/test.sh made: --no-build --bin-dir "$(swift build --show-bin-path)".
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build=1
bin_dir=""
out="$repo/.build/deb"
version=""
while [ $# -gt 0 ]; do
    case "$1" in
        --no-build) build=0; shift ;;
        --bin-dir) bin_dir=${2:?}; shift 2 ;;
        --out) out=${2:?}; shift 2 ;;
        --version) version=${2:?}; shift 2 ;;
        -h | --help) sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "package-deb.sh: unknown option $1" >&2; exit 64 ;;
    esac
done
die() { echo "package-deb.sh: $*" >&2; exit 1; }
for tool in dpkg-deb dpkg-shlibdeps gzip; do command -v "$tool" >/dev/null || die "$tool missing (apt install dpkg-dev)"; done
command -v patchelf >/dev/null || die "patchelf missing (apt install patchelf)"
cd "$repo"
if [ $build -eq 1 ]; then
    # Statically linked Swift runtime: see the header.
    for product in hybrid-security-key hybrid-key-broker hybrid-client; do
        swift build -c release --static-swift-stdlib --product "$product" >&2 || die "swift build failed"
    done
fi
[ -n "$bin_dir" ] || bin_dir=$(swift build -c release --show-bin-path)
binary="$bin_dir/hybrid-security-key"
[ -x "$binary" ] || die "$binary not built"
[ -x "$bin_dir/hybrid-key-broker" ] || die "$bin_dir/hybrid-key-broker not built"
[ -x "$bin_dir/hybrid-client" ] || die "$bin_dir/hybrid-client not built"

package=hybrid-security-key
arch=$(dpkg --print-architecture)
if [ -z "$version" ]; then
    # 0.1.0 plus the commit, so that every build from a clone has a distinct, ordered version.
    version="0.1.0+git$(git log -1 --format=%cd --date=format:%Y%m%d%H%M 2>/dev/null || date +%Y%m%d).$(git rev-parse --short=7 HEAD 2>/dev/null || echo local)"
fi
date_rfc=$(git log -1 --format=%cD 2>/dev/null || date -R)
maintainer="${DEBFULLNAME:-swift-hybrid-transport developers} <${DEBEMAIL:-hybrid-transport@users.noreply.github.com}>"

work=$(mktemp -d "${TMPDIR:-/tmp}/package-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
root="$work/root"
umask 022
install -d "$root/DEBIAN" "$root/usr/bin" "$root/lib/udev/rules.d" "$root/usr/lib/modules-load.d" \
    "$root/usr/lib/systemd/user" "$root/usr/lib/systemd/system" "$root/usr/share/man/man1" "$root/usr/share/doc/$package" \
    "$root/usr/share/lintian/overrides" "$root/usr/lib/hybrid-client" "$root/usr/lib/mozilla/native-messaging-hosts"
# Stripped (lintian wants stripped binaries), with the Swift runtime it links, if any (see the header).
"$repo/scripts/bundle-swift-runtime.sh" "$binary" "$root/usr/bin/$package" "$root/usr/lib/$package" \
    "\$ORIGIN/../lib/$package" >"$work/bundled" || die "bundling the Swift runtime failed"
"$repo/scripts/bundle-swift-runtime.sh" "$bin_dir/hybrid-key-broker" "$root/usr/bin/hybrid-key-broker" \
    "$root/usr/lib/$package" "\$ORIGIN/../lib/$package" >>"$work/bundled" || die "bundling the Swift runtime failed"
"$repo/scripts/bundle-swift-runtime.sh" "$bin_dir/hybrid-client" "$root/usr/bin/hybrid-client" \
    "$root/usr/lib/$package" "\$ORIGIN/../lib/$package" >>"$work/bundled" || die "bundling the Swift runtime failed"
sort -u -o "$work/bundled" "$work/bundled"
# The Firefox extension's native messaging host: the start script and the manifest Firefox reads.
sed "s|@BINDIR@|/usr/bin|" deploy/firefox/native-messaging-host.in >"$root/usr/lib/hybrid-client/firefox-native-messaging-host"
chmod 755 "$root/usr/lib/hybrid-client/firefox-native-messaging-host"
sed "s|@HOST@|/usr/lib/hybrid-client/firefox-native-messaging-host|" deploy/firefox/hybrid_transport.json.in \
    >"$root/usr/lib/mozilla/native-messaging-hosts/hybrid_transport.json"
chmod 644 "$root/usr/lib/mozilla/native-messaging-hosts/hybrid_transport.json"
install -m 644 deploy/security-key/70-hybrid-security-key.rules "$root/lib/udev/rules.d/"
install -m 644 deploy/security-key/71-hybrid-security-key-no-uaccess.rules "$root/lib/udev/rules.d/"
echo uhid >"$root/usr/lib/modules-load.d/$package.conf"
sed "s|/usr/local/bin/|/usr/bin/|" deploy/security-key/hybrid-security-key.service >"$root/usr/lib/systemd/user/$package.service"
sed "s|/usr/local/bin/|/usr/bin/|" deploy/security-key/hybrid-key-broker.service >"$root/usr/lib/systemd/system/hybrid-key-broker.service"
install -m 644 deploy/security-key/hybrid-key-broker.socket "$root/usr/lib/systemd/system/"

# man_page PROGRAM SUMMARY: section 1, from --help (help2man, else the --help text as it is).
man_page() {
    local program=$1 summary=$2
    if command -v help2man >/dev/null; then
        help2man --no-info --no-discard-stderr --version-string="$version" \
            --name="$summary" "$root/usr/bin/$program" >"$work/$program.1"
    else
        { echo ".TH $(tr a-z- A-Z- <<<"$program") 1"; echo ".SH NAME"; echo "$program \\- $summary"
          echo ".SH DESCRIPTION"; echo ".nf"; "$root/usr/bin/$program" --help | sed 's/\\/\\\\/g; s/^\./\\\&./'; echo ".fi"; } >"$work/$program.1"
    fi
    gzip -9n <"$work/$program.1" >"$root/usr/share/man/man1/$program.1.gz"
}
man_page "$package" "your phone as a FIDO2 security key"
man_page hybrid-client "passkeys and digital credentials on a phone over FIDO hybrid (caBLE v2)"
man_page hybrid-key-broker "the privileged part of hybrid-security-key: one FIDO key per active local session"

cat >"$root/usr/share/doc/$package/copyright" <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: swift-hybrid-transport
Comment: hybrid-security-key, built from the swift-hybrid-transport sources.

Files: *
Copyright: 2026 swift-hybrid-transport developers
License: Apache-2.0
 On Debian systems, the full text of the Apache License 2.0 is in
 /usr/share/common-licenses/Apache-2.0.
EOF
cat >"$work/changelog" <<EOF
$package ($version) unstable; urgency=medium

  * Built from commit $(git rev-parse --short=12 HEAD 2>/dev/null || echo local).

 -- $maintainer  $date_rfc
EOF
gzip -9n <"$work/changelog" >"$root/usr/share/doc/$package/changelog.gz"
if [ -s "$work/bundled" ]; then
    # The private runtime directory (see the header): no Debian package provides the Swift runtime.
    echo "$package: custom-library-search-path" >"$root/usr/share/lintian/overrides/$package"
    chmod 644 "$root/usr/share/lintian/overrides/$package"
else
    rmdir "$root/usr/share/lintian/overrides" "$root/usr/share/lintian"
fi

# Library dependencies, as dpkg-shlibdeps finds them, of the binary and the libraries bundled
# with it (these, found in the private directory, need no package).
mkdir -p "$work/shlibs/debian"
printf 'Source: %s\n\nPackage: %s\nArchitecture: any\n' "$package" "$package" >"$work/shlibs/debian/control"
objects=("$root/usr/bin/$package" "$root/usr/bin/hybrid-key-broker" "$root/usr/bin/hybrid-client")
while read -r name; do objects+=("$root/usr/lib/$package/$name"); done <"$work/bundled"
depends=$(cd "$work/shlibs" && dpkg-shlibdeps -O --ignore-missing-info -l"$root/usr/lib/$package" "${objects[@]/#/-e}" 2>/dev/null |
    sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || die "dpkg-shlibdeps found no dependencies"

cat >"$root/DEBIAN/control" <<EOF
Package: $package
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $depends, udev, kmod
Recommends: fido2-tools, bluez
Section: utils
Priority: optional
Homepage: https://github.com/swift-hybrid-transport/swift-hybrid-transport
Description: your phone as a FIDO2 security key over FIDO hybrid (caBLE v2)
 hybrid-security-key creates a virtual USB security key (/dev/uhid). Firefox,
 Chromium, OpenSSH, pam_u2f and every libfido2 program use it like a plugged-in
 key; each registration or sign-in is carried to your phone: scan the QR code
 shown in a window (or a notification) and approve on the phone.
 .
 The user unit starts it in every graphical session. A small system service,
 hybrid-key-broker, alone opens /dev/uhid: it creates the FIDO key (and
 nothing else) for the user of the active local session, hands its hidraw
 node to that user only, and removes it when the session stops being active.
 .
 hybrid-client carries one WebAuthn or Digital Credentials request to the
 phone; it is also the native messaging host of the Firefox extension
 hybrid@swift-hybrid-transport, which offers "use a phone or tablet" in
 navigator.credentials.
EOF
{
    printf '#!/bin/sh\nset -e\nforget_uhid_acl() (\n'
    sed -e '/^#/d' -e 's/^/    /' scripts/forget-uhid-acl.sh
    printf ')\n'
} >"$root/DEBIAN/postinst"
cat >>"$root/DEBIAN/postinst" <<'EOF'
if [ "$1" = configure ]; then
    modprobe uhid 2>/dev/null || true
    if [ -d /run/udev ]; then
        udevadm control --reload || true
        udevadm trigger --subsystem-match=misc --sysname-match=uhid || true
    fi
    # An earlier version tagged /dev/uhid "uaccess": the seat user's ACL entry on it survives the
    # new rules until it is removed (forget_uhid_acl: scripts/forget-uhid-acl.sh, above).
    forget_uhid_acl || true
    systemctl --global enable hybrid-security-key.service >/dev/null 2>&1 || true
    systemctl enable hybrid-key-broker.socket >/dev/null 2>&1 || true
    if [ -d /run/systemd/system ]; then
        systemctl daemon-reload >/dev/null 2>&1 || true
        systemctl start hybrid-key-broker.socket >/dev/null 2>&1 || true
        # Agents of an earlier version hold /dev/uhid open themselves: restart the running ones
        # (each logged-in user's manager; try-restart starts none that was not running).
        for user in $(loginctl list-users --no-legend 2>/dev/null | awk '{print $2}'); do
            systemctl --user --machine="$user@" try-restart hybrid-security-key.service >/dev/null 2>&1 || true
        done
    fi
fi
EOF
cat >"$root/DEBIAN/prerm" <<'EOF'
#!/bin/sh
set -e
if [ "$1" = remove ] || [ "$1" = purge ]; then
    systemctl --global disable hybrid-security-key.service >/dev/null 2>&1 || true
    if [ -d /run/systemd/system ]; then
        systemctl stop hybrid-key-broker.socket hybrid-key-broker.service >/dev/null 2>&1 || true
    fi
    systemctl disable hybrid-key-broker.socket >/dev/null 2>&1 || true
fi
EOF
cat >"$root/DEBIAN/postrm" <<'EOF'
#!/bin/sh
set -e
if [ "$1" = remove ] || [ "$1" = purge ]; then
    rm -f /etc/systemd/user/graphical-session.target.wants/hybrid-security-key.service
    rmdir --ignore-fail-on-non-empty /etc/systemd/user/graphical-session.target.wants 2>/dev/null || true
    rm -f /etc/systemd/system/sockets.target.wants/hybrid-key-broker.socket
    if [ -d /run/systemd/system ]; then systemctl daemon-reload >/dev/null 2>&1 || true; fi
    if [ -d /run/udev ]; then udevadm control --reload || true; fi
fi
EOF
chmod 755 "$root/DEBIAN/postinst" "$root/DEBIAN/prerm" "$root/DEBIAN/postrm"
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | xargs -0 md5sum) >"$root/DEBIAN/md5sums"
chmod 644 "$root/DEBIAN/md5sums" "$root/DEBIAN/control"

mkdir -p "$out"
deb="$out/${package}_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zgzip --build "$root" "$deb" >&2
echo "$deb"
