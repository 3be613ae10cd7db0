#!/usr/bin/env bash
# Second half of ci/run-systemd-proof.sh: runs as blevm-proof.service in the blevm guest, systemd
# its PID 1, in the root ci/systemd/root-in-vm.sh built (the host's /usr and /etc, the .deb's files
# installed on them). The key as a user gets it after `apt install`:
#  1. systemd-udevd runs, and dpkg -i installs the .deb: its postinst enables and starts
#     hybrid-key-broker.socket; on the first connection systemd starts hybrid-key-broker.service
#     with every line of its sandbox (capabilities, NoNewPrivileges, DevicePolicy/DeviceAllow,
#     ProtectSystem, SystemCallFilter, ...): nothing of it is applied by this script;
#  2. the system bus is Debian's dbus.service with its own policy, and logind is a fake one
#     (ci/broker/logind.py, python3-dbusmock) naming uid 1001's session seat0's active one;
#  3. alice's user manager is user@1001.service (PAM, user-runtime-dir@1001); her graphical session
#     starts the .deb's user unit hybrid-security-key.service, which the postinst enabled;
#  4. the broker hands alice her key: the hidraw node it names is hers alone (owner 1001, mode 600)
#     and answers libfido2's getInfo (fido2-token -I) run as alice; the broker process has CAP_CHOWN
#     as its only capability (bounding and effective), NoNewPrivs, a seccomp filter, /usr read-only
#     and no /dev/hidraw but /dev/uhid in its device cgroup... as the unit says.
# Prints "systemd-proof: PASS".
set -uo pipefail
start=$EPOCHREALTIME
mark() { echo "SYSTEMD-MARK $1 [$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.1f", b-a}') s]"; }
fail() {
    echo "systemd-proof: FAIL: $*" >&2
    {
        echo "---- systemctl --failed"; systemctl --failed --no-pager
        echo "---- journal (last 60 lines)"; journalctl --no-pager -n 60
        echo "---- alice's journal"; journalctl --no-pager -n 30 _UID=1001
    } >&2 2>&1
    exit 1
}
as_alice() { setpriv --reuid 1001 --regid 1001 --clear-groups -- env HOME=/home/alice XDG_RUNTIME_DIR=/run/user/1001 "$@"; }
# wait_for SECONDS WHAT CMD...: until CMD succeeds (systemd's answers, not a fixed sleep, end it).
wait_for() {
    local limit=$1 what=$2
    shift 2
    local until=$(($(date +%s) + limit))
    until "$@" >/dev/null 2>&1; do
        [ "$(date +%s)" -lt "$until" ] || fail "$what: not within $limit s"
        sleep 0.2
    done
}

[ "$(cat /proc/1/comm)" = systemd ] || fail "PID 1 is $(cat /proc/1/comm), not systemd"
mark "systemd $(systemctl --version | head -n1 | cut -d' ' -f2) is PID 1"

# 1. udev, as on every system: systemd-udevd and its sockets (Debian's units), then the .deb
#    installed by dpkg, whose postinst reloads udev, enables and starts the broker's socket and
#    enables the user unit for every user (systemctl --global).
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

# 2. Debian's system bus, and the fake logind on it (before alice's key asks the broker).
systemctl start dbus.socket dbus.service || fail "starting dbus"
systemd-run --quiet --unit=fake-logind -p Type=oneshot -p RemainAfterExit=yes \
    /usr/bin/python3 /proof/logind.py start || fail "the fake logind"
mark "dbus.service and the fake logind (uid 1001's session c1 active)"

# 3. alice's user manager (PAM, user-runtime-dir@1001), and her desktop: a session target that binds
#    graphical-session.target as GNOME's and KDE's do, which starts the units enabled for it (the
#    .deb's hybrid-security-key.service).
systemctl start user@1001.service || fail "user@1001.service"
[ -d /run/user/1001 ] || fail "no /run/user/1001"
as_alice mkdir -p /home/alice/.config/systemd/user
as_alice cp /proof/desktop-proof.target /home/alice/.config/systemd/user/ || fail "alice's desktop target"
as_alice systemctl --user daemon-reload || fail "alice's systemctl --user"
as_alice systemctl --user start desktop-proof.target || fail "starting alice's desktop"
unit_file=$(as_alice systemctl --user show -P FragmentPath hybrid-security-key.service)
[ "$unit_file" = /usr/lib/systemd/user/hybrid-security-key.service ] || fail "alice's key unit is '$unit_file'"
wait_for 30 "alice's hybrid-security-key.service active" as_alice systemctl --user is-active --quiet hybrid-security-key.service
mark "user@1001.service; her graphical session started the .deb's $unit_file"

# 4. The hand-over: the broker (started by its socket) creates the uhid device and gives alice its node.
hidraw_of_alice() {
    local node
    for node in /dev/hidraw*; do
        [ -e "$node" ] && [ "$(stat -c '%u %a' "$node")" = "1001 600" ] && { echo "$node"; return 0; }
    done
    return 1
}
wait_for 60 "a hidraw node of alice's (owner 1001, mode 600)" hidraw_of_alice
node=$(hidraw_of_alice)
mark "the broker handed alice $node"
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

as_alice systemctl --user stop hybrid-security-key.service || fail "stopping alice's key"
wait_for 20 "alice's node gone after her key stopped" sh -c "! test -e $node"
mark "alice's key stopped: $node gone"
echo "systemd-proof: PASS"
