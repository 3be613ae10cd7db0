# Guest half of the fault proof (busybox sh), started by ci/run-fault-proof.sh through
# `blevm-run -S`: the phone as a security key through the faults of daily use. btvirt (hci0 +
# hci1), tunnel-relay on a fixed loopback port, the key as installed: hybrid-key-broker started as
# its units start it (ci/broker/guest-broker.sh) with a fake logind naming uid 1001's session the
# active one, and uid 1001's agent `hybrid-security-key --broker-socket ... --ble hci --adapter hci1
# --json`; our phone (`hybrid-authenticator --ble hci --adapter hci0`, plaintext store) answering
# the QR codes it is told to, libfido2's fido2-cred / fido2-assert as uid 1001 as callers.
#
#   1  the phone SIGKILLed after the handshake (over the tunnel, then over BLE L2CAP)
#   2  the relay restarted mid-ceremony (SIGTERM, SIGKILL after 3 s, started again)
#   3  hci1 powered off while the key waits for the phone, requests while it is off (refused at
#      once, no new QR code), back on; the same for hybrid-client and hybrid-authenticator
#   5  two fido2-assert at the same moment
#   4  the key SIGKILLed during a request, restarted; stale QR images
#   6  FAULTS_LONG_USE (default 20) sign-ins in a row: the key's RSS, fds, threads after 10 and N
#   7  (first, before the LE setting is on) hybrid-client --channel l2cap names the LE setting
#
# Prints `FAULT-TIME <case>: …` lines (guest uptime clock) and "faults-in-vm: PASS".
. /usr/bin/blevm-lib.sh

w=/tmp/faults
rm -rf "$w" && mkdir -p "$w"
port=28080
# ceremony_wait_line FILE SED-EXPRESSION (waits up to 60 s), shared with the ceremony proof.
. /blevm/work/ceremony-in-vm.sh
. /blevm/work/guest-broker.sh
# count, wait_count, wait_gone
. /blevm/work/guest-wait.sh

fail() {
    echo "faults-in-vm: FAIL: $*" >&2
    for f in broker.log key.out key.err relay.err phone.log caller.err client.on.err phone.adapter.log; do
        [ -f "$w/$f" ] && { echo "---- $f (last 40 lines)" >&2; tail -n 40 "$w/$f" | sed 's/^/   /' >&2; }
    done
    exit 1
}
now() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$1" -v b="${2:-$(now)}" 'BEGIN{printf "%.2f", b-a}'; }
timing() { echo "FAULT-TIME $*"; }
step() { echo "---- $*"; }

blevm_btvirt 2 || fail "btvirt did not create hci0 and hci1"
blevm_up hci0 hci1 || fail "hci0/hci1 did not come up"
# 7. A clear reason: with the kernel's LE setting still off (btvirt's default), a client that must
# use the L2CAP channel says so before any QR code, naming the setting.
printf '{"challenge":"AAECAwQFBgcICQoLDA0ODw","rpId":"example.com","userVerification":"discouraged"}\n' >"$w/get.json"
/usr/local/bin/hybrid-client get --options "$w/get.json" --origin https://example.com --ble hci --adapter hci1 \
    --channel l2cap --json --timeout 20 >"$w/client.le.out" 2>"$w/client.le.err"
st=$?
reason=$(grep '"event":"error"' "$w/client.le.err" | tail -n 1)
timing "7 hci1's LE setting off, --channel l2cap: exit $st: $reason"
[ $st -ne 0 ] || fail "hybrid-client --channel l2cap succeeded with the LE setting off"
echo "$reason" | grep -q "LE setting" || fail "hybrid-client did not name the LE setting: $(cat "$w/client.le.err")"
grep -q '"event":"qr"' "$w/client.le.err" && fail "hybrid-client showed a QR code it could not serve"

