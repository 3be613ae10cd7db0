#!/usr/bin/env bash
# Second half of ci/run-systemd-proof.sh: runs as blevm-proof.service in the blevm guest, systemd
# its PID 1, in the root ci/systemd/root-in-vm.sh built (the host's /usr, /etc and /var/lib/dpkg
# under writable overlays). The key as a user gets it after `apt install`:
#  1. systemd-udevd runs, and dpkg -i installs the .deb: its postinst enables and starts
#     hybrid-key-broker.socket; on the first connection systemd starts hybrid-key-broker.service
#     with every line of its sandbox (capabilities, NoNewPrivileges, DevicePolicy/DeviceAllow,
#     ProtectSystem, SystemCallFilter, ...): nothing of it is applied by this script;
#  2. the system bus is Debian's dbus.service with its own policy, and systemd-logind the real one:
#     alice (uid 1001) logs in on tty1 through PAM's "login" stack, and pam_systemd registers her
#     session, the seat's active one;
#  3. logind starts her manager, user@1001.service; her graphical session starts the .deb's user
#     unit hybrid-security-key.service, which the postinst enabled;
#  4. the broker hands alice her key: the hidraw node it names is hers alone (owner 1001, mode 600),
#     also after udev's events for it with a vendor guide's plugdev rule for every hidraw node
#     installed, and answers libfido2's getInfo (fido2-token -I) run as alice; the broker process has CAP_CHOWN
#     as its only capability (bounding and effective), NoNewPrivs, a seccomp filter, /usr read-only
#     as the unit says;
#  5. a user switch: bob (uid 1002) logs in on tty2 in the background and is refused a key; after
#     `loginctl activate` of his session (a VT switch) alice's key is gone and bob has his own,
#     which alice cannot open.
# Prints "systemd-proof: PASS".
set -uo pipefail
start=$EPOCHREALTIME
mark() { echo "SYSTEMD-MARK $1 [$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.1f", b-a}') s]"; }
fail() {
    echo "systemd-proof: FAIL: $*" >&2
    {
        echo "---- hidraw nodes"; ls -ln /dev/hidraw* 2>&1
        echo "---- systemctl --failed"; systemctl --failed --no-pager
        echo "---- journal (last 60 lines)"; journalctl --no-pager -n 60
        echo "---- the broker's journal"; journalctl --no-pager -n 30 -u hybrid-key-broker.service
        echo "---- the users' journals"; journalctl --no-pager -n 30 _UID=1001 + _UID=1002
    } >&2 2>&1
    exit 1
}
# as_user NAME UID CMD...: CMD as that user, as her login runs it (no groups, her runtime directory).
as_user() {
    local name=$1 uid=$2
    shift 2
    setpriv --reuid "$uid" --regid "$uid" --clear-groups -- env HOME="/home/$name" XDG_RUNTIME_DIR="/run/user/$uid" "$@"
}
as_alice() { as_user alice 1001 "$@"; }
as_bob() { as_user bob 1002 "$@"; }
. /proof/guest-wait.sh
# wait_for SECONDS WHAT CMD...: until CMD succeeds (wait_until); fails the proof after SECONDS.
wait_for() {
    local limit=$1 what=$2
    shift 2
    wait_until "$limit" "$@" || fail "$what: not within $limit s"
}

[ "$(cat /proc/1/comm)" = systemd ] || fail "PID 1 is $(cat /proc/1/comm), not systemd"
mark "systemd $(systemctl --version | head -n1 | cut -d' ' -f2) is PID 1"

# 1. udev, as on every system: systemd-udevd and its sockets (Debian's units), then the .deb
#    installed by dpkg, whose postinst reloads udev, enables and starts the broker's socket and
#    enables the user unit for every user (systemctl --global).
# A rule as vendors' setup guides have users install it (for every hidraw node: group plugdev, 0664):
# it must not reach the key's node (deploy/security-key/71-hybrid-security-key-no-uaccess.rules).
mkdir -p /etc/udev/rules.d &&
    echo 'KERNEL=="hidraw*", SUBSYSTEM=="hidraw", MODE="0664", GROUP="plugdev"' >/etc/udev/rules.d/70-vendor-guide.rules ||
    fail "the vendor guide's udev rule"
