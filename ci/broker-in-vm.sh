# Guest half of ci/run-broker-proof.sh (busybox sh in the blevm guest, booted with
# blevm.modules=uhid,hid_generic): the security key split in two. A root hybrid-key-broker owns
# /dev/uhid and asks a fake systemd-logind (python3-dbusmock's logind template, on the guest's
# private system bus) whose session is active; two unprivileged users, alice (1001, the active
# session c1) and bob (1002, in the background), each run hybrid-security-key as their agent.
# Checks: alice cannot open /dev/uhid nor get any other descriptor from the broker; her agent gets
# a key that fido2-token -L (as alice) lists, owned by her, 0600, that bob cannot open and that
# completes a makeCredential through our phone (hybrid-authenticator as alice, simulated air, a
# loopback relay); the udev properties and tags of the node (udevadm test with our rules); bob's
# agent is refused; switching the seat to bob removes alice's key within a second, her agent
# reports it, and bob's agent gets a key; bob's lock screen (LockedHint) removes his, the unlock returns it. Prints BROKER-MARK lines and "broker-in-vm: PASS".
fail() {
    echo "broker-in-vm: FAIL: $*" >&2
    for f in broker.err alice.out alice.err bob.out bob.err phone.log relay.err; do
        [ -f "$w/$f" ] && { echo "---- $f" >&2; sed 's/^/   /' "$w/$f" >&2; }
    done
    exit 1
}
mark() { read -r up _ </proc/uptime; echo "BROKER-MARK $1 (guest uptime $up s)"; }
# ceremony_wait_line FILE SED-EXPRESSION (waits up to 60 s), shared with the ceremony proof.
. /blevm/work/ceremony-in-vm.sh
now() { read -r up _ </proc/uptime; echo "$up"; }
. /usr/bin/blevm-lib.sh

w=/tmp/broker
rm -rf $w && mkdir -p $w && chmod 755 $w
mark "guest userspace ready"
[ -e /dev/uhid ] || fail "/dev/uhid missing (boot with BLEVM_KARGS=blevm.modules=uhid,hid_generic)"
chmod 600 /dev/uhid && chown 0:0 /dev/uhid

# The chroot with the host's /usr and /etc, for python3-dbusmock and udevadm (as the install proof).
r=/chroot
mkdir -p $r && mount -t tmpfs tmpfs $r || fail "tmpfs for the chroot"
for d in usr etc dev proc sys tmp run/dbus run/udev/rules.d proof; do mkdir -p "$r/$d"; done
for l in bin sbin lib lib64; do ln -s usr/$l "$r/$l"; done
mount -o bind /host/usr $r/usr && mount -o bind /host/etc $r/etc || fail "bind-mounting /usr and /etc"
mount -o bind /dev $r/dev && mount -t proc proc $r/proc && mount -o bind /sys $r/sys || fail "/dev, /proc, /sys"
mount -o bind /blevm/work $r/proof || fail "binding the scripts"

# The private system bus, and logind on it: alice's c1 active on seat0, bob's c2 in the background.
blevm_dbus || fail "the private system bus did not start"
mount -o bind /run/dbus $r/run/dbus || fail "binding the bus into the chroot"
chroot $r /usr/bin/python3 /proof/logind.py start >$w/logind.out 2>&1 || fail "the fake logind: $(cat $w/logind.out)"
cat $w/logind.out
mark "fake logind on the private system bus"

# Users: home and runtime directories of their own (no /etc/passwd entries needed: numeric ids).
for u in 1001 1002; do
    mkdir -p $w/$u/home $w/$u/run $w/$u/air && chown -R $u:$u $w/$u && chmod 700 $w/$u/run $w/$u/air
done
as() { u=$1; shift; util-setpriv --reuid "$u" --regid "$u" --clear-groups --inh-caps=-all --bounding-set=-all -- "$@"; }
as_env() {
    u=$1; shift
    as "$u" env HOME=$w/$u/home XDG_RUNTIME_DIR=$w/$u/run XDG_STATE_HOME=$w/$u/home/state \
        HYBRID_ALLOW_SIMULATED_AIR=1 HYBRID_SIMULATED_AIR_DIR=$w/$u/air "$@"
}

# Least privilege: the users cannot open /dev/uhid at all.
as 1001 sh -c 'exec 3<>/dev/uhid' 2>$w/uhid-open.err && fail "alice opened /dev/uhid"
grep -qi "permission denied" $w/uhid-open.err || fail "opening /dev/uhid as alice did not fail with EACCES: $(cat $w/uhid-open.err)"
echo "alice: /dev/uhid: $(cat $w/uhid-open.err | sed 's/.*: //')"