# The mgmt LE setting on, as bluetoothd sets it on a desktop: without it the kernel refuses LE
# connections and the key falls back to the tunnel (saying why). mgmt may answer "Invalid Index"
# for a moment after btvirt starts.
for index in 0 1; do
    tries=0; until blevm_nostdin btmgmt --index $index info 2>&1 | grep -q 'current settings'; do
        tries=$((tries + 1)); [ $tries -gt 50 ] && fail "mgmt does not know hci$index"; sleep 0.1
    done
    blevm_nostdin btmgmt --index $index le on >/dev/null || fail "btmgmt le on (hci$index)"
done
[ -e /dev/uhid ] || fail "/dev/uhid missing (boot with BLEVM_KARGS=blevm.modules=uhid,hid_generic)"
# As udev leaves it with our rule: root's alone. The broker, as its units start it, hands the key
# to the active session's user; the callers run as that user (uid 1001), whose files live in $w.
chown 0:0 /dev/uhid && chmod 600 /dev/uhid
broker_chroot /chroot
broker_logind /chroot
broker_start "$w/broker.log"
broker_user 1001 "$w"
chown 1001:1001 "$w"
as_user() { broker_as 1001 "$@"; }

relay_start() {
    /usr/local/bin/tunnel-relay --host 127.0.0.1 --port $port >"$w/relay.out" 2>>"$w/relay.err" &
    relay=$!
    ceremony_wait_line "$w/relay.out" 's/.*\(listening on\).*/\1/p' >/dev/null || fail "tunnel-relay did not start"
}

readies=0
key_start() {
    # Raw HCI needs CAP_NET_RAW/NET_ADMIN (bluetoothd's on a desktop, where the agent uses --ble
    # bluez). No runtime directory: the QR image goes to a private directory under /tmp, where
    # case 4 looks for a dead key's stale one.
    BROKER_AGENT_CAPS=+net_raw,+net_admin BROKER_AGENT_RUNTIME_DIR= broker_agent 1001 "$w" key --ble hci \
        --adapter hci1 --json --no-notifications --no-window --timeout "${FAULTS_CEREMONY_TIMEOUT:-90}" --linger 0 \
        --tunnel-server "0=ws://127.0.0.1:$port"
    key=$agent_pid
    readies=$((readies + 1))
    wait_count '"event":"ready"' "$w/key.out" $readies 60 || fail "the key did not report ready"
    dev=$(sed -n 's/.*"hidraw":"\([^"]*\)".*/\1/p' "$w/key.out" | tail -n 1)
    [ -n "$dev" ] || fail "the key named no hidraw node"
    ks_ticks=0; while [ ! -e "$dev" ]; do ks_ticks=$((ks_ticks + 1)); [ $ks_ticks -gt 100 ] && fail "$dev did not appear"; sleep 0.1; done
    broker_owned "$dev" 1001
}

# The phone for the next QR code the key shows (qr events are numbered from 1, in order).
# phone_answer [stall] [extra flags]: `stall` keeps the request unanswered on the phone (no --yes:
# it asks on standard input, which never answers), so that a fault can strike after the handshake.
qrs=0
phone_answer() {
    mode=yes; [ "${1:-}" = stall ] && { mode=stall; shift; }
    qrs=$((qrs + 1))
    wait_count '"event":"qr"' "$w/key.out" $qrs 60 || fail "the key showed no QR code #$qrs"
    qr=$(sed -n '/"event":"qr"/p' "$w/key.out" | sed -n "${qrs}p" | sed -n 's/.*"url":"\(FIDO:\/[0-9]*\)".*/\1/p')
    echo "== phone: QR #$qrs ($mode $*)" >>"$w/phone.log"
    if [ $mode = yes ]; then
        # shellcheck disable=SC2086 # the extra flags are words
        printf '%s\n' "$qr" | /usr/local/bin/hybrid-authenticator - --tunnel-url "ws://127.0.0.1:$port" \
            --ble hci --adapter hci0 --yes --json --packed-attestation --insecure-plaintext-store \
            --store "$w/passkeys.json" "$@" >"$w/phone.$qrs.log" 2>&1 &
    else
        { printf '%s\n' "$qr"; sleep 3600; } | /usr/local/bin/hybrid-authenticator - --tunnel-url "ws://127.0.0.1:$port" \
            --ble hci --adapter hci0 --json --packed-attestation --insecure-plaintext-store \
            --store "$w/passkeys.json" "$@" >"$w/phone.$qrs.log" 2>&1 &
    fi
    phone=$!
}

