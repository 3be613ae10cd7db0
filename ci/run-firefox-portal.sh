#!/usr/bin/env bash
# The Firefox extension's host started through the WebExtensions portal, as a snap or Flatpak
# Firefox starts it (docs/firefox.md, "Sandboxed Firefox"); called by ci/run-firefox-extension.sh
# with its staged install, relay and phone store:
#  - a private session bus (dbus-daemon --session), and on it ci/firefox-extension/portal.py, a
#    stand-in for xdg-desktop-portal's org.freedesktop.portal.WebExtensions that behaves as its
#    src/web-extensions.c does (the manifest search path, allowed_extensions, the spawn with the
#    portal's own working directory and environment, the pipes, the session's end);
#  - the portal alone sees the host: it runs in a private mount namespace with the staged
#    /usr/lib/mozilla and /usr/local laid over the real ones, Firefox outside it (no manifest in
#    /usr/lib/mozilla, none in its own HOME); the portal's environment is a user session's (HOME
#    with the host's settings file, PATH, the simulated air's variables), its working directory /;
#  - Firefox ESR with widget.use-xdg-desktop-portal.native-messaging = 1 and
#    DBUS_SESSION_BUS_ADDRESS naming the private bus: getClientCapabilities, create and two gets
#    verified by py_webauthn (judge.py --portal), an abort, Firefox quitting mid-ceremony; every
#    host the portal spawned must be gone with its session; run twice: SIGTERM on Close (Ubuntu's
#    earlier portal patch: the host must end by itself, a host alive 10 s later fails), then
#    SIGKILL (upstream xdg-desktop-portal);
#  - a second portal whose manifest's allowed_extensions lacks our id refuses GetManifest, and a
#    third answers Start as a user's "Don't allow" does (Response 1): each time the page gets
#    Firefox's own behaviour, and the portal spawned nothing.
# Usage: ci/run-firefox-portal.sh BIN_DIR XPI WORK RELAY_PORT STAGE
set -euo pipefail
cd "$(dirname "$0")/.."
die() { echo "run-firefox-portal: FAIL: $*" >&2; exit 1; }
[ $# -eq 5 ] || die "usage: $0 BIN_DIR XPI WORK RELAY_PORT STAGE"
bin=$1 xpi=$2 work=$3 port=$4 stage=$5
command -v firefox-esr >/dev/null || die "firefox-esr missing (scripts/setup.sh)"
command -v dbus-daemon >/dev/null || die "dbus-daemon missing (apt-get install dbus)"
/usr/bin/python3 -c "from gi.repository import Gio, GLib" 2>/dev/null || die "python3-gi missing (scripts/setup.sh)"
[ -e /usr/lib/mozilla/native-messaging-hosts/hybrid_transport.json ] &&
    die "a host manifest is installed on this machine: Firefox must find none of its own"
bus_pid= portal_pid=
stop() {
    if [ -n "$portal_pid" ]; then kill "$portal_pid" 2>/dev/null || true; wait "$portal_pid" 2>/dev/null || true; fi
    portal_pid=
}
cleanup() { stop; if [ -n "$bus_pid" ]; then kill "$bus_pid" 2>/dev/null || true; fi; }
trap cleanup EXIT

mkdir -p "$work/portal"
dbus-daemon --session --fork --address="unix:path=$work/portal/bus" --print-pid=3 3>"$work/portal/bus.pid" \
    >/dev/null 2>"$work/portal/bus.err" || die "dbus-daemon failed: $(cat "$work/portal/bus.err")"
bus_pid=$(cat "$work/portal/bus.pid")
export DBUS_SESSION_BUS_ADDRESS="unix:path=$work/portal/bus"

# The portal as a user's session starts it: the session's environment, not Firefox's.
start_portal() {  # LOG TERM|KILL yes|no [VAR=VALUE...]
    local log=$1 close_signal=$2 grant=$3; shift 3
    : >"$work/portal/ready"
    (cd / && exec env -i HOME="$work/home" USER=root LOGNAME=root PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 \
        DBUS_SESSION_BUS_ADDRESS="$DBUS_SESSION_BUS_ADDRESS" HYBRID_SIMULATED_AIR_DIR="$work/air" \
        HYBRID_ALLOW_SIMULATED_AIR=1 "$@" \
        unshare -m /bin/sh -c '
            set -e
            mount --make-rprivate /
            mount -t overlay overlay -o lowerdir="$1/usr/lib/mozilla":/usr/lib/mozilla /usr/lib/mozilla
            mount -t overlay overlay -o lowerdir="$1/usr/local":/usr/local /usr/local
            shift
            exec "$@"' sh "$stage" /usr/bin/python3 "$OLDPWD/ci/firefox-extension/portal.py" --log "$log" \
            --close-signal "$close_signal" --grant "$grant") >"$work/portal/ready" 2>>"$work/portal/portal.err" &
    portal_pid=$!
    for _ in $(seq 200); do grep -q ready "$work/portal/ready" && return; sleep 0.05; done
    die "the stand-in portal did not start: $(cat "$work/portal/portal.err")"
}

judged=()
for close_signal in TERM KILL; do
    echo "== Firefox ESR through the WebExtensions portal (a stand-in on a private session bus; SIG$close_signal on Close)"
    log="$work/portal/granted-$close_signal.jsonl" records="$work/portal/records-$close_signal.jsonl"
    start_portal "$log" "$close_signal" yes
    /usr/bin/python3 ci/firefox-extension/proof.py --bin "$bin" --xpi "$xpi" --relay-port "$port" --work "$work" \
        --out "$records" --portal "$log" ||
        { tail -n 30 "$work/firefox-portal-granted-$close_signal.log" "$work/portal/portal.err" 2>/dev/null
          die "the portal run's driver failed (SIG$close_signal)"; }
    stop
    judged+=("$records" "$log")
done

echo "== Firefox ESR through the portal, allowed_extensions without our id (the portal refuses)"
mkdir -p "$work/portal/refusing"
python3 - "$stage/usr/lib/mozilla/native-messaging-hosts/hybrid_transport.json" \
    "$work/portal/refusing/hybrid_transport.json" <<'PY'
import json, sys
manifest = json.load(open(sys.argv[1]))
manifest["allowed_extensions"] = ["someone-else@example.org"]
json.dump(manifest, open(sys.argv[2], "w"))
PY
# The real portal's own override of its search path (XDG_DESKTOP_PORTAL_WEB_EXTENSIONS_PATH).
start_portal "$work/portal/refused.jsonl" KILL yes XDG_DESKTOP_PORTAL_WEB_EXTENSIONS_PATH="$work/portal/refusing"
/usr/bin/python3 ci/firefox-extension/proof.py --bin "$bin" --xpi "$xpi" --work "$work" \
    --out "$work/portal/records-refused.jsonl" --portal "$work/portal/refused.jsonl" --no-host ||
    { tail -n 30 "$work/firefox-portal-refused.log" "$work/portal/portal.err" 2>/dev/null; die "the refused run's driver failed"; }
stop
judged+=("$work/portal/records-refused.jsonl" "$work/portal/refused.jsonl")

echo "== Firefox ESR through the portal, the user answering \"Don't allow\" (Response 1)"
start_portal "$work/portal/denied.jsonl" KILL no
/usr/bin/python3 ci/firefox-extension/proof.py --bin "$bin" --xpi "$xpi" --work "$work" \
    --out "$work/portal/records-denied.jsonl" --portal "$work/portal/denied.jsonl" --no-host ||
    { tail -n 30 "$work/firefox-portal-denied.log" "$work/portal/portal.err" 2>/dev/null; die "the denied run's driver failed"; }
stop
judged+=("$work/portal/records-denied.jsonl" "$work/portal/denied.jsonl")

python3 ci/firefox-extension/judge.py --portal "${judged[@]}" || { tail -n 30 "$work"/firefox-portal-*.log; die "the judge failed"; }
echo "run-firefox-portal: PASS"