mkdir -p /run/hybrid-key-broker
/usr/local/bin/hybrid-key-broker --socket /run/hybrid-key-broker/socket >$w/broker.out 2>$w/broker.err &
broker=$!
ceremony_wait_line $w/broker.err 's/.*\(serving on\).*/\1/p' >/dev/null || fail "the broker did not start"
mark "broker serving"

/usr/local/bin/tunnel-relay --host 127.0.0.1 --port 0 >$w/relay.out 2>$w/relay.err &
port=$(ceremony_wait_line $w/relay.out 's/.*listening on [0-9.]*:\([0-9][0-9]*\).*/\1/p') || fail "tunnel-relay did not start"

agent() {
    u=$1; name=$2
    as_env "$u" /usr/local/bin/hybrid-security-key --ble sim --json --no-notifications --no-window --timeout 300 \
        --broker-socket /run/hybrid-key-broker/socket --tunnel-server "0=ws://127.0.0.1:$port" \
        >$w/$name.out 2>$w/$name.err &
}
agent 1001 alice
alice=$!
dev=$(ceremony_wait_line $w/alice.out 's/.*"event":"ready".*"hidraw":"\([^"]*\)".*/\1/p; s/.*"hidraw":"\([^"]*\)".*"event":"ready".*/\1/p') ||
    fail "alice's agent got no key"
