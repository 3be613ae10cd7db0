# Guest half of `scripts/bench-security-key.sh idle` (busybox sh in the blevm guest, booted with
# blevm.modules=uhid,hid_generic): what the security key and its broker cost their machine while
# nobody uses them, and while one request waits for the phone.
#
# For each build in IDLE_BUILDS (directories under /usr/local/bin, default "."; the host script
# adds "before" for a baseline): the key in direct mode (`--uhid /dev/uhid --ble hci --adapter
# hci1`, as root), then the root broker holding one key for a stand-in agent of user 1001
# (ci/broker/hold_key.py: the broker alone is measured) against a fake systemd-logind
# (python3-dbusmock's logind template on the guest's private system bus, as the broker proof). After a settling second, each
# process is sampled over IDLE_WINDOW seconds (default 30): wake-ups = voluntary + nonvoluntary
# context switches summed over /proc/PID/task/*/status, CPU = utime + stime ticks of /proc/PID/stat
# (USER_HZ). Then fido2-cred -M sends a makeCredential that waits for a phone that never comes
# (the key shows its QR code; the broker has forwarded it to the agent), and the window is
# sampled again. Prints `IDLE-BENCH <build> <process> <state> wakeups=N
# per_s=R ticks=T threads=A->B` lines and one `IDLE-THREAD …` line per thread, then "idle-bench: DONE".
. /usr/bin/blevm-lib.sh
. /blevm/work/ceremony-in-vm.sh

w=/tmp/idle
rm -rf $w && mkdir -p $w && chmod 755 $w
window=${IDLE_WINDOW:-30}
fail() {
    echo "idle-bench: FAIL: $*" >&2
    for f in $w/*.err; do [ -f "$f" ] && { echo "---- $f" >&2; tail -n 20 "$f" | sed 's/^/   /' >&2; }; done
    exit 1
}

# ticks PID: utime + stime (fields 14 and 15 of /proc/PID/stat; the name in field 2 has no spaces).
ticks() { awk '{ print $14 + $15 }' /proc/$1/stat; }
threads() { ls /proc/$1/task | wc -l; }
# per_thread PID: "tid comm switches" of each thread.
per_thread() {
    for t in /proc/$1/task/*; do
        echo "$(basename $t) $(cat $t/comm) $(awk '/^(non)?voluntary_ctxt_switches:/ { s += $2 } END { print s + 0 }' $t/status)"
    done
}
# measure BUILD STATE NAME PID [NAME PID]: one window over one or two processes at once.
measure() {
    build=$1; state=$2; shift 2
    set -- "$@"
    for_each() { m_f=$1; shift; while [ $# -ge 2 ]; do $m_f "$1" "$2"; shift 2; done; }
    start_one() {
        per_thread $2 >$w/$1.threads0
        echo "0 $(ticks $2) $(threads $2)" >$w/$1.sample0
    }
    end_one() {
        echo "0 $(ticks $2) $(threads $2)" >$w/$1.sample1
        per_thread $2 >$w/$1.threads1
        kill -0 $2 2>/dev/null || fail "$1 ($build) died during the window"
        read -r s0 c0 n0 <$w/$1.sample0
        read -r s1 c1 n1 <$w/$1.sample1
        # Per thread (a thread that ends in the window takes its count with it; threads=A->B shows it).
        d=$(awk 'NR == FNR { before[$1] = $3; next } { s += $3 - before[$1] } END { print s + 0 }' $w/$1.threads0 $w/$1.threads1)
        echo "IDLE-BENCH $build $1 $state wakeups=$d per_s=$(awk -v d=$d -v t=$window 'BEGIN{printf "%.2f", d/t}') ticks=$((c1 - c0)) threads=$n0->$n1 window=${window}s"
        awk 'NR == FNR { before[$1] = $3; next } { printf "IDLE-THREAD %s %s %s %s %s: %d\n", b, p, st, $1, $2, $3 - before[$1] }' \
            b="$build" p="$1" st="$state" $w/$1.threads0 $w/$1.threads1
    }
    for_each start_one "$@"
    sleep "$window"
    for_each end_one "$@"
}
# memory BUILD NAME PID: the process's RSS and PSS (kB), and the mappings that take most of its PSS
# (each file, anonymous memory as [anon]), from /proc/PID/status, smaps_rollup and smaps.
memory() {
    mem_rss=$(sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\).*/\1/p' /proc/$3/status)
    mem_pss=$(awk '$1 == "Pss:" { print $2 }' /proc/$3/smaps_rollup)
    echo "IDLE-MEMORY $1 $2 rss_kB=$mem_rss pss_kB=$mem_pss"
    awk '$1 ~ /^[0-9a-f]+-[0-9a-f]+$/ { m = ($6 == "" ? "[anon]" : $6); next } $1 == "Pss:" { p[m] += $2 }
        END { for (k in p) print p[k], k }' /proc/$3/smaps | sort -rn | head -n 10 |
        while read -r mem_kb mem_map; do echo "IDLE-MAP $1 $2 $mem_kb kB $mem_map"; done
}
# waiting_request DEVICE AS-USER: a makeCredential the phone never answers, in the background.
waiting_request() {
    printf '%s\n%s\n%s\n%s\n' "$(head -c 32 /dev/urandom | base64)" idle.example alice "$(head -c 16 /dev/urandom | base64)" >$w/cred.in
    chmod 644 $w/cred.in
    if [ "$2" = root ]; then fido2-cred -M -i $w/cred.in -o $w/cred.out "$1" es256 2>$w/cred.err &
    else as "$2" fido2-cred -M -i $w/cred.in -o /dev/null "$1" es256 2>$w/cred.err & fi
    request=$!
}
as() { u=$1; shift; util-setpriv --reuid "$u" --regid "$u" --clear-groups --inh-caps=-all --bounding-set=-all -- "$@"; }

