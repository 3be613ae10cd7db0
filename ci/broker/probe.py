#!/usr/bin/python3
"""Talks to the key broker's socket the way a hostile or second agent would, with nothing of ours:
the messages are written from docs/security-key.md's table. Prints one line per check and exits
non-zero if the broker did anything but refuse.
  probe.py SOCKET second-key   -> a second agent of a user whose session has a key: refused (key in use)
  probe.py SOCKET other-device -> asks for another device (a keyboard's report descriptor): disconnected
  probe.py SOCKET refused      -> a user without the active session: refused (session not active)
  probe.py SOCKET no-session UID -> (as root) UID, which has no session at all: refused at once, closed
  probe.py SOCKET flood BASE USERS EACH STOPFILE
      -> (as root) uids BASE.. each keep EACH silent connections open, reconnecting when the broker
         closes one, until STOPFILE exists; fails if a silent connection outlived DEADLINE_LIMIT s
         or none was closed for its silence"""
import os
import selectors
import socket
import sys
import time

REQUEST_KEY = bytes([0x01, 0x01])
REFUSED = 0x85
REASONS = {1: "session not active", 2: "key in use", 3: "device failed", 4: "unsupported version",
           5: "sessions unknown", 6: "too many agents", 7: "no session"}
# A silent connection must be closed within this many seconds (the broker's deadline is a few
# seconds; the rest is slack for a loaded TCG guest).
DEADLINE_LIMIT = 15.0
# A boot keyboard's report descriptor (HID 1.11 appendix B.1), prefixed with a made-up type byte.
KEYBOARD = bytes([0x05, 0x01, 0x09, 0x06, 0xA1, 0x01, 0x05, 0x07, 0x19, 0xE0, 0x29, 0xE7, 0x15, 0x00,
                  0x25, 0x01, 0x75, 0x01, 0x95, 0x08, 0x81, 0x02, 0xC0])


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(10)
    s.connect(path)
    return s


def connect_as(path, uid):
    """A connection whose SO_PEERCRED names uid (the kernel records the effective uid at connect).
    Blocking while it connects: a full listen backlog then waits instead of failing."""
    os.seteuid(uid)
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        s.setblocking(True)
        s.connect(path)
        s.setblocking(False)
        return s
    finally:
        os.seteuid(0)


def flood(path, base, users, each, stop):
    selector = selectors.DefaultSelector()
    opened = {}  # socket -> (uid, time connected)
    retries = []  # (time, uid): reconnections waiting, after a refusal (the broker is full)
    silent_closes, refusals, most = [], 0, 0
    announced = False

    def open_one(uid):
        s = connect_as(path, uid)
        opened[s] = (uid, time.monotonic())
        selector.register(s, selectors.EVENT_READ)

    for uid in range(base, base + users):
        for _ in range(each):
            open_one(uid)
    while not os.path.exists(stop):
        most = max(most, len(opened))
        # Held: open for 1.5 s (a refusal comes at once), each of them.
        held_now = sum(1 for _, since in opened.values() if time.monotonic() - since >= 1.5)
        if held_now == users * each and not announced:
            print(f"flood: {len(opened)} connections held", flush=True)
            announced = True
        now = time.monotonic()
        for due, uid in [r for r in retries if r[0] <= now]:
            retries.remove((due, uid))
            open_one(uid)
        refused = set()
        for key, _ in selector.select(timeout=0.2):
            s = key.fileobj
            try:
                data = s.recv(512)
            except (ConnectionResetError, BlockingIOError):
                data = b""
            uid, since = opened[s]
            if data:
                if data[0] == REFUSED:
                    refusals += 1  # refused or evicted (too many agents): the close follows
                    refused.add(uid)
                continue
            selector.unregister(s)
            s.close()
            del opened[s]
            held = time.monotonic() - since
            if held > 1.0:  # a refusal comes at once; a close after seconds is the silence deadline
                silent_closes.append(held)
            # Reconnect at once after the deadline; 0.2 s after a refusal (do not spin on a full broker).
            retries.append((time.monotonic() + (0.2 if held <= 1.0 or uid in refused else 0), uid))
    now = time.monotonic()
    oldest = max((now - since for _, since in opened.values()), default=0.0)
    longest = max(silent_closes, default=0.0)
    print(f"flood: stopped: {len(silent_closes)} silent connections closed by the broker after "
          f"{min(silent_closes, default=0):.1f}..{longest:.1f} s; {refusals} refusals (too many agents); "
          f"most open at once {most}; oldest still open {oldest:.1f} s", flush=True)
    if not silent_closes or longest > DEADLINE_LIMIT or oldest > DEADLINE_LIMIT:
        print(f"flood: FAIL: a silent connection was kept longer than {DEADLINE_LIMIT} s", flush=True)
        return 1
    return 0


def main():
    path, check = sys.argv[1], sys.argv[2]
    if check == "no-session":
        s = connect_as(path, int(sys.argv[3]))
        s.setblocking(True)
        s.settimeout(10)
        answer = s.recv(512)
        closed = s.recv(512) == b""
        if answer == bytes([REFUSED, 7]) and closed:
            print(f"probe: no-session: uid {sys.argv[3]} refused at once ({REASONS[7]}), then closed")
            return 0
        print(f"probe: no-session: FAIL: the broker answered {answer.hex()} (closed: {closed})")
        return 1
    if check == "flood":
        return flood(path, int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6])
    s = connect(path)
    if check in ("second-key", "refused"):
        s.send(REQUEST_KEY)
        answer = s.recv(512)
        want = 2 if check == "second-key" else 1
        if len(answer) == 2 and answer[0] == REFUSED and answer[1] == want:
            print(f"probe: {check}: refused ({REASONS[want]})")
            return 0
        print(f"probe: {check}: FAIL: the broker answered {answer.hex()}")
        return 1
    if check == "other-device":
        for datagram in (bytes([0x03]) + KEYBOARD, bytes([0x01, 0x01]) + KEYBOARD, bytes([0x02]) + KEYBOARD):
            s = connect(path)
            s.send(datagram)
            answer = s.recv(512)
            if answer != b"":
                print(f"probe: other-device: FAIL: {datagram[:3].hex()}… got {answer.hex()} instead of a close")
                return 1
        print("probe: other-device: every descriptor-carrying message was answered with a close")
        return 0
    print(f"probe: unknown check {check}")
    return 2


sys.exit(main())
