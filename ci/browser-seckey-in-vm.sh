# Guest half of ci/run-browser-seckey-proof.sh (busybox sh in the blevm guest): btvirt (hci0 +
# hci1), tunnel-relay on loopback, and the key as installed: hybrid-key-broker started as its units
# start it (ci/broker/guest-broker.sh reads the unit files) owns /dev/uhid and, asked by uid 1001's
# `hybrid-security-key --broker-socket ... --json --trace-reports` (every CTAPHID report it reads or
# writes, for ci/browser-seckey/ctaphid_trace.py; uid 1001 is the active session of a fake logind),
# creates the FIDO device and hands its node to that user. One `hybrid-authenticator` per QR code is
# the phone (an encrypted store per program). A chroot made of the host's /usr and /etc (9p,
# read-only) runs each program as uid 1001, as a user runs it: driver.py firefox | chromium | fido2
# (SECKEY_PROGRAMS, default all three, in that order). Records go to /out (a host share); the host
# judges them. Prints "browser-seckey-in-vm: DONE".
. /usr/bin/blevm-lib.sh

w=/tmp/seckey
out=/out
rm -rf "$w" && mkdir -p "$w" && chmod 700 "$w"
mark() { read -r up _ </proc/uptime; echo "SECKEY-MARK $1 (guest uptime $up s)"; }
fail() {
    echo "browser-seckey-in-vm: FAIL: $*" >&2
    for f in broker.log bridge.err relay.err phone.log; do [ -f "$w/$f" ] && { echo "---- $f (tail)" >&2; tail -n 30 "$w/$f" | sed 's/^/   /' >&2; }; done
    save
    exit 1
}
save() {
    for f in broker.log bridge.out bridge.ts bridge.err phone.log top.log; do [ -f "$w/$f" ] && cp "$w/$f" "$out/$f"; done
    [ -f "$w/1001/reports.trace" ] && cp "$w/1001/reports.trace" "$out/reports.trace"
}
. /blevm/work/ceremony-in-vm.sh
. /blevm/work/guest-broker.sh

mark "guest userspace ready"
[ -d /host/usr/bin ] && [ -d /host/etc ] || fail "the host's /usr and /etc are not shared (-s /usr:/host/usr:ro)"
blevm_btvirt 2 || fail "btvirt did not create hci0 and hci1"
blevm_up hci0 hci1 || fail "hci0/hci1 did not come up"
[ -e /dev/uhid ] || fail "/dev/uhid missing (boot with BLEVM_KARGS=blevm.modules=uhid,hid_generic)"
# As udev leaves it with our rule: root's alone. Only the broker opens it.
chown 0:0 /dev/uhid && chmod 600 /dev/uhid

# The chroot: the host's /usr and /etc read-only, the guest's /dev, /proc, /sys, a tmpfs /tmp.
r=/chroot
mkdir -p $r && mount -t tmpfs tmpfs $r || fail "tmpfs for the chroot"
for d in usr etc dev proc sys tmp run out opt/pyfido2 proof; do mkdir -p "$r/$d"; done
for l in bin sbin lib lib64; do ln -s usr/$l "$r/$l"; done
mount -o bind /host/usr $r/usr && mount -o bind /host/etc $r/etc || fail "bind-mounting /usr and /etc"
mount -o bind /dev $r/dev && mount -o bind /dev/pts $r/dev/pts && mount -o bind /dev/shm $r/dev/shm || fail "/dev"
mount -t proc proc $r/proc && mount -o bind /sys $r/sys && mount -t tmpfs tmpfs $r/tmp || fail "/proc, /sys, /tmp"
mkdir -p $r/run/seckey && mount -o bind "$w" $r/run/seckey && mount -o bind "$out" $r/out || fail "binding the work dirs"
mount -o bind /opt/pyfido2 $r/opt/pyfido2 && mount -o bind /blevm/work/browser-seckey $r/proof || fail "binding pyfido2 and the driver"
# The user, uid 1001 (alice): a passwd entry in the chroot (bound over the host's file, which stays
# untouched), a home and a runtime directory of its own. The proof's work directory is alice's too:
# the driver writes its signals there, and the phone, which runs as alice as well (below), its stores.
cp /host/etc/passwd /tmp/passwd.chroot && echo "alice:x:1001:1001:Alice:/tmp/home:/bin/sh" >>/tmp/passwd.chroot &&
    cp /host/etc/group /tmp/group.chroot && echo "alice:x:1001:" >>/tmp/group.chroot &&
    mount -o bind /tmp/passwd.chroot $r/etc/passwd && mount -o bind /tmp/group.chroot $r/etc/group ||
    fail "a passwd entry for uid 1001 in the chroot"
