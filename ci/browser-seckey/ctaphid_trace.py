#!/usr/bin/python3
"""Turns hybrid-security-key's `--trace-reports` file ("EPOCH program|key HEX" a line), or an
strace of its /dev/uhid (strace -f -ttt -xx -s 8192 -e trace=read,write,readv,writev -P
/dev/uhid), into the CTAPHID messages exchanged, one JSON object a line:
{"t": epoch, "dir": "program"|"key", "cid", "cmd", "bytes": hex, "ctap": decoded}.

uhid events: UHID_OUTPUT (6) carries what the program wrote to hidraw (the key reads it),
UHID_INPUT2 (12) what the key answers. CTAPHID packets are reassembled per direction and channel
(CTAP 2.2 §11.2.4). CBOR requests are decoded with cbor2 and flagged when their encoding is not
CTAP2 canonical (re-encoding canonically gives other bytes), which is how Firefox's options map
reached the key as CTAP2_ERR_INVALID_CBOR.
"""
import json
import re
import sys

import cbor2

UHID_OUTPUT, UHID_INPUT2 = 6, 12
COMMANDS = {0x01: "PING", 0x03: "MSG", 0x04: "LOCK", 0x06: "INIT", 0x08: "WINK", 0x10: "CBOR",
            0x11: "CANCEL", 0x3B: "KEEPALIVE", 0x3F: "ERROR"}
CTAP = {0x01: "makeCredential", 0x02: "getAssertion", 0x04: "getInfo", 0x06: "clientPIN",
        0x08: "getNextAssertion", 0x0B: "selection", 0x0A: "credentialManagement"}
STATUS = {0x00: "OK", 0x01: "INVALID_COMMAND", 0x11: "CBOR_UNEXPECTED_TYPE", 0x12: "INVALID_CBOR",
          0x14: "MISSING_PARAMETER", 0x19: "CREDENTIAL_EXCLUDED", 0x26: "UNSUPPORTED_ALGORITHM",
          0x27: "OPERATION_DENIED", 0x2B: "UNSUPPORTED_OPTION", 0x2C: "INVALID_OPTION",
          0x2D: "KEEPALIVE_CANCEL", 0x2E: "NO_CREDENTIALS", 0x2F: "USER_ACTION_TIMEOUT",
          0x30: "NOT_ALLOWED", 0x31: "PIN_INVALID", 0x35: "PIN_NOT_SET", 0x36: "PIN_REQUIRED",
          0x3C: "UP_REQUIRED", 0x7F: "OTHER"}

LINE = re.compile(r'^(?P<pid>\d+)\s+(?P<t>\d+\.\d+)\s+(?:(?P<call>read|write|readv|writev)\(|<\.\.\. (?P<resumed>read|write|readv|writev) resumed>)(?P<rest>.*)$')
DATA = re.compile(r'"((?:\\x[0-9a-f]{2})*)"')
TRACE = re.compile(r'^(?P<t>\d+\.\d+) (?P<dir>program|key) (?P<hex>[0-9a-f]*)$')


def events(lines):
    """(t, direction, report bytes) for every report in the trace or uhid event in the strace."""
    for line in lines:
        r = TRACE.match(line.strip())
        if r:
            yield float(r.group("t")), r.group("dir"), bytes.fromhex(r.group("hex"))
            continue
        m = LINE.match(line)
        if not m:
            continue
        if "<unfinished" in line or (m.group("resumed") or "").startswith("write"):
            continue  # a read's data is printed when it returns, a write's when it starts
        d = DATA.search(m.group("rest"))
        if not d:
            continue
        data = bytes.fromhex(d.group(1).replace("\\x", ""))
        if len(data) < 4:
            continue
        kind = int.from_bytes(data[0:4], "little")
        t = float(m.group("t"))
        if kind == UHID_OUTPUT and len(data) >= 4 + 4096 + 2:
            size = int.from_bytes(data[4 + 4096:4 + 4098], "little")
            report = data[4:4 + size]
            if size == 65:
                report = report[1:]  # report number 0
            yield t, "program", report
        elif kind == UHID_INPUT2 and len(data) >= 6:
            size = int.from_bytes(data[4:6], "little")
            yield t, "key", data[6:6 + size]


def messages(reports):
    pending = {}
    for t, direction, report in reports:
        if len(report) < 5:
            continue
        cid = report[0:4].hex()
        if report[4] & 0x80:
            length = int.from_bytes(report[5:7], "big")
            pending[(direction, cid)] = [t, report[4] & 0x7F, length, bytearray(report[7:7 + length])]
        else:
            entry = pending.get((direction, cid))
            if entry is None:
                continue
            entry[3] += report[5:5 + entry[2] - len(entry[3])]
        entry = pending.get((direction, cid))
        if entry is not None and len(entry[3]) >= entry[2]:
            del pending[(direction, cid)]
            yield entry[0], direction, cid, entry[1], bytes(entry[3])


def jsonish(value, limit=48):
    if isinstance(value, bytes):
        return value.hex() if len(value) <= limit else "%s…(%d bytes)" % (value[:limit].hex(), len(value))
    if isinstance(value, dict):
        return {str(k): jsonish(v) for k, v in value.items()}
    if isinstance(value, list):
        return [jsonish(v) for v in value]
    return value


def describe(direction, cmd, payload, request_command):
    name = COMMANDS.get(cmd, "0x%02x" % cmd)
    out = {"cmd": name}
    if name == "KEEPALIVE":
        out["status"] = {1: "PROCESSING", 2: "UPNEEDED"}.get(payload[0] if payload else -1, payload.hex())
    elif name == "ERROR":
        out["error"] = payload.hex()
    elif name == "CBOR" and payload:
        if direction == "program":
            out["ctap"] = CTAP.get(payload[0], "0x%02x" % payload[0])
            body = payload[1:]
        else:
            out["ctap"] = "response to %s" % request_command
            out["status"] = STATUS.get(payload[0], "0x%02x" % payload[0])
            body = payload[1:]
        if body:
            try:
                decoded = cbor2.loads(body)
                out["cbor"] = jsonish(decoded)
                if direction == "program" and cbor2.dumps(decoded, canonical=True) != body:
                    out["non_canonical"] = True
            except Exception as error:
                out["cbor_error"] = str(error)
    return out


def main():
    with open(sys.argv[1], errors="replace") as f:
        lines = f.read().splitlines()
    last = {}
    keepalives = None
    for t, direction, cid, cmd, payload in messages(events(lines)):
        info = describe(direction, cmd, payload, last.get(cid))
        if direction == "program" and info.get("ctap"):
            last[cid] = info["ctap"]
        record = {"t": t, "dir": direction, "cid": cid, **info, "length": len(payload)}
        # Collapse runs of identical keepalives into one line with a count.
        if info["cmd"] == "KEEPALIVE":
            if keepalives and keepalives["cid"] == cid and keepalives["status"] == info["status"]:
                keepalives["count"] += 1
                keepalives["until"] = t
                continue
            if keepalives:
                print(json.dumps(keepalives))
            keepalives = dict(record, count=1, until=t)
            continue
        if keepalives:
            print(json.dumps(keepalives))
            keepalives = None
        print(json.dumps(record))
    if keepalives:
        print(json.dumps(keepalives))


if __name__ == "__main__":
    main()