cdh() { head -c 32 /dev/urandom | base64; }
# assert_start NAME: fido2-assert -G in the background; its exit status lands in $w/NAME.status,
# the guest's uptime when it ended in $w/NAME.ended.
assert_start() {
    printf '%s\n%s\n%s\n' "$(cdh)" "faults.example" "$(sed -n 5p "$w/cred.out")" >"$w/$1.in"
    rm -f "$w/$1.status" "$w/$1.ended"
    {
        as_user fido2-assert -G -i "$w/$1.in" -o "$w/$1.out" "$dev" 2>"$w/$1.err"
        st=$?
        now >"$w/$1.ended"
        echo $st >"$w/$1.status"
    } &
}
ended() { cat "$w/$1.ended"; }
# assert_wait NAME [SECONDS]: waits for it; returns its exit status.
assert_wait() {
    aw_ticks=0
    while [ ! -s "$w/$1.status" ]; do aw_ticks=$((aw_ticks + 1)); [ $aw_ticks -gt $((${2:-120} * 10)) ] && return 124; sleep 0.1; done
    return "$(cat "$w/$1.status")"
}
assert_verified() { as_user fido2-assert -V -i "$w/$1.out" "$w/cred.pub" es256; }
# signin NAME [phone flags]: one sign-in answered by the phone; fails the proof otherwise. Returns
# once the key is at rest: its `closed` event says that the phone session has ended and every
# descriptor and thread of it is released (the caller has its answer before that).
signin() {
    name=$1; shift
    closed_before=$(count '"event":"closed"' "$w/key.out")
    assert_start "$name"
    phone_answer "$@"
    assert_wait "$name" || fail "sign-in $name failed: $(cat "$w/$name.err")"
    assert_verified "$name" || fail "sign-in $name did not verify"
    wait_gone $phone 30 || kill $phone 2>/dev/null
    wait_count '"event":"closed"' "$w/key.out" $((closed_before + 1)) 30 || fail "the key did not report sign-in $name's session closed"
}
# last_key_error: the key's last error event.
last_key_error() { grep '"event":"error"' "$w/key.out" | tail -n 1; }

relay_start
key_start
step "a credential (fido2-cred -M, answered by the phone)"
printf '%s\n%s\n%s\n%s\n' "$(cdh)" "faults.example" "alice" "$(head -c 16 /dev/urandom | base64)" >"$w/cred.in"
{ as_user fido2-cred -M -i "$w/cred.in" -o "$w/cred.out" "$dev" es256 2>"$w/cred.err"; echo $? >"$w/cred.status"; } &
phone_answer
assert_wait cred || fail "fido2-cred -M failed: $(cat "$w/cred.err")"
as_user fido2-cred -V -i "$w/cred.out" -o "$w/cred.pub" es256 || fail "fido2-cred -V rejected the credential"
signin first

