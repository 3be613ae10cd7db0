# The key broker as installed, for the guest halves of the key proofs (busybox sh in the blevm
# guest; sourced after blevm-lib.sh and ceremony-in-vm.sh, with fail() defined). One place for:
#   broker_chroot DIR         the host's /usr and /etc (shared -s /usr:/host/usr:ro -s /etc:/host/etc:ro)
#                             as a chroot at DIR, for python3-dbusmock (and udevadm)
#   broker_logind DIR         the guest's private system bus, and the fake systemd-logind
#                             (ci/broker/logind.py, python3-dbusmock) in the chroot DIR: seat0 with
#                             uid 1001's session c1 active and uid 1002's c2 in the background
#   broker_start LOG [DIR]    hybrid-key-broker started as its units start it, read from the unit
#                             files themselves (see below), its socket also in the chroot DIR;
#                             sets broker_pid, broker_socket
#   broker_user UID DIR       a home, runtime and simulated-air directory of UID's own under DIR
#   broker_as UID CMD...      CMD as UID (no groups, no capabilities: an ordinary user)
#   broker_agent UID DIR NAME ARGS...
#                             UID's hybrid-security-key asking the broker for a key (its events
#                             appended to DIR/NAME.out, its log to DIR/NAME.err); sets agent_pid
#   broker_key FILE           waits for the agent's "ready" event in FILE and prints its hidraw node
#   broker_owned DEV UID      fails unless DEV is UID's alone (owner UID, mode 600): the hand-over
#
# The broker's restrictions come from deploy/security-key/hybrid-key-broker.service (copied into
# the guest as /blevm/work/hybrid-key-broker.service) and its socket from hybrid-key-broker.socket:
# ExecStart, User (must be root), CapabilityBoundingSet, AmbientCapabilities, NoNewPrivileges,
# UMask and Nice become a nice + setpriv command line; ListenSequentialPacket and SocketMode become
# systemd-socket-activate's socket (LISTEN_FDS, the fd the unit's broker gets). A directive of
# those in a form this reader does not know fails the proof: the unit and the proof cannot drift.
# Not applied here (they need systemd as PID 1): the mount, device, namespace and system-call
# sandbox lines (ProtectSystem, DevicePolicy, SystemCallFilter, ...). Needs util-setpriv, util-nice
# and util-socket-activate (the host's setpriv, nice and systemd-socket-activate) in /usr/local/bin.

broker_unit=/blevm/work/hybrid-key-broker.service
broker_socket_unit=/blevm/work/hybrid-key-broker.socket

# unit_values FILE SECTION KEY: every value KEY= has in SECTION of the unit FILE, one a line (an
# empty assignment prints an empty line: for list settings it resets what came before).
unit_values() {
    awk -v section="[$2]" -v key="$3" '
        /^[ \t]*(#|;)/ { next }
        /^\[/ { current = $0; next }
        current == section && index($0, key "=") == 1 { print substr($0, length(key) + 2) }' "$1"
}

# unit_caps FILE KEY: sets uc_result to a capability list setting as setpriv's "-all,+cap,..."
# ("" when unset; not printed: fail must end the proof, not a subshell).
# systemd ORs the lines of a list setting, and an empty assignment resets the list.
unit_caps() {
    uc_set= uc_seen=
    while IFS= read -r uc_line; do
        uc_seen=1
        [ -z "$uc_line" ] && { uc_set=; continue; }
        case $uc_line in '~'*) fail "$2=~... (an inverted list) is not understood by the proof's unit reader" ;; esac
        for uc_cap in $uc_line; do
            case $uc_cap in CAP_[A-Z_]*) ;; *) fail "$2: '$uc_cap' is not a capability name" ;; esac
            uc_set="$uc_set,+$(echo "${uc_cap#CAP_}" | tr 'A-Z' 'a-z')"
        done
    done <<EOF
$(unit_values "$1" Service "$2")
EOF
    uc_result=
    [ -n "$uc_seen" ] && uc_result="-all$uc_set"
    return 0
}

