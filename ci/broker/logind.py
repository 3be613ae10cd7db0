#!/usr/bin/python3
"""Drives python-dbusmock's logind template (a fake systemd-logind on the guest's private system
bus) for the key broker proof: `start` runs the mock with seat0, Bob's session c2 in the background
and Alice's c1 active; `switch USER` makes USER's session the seat's active one, as logind does on a
user switch (the old session's Active goes false, then the seat's ActiveSession changes, each with
its PropertiesChanged signal); `lock USER` sets LockedHint; `ssh FIRST LAST` gives each uid
FIRST..LAST a remote, seatless session (an SSH login: a user with a session, never a key). Not our code: dbusmock and python3-dbus
are Debian's."""
import os
import subprocess
import sys
import time

import dbus

SESSIONS = {"alice": ("c1", 1001), "bob": ("c2", 1002)}
BASE = "/org/freedesktop/login1"


def mock(bus, path):
    return dbus.Interface(bus.get_object("org.freedesktop.login1", path), "org.freedesktop.DBus.Mock")


def start():
    server = subprocess.Popen([sys.executable, "-m", "dbusmock", "--system", "--template", "logind"],
                              stdout=subprocess.DEVNULL)
    bus = dbus.SystemBus()
    # LOGIND_MOCK_WAIT: seconds the mock gets to start (default 10; python under TCG on a loaded
    # host can need more).
    for _ in range(int(float(os.environ.get("LOGIND_MOCK_WAIT", "10")) * 20)):
        if bus.name_has_owner("org.freedesktop.login1"):
            break
        time.sleep(0.05)
    else:
        sys.exit("logind.py: the mock did not take org.freedesktop.login1")
    main = mock(bus, BASE)
    # AddSession makes each new session the seat's active one: Bob first, then Alice.
    main.AddSession("c2", "seat0", dbus.UInt32(1002), "bob", False)
    main.AddSession("c1", "seat0", dbus.UInt32(1001), "alice", True)
    print(f"logind.py: mock pid {server.pid}, seat0 active session c1 (alice, uid 1001)", flush=True)


def uptime():
    with open("/proc/uptime") as f:
        return f.read().split()[0]


def switch(user):
    bus = dbus.SystemBus()
    target, _ = SESSIONS[user]
    # The guest's clock as the first change goes out: the proof measures the key's removal from here.
    print(f"logind.py: switching at uptime {uptime()}", flush=True)
    for name, (session, _) in SESSIONS.items():
        if session != target:
            mock(bus, f"{BASE}/session/{session}").UpdateProperties(
                "org.freedesktop.login1.Session", {"Active": False})
    mock(bus, f"{BASE}/session/{target}").UpdateProperties("org.freedesktop.login1.Session", {"Active": True})
    # Through Properties.Set: dbusmock's UpdateProperties cannot wrap a struct in a variant.
    seat = dbus.Interface(bus.get_object("org.freedesktop.login1", f"{BASE}/seat/seat0"), dbus.PROPERTIES_IFACE)
    seat.Set("org.freedesktop.login1.Seat", "ActiveSession",
             dbus.Struct((target, dbus.ObjectPath(f"{BASE}/session/{target}")), signature="so", variant_level=1))
    print(f"logind.py: seat0 active session {target} ({user})", flush=True)


def lock(user, locked):
    bus = dbus.SystemBus()
    session, _ = SESSIONS[user]
    mock(bus, f"{BASE}/session/{session}").UpdateProperties(
        "org.freedesktop.login1.Session", {"LockedHint": locked})
    print(f"logind.py: {session} LockedHint={locked}", flush=True)


def ssh(first, last):
    bus = dbus.SystemBus()
    main = mock(bus, BASE)
    for uid in range(first, last + 1):
        user = f"{BASE}/user/{uid}"
        main.AddObject(user, "org.freedesktop.login1.User",
                       {"UID": dbus.UInt32(uid), "Name": f"sub{uid}", "Sessions": dbus.Array([], signature="(so)")}, [])
        session = f"{BASE}/session/ssh{uid}"
        main.AddObject(session, "org.freedesktop.login1.Session", {
            "Id": f"ssh{uid}", "Name": f"sub{uid}", "User": dbus.Struct((dbus.UInt32(uid), dbus.ObjectPath(user))),
            "Seat": dbus.Struct(("", dbus.ObjectPath("/")), signature="so"), "Active": True, "Remote": True,
            "LockedHint": False, "Class": "user"}, [])
        # As logind announces a new session (org.freedesktop.login1.Manager.SessionNew).
        main.EmitSignal("org.freedesktop.login1.Manager", "SessionNew", "so", [f"ssh{uid}", dbus.ObjectPath(session)])
    print(f"logind.py: SSH sessions for uids {first}..{last}", flush=True)


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "start":
        start()
    elif command == "switch":
        switch(sys.argv[2])
    elif command in ("lock", "unlock"):
        lock(sys.argv[2], command == "lock")
    elif command == "ssh":
        ssh(int(sys.argv[2]), int(sys.argv[3]))
    else:
        sys.exit(f"logind.py: unknown command {command}")
