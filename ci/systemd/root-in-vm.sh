# First half of ci/run-systemd-proof.sh in the blevm guest (busybox sh, run by the guest's init;
# booted with blevm.modules=uhid,hid_generic,overlay). Builds the root that systemd then boots as
# PID 1 (Tools/blevm/guest/init switches to it when this script names it in /blevm/switch-root):
#   /usr, /etc, /var/lib/dpkg  the host's (9p, read-only), each under a writable overlay: the .deb
#         is installed on them by dpkg in the proof; /etc also gets users alice (uid 1001) and bob
#         (1002) in passwd, group and shadow, and the unit that runs the proof (blevm-proof.service);
#   /var, /root, /tmp and the rest: the root's own tmpfs; /proof: this run's scripts.
# systemd mounts /dev, /proc, /sys and /run itself. Nothing of the host is written.
. /usr/bin/blevm-lib.sh
fail() { echo "systemd-root: FAIL: $*" >&2; exit 1; }
[ -e /dev/uhid ] || fail "/dev/uhid missing (boot with blevm.modules=uhid,hid_generic,overlay)"
grep -q overlay /proc/filesystems || fail "no overlayfs (boot with blevm.modules=...,overlay)"
[ -d /host/usr/lib/systemd ] && [ -d /host/etc ] && [ -d /host/var/lib/dpkg ] || fail "the host's /usr, /etc and /var/lib/dpkg are not shared"
ls /blevm/work/hybrid-security-key_*.deb >/dev/null || fail "no .deb among the proof's files"

r=/sysroot
mkdir -p $r && mount -t tmpfs -o mode=0755 tmpfs $r || fail "tmpfs for the root"
for layer in usr etc var/lib/dpkg; do
    mkdir -p $r/.layers/$layer/upper $r/.layers/$layer/work $r/$layer
    mount -t overlay overlay \
        -o lowerdir=/host/$layer,upperdir=$r/.layers/$layer/upper,workdir=$r/.layers/$layer/work $r/$layer ||
        fail "the overlay on /$layer"
done
chmod 0700 $r/.layers
for l in bin sbin lib lib64; do ln -s usr/$l $r/$l; done
mkdir -p $r/dev $r/proc $r/sys $r/run $r/tmp $r/root $r/home $r/proof $r/var/tmp $r/var/lib $r/var/log $r/var/cache
chmod 1777 $r/tmp $r/var/tmp
ln -s ../run $r/var/run
ln -s ../run/lock $r/var/lock

# alice and bob, who log in on tty1 and tty2 in the proof (no password: PAM's account and session
# stacks run, not its authentication).
for user in alice:1001 bob:1002; do
    name=${user%:*} uid=${user#*:}
    echo "$name:x:$uid:$uid:$name:/home/$name:/bin/bash" >>$r/etc/passwd &&
        echo "$name:x:$uid:" >>$r/etc/group &&
        echo "$name:*:20000:0:99999:7:::" >>$r/etc/shadow || fail "adding $name"
    mkdir -p $r/home/$name && chown $uid:$uid $r/home/$name && chmod 0700 $r/home/$name
done

cp /blevm/work/* $r/proof/ || fail "copying the proof's scripts"
cp $r/proof/blevm-proof.service $r/etc/systemd/system/blevm-proof.service || fail "the proof's unit"
echo "$r blevm-proof.service" >/blevm/switch-root
echo "systemd-root: the root is ready at $r (the host's /usr, /etc and /var/lib/dpkg under overlays)"