# broker_restrictions: sets broker_exec (the unit's ExecStart), broker_setpriv (its capability
# lines for setpriv) and broker_umask, from the unit file.
broker_restrictions() {
    [ -f "$broker_unit" ] || fail "$broker_unit missing (the proof copies deploy/security-key/hybrid-key-broker.service)"
    broker_exec=$(unit_values "$broker_unit" Service ExecStart)
    [ -n "$broker_exec" ] && [ "$(echo "$broker_exec" | wc -l)" = 1 ] || fail "the unit's ExecStart is not one command line"
    br_user=$(unit_values "$broker_unit" Service User)
    [ "$br_user" = root ] || fail "the unit's User is '$br_user'; the proof's reader knows only User=root"
    unit_caps "$broker_unit" CapabilityBoundingSet
    br_bounding=$uc_result
    unit_caps "$broker_unit" AmbientCapabilities
    br_ambient=$uc_result
    [ -n "$br_bounding" ] || fail "the unit has no CapabilityBoundingSet: the broker would keep every capability"
    # Inheritable: systemd gives a root service an empty set unless CapabilityBoundingSet's caps
    # are named by AmbientCapabilities (ambient caps must be inheritable).
    broker_setpriv="--bounding-set=$br_bounding --inh-caps=${br_ambient:--all} --ambient-caps=${br_ambient:--all}"
    case $(unit_values "$broker_unit" Service NoNewPrivileges) in
        yes | true | on | 1) broker_setpriv="$broker_setpriv --no-new-privs" ;;
        '' | no | false | off | 0) ;;
        *) fail "NoNewPrivileges=$(unit_values "$broker_unit" Service NoNewPrivileges) not understood" ;;
    esac
    broker_umask=$(unit_values "$broker_unit" Service UMask)
    [ -n "$broker_umask" ] || broker_umask=0022 # systemd's default for services
    broker_nice=$(unit_values "$broker_unit" Service Nice)
    case ${broker_nice:-0} in
        -[0-9] | -1[0-9] | -20 | [0-9] | 1[0-9]) ;;
        *) fail "Nice=$broker_nice not understood" ;;
    esac
}

broker_chroot() {
    bc_root=$1
    [ -d /host/usr/bin ] && [ -d /host/etc ] || fail "the host's /usr and /etc are not shared (-s /usr:/host/usr:ro -s /etc:/host/etc:ro)"
    mkdir -p "$bc_root" && mount -t tmpfs tmpfs "$bc_root" || fail "tmpfs for the chroot"
    for d in usr etc dev proc sys tmp run/dbus run/udev/rules.d run/hybrid-key-broker proof; do mkdir -p "$bc_root/$d"; done
    for l in bin sbin lib lib64; do ln -s usr/$l "$bc_root/$l"; done
    mount -o bind /host/usr "$bc_root/usr" && mount -o bind /host/etc "$bc_root/etc" || fail "bind-mounting /usr and /etc"
    mount -o bind /dev "$bc_root/dev" && mount -t proc proc "$bc_root/proc" && mount -o bind /sys "$bc_root/sys" || fail "/dev, /proc, /sys"
    mount -o bind /blevm/work "$bc_root/proof" || fail "binding the scripts"
}

broker_logind() {
    bl_root=$1
    blevm_dbus || fail "the private system bus did not start"
    mount -o bind /run/dbus "$bl_root/run/dbus" || fail "binding the bus into the chroot"
    chroot "$bl_root" /usr/bin/python3 /proof/logind.py start >/tmp/logind.out 2>&1 || fail "the fake logind: $(cat /tmp/logind.out)"
    cat /tmp/logind.out
}