mkdir -p $r/tmp/home $r/tmp/xdg && chown 1001:1001 $r/tmp/home $r/tmp/xdg "$w" && chmod 700 $r/tmp/xdg || fail "alice's directories"
chmod 1777 /dev/shm
broker_user 1001 "$w"
mark "btvirt, uhid and the chroot"

# The broker as its units start it, and the fake logind it asks (in a chroot of its own: python3-dbusmock).
broker_chroot /logind-root
broker_logind /logind-root
broker_start "$w/broker.log"
mark "fake logind (uid 1001 active) + broker socket"

/usr/local/bin/tunnel-relay --host 127.0.0.1 --port 0 >"$w/relay.out" 2>"$w/relay.err" &
port=$(ceremony_wait_line "$w/relay.out" 's/.*listening on [0-9.]*:\([0-9][0-9]*\).*/\1/p') || fail "tunnel-relay did not start"

# The key's events, each line stamped with the guest's uptime (driver.py reads the same clock).
stamp() { while IFS= read -r line; do read -r up _ </proc/uptime; echo "$up $line" >>"$w/bridge.ts"; echo "$line"; done; }
mkfifo -m 600 "$w/bridge.fifo" || fail "mkfifo"
stamp <"$w/bridge.fifo" >"$w/bridge.out" &
# uid 1001's agent, as its user unit starts it, with the raw HCI capabilities that bluetoothd has on
# a desktop (where the agent uses --ble bluez) and no other.
# --timeout 120: a request the phone never answers fails within two minutes rather than ten.
# --trace-reports: every CTAPHID report, in-process (an strace of /dev/uhid stopped the key at every
# read, and uhid dropped what it could not queue: python-fido2's 66-ID list arrived cut at 32
# reports); in a file of the user's own.
BROKER_AGENT_CAPS=+net_raw,+net_admin BROKER_AGENT_STDOUT="$w/bridge.fifo" broker_agent 1001 "$w" bridge \
    --ble hci --adapter hci1 --json --no-notifications --no-window --timeout 120 \
    --trace-reports "$w/1001/reports.trace" --tunnel-server "0=ws://127.0.0.1:$port"
echo "$agent_pid" >"$w/key.pid"
dev=$(broker_key "$w/bridge.out") || fail "the agent did not report ready with a hidraw node"
broker_owned "$dev" 1001
grep -q "^CapEff:[[:space:]]*0000000000000001" /proc/$broker_pid/status ||
    fail "the broker's effective capabilities are not CAP_CHOWN alone: $(grep ^Cap /proc/$broker_pid/status | tr '\n' ' ')"
mark "the broker handed uid 1001 $dev (owner 1001, mode 600)"

# The phone: one hybrid-authenticator per QR code, with the store of the program now running
# (store-name, written by driver.py). Encrypted store: only it verifies the user (uv true), as every
# real phone does; a plaintext store answers requests with uv=true CTAP2_ERR_INVALID_OPTION, which
# is not what a program meets with a phone. Created with --insecure-fast-store-kdf (scrypt N=2^14,
# the cheapest the format accepts): at the production N=2^17 each ceremony's unlock alone took
# 10-30 s under TCG. SECKEY_PHONE_STORE=plaintext: quicker local runs of the no-UV paths only.
plaintext=--insecure-fast-store-kdf
export HYBRID_ALLOW_INSECURE_FAST_KDF=1  # the flag is refused without it
[ "${SECKEY_PHONE_STORE:-encrypted}" = plaintext ] && plaintext=--insecure-plaintext-store
export HYBRID_AUTHENTICATOR_PASSPHRASE=browser-seckey-proof
# The phone, a separate device for the user, runs as alice too, with raw HCI's capabilities only:
# then the driver (alice's) can count the credentials in its store (store-PROGRAM.json, 0600).
phone_as="util-setpriv --reuid 1001 --regid 1001 --clear-groups --inh-caps=-all,+net_raw,+net_admin
    --ambient-caps=-all,+net_raw,+net_admin --bounding-set=-all,+net_raw,+net_admin -- env HOME=$w/1001/home"
