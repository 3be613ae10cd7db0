# Helpers for the QR window tests under Xvfb (bash, sourced): ci/run-window-test.sh (hybrid-client
# on the CI machine) and ci/install-window-in-chroot.sh (hybrid-security-key in the blevm guest).
# They wait on events only (Xvfb's -displayfd, xdotool search --sync, a decodable screenshot).
# Needs Xvfb, xdotool, import (ImageMagick) and zbarimg; the caller defines die().

# window_start_xvfb DIR: starts Xvfb (its log in DIR) and exports DISPLAY once it accepts clients;
# sets xvfb_pid. Also the environment GTK needs there: no session or accessibility bus, and the
# cairo renderer (no GL under Xvfb).
window_start_xvfb() {
    local dir=$1 display_number
    # Xvfb writes its display number to the -displayfd descriptor once it accepts clients.
    mkfifo "$dir/displayfd"
    Xvfb -displayfd 5 -screen 0 1024x768x24 -nolisten tcp 5>"$dir/displayfd" 2>"$dir/xvfb.log" &
    xvfb_pid=$!
    read -r display_number <"$dir/displayfd" || die "Xvfb did not start: $(cat "$dir/xvfb.log")"
    export DISPLAY=":$display_number"
    unset WAYLAND_DISPLAY
    export GSK_RENDERER=cairo NO_AT_BRIDGE=1 GTK_A11Y=none
}

# window_find TITLE [SECONDS]: prints the id of the visible window titled exactly TITLE (waits up
# to SECONDS, default 20).
window_find() {
    local title=$1 window
    window=$(timeout "${2:-20}" xdotool search --sync --onlyvisible --name "^$title\$" | head -1) || return 1
    [ "$(xdotool getwindowname "$window")" = "$title" ] || return 1
    echo "$window"
}

# window_decode_screen FILE: screenshots the whole screen (import -window root) into FILE until
# zbarimg decodes a QR code in it (the first frame may follow the map; 50 tries); prints it.
window_decode_screen() {
    local file=$1 decoded=""
    for _ in $(seq 1 50); do
        import -window root "$file"
        decoded=$(zbarimg --raw -q "$file" 2>/dev/null || true)
        [ -n "$decoded" ] && break
    done
    printf '%s' "$decoded"
}

# window_click_cancel WINDOW: clicks the Cancel button, which sits in the bottom-right corner
# inside an 18 px margin.
window_click_cancel() {
    local WIDTH HEIGHT X Y SCREEN WINDOW
    eval "$(xdotool getwindowgeometry --shell "$1")"
    xdotool mousemove --window "$1" $((WIDTH - 18 - 20)) $((HEIGHT - 18 - 12)) click 1
}
