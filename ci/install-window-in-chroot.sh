#!/usr/bin/env bash
# Run by ci/install-proof-in-vm.sh in the blevm guest's chroot (the host's /usr and /etc, the
# guest's /dev with /dev/uhid root's alone, the .deb's broker serving SOCKET; no Swift toolchain):
# the .deb's hybrid-security-key (BINARY), run as uid UID (no groups, no capabilities: the user at
# the seat, as the user unit runs it), asks the broker for its device with --broker-socket:
#  1. passes scripts/security-key-self-check.sh (hidraw node, fido2-token -L, getInfo);
#  2. shows its own QR window under Xvfb: libfido2's fido2-cred -M (makeCredential for RP ID
#     window-proof.example, which needs the phone), run as UID too, makes the key emit its `qr`
#     JSON event and open a window titled "Security key: window-proof.example"; a screenshot
#     (import -window root) decoded by zbarimg is exactly the event's FIDO:/ URL; the window's
#     Cancel (xdotool click) makes fido2-cred fail with FIDO_ERR_KEEPALIVE_CANCEL
#     (CTAP2_ERR_KEEPALIVE_CANCEL, 0x2D) within 1 s of the click; then the window closes within 3 s
#     (xdotool search finds none). No phone runs: the key waits on the simulated air (--ble sim) for
#     one that never comes.
# Each hidraw node the key reports must be UID's alone (owner UID, mode 600: the broker's hand-over).
# Usage: install-window-in-chroot.sh BINARY UID SOCKET. Prints "install-window: PASS".
set -euo pipefail
binary=${1:?usage: install-window-in-chroot.sh BINARY UID SOCKET}
uid=${2:?usage: install-window-in-chroot.sh BINARY UID SOCKET}
socket=${3:?usage: install-window-in-chroot.sh BINARY UID SOCKET}
here=$(dirname "${BASH_SOURCE[0]}")
work=""
die() { echo "install-window: FAIL: $*" >&2; for f in key.err xvfb.log cred.err; do [ -n "$work" ] && [ -s "$work/$f" ] && { echo "---- $f" >&2; tail -n 20 "$work/$f" >&2; }; done; exit 1; }
since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.3f", b-a}'; }
# as_user CMD...: CMD as UID, an ordinary user (no groups, no capabilities), with a home of its own.
mkdir -p /tmp/home && chown "$uid:$uid" /tmp/home && chmod 700 /tmp/home
as_user() { setpriv --reuid "$uid" --regid "$uid" --clear-groups --inh-caps=-all --bounding-set=-all -- env HOME=/tmp/home "$@"; }
# owned_by_user NODE: the broker's hand-over.
owned_by_user() { [ "$(stat -c '%u %a' "$1")" = "$uid 600" ] || die "$1 is owned/moded '$(stat -c '%u %a' "$1")', expected '$uid 600'"; }
start=$EPOCHREALTIME

# The self-check as the user runs it after installing: its key from the broker.
as_user env HYBRID_KEY_BROKER_SOCKET="$socket" bash "$here/security-key-self-check.sh" "$binary" ||
    die "the self-check failed"
echo "install-window: the self-check ran as uid $uid, its key from the broker [$(since "$start") s]"

