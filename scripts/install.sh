#!/usr/bin/env bash
# Installs your phone as a FIDO2 security key (hybrid-security-key) in one command:
#   sudo scripts/install.sh                 (for the user who runs sudo)
#   scripts/install.sh --user NAME          (as root, for NAME)
#   sudo scripts/install.sh --uninstall     (removes exactly what the install created)
# It builds the release binaries (unless --no-build; the Swift runtime linked statically), installs
# them under PREFIX/bin (a binary that links the toolchain's Swift runtime, such as a debug build
# given with --bin-dir, brings those libraries along in PREFIX/lib/hybrid-security-key: no
# toolchain is needed at run time, see scripts/bundle-swift-runtime.sh): hybrid-security-key (your
# agent) and hybrid-key-broker (the one privileged part: it alone opens /dev/uhid, see
# docs/security-key.md), the broker's system units under PREFIX/lib/systemd/system with its socket
# enabled (sockets.target), the udev rule (/etc/udev/rules.d: the key's hidraw node for sandboxed
# browsers; nothing for /dev/uhid), /etc/modules-load.d/hybrid-security-key.conf (loads uhid), the
# systemd user unit under PREFIX/lib/systemd/user, enabled for that user and bound to
# graphical-session.target; then reloads udev, loads uhid, starts the broker's socket and runs the
# self-check as that user (scripts/security-key-self-check.sh). It also installs the Firefox
# extension's native messaging host (docs/firefox.md): hybrid-client under PREFIX/bin, its start
# script PREFIX/lib/hybrid-client/firefox-native-messaging-host, and the host manifest
# /usr/lib/mozilla/native-messaging-hosts/hybrid_transport.json (where Firefox, and the
# WebExtensions portal of a snap or Flatpak Firefox, look), allowing only the extension
# hybrid@swift-hybrid-transport.
# Every file and directory it creates is listed in the manifest
# /var/lib/hybrid-security-key/install-manifest, which --uninstall follows (and nothing else).
# Root never acts on a path in the user's home: the unit's link there (and its directories) is
# made and removed as that user (setpriv), so a symbolic link the user planted in the home leads
# nowhere the user could not write anyway.
#
# Options: --prefix DIR (default /usr/local), --user NAME, --no-build, --bin-dir DIR (binaries
# to install; default: the release build's bin path), --dry-run (print, change nothing),
# --no-self-check, --uninstall. DESTDIR=DIR stages every file under DIR (for packagers): no
# system change, no user unit enabling, no self-check, no root needed.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

prefix=/usr/local
user=""
build=1
bin_dir=""
dry_run=0
self_check=1
uninstall=0
while [ $# -gt 0 ]; do
    case "$1" in
        --prefix) prefix=${2:?--prefix needs a directory}; shift 2 ;;
        --prefix=*) prefix=${1#*=}; shift ;;
        --user) user=${2:?--user needs a name}; shift 2 ;;
        --user=*) user=${1#*=}; shift ;;
        --no-build) build=0; shift ;;
        --bin-dir) bin_dir=${2:?--bin-dir needs a directory}; shift 2 ;;
        --bin-dir=*) bin_dir=${1#*=}; shift ;;
        --dry-run) dry_run=1; shift ;;
        --no-self-check) self_check=0; shift ;;
        --uninstall) uninstall=1; shift ;;
        -h | --help) sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "install.sh: unknown option $1 (see --help)" >&2; exit 64 ;;
    esac