mark "alice's key $dev"
alice_hid=$(basename "$(readlink -f "/sys/class/hidraw/${dev#/dev/}/device")")
[ -e "/sys/bus/hid/devices/$alice_hid" ] || fail "no HID device $alice_hid behind $dev"
owner=$(util-stat -c '%u %a' "$dev")
[ "$owner" = "1001 600" ] || fail "$dev is owned/moded '$owner', expected '1001 600'"
echo "alice: $dev owner and mode: $owner"
as 1001 fido2-token -L | tee $w/list || fail "fido2-token -L as alice failed"
grep -q "^$dev" $w/list || fail "fido2-token -L (alice) does not list $dev"
as 1002 sh -c "exec 3<>$dev" 2>$w/bob-open.err && fail "bob opened alice's $dev"
grep -qi "permission denied" $w/bob-open.err || fail "bob's open of $dev did not fail with EACCES: $(cat $w/bob-open.err)"
echo "bob: $dev: $(sed 's/.*: //' $w/bob-open.err)"

# No other descriptor, no second key: the broker's protocol as a hostile agent would speak it.
mkdir -p $r/run/hybrid-key-broker && mount -o bind /run/hybrid-key-broker $r/run/hybrid-key-broker ||
    fail "binding the broker's socket into the chroot"
chroot $r /usr/bin/setpriv --reuid 1001 --regid 1001 --clear-groups /usr/bin/python3 /proof/probe.py /run/hybrid-key-broker/socket other-device ||
    fail "the broker accepted a message carrying another descriptor"
chroot $r /usr/bin/setpriv --reuid 1001 --regid 1001 --clear-groups /usr/bin/python3 /proof/probe.py /run/hybrid-key-broker/socket second-key ||
    fail "the broker gave alice's session a second key"
hidraws=$(ls /dev | grep -c '^hidraw')
[ "$hidraws" = 1 ] || fail "$hidraws hidraw nodes exist, expected alice's one"

# udev: what our rules give the node, without udevd (udevadm test runs the rules).
cp /blevm/work/70-hybrid-security-key.rules $r/run/udev/rules.d/ || fail "copying the rules"
chroot $r /usr/bin/udevadm test "/sys/class/hidraw/${dev#/dev/}" >$w/udevadm.out 2>&1 || fail "udevadm test failed: $(tail -n 20 $w/udevadm.out)"
for want in snap_firefox_firefox snap_chromium_chromium; do
    grep -q "$want" $w/udevadm.out || fail "udevadm test shows no $want: $(grep -iE 'tag|ID_SEC' $w/udevadm.out)"
done
grep -E "^(TAGS|CURRENT_TAGS|ID_SECURITY_TOKEN)=|fido_id" $w/udevadm.out | sed 's/^/udevadm test: /'
mark "udev properties and tags"

# A makeCredential through our phone, alice's phone answering the QR code her agent shows.
(
    n=1
    while kill -0 $alice 2>/dev/null; do
        qr=$(sed -n '/"event":"qr"/p' $w/alice.out | sed -n "${n}p" | sed -n 's/.*"url":"\(FIDO:\/[0-9]*\)".*/\1/p')
        if [ -z "$qr" ]; then sleep 0.1; continue; fi
        # The QR text on standard input ('-'): an argument would show it to every local user (ps).
        printf '%s\n' "$qr" | as_env 1001 env HYBRID_AUTHENTICATOR_PASSPHRASE=broker-proof /usr/local/bin/hybrid-authenticator \
            - --tunnel-url "ws://127.0.0.1:$port" --ble sim --yes --json --packed-attestation \
            --insecure-plaintext-store --store $w/1001/home/passkeys.json >>$w/phone.log 2>&1
        n=$((n + 1))
    done
) &
phone=$!
printf '%s\n%s\n%s\n%s\n' "$(head -c 32 /dev/urandom | base64)" broker.example alice "$(head -c 16 /dev/urandom | base64)" >$w/cred.in
chmod 644 $w/cred.in
as 1001 fido2-cred -M -i $w/cred.in -o $w/1001/cred.out "$dev" es256 || fail "fido2-cred -M as alice failed"
as 1001 fido2-cred -V -i $w/1001/cred.out -o $w/1001/cred.pub es256 || fail "fido2-cred -V rejected alice's credential"
mark "alice: fido2-cred -M through the phone, verified"

# Bob's agent, in the background session: refused, waiting.
agent 1002 bob
bob=$!
ceremony_wait_line $w/bob.out 's/.*"event":"unavailable".*"reason":"\([^"]*\)".*/\1/p' >$w/bob-refusal || fail "bob's agent was not refused"
echo "bob: refused: $(cat $w/bob-refusal)"
grep -q "not the active local session" $w/bob-refusal || fail "bob's refusal does not say why"

# The user switch: alice's key must be gone within a second, her agent told; bob gets his.
chroot $r /usr/bin/python3 /proof/logind.py switch bob >$w/switch.out 2>&1 &
switcher=$!
# Poll for the removal of alice's HID device (every 20 ms, 10 s at most: python starts slowly under
# TCG), by its sysfs name: bob's key may get the same /dev/hidrawN at once. The time counts from
# the moment logind.py sent its first change (its own line, guest clock).
i=0
while [ -e "/sys/bus/hid/devices/$alice_hid" ] && [ $i -lt 500 ]; do sleep 0.02; i=$((i + 1)); done
gone=$(now)
wait $switcher || fail "switching the fake logind to bob: $(cat $w/switch.out)"
cat $w/switch.out
[ -e "/sys/bus/hid/devices/$alice_hid" ] && fail "alice's $alice_hid still exists 10 s after the switch began"
switched=$(sed -n 's/.*switching at uptime \([0-9.]*\).*/\1/p' $w/switch.out)
[ -n "$switched" ] || fail "logind.py did not say when it switched"
took=$(awk -v a="$switched" -v b="$gone" 'BEGIN{printf "%.2f", b-a}')
awk -v t="$took" 'BEGIN{exit !(t < 1.0)}' || fail "alice's key disappeared $took s after the switch (limit 1 s)"
echo "switch to bob: alice's $dev ($alice_hid) gone after $took s"
ceremony_wait_line $w/alice.out 's/.*"event":"removed".*"reason":"\([^"]*\)".*/\1/p' >$w/alice-removed || fail "alice's agent did not report the removal"
echo "alice: removed: $(cat $w/alice-removed)"
bobdev=$(ceremony_wait_line $w/bob.out 's/.*"event":"ready".*"hidraw":"\([^"]*\)".*/\1/p; s/.*"hidraw":"\([^"]*\)".*"event":"ready".*/\1/p') ||
    fail "bob's agent got no key after the switch"
[ "$(util-stat -c '%u %a' "$bobdev")" = "1002 600" ] || fail "bob's $bobdev is not his alone"
as 1001 sh -c "exec 3<>$bobdev" 2>/dev/null && fail "alice opened bob's $bobdev"
echo "bob: key $bobdev (owner 1002, 0600); alice cannot open it"
mark "user switch"

# Bob's screen locker reports the lock (LockedHint): his key goes; unlocked, it comes back.
chroot $r /usr/bin/python3 /proof/logind.py lock bob || fail "locking bob's session"
ceremony_wait_line $w/bob.out 's/.*"event":"removed".*"reason":"\([^"]*\)".*/\1/p' >/dev/null || fail "bob's agent did not report the lock's removal"
[ -e "$bobdev" ] && fail "$bobdev still exists while bob's session is locked"
chroot $r /usr/bin/python3 /proof/logind.py unlock bob || fail "unlocking bob's session"
i=0
until [ "$(grep -c '"event":"ready"' $w/bob.out)" -ge 2 ] || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
[ "$(grep -c '"event":"ready"' $w/bob.out)" -ge 2 ] || fail "bob's key did not come back after the unlock"
echo "bob: locked: key removed; unlocked: key back"
mark "lock screen"

kill $phone $alice $bob 2>/dev/null
kill $broker 2>/dev/null
wait $broker 2>/dev/null
echo "---- broker log"
sed 's/^/   /' $w/broker.err
echo "broker-in-vm: PASS"