# 1. The phone disappears after the handshake: over the tunnel, then over its L2CAP channel.
for channel in tunnel l2cap; do
    flags=; [ $channel = tunnel ] && flags=--no-l2cap
    step "1 ($channel): the phone SIGKILLed after the handshake"
    assert_start phone-killed
    # shellcheck disable=SC2086
    phone_answer stall $flags
    wait_count '"event":"request"' "$w/phone.$qrs.log" 1 90 || fail "the phone never got the request"
    used=$(sed -n 's/.*"channel":"\([a-z0-9]*\)".*/\1/p' "$w/phone.$qrs.log" | tail -n 1)
    [ "$used" = "$channel" ] || fail "the phone was reached over '$used', not $channel (key: $(grep l2capUnavailable "$w/key.out" | tail -n 1))"
    echo "   phone: $(grep -E '"event":"(connected|listeningL2CAP|tunnelUnavailable)"' "$w/phone.$qrs.log" | tr '\n' ' ')"
    t0=$(now)
    kill -9 $phone
    assert_wait phone-killed 60; st=$?
    t1=$(ended phone-killed)
    [ $st -ne 0 ] || fail "the caller succeeded although the phone was killed"
    [ $st -ne 124 ] || fail "the caller got no answer within 60 s of the phone's death"
    timing "1 phone SIGKILL ($used): fault -> caller's error $(since $t0 $t1) s (fido2-assert exit $st: $(tr '\n' ' ' <"$w/phone-killed.err"))"
    echo "   key: $(last_key_error)"
    awk -v a="$t0" -v b="$t1" 'BEGIN{exit !(b - a < 10)}' || fail "the caller's error took more than 10 s"
    signin after-phone-killed-$channel
    next=$(sed -n 's/.*"channel":"\([a-z0-9]*\)".*/\1/p' "$w/phone.$qrs.log" | tail -n 1)
    timing "1 phone SIGKILL ($used): fault -> next success $(since $t0) s (over $next)"
    # The dead phone's LE link must not keep the next one out: the key ends the links it made
    # (OwnedLELink); left to the kernel's idle delay, the next phone's kernel ignored the new link
    # and the key fell back to the tunnel after --l2cap-timeout.
    [ "$channel" = tunnel ] || [ "$next" = l2cap ] ||
        fail "the sign-in after the phone's death over L2CAP went over '$next' (key: $(grep l2capUnavailable "$w/key.out" | tail -n 1))"
done

# 2. The relay restarts mid-ceremony: SIGTERM (drain), SIGKILL after 3 s, start again.
step "2: the relay restarted mid-ceremony"
assert_start relay-restart
phone_answer stall --no-l2cap
wait_count '"event":"request"' "$w/phone.$qrs.log" 1 90 || fail "the phone never got the request"
old_relay=$relay
t0=$(now)
kill -TERM $relay
tk=$t0
wait_gone $relay 3 || { echo "   relay still draining after 3 s (the open tunnel): SIGKILL"; tk=$(now); kill -9 $relay; }
wait_gone $relay 10 || fail "the relay did not end"
drained=$(since $t0)
relay_start
assert_wait relay-restart 60; st=$?
t1=$(ended relay-restart)
[ $st -ne 0 ] && [ $st -ne 124 ] || fail "relay restart: the caller got $st"
timing "2 relay SIGTERM: relay gone after $drained s; SIGTERM -> caller's error $(since $t0 $t1) s, SIGKILL -> caller's error $(since $tk $t1) s (fido2-assert exit $st: $(tr '\n' ' ' <"$w/relay-restart.err"))"
echo "   key: $(last_key_error)"
kill -9 $phone 2>/dev/null
[ "$relay" != "$old_relay" ] || fail "the relay was not restarted"
signin after-relay-restart --no-l2cap
grep -q '"channel":"tunnel"' "$w/phone.$qrs.log" || fail "the sign-in after the restart did not use the tunnel"
timing "2 relay restart: fault -> next success (through the new relay, pid $relay) $(since $t0) s"

# 3. The adapter goes away while the key waits for the phone.
step "3: hci1 powered off while the key waits for the phone"
adapter_off() { blevm_nostdin btmgmt --index "$1" power off >/dev/null 2>&1 || hciconfig "hci$1" down; }
adapter_on() { blevm_nostdin btmgmt --index "$1" power on >/dev/null 2>&1 || hciconfig "hci$1" up; }
assert_start adapter-off
qrs=$((qrs + 1))
wait_count '"event":"qr"' "$w/key.out" $qrs 60 || fail "no QR code for the request"
t0=$(now)
adapter_off 1
assert_wait adapter-off 60; st=$?
t1=$(ended adapter-off)
[ $st -ne 0 ] && [ $st -ne 124 ] || fail "adapter off: the caller got $st"
timing "3 hci1 power off: fault -> caller's error $(since $t0 $t1) s (fido2-assert exit $st: $(tr '\n' ' ' <"$w/adapter-off.err"))"
wait_count '"event":"bluetooth"' "$w/key.out" 1 10 || fail "the key did not report the adapter's loss"
echo "   key: $(grep '"event":"bluetooth"' "$w/key.out" | tail -n 1)"
echo "   key: $(last_key_error)"
awk -v a="$t0" -v b="$t1" 'BEGIN{exit !(b - a < 5)}' || fail "the pending request took more than 5 s to fail"
qr_before=$(count '"event":"qr"' "$w/key.out")
t2=$(now)
assert_start while-off
assert_wait while-off 30; st=$?
[ $st -ne 0 ] && [ $st -ne 124 ] || fail "while off: the caller got $st"
timing "3 while hci1 is off: request -> refusal $(since $t2 "$(ended while-off)") s (fido2-assert exit $st: $(tr '\n' ' ' <"$w/while-off.err"))"
echo "   key: $(last_key_error)"
last_key_error | grep -q "hci1" || fail "the refusal does not name the adapter"
[ "$(count '"event":"qr"' "$w/key.out")" = "$qr_before" ] || fail "a QR code was shown while the adapter was off"

