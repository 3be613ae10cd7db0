#!/usr/bin/python3
"""A stand-in agent for the idle benchmark, written from docs/security-key.md's message table and
nothing of ours: asks the key broker for a key (0x01 0x01), prints `created <hidraw>` when the
broker answers 0x81, then holds the connection, reading (and counting) what the broker forwards,
until the broker closes it or the process is killed. It never answers a request."""
import socket
import sys

s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(sys.argv[1])
s.send(bytes([0x01, 0x01]))
reports = 0
while True:
    datagram = s.recv(512)
    if not datagram:
        break
    if datagram[0] == 0x81:
        print("created " + datagram[1:].decode(), flush=True)
    elif datagram[0] == 0x82:
        reports += 1
        print("output report %d" % reports, flush=True)
    else:
        print("message " + datagram.hex(), flush=True)