[ -e /dev/uhid ] || fail "/dev/uhid missing (boot with BLEVM_KARGS=blevm.modules=uhid,hid_generic)"
blevm_btvirt 2 || fail "btvirt did not create hci0 and hci1"
blevm_up hci0 hci1 || fail "hci0/hci1 did not come up"
tries=0; until blevm_nostdin btmgmt --index 1 info 2>&1 | grep -q 'current settings'; do
    tries=$((tries + 1)); [ $tries -gt 50 ] && fail "mgmt does not know hci1"; sleep 0.1
done
blevm_nostdin btmgmt --index 1 le on >/dev/null || fail "btmgmt le on"

# The chroot with the host's /usr and /etc for the fake logind (python3-dbusmock).
r=/chroot
mkdir -p $r && mount -t tmpfs tmpfs $r || fail "tmpfs for the chroot"
for d in usr etc dev proc sys tmp run/dbus proof; do mkdir -p "$r/$d"; done
for l in bin sbin lib lib64; do ln -s usr/$l "$r/$l"; done
mount -o bind /host/usr $r/usr && mount -o bind /host/etc $r/etc || fail "bind-mounting /usr and /etc"
mount -o bind /dev $r/dev && mount -t proc proc $r/proc && mount -o bind /sys $r/sys || fail "/dev, /proc, /sys"
mount -o bind /blevm/work $r/proof || fail "binding the scripts"
blevm_dbus || fail "the private system bus did not start"
mount -o bind /run/dbus $r/run/dbus || fail "binding the bus into the chroot"
chroot $r /usr/bin/env LOGIND_MOCK_WAIT=120 /usr/bin/python3 /proof/logind.py start >$w/logind.out 2>&1 || fail "the fake logind: $(cat $w/logind.out)"

for build in ${IDLE_BUILDS:-.}; do
    bin=/usr/local/bin/$build
    if [ -x $bin/hybrid-security-key ]; then
        # The key in direct mode, as the fault proof starts it.
        $bin/hybrid-security-key --uhid /dev/uhid --ble hci --adapter hci1 --json --no-notifications --no-window \
            --timeout 600 --tunnel-server "0=ws://127.0.0.1:9" >$w/key.out 2>$w/key.err &
        key=$!
        dev=$(ceremony_wait_line $w/key.out 's/.*"event":"ready".*"hidraw":"\([^"]*\)".*/\1/p; s/.*"hidraw":"\([^"]*\)".*"event":"ready".*/\1/p') ||
            fail "the key ($build) did not report ready"
        sleep 1
        measure "$build" idle key-direct $key
        memory "$build" key-direct $key
        waiting_request "$dev" root
        ceremony_wait_line $w/key.out 's/.*"event":"\(qr\)".*/\1/p' >/dev/null || fail "the key ($build) showed no QR code"
        sleep 1
        measure "$build" waiting key-direct $key
        kill $request 2>/dev/null; kill $key; wait $key 2>/dev/null
    fi

    # The broker, holding one key for a stand-in agent of user 1001 (ci/broker/hold_key.py).
    mkdir -p /run/hybrid-key-broker $r/run/hybrid-key-broker && rm -f /run/hybrid-key-broker/socket
    $bin/hybrid-key-broker --socket /run/hybrid-key-broker/socket >$w/broker.out 2>$w/broker.err &
    broker=$!
    ceremony_wait_line $w/broker.err 's/.*\(serving on\).*/\1/p' >/dev/null || fail "the broker ($build) did not start"
    mountpoint -q $r/run/hybrid-key-broker || mount -o bind /run/hybrid-key-broker $r/run/hybrid-key-broker ||
        fail "binding the broker's socket into the chroot"
    chroot $r /usr/bin/setpriv --reuid 1001 --regid 1001 --clear-groups /usr/bin/python3 /proof/hold_key.py \
        /run/hybrid-key-broker/socket >$w/agent.out 2>$w/agent.err &
    agent=$!
    dev=$(ceremony_wait_line $w/agent.out 's/^created \(.*\)/\1/p') || fail "the stand-in agent ($build) got no key"
    sleep 1
    measure "$build" idle broker $broker
    memory "$build" broker $broker
    waiting_request "$dev" 1001
    ceremony_wait_line $w/agent.out 's/^\(output report\) 1$/\1/p' >/dev/null || fail "the broker ($build) forwarded no request"
    sleep 1
    measure "$build" waiting broker $broker
    kill $request 2>/dev/null; kill $agent 2>/dev/null
    kill $broker; wait $broker 2>/dev/null
done
echo "idle-bench: DONE"
