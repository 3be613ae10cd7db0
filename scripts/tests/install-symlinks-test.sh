#!/usr/bin/env bash
# scripts/install.sh --user NAME runs as root but must never act, as root, on a path in NAME's
# home: NAME controls it and can plant symbolic links there. This test (root; CI runs it from
# scripts/test.sh) creates a throwaway user, plants such links pointing at root-owned directories
# in a temporary directory (stand-ins for /etc/systemd/user, which is in every user's unit search
# path), runs install.sh and install.sh --uninstall, and checks that nothing was created, deleted
# or made NAME's outside NAME's home. Also the ordinary case: the unit's link is made in the home,
# owned by NAME, and the uninstall removes it and the directories it made.
# Changes to the system are kept away: a private mount namespace (unshare -m) with empty tmpfs over
# /etc/udev/rules.d, /etc/modules-load.d, /etc/systemd/system (the broker socket's enabling link)
# and /var/lib (the manifest), --prefix in the temporary directory, stand-in binaries (/bin/true)
# with --no-build --bin-dir, --no-self-check. Only the
# user itself is real (useradd; userdel -r at exit).
# INSTALL_SH=PATH tests another install.sh (e.g. an older one, to see these checks fail on it).
# Prints "N passed, M failed"; exit status 1 when a check failed.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
install_sh=${INSTALL_SH:-$repo/scripts/install.sh}
[ "$(id -u)" -eq 0 ] || { echo "install-symlinks-test: needs root (useradd, setpriv, a mount namespace)" >&2; exit 1; }
if [ -z "${INSTALL_SYMLINKS_TEST_NAMESPACE:-}" ]; then
    exec env INSTALL_SYMLINKS_TEST_NAMESPACE=1 unshare --mount --propagation private "$0" "$@"
fi
for dir in /etc/udev/rules.d /etc/modules-load.d /etc/systemd/system /var/lib; do
    mkdir -p "$dir"  # absent only in a bare container; mounted over at once
    mount -t tmpfs -o mode=755 tmpfs "$dir"
done

