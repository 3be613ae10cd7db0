#!/usr/bin/python3
"""Talks to the key broker's socket the way a hostile or second agent would, with nothing of ours:
the messages are written from docs/security-key.md's table. Prints one line per check and exits
non-zero if the broker did anything but refuse.
  probe.py SOCKET second-key   -> a second agent of a user whose session has a key: refused (key in use)
  probe.py SOCKET other-device -> asks for another device (a keyboard's report descriptor): disconnected
  probe.py SOCKET refused      -> a user without the active session: refused (session not active)"""
import socket
import sys

REQUEST_KEY = bytes([0x01, 0x01])
REFUSED = 0x85
REASONS = {1: "session not active", 2: "key in use", 3: "device failed", 4: "unsupported version",
           5: "sessions unknown", 6: "too many agents"}
# A boot keyboard's report descriptor (HID 1.11 appendix B.1), prefixed with a made-up type byte.
KEYBOARD = bytes([0x05, 0x01, 0x09, 0x06, 0xA1, 0x01, 0x05, 0x07, 0x19, 0xE0, 0x29, 0xE7, 0x15, 0x00,
                  0x25, 0x01, 0x75, 0x01, 0x95, 0x08, 0x81, 0x02, 0xC0])


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(10)
    s.connect(path)
    return s


def main():
    path, check = sys.argv[1], sys.argv[2]
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
