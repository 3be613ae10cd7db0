# Guest half of ci/run-install-proof.sh's step 4 (busybox sh in the blevm guest, booted with
# blevm.modules=uhid,hid_generic): a chroot made of the host's /usr and /etc (9p, read-only), with
# the guest's /dev, /proc, /sys and a tmpfs /tmp, and the .deb's files at /pkg (unpacked by the
# host; the chroot has no /opt, so no Swift toolchain). In it, ci/install-window-in-chroot.sh runs
# the self-check and the security key's QR window test. Prints "install-proof-in-vm: PASS".
fail() { echo "install-proof-in-vm: FAIL: $*" >&2; exit 1; }
mark() { read -r up _ </proc/uptime; echo "INSTALL-MARK $1 (guest uptime $up s)"; }

mark "guest userspace ready"
[ -e /dev/uhid ] || fail "/dev/uhid missing (boot with BLEVM_KARGS=blevm.modules=uhid,hid_generic)"
[ -d /host/usr/bin ] && [ -d /host/etc ] || fail "the host's /usr and /etc are not shared (-s /usr:/host/usr:ro)"
[ -x /pkg/usr/bin/hybrid-security-key ] || fail "the .deb's files are not shared at /pkg"

r=/chroot
mkdir -p $r && mount -t tmpfs tmpfs $r || fail "tmpfs for the chroot"
for d in usr etc dev proc sys tmp run pkg proof var/lib/xkb; do mkdir -p "$r/$d"; done
for l in bin sbin lib lib64; do ln -s usr/$l "$r/$l"; done
mount -o bind /host/usr $r/usr && mount -o bind /host/etc $r/etc || fail "bind-mounting /usr and /etc"
mount -o bind /dev $r/dev && mount -o bind /dev/pts $r/dev/pts && mount -o bind /dev/shm $r/dev/shm || fail "/dev"
mount -t proc proc $r/proc && mount -o bind /sys $r/sys && mount -t tmpfs tmpfs $r/tmp || fail "/proc, /sys, /tmp"
mount -o bind /pkg $r/pkg && mount -o bind /blevm/work $r/proof || fail "binding /pkg and the scripts"
[ -e $r/opt ] && fail "the chroot has an /opt"
mark "the chroot"

chroot $r /usr/bin/env -i PATH=/usr/bin:/bin HOME=/tmp LANG=C.UTF-8 \
    /usr/bin/bash /proof/install-window-in-chroot.sh /pkg/usr/bin/hybrid-security-key || fail "in the chroot (above)"
mark "done"
echo "install-proof-in-vm: PASS"