work=$(mktemp -d /tmp/install-symlinks-test.XXXXXX)
chmod 755 "$work"
name="hst$$"
home="$work/home/$name"
cleanup() {
    userdel -r "$name" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/home" "$work/bin" "$work/etc-systemd-user" "$work/elsewhere"
useradd -m -d "$home" -s /usr/sbin/nologin "$name"
cp /bin/true "$work/bin/hybrid-security-key"
cp /bin/true "$work/bin/hybrid-key-broker"
cp /bin/true "$work/bin/hybrid-client"

passed=0 failed=0
check() {  # check DESCRIPTION COMMAND...: one test, counted.
    local description=$1
    shift
    if "$@"; then
        passed=$((passed + 1)); echo "PASS $description"
    else
        failed=$((failed + 1)); echo "FAIL $description"
    fi
}
as_user() { setpriv --reuid="$(id -u "$name")" --regid="$(id -g "$name")" --init-groups -- "$@"; }
# Everything outside the home: the temporary directory and the tmpfs mounts, with owners.
snapshot() {
    find "$work" /etc/udev/rules.d /etc/modules-load.d /var/lib \( -path "$home" -o -path "$work/prefix" -o -path "$work/log" \) -prune \
        -o -printf '%p %u %y\n' | sort
}
# The same for the temporary directory only (the stand-ins).
snapshot_work() {
    find "$work" \( -path "$home" -o -path "$work/prefix" -o -path "$work/log" \) -prune -o -printf '%p %u %y\n' | sort
}
nothing_of_the_user_outside_home() {
    [ -z "$(find "$work" /etc/udev/rules.d /etc/modules-load.d /var/lib /tmp -xdev -user "$name" \
        ! -path "$home" ! -path "$home/*" 2>/dev/null)" ]
}
run_install() {  # run_install [--uninstall]: install.sh for the user, its output in $work/log.
    "$install_sh" --user "$name" --no-build --bin-dir "$work/bin" --prefix "$work/prefix" --no-self-check "$@" \
        >"$work/log" 2>&1
}
empty() { [ -z "$(ls -A "$1")" ]; }
# unchanged BEFORE AFTER: equal snapshots, else the difference on stdout.
unchanged() { [ "$1" = "$2" ] || { diff <(echo "$1") <(echo "$2") | sed 's/^/     /'; return 1; }; }
reset_home() {
    rm -rf "$home/.config"
    as_user mkdir -p "$home/.config/systemd"
}

# ---- 1: ~/.config/systemd/user is a link to the stand-in for /etc/systemd/user.
reset_home
as_user ln -s "$work/etc-systemd-user" "$home/.config/systemd/user"
before=$(snapshot)
run_install || true
check "1. install through a linked ~/.config/systemd/user creates nothing in its target" empty "$work/etc-systemd-user"
check "1. install: nothing outside the home is the user's" nothing_of_the_user_outside_home
[ -f /var/lib/hybrid-security-key/install-manifest ] && { run_install --uninstall || true; }
check "1. install and uninstall: nothing outside the home created or deleted" unchanged "$before" "$(snapshot)"

# ---- 2: only the .wants directory is a link, to a root-owned directory.
reset_home
as_user mkdir "$home/.config/systemd/user"
as_user ln -s "$work/elsewhere" "$home/.config/systemd/user/graphical-session.target.wants"
before=$(snapshot)
run_install || true
check "2. install through a linked .wants plants no link in its target" empty "$work/elsewhere"
check "2. install: nothing outside the home is the user's" nothing_of_the_user_outside_home
[ -f /var/lib/hybrid-security-key/install-manifest ] && { run_install --uninstall || true; }
check "2. install and uninstall: nothing outside the home created or deleted" unchanged "$before" "$(snapshot)"

# ---- 3: an ordinary install; then the user swaps the .wants directory for a link to a root-owned
# directory holding a hybrid-security-key.service link (as a global enable makes in
# /etc/systemd/user): --uninstall must not delete it through the swapped link.
reset_home
wants="$home/.config/systemd/user/graphical-session.target.wants"
check "3. an ordinary install succeeds" run_install
check "3. the unit's link is in the home, the user's, pointing at the unit" \
    test "$(stat -c %U "$wants/hybrid-security-key.service" 2>/dev/null)" = "$name" -a \
    "$(readlink "$wants/hybrid-security-key.service" 2>/dev/null)" = "$work/prefix/lib/systemd/user/hybrid-security-key.service"
check "3. the directories made in the home are the user's" \
    test "$(stat -c %U "$home/.config/systemd/user" "$wants" 2>/dev/null | sort -u)" = "$name"
ln -s "$work/prefix/lib/systemd/user/hybrid-security-key.service" "$work/elsewhere/hybrid-security-key.service"
as_user mv "$wants" "$home/.config/systemd/user/moved.wants"
as_user ln -s "$work/elsewhere" "$wants"
before=$(snapshot_work)
run_install --uninstall || true
check "3. uninstall through a swapped .wants link deletes nothing in its target" \
    test -L "$work/elsewhere/hybrid-security-key.service"
check "3. uninstall: nothing outside the home (and the installed files) created or deleted" \
    unchanged "$before" "$(snapshot_work)"
check "3. uninstall removed the system files" test ! -e "$work/prefix/bin/hybrid-security-key"
rm -f "$work/elsewhere/hybrid-security-key.service"

# ---- 4: the ordinary uninstall removes the user's link and the directories the install made.
reset_home
run_install || true
run_install --uninstall || true
check "4. the ordinary uninstall removes the link and the directories it made" \
    test ! -e "$home/.config/systemd/user" -a -d "$home/.config/systemd"
check "4. the ordinary uninstall removes the manifest" test ! -e /var/lib/hybrid-security-key/install-manifest

echo "install-symlinks-test: $passed passed, $failed failed"
[ "$failed" -eq 0 ] || { echo "--- last install.sh output:"; cat "$work/log"; exit 1; }