step "3: hybrid-client and hybrid-authenticator without their adapter"
printf '{"challenge":"AAECAwQFBgcICQoLDA0ODw","rpId":"example.com","userVerification":"discouraged"}\n' >"$w/get.json"
client() {
    /usr/local/bin/hybrid-client get --options "$w/get.json" --origin https://example.com --ble hci --adapter hci1 \
        --json --timeout 60 --tunnel-server "0=ws://127.0.0.1:$port" >"$w/client.$1.out" 2>"$w/client.$1.err"
}
t2=$(now)
client off; st=$?
timing "3 hybrid-client with hci1 off: exit $st after $(since $t2) s: $(tail -n 1 "$w/client.off.err")"
[ $st -ne 0 ] || fail "hybrid-client succeeded without its adapter"
adapter_on 1
wait_count '"available":true' "$w/key.out" 1 10 || fail "the key did not report the adapter's return"
{ client on; echo $? >"$w/client.on.status"; } &
wait_count '"event":"qr"' "$w/client.on.err" 1 60 || fail "hybrid-client showed no QR code"
t0=$(now)
adapter_off 1
i=0; while [ ! -s "$w/client.on.status" ]; do i=$((i + 1)); [ $i -gt 300 ] && fail "hybrid-client did not end"; sleep 0.1; done
st=$(cat "$w/client.on.status")
timing "3 hybrid-client, hci1 off while scanning: exit $st after $(since $t0) s: $(tail -n 1 "$w/client.on.err")"
[ "$st" -ne 0 ] || fail "hybrid-client succeeded although its adapter went away"
# The phone on hci0 for that (abandoned) QR code: it advertises for a client that never comes.
qr=$(sed -n 's/.*"url":"\(FIDO:\\\{0,1\}\/[0-9]*\)".*/\1/p' "$w/client.on.err" | head -n 1 | tr -d '\\')
[ -n "$qr" ] || fail "no QR code in hybrid-client's output"
printf '%s\n' "$qr" | /usr/local/bin/hybrid-authenticator - --tunnel-url "ws://127.0.0.1:$port" --ble hci --adapter hci0 \
    --yes --json --insecure-plaintext-store --store "$w/passkeys.json" >"$w/phone.adapter.log" 2>&1 &
