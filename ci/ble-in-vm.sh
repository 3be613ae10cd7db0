# Guest half of the BLE proof: runs inside the blevm guest (busybox sh), started by
# ci/run-ble-proof.sh through `blevm-run -b <test bundle> -S ci/ble-in-vm.sh`.
#   1. raw HCI:    btvirt -l2 (hci0 + hci1 on one virtual air, no bluetoothd);
#                  HYBRID_BLE_PROOF=hci runs KernelHCITests.
#   2. bluetoothd: fresh btvirt, dbus-daemon and bluetoothd;
#                  HYBRID_BLE_PROOF=bluez runs KernelBlueZTests.
# Optional argument: `hci` or `bluez` runs only that phase (default: both).
# Prints a GUEST-MARK line after each step (run-ble-proof.sh turns the gaps between them into
# durations with host timestamps: the guest clock under TCG can jump while the kernel recalibrates
# its TSC) and the tests' TIMING lines; exits non-zero if either phase fails.
. /usr/bin/blevm-lib.sh

bundle=/usr/local/bin/${HYBRID_TEST_BUNDLE:-swift-hybrid-transportPackageTests.xctest}
[ -x "$bundle" ] || { echo "ble-in-vm: FAIL: test bundle $bundle missing" >&2; exit 1; }

mark() { echo "GUEST-MARK $1 (guest uptime $(cut -d' ' -f1 /proc/uptime) s)"; }
fail() { echo "ble-in-vm: FAIL: $*" >&2; [ -f /tmp/btvirt.log ] && cat /tmp/btvirt.log >&2; exit 1; }

mark "guest userspace ready"
phases=${1:-hci bluez}
rc_hci=0 rc_bluez=0

# ---- phase 1: raw HCI ----------------------------------------------------------------------
case " $phases " in *" hci "*)
blevm_btvirt 2 || fail "btvirt did not create hci0 and hci1"
blevm_up hci0 hci1 || fail "hci0/hci1 did not come up"
mark "btvirt + hciconfig up"
HYBRID_BLE_PROOF=hci "$bundle" --testing-library swift-testing --filter KernelHCITests
rc_hci=$?
mark "raw HCI tests"
blevm_btvirt_stop || fail "btvirt did not stop"
;; esac

# ---- phase 2: bluetoothd over D-Bus --------------------------------------------------------
case " $phases " in *" bluez "*)
blevm_btvirt 2 || fail "btvirt did not start"
blevm_up hci0 hci1 || fail "hci0/hci1 did not come up"
mark "btvirt restart + hciconfig up"
blevm_dbus || fail "dbus-daemon did not start"
mark "dbus-daemon"
blevm_bluetoothd || fail "bluetoothd did not start"
mark "bluetoothd owns org.bluez"
# Our D-Bus code must honour DBUS_SYSTEM_BUS_ADDRESS; point it at the guest's bus explicitly.
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=/run/dbus/system_bus_socket
HYBRID_BLE_PROOF=bluez "$bundle" --testing-library swift-testing --filter KernelBlueZTests
rc_bluez=$?
mark "bluetoothd D-Bus tests"
[ $rc_bluez -eq 0 ] || { echo "---- bluetoothd log" >&2; cat /tmp/bluetoothd.log >&2; }
[ -n "${BLE_PROOF_VERBOSE:-}" ] && { echo "---- bluetoothd log"; cat /tmp/bluetoothd.log; }
;; esac

echo "ble-in-vm: raw HCI exit $rc_hci, bluetoothd exit $rc_bluez"
[ $rc_hci -eq 0 ] && [ $rc_bluez -eq 0 ]