systemctl start systemd-udevd.service || fail "starting systemd-udevd"
[ -d /run/udev ] || fail "systemd-udevd made no /run/udev"
mark "systemd-udevd"
dpkg -i /proof/hybrid-security-key_*.deb >/tmp/dpkg.log 2>&1 || fail "dpkg -i: $(cat /tmp/dpkg.log)"
systemctl is-enabled --quiet hybrid-key-broker.socket || fail "the postinst did not enable hybrid-key-broker.socket"
systemctl is-active --quiet hybrid-key-broker.socket || fail "the postinst did not start hybrid-key-broker.socket"
[ "$(systemctl --global is-enabled hybrid-security-key.service)" = enabled ] || fail "the postinst did not enable the user unit"
socket=$(systemctl show -P Listen hybrid-key-broker.socket | cut -d' ' -f1)
[ "$socket" = /run/hybrid-key-broker/socket ] || fail "the socket unit listens on '$socket'"
[ "$(stat -c %a "$socket")" = 666 ] || fail "$socket has mode $(stat -c %a "$socket")"
[ "$(stat -c '%u %a' /dev/uhid)" = "0 600" ] || fail "/dev/uhid is $(stat -c '%u %a' /dev/uhid), not root's alone"
mark "dpkg -i: hybrid-key-broker.socket enabled and listening on $socket, the user unit enabled globally"

# 2. Debian's system bus and systemd-logind, and alice logging in on tty1 through PAM's "login"
#    stack: pam_systemd registers her session with logind, which starts user@1001.service.
systemctl start dbus.socket dbus.service systemd-logind.service || fail "starting dbus and systemd-logind"
# login NAME TTY: NAME's login session on /dev/TTY (PAM "login": account and session, no password).
login() {
    systemd-run --quiet --unit="$1-login" -p PAMName=login -p TTYPath="/dev/$2" -p User="$1" \
        /usr/bin/sleep infinity || fail "$1's login on $2"
    wait_for 30 "$1's login session in systemd-logind" sh -c "loginctl show-user $1 -P Display | grep -q ."
    session=$(loginctl show-user "$1" -P Display)
    echo "systemd-proof: logind: $1: $(loginctl show-session "$session" -p Id -p Seat -p VTNr -p Type -p Class -p Active -p Remote | tr '\n' ' ')"
    [ "$(loginctl show-session "$session" -P Seat)" = seat0 ] || fail "$1's session $session is not on seat0"
}
login alice tty1
alice_session=$session
[ "$(loginctl show-session "$alice_session" -P Active)" = yes ] || fail "alice's session $alice_session is not active"
mark "dbus.service, systemd-logind: alice's session $alice_session active on seat0"

# 3. The user's manager (user@UID.service, started by logind for the login) and the desktop: a
#    session target that binds graphical-session.target as GNOME's and KDE's do, which starts the
#    units enabled for it (the .deb's hybrid-security-key.service).
desktop() {
    local name=$1 uid=$2
    wait_for 60 "user@$uid.service active" systemctl is-active --quiet "user@$uid.service"
    [ -d "/run/user/$uid" ] || fail "no /run/user/$uid"
    as_user "$name" "$uid" mkdir -p "/home/$name/.config/systemd/user"
    as_user "$name" "$uid" cp /proof/desktop-proof.target "/home/$name/.config/systemd/user/" || fail "$name's desktop target"
    as_user "$name" "$uid" systemctl --user daemon-reload || fail "$name's systemctl --user"
    as_user "$name" "$uid" systemctl --user start desktop-proof.target || fail "starting $name's desktop"
    unit_file=$(as_user "$name" "$uid" systemctl --user show -P FragmentPath hybrid-security-key.service)
    [ "$unit_file" = /usr/lib/systemd/user/hybrid-security-key.service ] || fail "$name's key unit is '$unit_file'"
    wait_for 30 "$name's hybrid-security-key.service active" \
        as_user "$name" "$uid" systemctl --user is-active --quiet hybrid-security-key.service
}
desktop alice 1001
mark "user@1001.service; her graphical session started the .deb's $unit_file"

# 4. The hand-over: the broker (started by its socket) creates the uhid device and gives alice its node.
# hidraw_of UID: the hidraw node that is UID's alone (owner UID, mode 600), if any.
hidraw_of() {
    local node
    for node in /dev/hidraw*; do
        [ -e "$node" ] && [ "$(stat -c '%u %a' "$node")" = "$1 600" ] && { echo "$node"; return 0; }
    done
    return 1
}
wait_for 60 "a hidraw node of alice's (owner 1001, mode 600)" hidraw_of 1001
node=$(hidraw_of 1001)
mark "the broker handed alice $node"
# udev's own answer for the node (its "add" event may come after the hand-over), and after
# `udevadm trigger` (a "change" event, as any package installation may send): still alice's alone.
udevadm settle --timeout=30 || fail "udevadm settle"
[ "$(stat -c '%u %g %a' "$node")" = "1001 0 600" ] || fail "after udev's add event $node is $(stat -c '%U:%G %a' "$node")"
udevadm trigger --settle --action=change "$node" || fail "udevadm trigger $node"
[ "$(stat -c '%u %g %a' "$node")" = "1001 0 600" ] || fail "after a change event $node is $(stat -c '%U:%G %a' "$node")"
mark "udev (with a plugdev rule for every hidraw node) leaves $node alice's alone, after add and change"
systemctl is-active --quiet hybrid-key-broker.service || fail "hybrid-key-broker.service is not active"
broker=$(systemctl show -P MainPID hybrid-key-broker.service)
info=$(as_alice fido2-token -I "$node" 2>&1) || fail "fido2-token -I $node as alice: $info"
echo "$info" | grep -q "^aaguid: " || fail "getInfo has no aaguid: $info"
echo "$info" | grep -q "FIDO_2_" || fail "getInfo names no FIDO 2 version: $info"
echo "systemd-proof: getInfo from $node as alice: $(echo "$info" | grep -E '^(version strings|aaguid):' | tr '\n' ' ')"
mark "libfido2's getInfo answered as alice"

