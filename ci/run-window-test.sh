#!/usr/bin/env bash
# The QR window under Xvfb: `hybrid-client create … --window` on the simulated air
# (no phone needed for the QR code) opens a window whose title names the RP ID; a screenshot of
# the screen (ImageMagick `import -window root`) decoded by zbarimg gives exactly the FIDO:/ URL
# of the client's `qr` JSON event; the Cancel button (pointer click), then in a second ceremony
# Escape, makes the client exit with its cancel status (4) within 1 s; the window is gone after.
# Waits on events only (Xvfb's -displayfd, the qr line, xdotool search --sync), never on sleeps.
# Usage: ci/run-window-test.sh [BIN_DIR]   (default: the debug build's bin path)
# Env: WINDOW_TEST_KEEP=DIR keeps the screenshots there. Takes about 5 s after the build.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
die() { echo "run-window-test: FAIL: $*" >&2; exit 1; }
for tool in Xvfb xdotool import zbarimg xprop; do
    command -v "$tool" >/dev/null || die "$tool missing (scripts/setup.sh installs xvfb, xdotool, imagemagick, zbar-tools, x11-utils)"
done
bin="${1:-}"
if [ -z "$bin" ]; then
    swift build --product hybrid-client >/dev/null || die "swift build failed"
    bin="$(swift build --show-bin-path)"
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/window-test.XXXXXX")
chmod 700 "$work"
xvfb_pid=""
client_pid=""
cleanup() {
    [ -n "$client_pid" ] && kill "$client_pid" 2>/dev/null || true
    [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

. ci/window-test-lib.sh
window_start_xvfb "$work"
export HYBRID_ALLOW_SIMULATED_AIR=1
rp=example.com
title="Security key: $rp"

# run_ceremony NAME: starts the client, waits for its qr event and its window; sets url, window.
run_ceremony() {
    local name=$1
    mkfifo "$work/$name.events"
    "$bin/hybrid-client" create --origin "https://$rp" --user alice --ble sim --json --window --timeout 60 \
        >"$work/$name.out" 2>"$work/$name.events" &
    client_pid=$!
    exec 6<"$work/$name.events"
    local line
    url=""
    while IFS= read -r line <&6; do
        echo "$line" >>"$work/$name.stderr"
        url=$(printf '%s\n' "$line" | python3 -c 'import json,sys; e=json.loads(sys.stdin.read()); print(e["url"] if e.get("event")=="qr" else "")' 2>/dev/null || true)
        [ -n "$url" ] && break
    done
    [[ "$url" == FIDO:/* ]] || die "$name: no qr event from hybrid-client: $(cat "$work/$name.stderr" 2>/dev/null)"
    # Keep draining stderr so the client never blocks on a full pipe.
    cat <&6 >>"$work/$name.stderr" &
    exec 6<&-
    window=$(window_find "$title") || die "$name: no window titled '$title'"
}

# expect_cancel_exit NAME START: the client exits with status 4 within 1 s of START.
expect_cancel_exit() {
    local name=$1 start=$2 status=0
    wait "$client_pid" || status=$?
    local elapsed
    elapsed=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.3f", b-a}')
    client_pid=""
    [ "$status" -eq 4 ] || die "$name: hybrid-client exited $status, not 4 (cancelled): $(cat "$work/$name.stderr")"
    awk -v e="$elapsed" 'BEGIN{exit !(e <= 1.0)}' || die "$name: exit took $elapsed s after the cancel (limit 1 s)"
    grep -q '"kind":"cancelled"' "$work/$name.stderr" || die "$name: no cancelled error event"
    if xdotool search --name "^$title\$" >/dev/null 2>&1; then die "$name: the window is still there"; fi
    echo "run-window-test: $name: exit 4 in $elapsed s, window gone"
}

echo "== ceremony 1: screenshot, QR decode, no focus request, Cancel button"
run_ceremony click
# Mapped without asking for the focus: _NET_WM_USER_TIME 0 (EWMH), on the user-time window when
# the window manager supports one, else on the toplevel.
user_time=$(xprop -id "$window" _NET_WM_USER_TIME | sed -n 's/.* = //p')
[ "$user_time" = 0 ] || die "_NET_WM_USER_TIME is '$user_time', not 0: the window would take the focus"
decoded=$(window_decode_screen "$work/screen.png")
[ "$decoded" = "$url" ] || die "zbarimg read '$decoded', expected the qr event's '$url'"
echo "run-window-test: zbarimg decoded exactly the qr event's URL (${#url} characters)"
[ -n "${WINDOW_TEST_KEEP:-}" ] && mkdir -p "$WINDOW_TEST_KEEP" && cp "$work/screen.png" "$WINDOW_TEST_KEEP/window.png"
start=$EPOCHREALTIME
window_click_cancel "$window"
expect_cancel_exit click "$start"

echo "== ceremony 2: Escape"
run_ceremony escape
# The window does not take the focus by itself (no window manager here either): give it, then Escape.
xdotool windowfocus --sync "$window"
start=$EPOCHREALTIME
xdotool key --clearmodifiers Escape
expect_cancel_exit escape "$start"
echo "run-window-test: PASS"
