#!/bin/sh
# Guest script: does btvirt carry an LE connection and an LE credit-based L2CAP channel (CoC)?
# Run from the host (about 40 s under TCG):
#   Tools/blevm/blevm-run -b /usr/bin/l2test:/usr/local/bin/l2test -S Tools/blevm/tests/l2cap-coc-probe.sh
# Prints both l2test logs and btmon's LE connection and LE L2CAP signalling. Expected: "Connected to
# ... (le_public, psm 129 ...)" on both sides, and an LE Connection Response "Connection successful".
# The mgmt "le on" setting is required: without it connect() fails with ECONNREFUSED before any
# HCI traffic (protocol.md §10.9).
. /usr/bin/blevm-lib.sh
blevm_btvirt 2 || exit 1
blevm_up hci0 hci1 || exit 1
# mgmt sometimes answers Invalid Index for a moment after btvirt starts: wait for hci0.
for t in 1 2 3 4 5 6 7 8 9 10; do blevm_nostdin btmgmt --index 0 info 2>&1 | grep -q "current settings" && break; sleep 0.5; done
for i in 0 1; do blevm_nostdin btmgmt --index $i le on; blevm_nostdin btmgmt --index $i bredr off; blevm_nostdin btmgmt --index $i power on; done 2>&1 | tail -6
A0=$(blevm_bdaddr hci0); A1=$(blevm_bdaddr hci1)
echo "hci0=$A0 hci1=$A1"
hciconfig hci0 features | head -5
btmon -w /tmp/trace.btsnoop >/dev/null 2>&1 &
BTMON=$!
sleep 0.5
# hci0: connectable advertising through mgmt (the kernel uses extended advertising; the central
# scans with extended scanning, which did not see a legacy ADV_IND from hciconfig leadv).
blevm_nostdin btmgmt --index 0 connectable on; blevm_nostdin btmgmt --index 0 advertising on; echo "adv rc=$?"; blevm_nostdin btmgmt --index 0 info | tail -3
l2test -d -V le_public -P 129 -i hci0 >/tmp/srv.log 2>&1 &
SRV=$!
sleep 1
timeout 20 l2test -s -V le_public -P 129 -i hci1 -N 3 -b 200 $A0 >/tmp/cli.log 2>&1; echo "client rc=$?"
sleep 1
kill $SRV 2>/dev/null; sleep 0.3; kill -INT $BTMON; sleep 0.5
echo "--- server"; cat /tmp/srv.log | head -20
echo "--- client"; cat /tmp/cli.log | head -20
echo "--- btmon"; btmon -r /tmp/trace.btsnoop 2>/dev/null | grep -E -A6 'LE L2CAP|Connection Complete|Create Connection' | grep -v '^--' | head -120