# What systemd gave the broker, read from the kernel.
status=/proc/$broker/status
grep -q "^CapBnd:[[:space:]]*0000000000000001$" $status || fail "the broker's bounding set: $(grep ^CapBnd $status)"
grep -q "^CapEff:[[:space:]]*0000000000000001$" $status || fail "the broker's effective set: $(grep ^CapEff $status)"
grep -q "^CapAmb:[[:space:]]*0000000000000000$" $status || fail "the broker's ambient set: $(grep ^CapAmb $status)"
grep -q "^NoNewPrivs:[[:space:]]*1$" $status || fail "the broker has no NoNewPrivs"
grep -q "^Seccomp:[[:space:]]*2$" $status || fail "the broker has no seccomp filter: $(grep ^Seccomp $status)"
awk '$5 == "/usr" { for (i = 6; i <= NF; i++) if ($i ~ /^ro/) found = 1 } END { exit !found }' /proc/$broker/mountinfo ||
    fail "/usr is not read-only for the broker"
[ "$(awk '$5 == "/home"' /proc/$broker/mountinfo | wc -l)" -ge 1 ] || fail "ProtectHome: no mount on /home for the broker"
cgroup=/sys/fs/cgroup$(cut -d: -f3 /proc/$broker/cgroup)
echo "systemd-proof: the broker (pid $broker, $cgroup): $(grep -E '^(CapBnd|CapEff|NoNewPrivs|Seccomp):' $status | tr -s '\t\n' '  ')"
mark "the broker's sandbox, as the kernel reports it"
echo "systemd-proof: systemd-analyze security: $(systemd-analyze security --no-pager hybrid-key-broker.service 2>/dev/null | tail -n1)"

# 5. A user switch, as logind does it: bob logs in on tty2 (in the background: VT 1 stays in front),
#    his key unit starts and the broker refuses him; `loginctl activate` switches the VT to his
#    session: alice's key goes, bob gets his own, which alice cannot open.
login bob tty2
bob_session=$session
[ "$(loginctl show-session "$bob_session" -P Active)" = no ] || fail "bob's session $bob_session is active before the switch"
desktop bob 1002
broker_heard_bob() { journalctl --no-pager -o cat -u hybrid-key-broker.service | grep -q ': uid 1002 connected'; }
wait_for 30 "the broker hearing bob's agent" broker_heard_bob
hidraw_of 1002 >/dev/null && fail "bob got a key while alice's session is the active one"
[ "$(stat -c '%u %a' "$node")" = "1001 600" ] || fail "alice's $node changed hands while bob's agent asked"
mark "bob logged in on tty2 (session $bob_session, in the background): his agent is refused"
switch_start=$EPOCHREALTIME
loginctl activate "$bob_session" || fail "loginctl activate $bob_session"
# (The kernel may give bob's key the same node name: what goes is alice's ownership of any node.)
alice_has_no_key() { ! hidraw_of 1001 >/dev/null; }
wait_for 20 "alice's key gone after the switch to bob" alice_has_no_key
gone=$(awk -v a="$switch_start" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.2f", b-a}')
[ "$(loginctl show-session "$bob_session" -P Active)" = yes ] || fail "bob's session is not active after the switch"
wait_for 30 "a hidraw node of bob's (owner 1002, mode 600)" hidraw_of 1002
bob_node=$(hidraw_of 1002)
info=$(as_bob fido2-token -I "$bob_node" 2>&1) || fail "fido2-token -I $bob_node as bob: $info"
echo "$info" | grep -q "^aaguid: " || fail "bob's getInfo has no aaguid: $info"
as_alice fido2-token -I "$bob_node" >/dev/null 2>&1 && fail "alice can open bob's $bob_node"
mark "switched to bob: alice's key gone ${gone} s after loginctl activate; bob has $bob_node, alice cannot open it"

as_bob systemctl --user stop hybrid-security-key.service || fail "stopping bob's key"
bob_has_no_key() { ! hidraw_of 1002 >/dev/null; }
wait_for 20 "bob's node gone after his key stopped" bob_has_no_key
mark "bob's key stopped: $bob_node gone"
echo "systemd-proof: PASS"