work=$(mktemp -d /tmp/install-window.XXXXXX)
chown "$uid:$uid" "$work"
mkdir -m 700 "$work/run" && chown "$uid:$uid" "$work/run"
key_pid="" cred_pid="" xvfb_pid=""
cleanup() {
    for pid in $cred_pid $key_pid $xvfb_pid; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
. "$here/window-test-lib.sh"
window_start_xvfb "$work"
echo "install-window: Xvfb on $DISPLAY [$(since "$start") s]"

rp=window-proof.example
title="Security key: $rp"
mkfifo "$work/events"
# --timeout 300: the ceremony must outlast GTK's slow first start in the guest.
mkdir -m 700 "$work/air" && chown "$uid:$uid" "$work/air"
as_user HYBRID_ALLOW_SIMULATED_AIR=1 HYBRID_SIMULATED_AIR_DIR="$work/air" XDG_RUNTIME_DIR="$work/run" DISPLAY="$DISPLAY" \
    "$binary" --broker-socket "$socket" --ble sim --json --no-notifications --timeout 300 >"$work/events" 2>"$work/key.err" &
key_pid=$!
exec 7<"$work/events"
# next_event NAME: the key's next JSON line that is a NAME event, skipping the others ("local":
# getInfo and the like, answered without the phone); 30 s at most between lines.
next_event() {
    local line
    while IFS= read -r -t 30 line <&7; do
        echo "$line" >>"$work/key.events"
        [[ "$line" == *"\"event\":\"$1\""* ]] && { printf '%s' "$line"; return 0; }
    done
    die "no $1 event from the key (its events: $(cat "$work/key.events" 2>/dev/null))"
}
hidraw=$(next_event ready | sed -n 's/.*"hidraw":"\([^"]*\)".*/\1/p')
[ -c "$hidraw" ] || die "the key reported no hidraw node"
owned_by_user "$hidraw"
echo "install-window: the broker handed uid $uid $hidraw (owner $uid, mode 600)"

# fido2-cred's input: client data hash (base64), RP ID, user name, user ID (base64).
printf '%s\n%s\n%s\n%s\n' "$(head -c 32 /dev/urandom | base64)" "$rp" alice "$(head -c 16 /dev/urandom | base64)" >"$work/cred.in"
as_user fido2-cred -M -i "$work/cred.in" -o "$work/cred.out" "$hidraw" es256 2>"$work/cred.err" &
cred_pid=$!
url=$(next_event qr | sed -n 's/.*"url":"\(FIDO:\/[0-9]*\)".*/\1/p')
[ -n "$url" ] || die "the qr event has no FIDO:/ URL"
# GTK's first start in the guest (software-emulated CPU, libraries over 9p) takes a while.
window=$(window_find "$title" 90) || die "no window titled '$title' (windows: $(xdotool search --name . getwindowname %@ 2>/dev/null | tr '\n' ';'))"
echo "install-window: window '$title' for fido2-cred's request [$(since "$start") s]"

decoded=$(window_decode_screen "$work/screen.png")
[ "$decoded" = "$url" ] || die "zbarimg read '$decoded', expected the key's qr event '$url'"
echo "install-window: zbarimg decoded exactly the key's qr event URL (${#url} characters)"

clicked=$EPOCHREALTIME
window_click_cancel "$window"
click_took=$(since "$clicked")
status=0
wait "$cred_pid" || status=$?
elapsed=$(since "$clicked")
cred_pid=""
[ "$status" -ne 0 ] || die "fido2-cred succeeded after Cancel"
grep -q 'FIDO_ERR_KEEPALIVE_CANCEL' "$work/cred.err" || die "fido2-cred did not get KEEPALIVE_CANCEL: $(cat "$work/cred.err")"
# The limit counts from the moment xdotool's click returned: xdotool's own start under TCG
# (0.3-0.5 s, more on a loaded host) is the test tool's time, not the key's.
after_click=$(awk -v e="$elapsed" -v c="$click_took" 'BEGIN{printf "%.3f", e - c}')
awk -v e="$after_click" 'BEGIN{exit !(e <= 1.0)}' ||
    die "fido2-cred got the cancel $after_click s after xdotool's click returned (limit 1 s; $elapsed s from its start)"
echo "install-window: Cancel -> fido2-cred: $(tr -d '\n' <"$work/cred.err") $after_click s after the click" \
    "($elapsed s from xdotool's start)"

# After its own Cancel the window closes at once (3 s at most here: GTK under TCG is slow).
gone=""
for _ in $(seq 1 30); do
    xdotool search --name "^$title\$" >/dev/null 2>&1 || { gone=$(since "$clicked"); break; }
    sleep 0.1
done
[ -n "$gone" ] || die "the window is still there 3 s after Cancel"
echo "install-window: the window closed $gone s after Cancel; xdotool search finds none"
kill "$key_pid" && wait "$key_pid" 2>/dev/null || true
key_pid=""
echo "install-window: PASS [$(since "$start") s]"
