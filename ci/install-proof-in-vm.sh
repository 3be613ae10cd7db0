# Guest half of ci/run-install-proof.sh's step 4 (busybox sh in the blevm guest, booted with
# blevm.modules=uhid,hid_generic): the .deb's key as it is installed. Its hybrid-key-broker (at the
# path its unit names, /usr/bin/hybrid-key-broker) is started as the .deb's own units start it
# (ci/broker/guest-broker.sh reads them: capability bounding set CAP_CHOWN, no ambient set,
# NoNewPrivileges, umask, Nice) and asks a fake logind, which names uid 1001's session the active
# one; /dev/uhid is root's alone, as the .deb's udev rule leaves it. A chroot made of the host's /usr
# and /etc (9p, read-only) with the guest's /dev, /proc, /sys, a tmpfs /tmp, the broker's socket,
# and the .deb's files at /pkg (unpacked by the host; the chroot has no /opt, so no Swift
# toolchain). In it, ci/install-window-in-chroot.sh runs, as uid 1001, the self-check and the
# security key's QR window test, the key asking the broker for its device as the user unit does.
# Prints "install-proof-in-vm: PASS".
. /usr/bin/blevm-lib.sh
fail() { echo "install-proof-in-vm: FAIL: $*" >&2; [ -f /tmp/broker.log ] && { echo "---- broker.log" >&2; tail -n 30 /tmp/broker.log >&2; }; exit 1; }
mark() { read -r up _ </proc/uptime; echo "INSTALL-MARK $1 (guest uptime $up s)"; }
# ceremony_wait_line (guest-broker.sh's waits)
. /blevm/work/ceremony-in-vm.sh
. /blevm/work/guest-broker.sh

mark "guest userspace ready"
[ -e /dev/uhid ] || fail "/dev/uhid missing (boot with BLEVM_KARGS=blevm.modules=uhid,hid_generic)"
[ -d /host/usr/bin ] && [ -d /host/etc ] || fail "the host's /usr and /etc are not shared (-s /usr:/host/usr:ro)"
[ -x /pkg/usr/bin/hybrid-security-key ] || fail "the .deb's files are not shared at /pkg"
# As the .deb's udev rule leaves it: root's alone. Only the broker opens it.
chown 0:0 /dev/uhid && chmod 600 /dev/uhid

r=/chroot
mkdir -p $r && mount -t tmpfs tmpfs $r || fail "tmpfs for the chroot"
for d in usr etc dev proc sys tmp run pkg proof var/lib/xkb; do mkdir -p "$r/$d"; done
for l in bin sbin lib lib64; do ln -s usr/$l "$r/$l"; done
mount -o bind /host/usr $r/usr && mount -o bind /host/etc $r/etc || fail "bind-mounting /usr and /etc"
mount -o bind /dev $r/dev && mount -o bind /dev/pts $r/dev/pts && mount -o bind /dev/shm $r/dev/shm || fail "/dev"
mount -t proc proc $r/proc && mount -o bind /sys $r/sys && mount -t tmpfs tmpfs $r/tmp || fail "/proc, /sys, /tmp"
mount -o bind /pkg $r/pkg && mount -o bind /blevm/work $r/proof || fail "binding /pkg and the scripts"
[ -e $r/opt ] && fail "the chroot has an /opt"
# The user, uid 1001 (alice): a passwd entry in the chroot (bound over the host's file, which stays
# untouched) and a home of its own.
cp /host/etc/passwd /tmp/passwd.chroot && echo "alice:x:1001:1001:Alice:/tmp/home:/bin/sh" >>/tmp/passwd.chroot &&
    cp /host/etc/group /tmp/group.chroot && echo "alice:x:1001:" >>/tmp/group.chroot &&
    mount -o bind /tmp/passwd.chroot $r/etc/passwd && mount -o bind /tmp/group.chroot $r/etc/group ||
    fail "a passwd entry for uid 1001 in the chroot"
chmod 1777 /dev/shm
mark "the chroot"

# The broker as the .deb's units start it, its socket also in the chroot; the fake logind it asks
# (in a chroot of its own: python3-dbusmock).
broker_chroot /logind-root
broker_logind /logind-root
broker_start /tmp/broker.log $r
mark "fake logind (uid 1001 active) + the .deb's broker socket"

chroot $r /usr/bin/env -i PATH=/usr/bin:/bin HOME=/tmp LANG=C.UTF-8 \
    /usr/bin/bash /proof/install-window-in-chroot.sh /pkg/usr/bin/hybrid-security-key 1001 "$broker_socket" ||
    fail "in the chroot (above)"
grep -q "^CapEff:[[:space:]]*0000000000000001" /proc/$broker_pid/status ||
    fail "the broker's effective capabilities are not CAP_CHOWN alone: $(grep ^Cap /proc/$broker_pid/status | tr '\n' ' ')"
echo "install-proof-in-vm: the broker handed the key to uid 1001 (its log: $(grep -c 'for uid 1001' /tmp/broker.log) hand-overs); its CapEff is CAP_CHOWN alone"
mark "done"
echo "install-proof-in-vm: PASS"
