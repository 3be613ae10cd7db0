# Guest half of ci/run-browser-seckey-proof.sh (busybox sh in the blevm guest): btvirt (hci0 +
# hci1), tunnel-relay on loopback, `hybrid-security-key --json` on /dev/uhid with --trace-reports (every
# CTAPHID report it reads or writes, for ci/browser-seckey/ctaphid_trace.py), one
# `hybrid-authenticator` per QR code as the phone (an encrypted store per program), and a chroot
# made of the host's /usr and /etc (9p, read-only) in which each program runs its cases:
# driver.py firefox | chromium | fido2 (SECKEY_PROGRAMS, default all three, in that order).
# Records go to /out (a host share); the host judges them. Prints "browser-seckey-in-vm: DONE".
. /usr/bin/blevm-lib.sh

w=/tmp/seckey
out=/out
rm -rf "$w" && mkdir -p "$w" && chmod 700 "$w"
mark() { read -r up _ </proc/uptime; echo "SECKEY-MARK $1 (guest uptime $up s)"; }
fail() {
    echo "browser-seckey-in-vm: FAIL: $*" >&2
    for f in bridge.err relay.err phone.log; do [ -f "$w/$f" ] && { echo "---- $f (tail)" >&2; tail -n 30 "$w/$f" | sed 's/^/   /' >&2; }; done
    save
    exit 1
}
save() { for f in bridge.out bridge.ts bridge.err phone.log reports.trace top.log; do [ -f "$w/$f" ] && cp "$w/$f" "$out/$f"; done; }
. /blevm/work/ceremony-in-vm.sh

mark "guest userspace ready"
[ -d /host/usr/bin ] && [ -d /host/etc ] || fail "the host's /usr and /etc are not shared (-s /usr:/host/usr:ro)"
blevm_btvirt 2 || fail "btvirt did not create hci0 and hci1"
blevm_up hci0 hci1 || fail "hci0/hci1 did not come up"
[ -e /dev/uhid ] || fail "/dev/uhid missing (boot with BLEVM_KARGS=blevm.modules=uhid,hid_generic)"

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
mkdir -p $r/tmp/home $r/tmp/xdg && chmod 700 $r/tmp/xdg
mark "btvirt, uhid and the chroot"

/usr/local/bin/tunnel-relay --host 127.0.0.1 --port 0 >"$w/relay.out" 2>"$w/relay.err" &
port=$(ceremony_wait_line "$w/relay.out" 's/.*listening on [0-9.]*:\([0-9][0-9]*\).*/\1/p') || fail "tunnel-relay did not start"

# The key's events, each line stamped with the guest's uptime (driver.py reads the same clock).
stamp() { while IFS= read -r line; do read -r up _ </proc/uptime; echo "$up $line" >>"$w/bridge.ts"; echo "$line"; done; }
# --timeout 120: a request the phone never answers fails within two minutes rather than ten.
# --trace-reports: every CTAPHID report, in-process (an strace of /dev/uhid stopped the key at every
# read, and uhid dropped what it could not queue: python-fido2's 66-ID list arrived cut at 32
# reports).
sh -c 'echo $$ >/tmp/seckey/key.pid; exec "$0" "$@"' /usr/local/bin/hybrid-security-key --uhid /dev/uhid --ble hci --adapter hci1 --json --no-notifications --timeout 120 \
    --trace-reports "$w/reports.trace" --tunnel-server "0=ws://127.0.0.1:$port" 2>"$w/bridge.err" | stamp >"$w/bridge.out" &
dev=$(ceremony_wait_line "$w/bridge.out" 's/.*"event":"ready".*"hidraw":"\([^"]*\)".*/\1/p; s/.*"hidraw":"\([^"]*\)".*"event":"ready".*/\1/p') ||
    fail "the bridge did not report ready with a hidraw node"
mark "bridge ready on $dev"

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
                setsid /usr/local/bin/hybrid-authenticator - --tunnel-url "ws://127.0.0.1:$port" --ble hci \
                    --adapter hci0 --json $plaintext --store "$w/store-$store.json" \
                    <>"$w/consent.fifo" >>"$w/phone.log" 2>&1 &
                printf '%s\n' "$qr" >"$w/consent.fifo"
            else
                printf '%s\n' "$qr" | /usr/local/bin/hybrid-authenticator - --tunnel-url "ws://127.0.0.1:$port" --ble hci \
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

# The programs run as root here, and root may raise its own priority: Chromium then ran its
# browser and GPU processes at a negative nice (top.log: "S<"), which no user's Chromium can, and
# the phone, a separate device for a user, got 7-9 % of a vCPU: it took 31-42 s from the QR code to
# its advert, against 8-9 s next to python-fido2. Without CAP_SYS_NICE (setpriv: dropped from the
# bounding set, so no program below has it), a priority change fails as it does for a user.
for program in ${SECKEY_PROGRAMS:-firefox chromium fido2}; do
    mark "$program: start"
    chroot $r /usr/bin/setpriv --bounding-set=-sys_nice -- \
        /usr/bin/env -i PATH=/usr/bin:/bin HOME=/tmp/home XDG_RUNTIME_DIR=/tmp/xdg LANG=C.UTF-8 \
        SECKEY_DIR=/run/seckey SECKEY_HIDRAW="$dev" PYTHONPATH=/opt/pyfido2 SECKEY_STEP_LIMIT=150 \
        ${SECKEY_UNKNOWN_COUNT:+SECKEY_UNKNOWN_COUNT=$SECKEY_UNKNOWN_COUNT} \
        /usr/bin/python3 /proof/driver.py "$program" --out /out/records.jsonl || echo "driver $program exited $?"
    for f in firefox.log chromium.log; do [ -f $r/tmp/$f ] && cp $r/tmp/$f "$out/$f"; done
    mark "$program: done"
done

touch "$w/stop"
kill "$(cat "$w/key.pid")"
i=0; while [ $i -lt 50 ] && kill -0 "$(cat "$w/key.pid")" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
save
echo "browser-seckey-in-vm: DONE"
