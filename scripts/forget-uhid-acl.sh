#!/bin/sh
# Removes what an earlier hybrid-security-key left on /dev/uhid: its udev rule tagged the node
# "uaccess", so logind gave the seat's active user an ACL entry (rw) on it, and udev takes no ACL
# back when a tag goes. setfacl -b (the acl package) removes every entry; mode 0600 then sets the
# ACL mask to nothing, which voids every named entry where setfacl is missing. Run after udev
# reloaded its rules. scripts/install.sh runs this file; scripts/package-deb.sh copies it into the
# .deb's postinst. Usage: forget-uhid-acl.sh [NODE] (default /dev/uhid).
node=${1:-/dev/uhid}
[ -e "$node" ] || exit 0
if command -v setfacl >/dev/null 2>&1; then setfacl -b "$node" || exit 1; fi
chmod 0600 "$node"