broker_start() {
    bs_log=$1 bs_root=${2:-}
    broker_restrictions
    broker_socket=$(unit_values "$broker_socket_unit" Socket ListenSequentialPacket)
    bs_mode=$(unit_values "$broker_socket_unit" Socket SocketMode)
    bs_dir_mode=$(unit_values "$broker_socket_unit" Socket DirectoryMode)
    [ -n "$broker_socket" ] && [ -n "$bs_mode" ] || fail "the socket unit names no ListenSequentialPacket / SocketMode"
    mkdir -p "$(dirname "$broker_socket")" && chmod "${bs_dir_mode:-0755}" "$(dirname "$broker_socket")"
    echo "broker: $broker_socket (mode $bs_mode), started on the first connection as: umask $broker_umask;" \
        "nice -n ${broker_nice:-0} setpriv $broker_setpriv -- $broker_exec"
    # shellcheck disable=SC2086 # the unit's ExecStart and setpriv's options are word lists
    # systemd-socket-activate, like systemd, gives the service a clean environment: the broker
    # finds the system bus at its standard path (where blevm_dbus puts it), or where a test's
    # DBUS_SYSTEM_BUS_ADDRESS says.
    util-socket-activate --seqpacket -l "$broker_socket" ${DBUS_SYSTEM_BUS_ADDRESS:+-E DBUS_SYSTEM_BUS_ADDRESS} -- \
        /bin/sh -c "umask $broker_umask && exec util-nice -n ${broker_nice:-0} util-setpriv $broker_setpriv -- $broker_exec" >"$bs_log" 2>&1 &
    broker_pid=$!
    ceremony_wait_line "$bs_log" 's/^\(Listening on\) .*/\1/p' >/dev/null || fail "the broker's socket was not opened: $(cat "$bs_log")"
    # SocketMode: systemd sets it on the socket it binds; systemd-socket-activate leaves 0644.
    chmod "$bs_mode" "$broker_socket" || fail "chmod $bs_mode $broker_socket"
    if [ -n "$bs_root" ]; then
        mkdir -p "$bs_root$(dirname "$broker_socket")" &&
            mount -o bind "$(dirname "$broker_socket")" "$bs_root$(dirname "$broker_socket")" ||
            fail "binding the broker's socket into the chroot"
    fi
}

broker_user() {
    mkdir -p "$2/$1/home" "$2/$1/run" "$2/$1/air" && chown -R "$1:$1" "$2/$1" && chmod 700 "$2/$1/run" "$2/$1/air"
}

broker_as() {
    ba_uid=$1
    shift
    util-setpriv --reuid "$ba_uid" --regid "$ba_uid" --clear-groups --inh-caps=-all --bounding-set=-all -- "$@"
}

# BROKER_AGENT_CAPS (e.g. +net_raw,+net_admin): capabilities the agent keeps for raw HCI
# (--ble hci), standing in for bluetoothd, which a desktop's agent (--ble bluez) talks to instead.
# BROKER_AGENT_RUNTIME_DIR: its XDG_RUNTIME_DIR (default DIR/UID/run; empty: none, so the QR
# image goes to a private directory under /tmp, where the fault proof looks for stale ones).
# BROKER_AGENT_STDOUT: where its events go instead of DIR/NAME.out (a FIFO the caller reads).
broker_agent() {
    ag_uid=$1 ag_dir=$2 ag_name=$3
    shift 3
    ag_caps="--inh-caps=-all --bounding-set=-all"
    [ -n "${BROKER_AGENT_CAPS:-}" ] &&
        ag_caps="--inh-caps=-all,$BROKER_AGENT_CAPS --ambient-caps=-all,$BROKER_AGENT_CAPS --bounding-set=-all,$BROKER_AGENT_CAPS"
    ag_runtime=${BROKER_AGENT_RUNTIME_DIR-$ag_dir/$ag_uid/run}
    # shellcheck disable=SC2086
    util-setpriv --reuid "$ag_uid" --regid "$ag_uid" --clear-groups $ag_caps -- \
        env HOME="$ag_dir/$ag_uid/home" ${ag_runtime:+XDG_RUNTIME_DIR=$ag_runtime} \
        XDG_STATE_HOME="$ag_dir/$ag_uid/home/state" \
        HYBRID_ALLOW_SIMULATED_AIR=1 HYBRID_SIMULATED_AIR_DIR="$ag_dir/$ag_uid/air" \
        /usr/local/bin/hybrid-security-key --broker-socket "$broker_socket" "$@" \
        >>"${BROKER_AGENT_STDOUT:-$ag_dir/$ag_name.out}" 2>>"$ag_dir/$ag_name.err" &
    agent_pid=$!
}

broker_owned() {
    bo_owner=$(util-stat -c '%u %a' "$1")
    [ "$bo_owner" = "$2 600" ] || fail "$1 is owned/moded '$bo_owner', expected '$2 600' (the broker's hand-over)"
}

broker_key() {
    ceremony_wait_line "$1" 's/.*"event":"ready".*"hidraw":"\([^"]*\)".*/\1/p; s/.*"hidraw":"\([^"]*\)".*"event":"ready".*/\1/p'
}
