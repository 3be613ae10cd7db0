#!/usr/bin/python3
"""Sets or shows a POSIX access ACL through its extended attribute (system.posix_acl_access, the
format of the kernel's include/uapi/linux/posix_acl_xattr.h), for the guest, which has no
setfacl/getfacl. `grant PATH UID`: a named entry rw for UID with mask rw, as logind's uaccess gives
the seat's user; `show PATH`: the entries, one a line ("user:1001:rw-", "mask::---")."""
import os
import struct
import sys

ATTR = "system.posix_acl_access"
USER_OBJ, USER, GROUP_OBJ, GROUP, MASK, OTHER = 0x01, 0x02, 0x04, 0x08, 0x10, 0x20
NAMES = {USER_OBJ: "user", USER: "user", GROUP_OBJ: "group", GROUP: "group", MASK: "mask", OTHER: "other"}
UNDEFINED = 0xFFFFFFFF


def perms(bits):
    return "".join(c if bits & b else "-" for c, b in (("r", 4), ("w", 2), ("x", 1)))


def grant(path, uid):
    entries = [(USER_OBJ, 6, UNDEFINED), (USER, 6, uid), (GROUP_OBJ, 0, UNDEFINED), (MASK, 6, UNDEFINED),
               (OTHER, 0, UNDEFINED)]
    os.setxattr(path, ATTR, struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *e) for e in entries))


def show(path):
    try:
        data = os.getxattr(path, ATTR)
    except OSError:
        print("(no ACL)")
        return
    for offset in range(4, len(data), 8):
        tag, bits, ident = struct.unpack_from("<HHI", data, offset)
        who = "" if ident == UNDEFINED else str(ident)
        print(f"{NAMES.get(tag, tag)}:{who}:{perms(bits)}")


if __name__ == "__main__":
    if sys.argv[1] == "grant":
        grant(sys.argv[2], int(sys.argv[3]))
    else:
        show(sys.argv[2])