(
    n=1
    while [ ! -f "$w/stop" ]; do
        qr=$(sed -n 's/^[0-9.]* \(.*"event":"qr".*\)/\1/p' "$w/bridge.ts" | sed -n "${n}p" | sed -n 's/.*"url":"\(FIDO:\/[0-9]*\)".*/\1/p')
        if [ -z "$qr" ]; then sleep 0.1; continue; fi
        # A new QR code while the previous phone still runs (its request was cancelled or timed
        # out): the user gives up on the old one and scans the new one, so it is stopped first.
        [ -f "$w/phone.pid" ] && kill "$(cat "$w/phone.pid")" 2>/dev/null
        [ -n "${phone:-}" ] && wait "$phone"
        store=$(cat "$w/store-name" 2>/dev/null || echo none)
        read -r up _ </proc/uptime
        echo "== phone: ceremony $n for $store at $up" >>"$w/phone.log"
        # phone-holds (written by driver.py for case 6): a user who has not approved yet. No --yes;
        # the consent prompt reads a FIFO nobody writes (setsid: no controlling terminal, so the
        # phone asks on standard input), so only the cancel can end this ceremony. With --yes the
        # phone answered at once and raced the program's cancel (a clean-clone CI lost that race).
        consent=--yes
        if [ -f "$w/phone-holds" ]; then
            consent=
            [ -p "$w/consent.fifo" ] || mkfifo -m 600 "$w/consent.fifo"
        fi
        (
            if [ -z "$consent" ]; then
                # The QR text is the FIFO's first line (standard input, '-'; an argument would show
                # it to every local user through ps); the consent prompt then reads on and waits.
                # shellcheck disable=SC2086 # phone_as is a command line
                setsid $phone_as /usr/local/bin/hybrid-authenticator - --tunnel-url "ws://127.0.0.1:$port" --ble hci \
                    --adapter hci0 --json $plaintext --store "$w/store-$store.json" \
                    <>"$w/consent.fifo" >>"$w/phone.log" 2>&1 &
                printf '%s\n' "$qr" >"$w/consent.fifo"
            else
                # shellcheck disable=SC2086
                printf '%s\n' "$qr" | $phone_as /usr/local/bin/hybrid-authenticator - --tunnel-url "ws://127.0.0.1:$port" --ble hci \
                    --adapter hci0 --yes --json $plaintext --store "$w/store-$store.json" >>"$w/phone.log" 2>&1 &
            fi
            echo $! >"$w/phone.pid"
            wait $!
            rc=$?
            rm -f "$w/phone.pid"
            read -r up _ </proc/uptime
            echo "== phone: ceremony $n exit $rc at $up" >>"$w/phone.log"
        ) &
        phone=$!
        n=$((n + 1))
    done
) &

# What uses the guest's CPU, every 20 s (top.log in the kept records: BROWSER_SECKEY_KEEP).
( while [ ! -f "$w/stop" ]; do { read -r up _ </proc/uptime; echo "== $up"; top -b -n 1 | head -n 14; } >>"$w/top.log"; sleep 20; done ) &

# The relying party's page on http://localhost:8000 (a secure context).
chroot $r /usr/bin/python3 -m http.server 8000 --bind 127.0.0.1 --directory /proof >"$out/http.log" 2>&1 &

# The programs run as alice (uid 1001, no groups, no capabilities), as a user runs them, and open the
# node the broker handed her. (As root, Chromium ran its browser and GPU processes at a negative
# nice, which no user's Chromium can, and starved the phone: 31-42 s from the QR code to its advert.)
# SECKEY_LOAD_REPEAT=N: each program signs in N times with its longest list (driver.py run_load)
# while a busy loop runs on every guest core.
hogs=
if [ -n "${SECKEY_LOAD_REPEAT:-}" ]; then
    for core in $(grep '^processor' /proc/cpuinfo | cut -d: -f2); do sh -c 'while :; do :; done' & hogs="$hogs $!"; done
    mark "load: a busy loop on each of $(grep -c ^processor /proc/cpuinfo) cores"
fi
for program in ${SECKEY_PROGRAMS:-firefox chromium fido2}; do
    mark "$program: start"
    chroot $r /usr/bin/setpriv --reuid 1001 --regid 1001 --clear-groups --inh-caps=-all --bounding-set=-all -- \
        /usr/bin/env -i PATH=/usr/bin:/bin HOME=/tmp/home USER=alice LOGNAME=alice XDG_RUNTIME_DIR=/tmp/xdg LANG=C.UTF-8 \
        SECKEY_DIR=/run/seckey SECKEY_HIDRAW="$dev" PYTHONPATH=/opt/pyfido2 SECKEY_STEP_LIMIT=150 \
        ${SECKEY_UNKNOWN_COUNT:+SECKEY_UNKNOWN_COUNT=$SECKEY_UNKNOWN_COUNT} \
        ${SECKEY_LOAD_REPEAT:+SECKEY_LOAD_REPEAT=$SECKEY_LOAD_REPEAT} \
        /usr/bin/python3 /proof/driver.py "$program" --out /out/records.jsonl || echo "driver $program exited $?"
    for f in firefox.log chromium.log; do [ -f $r/tmp/$f ] && cp $r/tmp/$f "$out/$f"; done
    mark "$program: done"
done

[ -n "$hogs" ] && kill $hogs
touch "$w/stop"
kill "$(cat "$w/key.pid")"
i=0; while [ $i -lt 50 ] && kill -0 "$(cat "$w/key.pid")" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
save
echo "browser-seckey-in-vm: DONE"
