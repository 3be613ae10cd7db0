#!/usr/bin/env bash
# Installs what building and testing need on a fresh Debian machine with Swift.
#   scripts/setup.sh --demo   only what scripts/demo.sh needs: the C libraries the products link
#                             (Package.swift's system-library targets) and py_webauthn
#   scripts/setup.sh          everything scripts/test.sh needs besides: the independent peers
#                             (libfido2's tools, Chromium, Firefox ESR, sd-jwt, dbusmock), HAProxy,
#                             Xvfb, the packaging tools
# Idempotent: it calls apt-get/pip only for what is missing. Needs root (or sudo) for apt.
set -euo pipefail

profile=all
case "${1:-}" in
    --demo) profile=demo ;;
    "") ;;
    *) echo "usage: scripts/setup.sh [--demo]" >&2; exit 2 ;;
esac

# The system-library targets' packages (Package.swift's providers) and the PSL data.
build_packages=(pkg-config libbluetooth-dev libqrencode-dev libdbus-1-dev libzbar-dev libpng-dev
    libturbojpeg0-dev libpsl-dev publicsuffix zlib1g-dev libgtk-4-dev)
test_packages=(haproxy zbar-tools fido2-tools openssh-client xvfb xdotool imagemagick x11-utils dpkg-dev
    lintian help2man patchelf firefox-esr nodejs dbus python3-gi systemd udev)
apt_packages=("${build_packages[@]}")
[ "$profile" = demo ] || apt_packages+=("${test_packages[@]}")

# apt_install PACKAGE...: apt-get install, through sudo unless already root.
apt_install() {
    local sudo_cmd=""
    [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

missing=()
for package in "${apt_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]}"
    apt_install "${missing[@]}"
fi

# py_webauthn: the independent relying party that verifies our registration and assertion output.
if ! python3 -c "import webauthn" 2>/dev/null; then
    echo "setup: pip install webauthn"
    python3 -m pip --version >/dev/null 2>&1 || apt_install python3-pip
    # Debian 12's Python is "externally managed" (PEP 668): without a venv, pip needs the override.
    python3 -m pip install --quiet --disable-pip-version-check webauthn 2>/dev/null ||
        python3 -m pip install --quiet --disable-pip-version-check --break-system-packages webauthn
fi

[ "$profile" = all ] || exit 0

# The wallet's independent judge and test issuer (scripts/wallet-e2e.py): the SD-JWT reference
# implementation (it brings jwcrypto).
if ! python3 -c "import sd_jwt" 2>/dev/null; then
    echo "setup: pip install sd-jwt"
    python3 -m pip install --quiet --disable-pip-version-check sd-jwt==0.10.4 2>/dev/null ||
        python3 -m pip install --quiet --disable-pip-version-check --break-system-packages sd-jwt==0.10.4
fi

# Real Chromium as the hybrid client (ci/run-chromium-interop.sh): the packages that
# Tools/chromium-peer/README.md lists, installed as it installs them (with recommends).
install_chromium_interop_packages() {
    local packages=(chromium xvfb python3-dbusmock python3-dbus python3-gi zbar-tools xdotool imagemagick
        libnss3-tools python3-cbor2 python3-websockets python3-websocket python3-cryptography bc openssl)
    local needed=() package sudo_cmd=""
    for package in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || needed+=("$package")
    done
    [ ${#needed[@]} -gt 0 ] || return 0
    echo "setup: installing ${needed[*]} (chromium interop)"
    [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${needed[@]}" >/dev/null
}
install_chromium_interop_packages