lone=$!
wait_count '"event":"advertising"' "$w/phone.adapter.log" 1 60 || fail "the phone did not advertise"
t0=$(now)
adapter_off 0
wait_gone $lone 30 || fail "hybrid-authenticator did not end when its adapter went away"
wait $lone; st=$?
timing "3 hybrid-authenticator, hci0 off while advertising: exit $st after $(since $t0) s: $(tail -n 1 "$w/phone.adapter.log")"
[ $st -ne 0 ] || fail "hybrid-authenticator succeeded although its adapter went away"
adapter_on 0
t0=$(now)
adapter_on 1
wait_count '"available":true' "$w/key.out" 2 10 || fail "the key did not report the adapter's return"
timing "3 hci1 back: the key saw it after $(since $t0) s"
signin after-adapter-back
timing "3 hci1 back: power on -> next success $(since $t0) s (no restart of the key: pid $key)"
rfkill=$(grep -l '^hci1$' /sys/class/rfkill/*/name 2>/dev/null | head -n 1)
if [ -n "$rfkill" ]; then
    soft=${rfkill%/name}/soft
    step "3: hci1 blocked by rfkill while the key waits"
    assert_start rfkill
    qrs=$((qrs + 1))
    wait_count '"event":"qr"' "$w/key.out" $qrs 60 || fail "no QR code for the request"
    t0=$(now)
    echo 1 >"$soft"
    assert_wait rfkill 60; st=$?
    timing "3 hci1 rfkill block: fault -> caller's error $(since $t0 "$(ended rfkill)") s (fido2-assert exit $st)"
    [ $st -ne 0 ] && [ $st -ne 124 ] || fail "rfkill: the caller got $st"
    echo 0 >"$soft"
    adapter_on 1
    wait_count '"available":true' "$w/key.out" 3 10 || fail "the key did not see hci1 after rfkill unblock"
    t0=$(now)
    signin after-rfkill
    timing "3 rfkill unblock: -> next success $(since $t0) s"
else
    echo "   (no rfkill switch for hci1 in this guest: the rfkill case is covered by the unit tests only)"
fi

# 5. Two callers at once. CTAPHID serves one transaction at a time: the other caller gets
# CTAP1_ERR_CHANNEL_BUSY, which libfido2 may retry (then it is queued and gets its own QR code).
# Each answer must reach its own caller: an assertion verifies only over its caller's own client
# data hash.
step "5: two fido2-assert at the same moment"
qr_before=$(count '"event":"qr"' "$w/key.out")
assert_start twin-a
assert_start twin-b
phone_answer
# The first served ends; the other is either refused or queued behind it (a second QR code).
i=0
while [ ! -s "$w/twin-a.status" ] && [ ! -s "$w/twin-b.status" ]; do
    i=$((i + 1)); [ $i -gt 1200 ] && fail "neither caller was answered"; sleep 0.1
done
if wait_count '"event":"qr"' "$w/key.out" $((qr_before + 2)) 20; then
    echo "   the second caller was queued: its own QR code"
    wait_gone $phone 30 || kill $phone 2>/dev/null
    phone_answer
fi
assert_wait twin-a 120; a=$?
assert_wait twin-b 120; b=$?
echo "   twin-a exit $a at $(ended twin-a): $(tr '\n' ' ' <"$w/twin-a.err")"
echo "   twin-b exit $b at $(ended twin-b): $(tr '\n' ' ' <"$w/twin-b.err")"
served=0
for t in a b; do
    if [ "$(cat "$w/twin-$t.status")" = 0 ]; then
        assert_verified twin-$t || fail "twin-$t got an assertion that does not verify over its own client data"
        served=$((served + 1))
    fi
done
shown=$(($(count '"event":"qr"' "$w/key.out") - qr_before))
[ $served -ge 1 ] || fail "neither caller was served"
[ $shown -eq $served ] || fail "$shown QR codes for $served served callers"
timing "5 two callers: $served served one after the other, $shown QR codes; each assertion verifies over its own caller's client data hash"
wait_gone $phone 30 || kill $phone 2>/dev/null

# 4. The key's process dies during a request.
step "4: the key SIGKILLed during a request"
assert_start key-killed
qrs=$((qrs + 1))
wait_count '"event":"qr"' "$w/key.out" $qrs 60 || fail "no QR code for the request"
stale=$(ls -d /tmp/hybrid-qr-*/hybrid-security-key-qr-$key.png 2>/dev/null)
t0=$(now)
kill -9 $key
assert_wait key-killed 30; st=$?
t1=$(ended key-killed)
[ $st -ne 0 ] && [ $st -ne 124 ] || fail "key killed: the caller got $st"
timing "4 key SIGKILL: fault -> caller's error $(since $t0 $t1) s (fido2-assert exit $st: $(tr '\n' ' ' <"$w/key-killed.err"))"
echo "   stale QR image of the dead key: ${stale:-none}"
# The user unit's Restart=on-failure (RestartSec=5) would start it again; here at once.
t2=$(now)
qrs=$(count '"event":"qr"' "$w/key.out")
key_start
timing "4 key restarted: start -> device back $(since $t2) s (the unit adds RestartSec=5)"
[ -z "$stale" ] || [ ! -e "$stale" ] || fail "the restarted key left the dead one's QR image $stale"
signin after-key-restart
timing "4 key SIGKILL: fault -> next success $(since $t0) s (restart included)"

