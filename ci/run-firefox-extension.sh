#!/usr/bin/env bash
# The Firefox extension and its native messaging host in real Firefox ESR (a proof in .ci/run):
#  - the extension's conversion code under node's test runner (extension/firefox/tests);
#  - the .xpi as scripts/package-extension.sh builds it, installed with WebDriver BiDi's
#    webExtension.install (archivePath; Firefox 128 ESR has no webExtension module, this Firefox
#    does: it installs the add-on as a temporary one, which needs no signature);
#  - the host as scripts/install.sh installs it: DESTDIR staging (no change to this machine),
#    then, in a private mount namespace, the staged /usr/local and /usr/lib/mozilla laid over the
#    real ones (overlayfs, read-only), so Firefox finds the manifest in
#    /usr/lib/mozilla/native-messaging-hosts and starts the staged start script and hybrid-client;
#  - our phone: hybrid-authenticator on the simulated air, through tunnel-relay on loopback; the
#    host's settings file (~/.config/hybrid-client/native-messaging.conf of Firefox's HOME) names
#    the same simulated air and relay, and has each QR code's URL written for proof.py's "camera"
#    (--qr-url-file: Firefox does not pass a host's stderr on).
# ci/firefox-extension/proof.py drives Firefox (the cases are listed in judge.py), judge.py
# verifies every credential with py_webauthn against the page's origin. A second Firefox run
# outside the namespace (no host manifest anywhere) must get Firefox's own behaviour. Then
# ci/run-firefox-portal.sh: the host started by a stand-in WebExtensions portal, as a snap or
# Flatpak Firefox has it started.
# Usage: ci/run-firefox-extension.sh [BIN_DIR]   (default: builds the products, debug)
set -euo pipefail
cd "$(dirname "$0")/.."
die() { echo "run-firefox-extension: FAIL: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "needs root (a private mount namespace with the staged install over /usr/local)"
command -v firefox-esr >/dev/null || die "firefox-esr missing (scripts/setup.sh)"
command -v node >/dev/null || die "nodejs missing (scripts/setup.sh)"
/usr/bin/python3 -c "import websocket" 2>/dev/null || die "python3-websocket missing (scripts/setup.sh)"
python3 -c "import webauthn, cbor2" 2>/dev/null || die "py_webauthn / cbor2 missing (scripts/setup.sh)"
/usr/bin/python3 -c "from gi.repository import Gio, GLib" 2>/dev/null || die "python3-gi missing (scripts/setup.sh)"
command -v dbus-daemon >/dev/null || die "dbus-daemon missing (scripts/setup.sh)"
bin="${1:-}"
if [ -z "$bin" ]; then
    for product in hybrid-client hybrid-security-key hybrid-key-broker tunnel-relay hybrid-authenticator; do
        swift build --product "$product" >/dev/null || die "swift build --product $product failed"
    done
    bin="$(swift build --show-bin-path)"
fi
bin=$(cd "$bin" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/firefox-extension.XXXXXX")
relay=
cleanup() { [ -n "$relay" ] && kill "$relay" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

echo "== the extension's conversion code (node --test)"
node --test extension/firefox/tests/ >"$work/node.log" 2>&1 || { cat "$work/node.log"; die "node --test failed"; }
grep -E '^# (pass|fail)' "$work/node.log"

xpi=$(scripts/package-extension.sh --out "$work/xpi" | tail -n 1)
echo "== staged install (DESTDIR=… scripts/install.sh --no-build)"
DESTDIR="$work/stage" scripts/install.sh --no-build --bin-dir "$bin" --prefix /usr/local >"$work/install.log" ||
    die "install.sh failed: $(cat "$work/install.log")"
manifest="$work/stage/usr/lib/mozilla/native-messaging-hosts/hybrid_transport.json"
python3 - "$manifest" <<'PY' || die "the staged host manifest is not what Firefox needs"
import json, sys
m = json.load(open(sys.argv[1]))
assert m["name"] == "hybrid_transport" and m["type"] == "stdio", m
assert m["allowed_extensions"] == ["hybrid@swift-hybrid-transport"], m["allowed_extensions"]
assert m["path"] == "/usr/local/lib/hybrid-client/firefox-native-messaging-host", m["path"]
print("run-firefox-extension: host manifest %s -> %s, allowed_extensions %s" % (sys.argv[1].split("/stage")[1], m["path"], m["allowed_extensions"]))
PY

echo "== the phone's wallet: a PID SD-JWT VC from the independent test issuer (scripts/issue-test-credential.py)"
export HYBRID_AUTHENTICATOR_PASSPHRASE="firefox extension proof $$"
jwk=$("$bin/hybrid-authenticator" wallet key --store "$work/wallet.json") || die "wallet key failed"
python3 scripts/issue-test-credential.py --device-jwk "$jwk" --format sd-jwt --issuer-key "$work/issuer.pem" \
    --out "$work/pid.sd-jwt" >/dev/null || die "issue-test-credential.py failed"
"$bin/hybrid-authenticator" wallet add "$work/pid.sd-jwt" --store "$work/wallet.json" >/dev/null || die "wallet add failed"

"$bin/tunnel-relay" --host 127.0.0.1 --port 0 >"$work/relay.out" 2>"$work/relay.err" &
relay=$!
for _ in $(seq 200); do grep -q "listening on" "$work/relay.out" && break; sleep 0.05; done
port=$(sed -n 's/.*listening on [0-9.]*:\([0-9]*\).*/\1/p' "$work/relay.out")
[ -n "$port" ] || die "tunnel-relay did not start"
mkdir -p "$work/home/.config/hybrid-client"
cat >"$work/home/.config/hybrid-client/native-messaging.conf" <<CONF
# The proof's phone: the simulated air, the loopback relay; no window (headless); each QR code's
# URL appended to a private file for proof.py, which plays the phone's camera.
--ble sim
--tunnel-server 0=ws://127.0.0.1:$port
--no-window
--linger 0
--qr-url-file $work/qr-urls.jsonl
CONF

echo "== Firefox ESR with the extension and the installed host ($(firefox-esr --version))"
records="$work/records.jsonl"
unshare -m bash -c '
    set -e
    mount --make-rprivate /
    mount -t overlay overlay -o lowerdir="$1/usr/lib/mozilla":/usr/lib/mozilla /usr/lib/mozilla
    mount -t overlay overlay -o lowerdir="$1/usr/local":/usr/local /usr/local
    shift
    exec /usr/bin/python3 "$@"' sh "$work/stage" ci/firefox-extension/proof.py \
    --bin "$bin" --xpi "$xpi" --relay-port "$port" --work "$work" --out "$records" ||
    { tail -n 30 "$work"/firefox-host.log "$work/phone.log" 2>/dev/null; die "the proof's driver failed"; }
echo "== Firefox ESR with the extension and no host"
[ -e /usr/lib/mozilla/native-messaging-hosts/hybrid_transport.json ] && die "a host manifest is installed on this machine: the no-host run needs none"
/usr/bin/python3 ci/firefox-extension/proof.py --bin "$bin" --xpi "$xpi" --work "$work" --out "$records" --no-host ||
    die "the no-host run failed"
python3 ci/firefox-extension/judge.py "$records" "$work/issuer.pem" || { tail -n 30 "$work"/firefox-*.log; die "the judge failed"; }
# The same host started by the WebExtensions portal (a stand-in), as a snap or Flatpak Firefox does.
ci/run-firefox-portal.sh "$bin" "$xpi" "$work" "$port" "$work/stage" || die "the portal run failed"
echo "run-firefox-extension: PASS"