done
case "$prefix" in /*) ;; *) echo "install.sh: --prefix must be absolute" >&2; exit 64 ;; esac
prefix=${prefix%/}
destdir=${DESTDIR:-}
destdir=${destdir%/}
manifest_path=/var/lib/hybrid-security-key/install-manifest
manifest="$destdir$manifest_path"

die() { echo "install.sh: $*" >&2; exit 1; }
say() { echo "install.sh: $*"; }
# run CMD...: runs it, or prints it with --dry-run.
run() {
    if [ $dry_run -eq 1 ]; then echo "would run: $*"; else "$@"; fi
}
# try CMD...: like run, but a failure is a warning (no udevd or module in a container).
try() {
    if [ $dry_run -eq 1 ]; then echo "would run: $*"; return 0; fi
    "$@" || say "warning: '$*' failed (exit $?)"
}

if [ -z "$destdir" ] && [ "$(id -u)" -ne 0 ] && [ $dry_run -eq 0 ]; then
    die "run it with sudo (or as root with --user NAME), or stage with DESTDIR=DIR"
fi

# as_user NAME CMD...: runs CMD with NAME's uid, gid and groups (the kernel then checks NAME's
# permissions: a link NAME planted cannot make root write elsewhere). No PAM session, no shell.
as_user() {
    local name=$1 uid gid
    shift
    uid=$(id -u "$name") && gid=$(id -g "$name") || return 1
    setpriv --reuid="$uid" --regid="$gid" --init-groups -- "$@"
}
# home_owner PATH: the user whose home directory holds PATH (for manifests of older versions,
# which recorded the user's link as plain `link`/`dir` entries).
home_owner() {
    local name home
    while IFS=: read -r name _ _ _ _ home _; do
        case "$home" in /) continue ;; esac
        case "$1" in "${home%/}"/*) echo "$name"; return 0 ;; esac
    done < <(getent passwd)
    return 1
}
# remove_user_entry KIND NAME PATH: undoes one user-home entry as NAME: the link only if it is still
# a symbolic link, a directory only when empty.
remove_user_entry() {
    local kind=$1 name=$2 path=$3
    case "$kind" in
        link)
            as_user "$name" test -L "$path" || return 0
            if run as_user "$name" rm -f -- "$path"; then say "removed $path"; else say "warning: $path not removed"; fi ;;
        dir) as_user "$name" rmdir -- "$path" 2>/dev/null || true ;;
    esac
}

# ---- uninstall: the manifest, newest entry first; directories only when empty.
if [ $uninstall -eq 1 ]; then
    [ -f "$manifest" ] || die "nothing to uninstall: $manifest not found"
    if [ -z "$destdir" ] && [ -d /run/systemd/system ]; then
        try systemctl stop hybrid-key-broker.socket hybrid-key-broker.service
    fi
    mapfile -t recorded < <(tac "$manifest")
    run rm -f "$manifest"
    for entry in "${recorded[@]}"; do
        kind=${entry%% *}
        path=${entry#* }
        target="$destdir$path"
        # user-link/user-dir NAME PATH: in NAME's home, undone as NAME (see as_user).
        case "$kind" in
            user-link | user-dir)
                [ -z "$destdir" ] || continue
                name=${path%% *}
                remove_user_entry "${kind#user-}" "$name" "${path#* }"
                continue ;;
        esac
        # Older manifests: a link or directory in a home is undone as that home's user, never as root.
        if [ -z "$destdir" ] && { [ "$kind" = link ] || [ "$kind" = dir ]; } && [[ $path == */.config/* ]] &&
            name=$(home_owner "$path"); then
            remove_user_entry "$kind" "$name" "$path"
            continue
        fi
        case "$kind" in
            file | link) if [ -e "$target" ] || [ -L "$target" ]; then run rm -f "$target" && say "removed $path"; fi ;;
            dir) if [ -d "$target" ] && [ -z "$(ls -A "$target")" ]; then run rmdir "$target"; fi ;;
        esac
    done
    if [ -z "$destdir" ]; then
        try udevadm control --reload
        [ -d /run/systemd/system ] && try systemctl daemon-reload
    fi
    say "uninstalled"
    exit 0
fi

# ---- whom the user unit is for.
if [ -z "$destdir" ]; then
    if [ -z "$user" ]; then
        user=${SUDO_USER:-}
        [ -n "$user" ] || die "as root, name the user: --user NAME"
    fi
    user_home=$(getent passwd "$user" | cut -d: -f6) || die "no such user: $user"
    [ -d "$user_home" ] || die "$user's home $user_home does not exist"
fi
[ -f "$manifest" ] && die "already installed ($manifest); run --uninstall first"
[ -z "$destdir" ] || [ $dry_run -eq 1 ] || mkdir -p "$destdir"

# ---- the binary.
# The build runs as the user who ran sudo (the clone's .build stays theirs). sudo's secure_path
# often lacks the toolchain: look in that user's login PATH, then /opt/swift.
as_builder() { if [ -n "${SUDO_USER:-}" ] && [ "$(id -u)" -eq 0 ]; then sudo -u "$SUDO_USER" "$@"; else "$@"; fi; }
swift_command() {
    command -v swift && return
    [ -n "${SUDO_USER:-}" ] && sudo -u "$SUDO_USER" -i sh -c 'command -v swift' && return
    [ -x /opt/swift/usr/bin/swift ] && echo /opt/swift/usr/bin/swift && return
    die "swift not found (install the Swift toolchain, or use --no-build --bin-dir DIR)"
}
if [ $build -eq 1 ]; then
    swift=$(swift_command)
    say "building the release binaries with $swift (several minutes)"
    for product in hybrid-security-key hybrid-key-broker hybrid-client; do
        (cd "$repo" && run as_builder "$swift" build -c release --static-swift-stdlib --product "$product")
    done
fi
if [ -z "$bin_dir" ]; then
    bin_dir=$(cd "$repo" && as_builder "$(swift_command)" build -c release --show-bin-path)
fi
for program in hybrid-security-key hybrid-key-broker hybrid-client; do
    [ -x "$bin_dir/$program" ] || [ $dry_run -eq 1 ] || die "$bin_dir/$program not built (drop --no-build)"
done

# ---- files, each recorded in the manifest.
entries=()
record() { entries+=("$1 $2"); }
# make_dirs DIR: creates DIR's missing ancestors, recording each one created.
make_dirs() {
    local dir=$1 missing=()
    while [ ! -d "$destdir$dir" ] && [ "$dir" != / ]; do
        missing=("$dir" "${missing[@]}")
        dir=$(dirname "$dir")
    done
    for dir in "${missing[@]}"; do
        run mkdir -m 755 "$destdir$dir"
        record dir "$dir"
    done
}
# put MODE SOURCE PATH: installs SOURCE as PATH (refuses to overwrite a file it did not create).
put() {
    local mode=$1 source=$2 path=$3
    [ -e "$destdir$path" ] && die "$path exists already and is not ours; remove it or uninstall first"
    make_dirs "$(dirname "$path")"
    run install -m "$mode" "$source" "$destdir$path"
    record file "$path"
    [ $dry_run -eq 1 ] || say "installed $path"
}

work=$(mktemp -d "${TMPDIR:-/tmp}/hybrid-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
sed "s|/usr/local/bin/|$prefix/bin/|" "$repo/deploy/security-key/hybrid-security-key.service" >"$work/unit"
sed "s|/usr/local/bin/|$prefix/bin/|" "$repo/deploy/security-key/hybrid-key-broker.service" >"$work/broker.service"
echo uhid >"$work/modules"
unit_path="$prefix/lib/systemd/user/hybrid-security-key.service"

# The binaries, stripped, with the Swift runtime libraries they link, if any (see the header),
# in one private directory.
for program in hybrid-security-key hybrid-key-broker hybrid-client; do
    if [ -x "$bin_dir/$program" ]; then
        mkdir -p "$work/bin"
        "$repo/scripts/bundle-swift-runtime.sh" "$bin_dir/$program" "$work/bin/$program" \
            "$work/lib" '$ORIGIN/../lib/hybrid-security-key' >>"$work/bundled" || die "bundling the Swift runtime failed"
        put 755 "$work/bin/$program" "$prefix/bin/$program"
    else
        put 755 "$bin_dir/$program" "$prefix/bin/$program"
    fi
done
if [ -s "$work/bundled" ]; then
    while read -r name; do put 644 "$work/lib/$name" "$prefix/lib/hybrid-security-key/$name"; done < <(sort -u "$work/bundled")
fi
put 644 "$repo/deploy/security-key/70-hybrid-security-key.rules" /etc/udev/rules.d/70-hybrid-security-key.rules
put 644 "$repo/deploy/security-key/71-hybrid-security-key-no-uaccess.rules" \
    /etc/udev/rules.d/71-hybrid-security-key-no-uaccess.rules
put 644 "$work/modules" /etc/modules-load.d/hybrid-security-key.conf
put 644 "$work/unit" "$unit_path"
broker_units="$prefix/lib/systemd/system"
put 644 "$repo/deploy/security-key/hybrid-key-broker.socket" "$broker_units/hybrid-key-broker.socket"
put 644 "$work/broker.service" "$broker_units/hybrid-key-broker.service"
# The Firefox extension's native messaging host: its start script, and the manifest naming it
# and our extension's id (the only one Firefox lets connect).
firefox_host="$prefix/lib/hybrid-client/firefox-native-messaging-host"
sed "s|@BINDIR@|$prefix/bin|" "$repo/deploy/firefox/native-messaging-host.in" >"$work/firefox-host"
sed "s|@HOST@|$firefox_host|" "$repo/deploy/firefox/hybrid_transport.json.in" >"$work/firefox-host.json"
put 755 "$work/firefox-host" "$firefox_host"
put 644 "$work/firefox-host.json" /usr/lib/mozilla/native-messaging-hosts/hybrid_transport.json
# The broker's socket, enabled: the link `systemctl enable` makes (a system path, root's).
if [ -z "$destdir" ]; then
    socket_link=/etc/systemd/system/sockets.target.wants/hybrid-key-broker.socket
    [ -e "$socket_link" ] || [ -L "$socket_link" ] && die "$socket_link exists already"
    make_dirs "$(dirname "$socket_link")"
    run ln -s "$broker_units/hybrid-key-broker.socket" "$socket_link"
    record link "$socket_link"
fi

# ---- enable the user unit for $user: the symlink `systemctl --user enable` would make, made by
# $user (as_user): every check, directory and link in the home runs with $user's permissions, so
# a symbolic link planted there reaches nothing $user could not change anyway. If that fails, the
# system files stay installed (and in the manifest) and $user can enable the unit later.
enable_for_user() {
    local wants="$user_home/.config/systemd/user/graphical-session.target.wants"
    local link="$wants/hybrid-security-key.service" dir missing=()
    if as_user "$user" test -e "$link" || as_user "$user" test -L "$link"; then
        say "warning: $link exists already; left alone"
        return 1
    fi
    dir=$wants
    while ! as_user "$user" test -d "$dir"; do missing=("$dir" "${missing[@]}"); dir=$(dirname "$dir"); done
    for dir in "${missing[@]}"; do
        run as_user "$user" mkdir -m 755 -- "$dir" || return 1
        record user-dir "$user $dir"
    done
    run as_user "$user" ln -s -- "$unit_path" "$link" || return 1
    record user-link "$user $link"
    say "enabled hybrid-security-key.service for $user (graphical-session.target)"
}
if [ -z "$destdir" ]; then
    command -v setpriv >/dev/null || die "setpriv not found (util-linux)"
    enable_for_user ||
        say "warning: not enabled for $user; as $user run: systemctl --user enable hybrid-security-key.service"
fi

# ---- the manifest, then the system: udev, uhid, the user's systemd.
make_dirs "$(dirname "$manifest_path")"
if [ $dry_run -eq 1 ]; then
    printf 'would record: %s\n' "${entries[@]}"
else
    printf '%s\n' "${entries[@]}" >"$manifest"
    chmod 644 "$manifest"
fi
if [ -n "$destdir" ]; then
    say "staged into $destdir (nothing on this system changed)"
    exit 0
fi
try udevadm control --reload
try modprobe uhid
try udevadm trigger --subsystem-match=misc --sysname-match=uhid
# An earlier version tagged /dev/uhid "uaccess": the seat user's ACL entry on it survives the new
# rules until it is removed.
try sh "$repo/scripts/forget-uhid-acl.sh" /dev/uhid
if [ -d /run/systemd/system ]; then
    try systemctl daemon-reload
    try systemctl start hybrid-key-broker.socket
    say "started hybrid-key-broker.socket (the key broker starts with the first agent)"
else
    say "warning: systemd is not running: start $prefix/bin/hybrid-key-broker as root yourself"
fi
uid=$(id -u "$user")
if [ -S "/run/user/$uid/bus" ]; then
    try sudo -u "$user" XDG_RUNTIME_DIR="/run/user/$uid" systemctl --user daemon-reload
    # restart, not start: an agent of the earlier version holds /dev/uhid open itself.
    try sudo -u "$user" XDG_RUNTIME_DIR="/run/user/$uid" systemctl --user restart hybrid-security-key.service
    say "started hybrid-security-key.service for $user (if a graphical session runs; else at the next login)"
else
    say "$user has no running systemd user session: the key starts at $user's next graphical login"
fi
# The self-check as $user: the broker gives a key only to the active local session's user. Over
# ssh, or before the next graphical login, it cannot pass yet: a warning, not a failed install.
if [ $self_check -eq 1 ]; then
    if ! run as_user "$user" env XDG_RUNTIME_DIR="/run/user/$uid" bash "$repo/scripts/security-key-self-check.sh" \
        "$prefix/bin/hybrid-security-key"; then
        say "warning: the self-check did not pass as $user (above); run it at the seat: scripts/security-key-self-check.sh"
    fi
fi
say "done. Log out and in again if the key does not appear; undo with: sudo $0 --uninstall"