# 6. Long use.
n=${FAULTS_LONG_USE:-20}
step "6: $n sign-ins in a row"
sample() {
    rss=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' /proc/$key/status)
    threads=$(sed -n 's/^Threads:[[:space:]]*\([0-9]*\).*/\1/p' /proc/$key/status)
    fds=$(ls /proc/$key/fd | wc -l)
    pss=$(awk '$1 == "Pss:" { print $2 }' /proc/$key/smaps_rollup)
    echo "$rss $fds $threads $pss"
}
# key_resources: what the key holds, for a failure message (descriptor targets, thread names).
key_resources() {
    for fd in /proc/$key/fd/*; do printf '%s ' "$(readlink "$fd")"; done
    printf '; threads: %s' "$(cat /proc/$key/task/*/comm | sort | tr '\n' ' ')"
}
# Shell functions share the caller's variables (busybox sh has no `local`): the loop's counter has
# a name no helper uses.
# The key starts its tunnel machinery (NIO's event loop: an epoll, an eventfd and a timerfd, and its
# thread) the first time a phone session uses the tunnel, and keeps it for later tunnels. The first
# sign-in goes over the tunnel, so that the key measured after 10 already has it whichever channel
# later sign-ins take (a phone's L2CAP connection that fails or is slow falls back to the tunnel).
t0=$(now)
signins=1
channels=
while [ $signins -le $n ]; do
    if [ $signins -eq 1 ]; then signin long-$signins --no-l2cap; else signin long-$signins; fi
    channels="$channels $(sed -n 's/.*"channel":"\([a-z0-9]*\)".*/\1/p' "$w/phone.$qrs.log" | tail -n 1)"
    rm -f "$w/long-$signins".* "$w/phone.$qrs.log"
    [ $signins -eq 10 ] && { set -- $(sample); rss10=$1 fds10=$2 threads10=$3 pss10=$4; }
    [ $((signins % 10)) -eq 0 ] && echo "   after $signins sign-ins ($(since $t0) s): key RSS, fds, threads, PSS: $(sample)"
    signins=$((signins + 1))
done
set -- $(sample)
timing "6 long use: $n sign-ins in $(since $t0) s ($(echo $channels | tr ' ' '\n' | grep -c '^tunnel$') over the tunnel, $(echo $channels | tr ' ' '\n' | grep -c '^l2cap$') over L2CAP); key at rest after 10: RSS ${rss10} kB (PSS ${pss10} kB), ${fds10} fds, ${threads10} threads; after $n: RSS $1 kB (PSS $4 kB), $2 fds, $3 threads"
timing "6 long use: the broker after $n sign-ins and one key restart: RSS $(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' /proc/$broker_pid/status) kB, PSS $(awk '$1 == "Pss:" { print $2 }' /proc/$broker_pid/smaps_rollup) kB, $(ls /proc/$broker_pid/fd | wc -l) fds"
[ $n -lt 10 ] || {
    [ $(($2 - fds10)) -le 2 ] || fail "open fds grew from $fds10 to $2: $(key_resources)"
    [ $(($3 - threads10)) -le 4 ] || fail "threads grew from $threads10 to $3: $(key_resources)"
    [ $(($1 - rss10)) -le 16384 ] || fail "RSS grew by more than 16 MB ($rss10 kB -> $1 kB)"
}

kill $key 2>/dev/null
wait $key 2>/dev/null
kill $relay 2>/dev/null
echo "faults-in-vm: PASS"
