# Guest half of ci/run-uhid-load-proof.sh (busybox sh in the blevm guest, booted with
# blevm.modules=uhid,hid_generic): no report lost under load. For each build in LOAD_BUILDS
# (directories under /usr/local/bin, default "."): the key in direct mode (as root, as the fault
# proof starts it), a busy loop on every guest core, then ci/uhid-load/long_request.py (python-fido2's
# Fido2Client) signs in LOAD_REQUESTS (default 20) times with 66 64-byte credential IDs, no retry.
# Prints LOAD-REQUEST / LOAD-RESULT lines, the key's reader priority, and "uhid-load: DONE".
. /usr/bin/blevm-lib.sh
. /blevm/work/ceremony-in-vm.sh
w=/tmp/load
rm -rf $w && mkdir -p $w
fail() { echo "uhid-load: FAIL: $*" >&2; [ -f $w/key.err ] && tail -n 20 $w/key.err >&2; exit 1; }
[ -e /dev/uhid ] || fail "/dev/uhid missing (boot with BLEVM_KARGS=blevm.modules=uhid,hid_generic)"
blevm_btvirt 2 || fail "btvirt did not create hci0 and hci1"
blevm_up hci0 hci1 || fail "hci0/hci1 did not come up"

r=/chroot
mkdir -p $r && mount -t tmpfs tmpfs $r || fail "tmpfs for the chroot"
for d in usr etc dev proc sys tmp opt/pyfido2 proof; do mkdir -p "$r/$d"; done
for l in bin sbin lib lib64; do ln -s usr/$l "$r/$l"; done
mount -o bind /host/usr $r/usr && mount -o bind /host/etc $r/etc || fail "bind-mounting /usr and /etc"
mount -o bind /dev $r/dev && mount -t proc proc $r/proc && mount -o bind /sys $r/sys || fail "/dev, /proc, /sys"
mount -o bind /opt/pyfido2 $r/opt/pyfido2 && mount -o bind /blevm/work/uhid-load $r/proof || fail "binding python-fido2"

cores=$(grep -c ^processor /proc/cpuinfo)
status=0
for build in ${LOAD_BUILDS:-.}; do
    /usr/local/bin/$build/hybrid-security-key --uhid /dev/uhid --ble hci --adapter hci1 --json --no-notifications \
        --no-window --timeout 600 --linger 0 --tunnel-server "0=ws://127.0.0.1:9" >$w/key.out 2>$w/key.err &
    key=$!
    dev=$(ceremony_wait_line $w/key.out 's/.*"event":"ready".*"hidraw":"\([^"]*\)".*/\1/p; s/.*"hidraw":"\([^"]*\)".*"event":"ready".*/\1/p') ||
        fail "the key ($build) did not report ready"
    for t in /proc/$key/task/*; do
        [ "$(cat $t/comm)" = uhid-reader ] && echo "LOAD-PRIORITY $build uhid-reader: $(awk '{print "policy " $41 ", nice " $19}' $t/stat)"
    done
    hogs=""
    i=0; while [ $i -lt $cores ]; do sh -c 'while :; do :; done' & hogs="$hogs $!"; i=$((i + 1)); done
    echo "LOAD-HOGS $build $cores busy loops"
    chroot $r /usr/bin/env -i PATH=/usr/bin:/bin PYTHONPATH=/opt/pyfido2 /usr/bin/python3 /proof/long_request.py \
        "$dev" "${LOAD_REQUESTS:-20}" "$build" || status=1
    kill $hogs
    kill $key; wait $key 2>/dev/null
done
echo "uhid-load: DONE"
exit $status
