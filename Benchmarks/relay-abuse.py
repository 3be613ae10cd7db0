#!/usr/bin/env python3
"""Abuse and fault harness for tunnel-relay, on loopback, bounded in time.

For each pattern it starts a fresh relay (release build, default limits), runs real ceremonies
from 127.0.0.1 while an attacker process attacks from its own address (127.0.0.2, .3, ...), and
prints: the relay's peak RSS (VmHWM) during the pattern, its RSS after the settle time, whether
/healthz answered (answered/asked), and the ceremonies' success rate and median time next to an
idle relay.

A "ceremony" is the pairing plus a Noise-shaped exchange through the relay, sized like a real QR
ceremony (protocol.md §7.7): /cable/new, /cable/connect, msg1 81 B, msg2 81 B, post-handshake
112 B, update 528 B, request 176 B, response 400 B, shutdown 48 B, close frames both ways.

Usage: relay-abuse.py --relay PATH [--attack S] [--settle S] [--patterns a,b] [--short]
--short: ping flood and pre-pairing flood only, 8 s each, 5 s settle, and exit status 1 if the
RSS bound or the 99 % ceremony target is missed.
"""
import argparse
import asyncio
import os
import random
import re
import resource
import signal
import socket
import statistics
import struct
import subprocess
import sys
import time

MASK = b"\x11\x22\x33\x44"
CEREMONY_TIMEOUT = 10.0
CEREMONY_MESSAGES = [  # (sender, size)
    ("client", 81), ("phone", 81), ("phone", 112), ("phone", 528),
    ("client", 176), ("phone", 400), ("client", 48),
]


def frame(opcode, payload, fin=True, rsv=0, masked=True):
    """A client frame (masked unless told otherwise)."""
    head = bytes([(0x80 if fin else 0) | rsv | opcode])
    n = len(payload)
    m = 0x80 if masked else 0
    if n < 126:
        head += bytes([m | n])
    elif n < 65536:
        head += bytes([m | 126]) + struct.pack(">H", n)
    else:
        head += bytes([m | 127]) + struct.pack(">Q", n)
    if not masked:
        return head + payload
    return head + MASK + mask_bytes(payload)


def mask_bytes(payload):
    """XOR with the repeated mask, as one big-integer operation (fast for 1 MiB payloads)."""
    key = (MASK * (len(payload) // 4 + 1))[: len(payload)]
    return (int.from_bytes(payload, "big") ^ int.from_bytes(key, "big")).to_bytes(len(payload), "big")


def upgrade(path, host="127.0.0.1"):
    return (f"GET {path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
            "Sec-WebSocket-Protocol: fido.cable\r\n\r\n").encode()


def tunnel_id():
    return os.urandom(16).hex().upper()


async def open_conn(port, source="127.0.0.1", rcvbuf=None, tls=None):
    """A TCP connection to the relay on loopback; with `tls` (an `ssl.SSLContext`), wss to "localhost"."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # else Nagle + delayed ACK: ~40 ms a turn
    sock.bind((source, 0))
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
    if tls is None:
        return await asyncio.open_connection(sock=sock)
    return await asyncio.open_connection(sock=sock, ssl=tls, server_hostname="localhost")


async def read_head(reader):
    head = await reader.readuntil(b"\r\n\r\n")
    return head.decode("latin-1")


async def read_frame(reader):
    """(opcode, payload) of the next server frame that is not a ping/pong."""
    while True:
        b0, b1 = await reader.readexactly(2)
        n = b1 & 0x7F
        if n == 126:
            n = struct.unpack(">H", await reader.readexactly(2))[0]
        elif n == 127:
            n = struct.unpack(">Q", await reader.readexactly(8))[0]
        payload = await reader.readexactly(n)
        if b0 & 0x0F not in (0x9, 0xA):
            return b0 & 0x0F, payload


async def ceremony(port, tls=None):
    """One ceremony (over TLS with `tls`, an `ssl.SSLContext`); returns its duration in seconds
    (raises on failure, including any message that does not arrive byte for byte)."""
    start = time.perf_counter()
    writers = []
    try:
        ends = await open_tunnel(port, tls, writers)
        (_, cw), (pr, _) = ends["client"], ends["phone"]
        for sender, size in CEREMONY_MESSAGES:
            await exchange(ends, sender, size)
        cw.write(frame(0x8, struct.pack(">H", 1000)))
        opcode, _ = await read_frame(pr)  # the phone learns the peer closed
        if opcode != 0x8:
            raise RuntimeError("no close")
        return time.perf_counter() - start
    finally:
        for writer in writers:
            writer.close()


async def open_tunnel(port, tls, writers):
    """Opens /cable/new, then /cable/connect with the routing ID it got (over TLS with `tls`);
    returns {"phone": (reader, writer), "client": (reader, writer)}. Appends each writer to
    `writers` as soon as it exists: the caller closes them, also when this raises."""
    tid = tunnel_id()
    pr, pw = await open_conn(port, tls=tls)
    writers.append(pw)
    pw.write(upgrade(f"/cable/new/{tid}"))
    head = await read_head(pr)
    match = re.search(r"(?i)x-cable-routing-id:\s*([0-9a-f]{6})", head)
    if " 101 " not in head.split("\r\n")[0] or not match:
        raise RuntimeError("new: " + head.split("\r\n")[0])
    cr, cw = await open_conn(port, tls=tls)
    writers.append(cw)
    cw.write(upgrade(f"/cable/connect/{match.group(1)}/{tid}"))
    head = await read_head(cr)
    if " 101 " not in head.split("\r\n")[0]:
        raise RuntimeError("connect: " + head.split("\r\n")[0])
    return {"client": (cr, cw), "phone": (pr, pw)}


async def exchange(ends, sender, size):
    """`sender` ("client" or "phone") sends `size` random bytes; the other end must get them intact."""
    payload = os.urandom(size)
    _, writer = ends[sender]
    reader, _ = ends["phone" if sender == "client" else "client"]
    writer.write(frame(0x2, payload))
    opcode, got = await read_frame(reader)
    if opcode != 0x2 or got != payload:
        raise RuntimeError("message lost or changed")


async def ceremonies(port, seconds, concurrency=3, period=0.15):
    """`concurrency` loops, each starting a ceremony every `period` s: 20 ceremonies/s, 40
    connections/s, under the relay's default per-IP rate limit (50/s) with /healthz on top."""
    times, failures = [], []
    deadline = time.monotonic() + seconds

    async def loop(offset):
        await asyncio.sleep(offset)
        while time.monotonic() < deadline:
            started = time.monotonic()
            try:
                times.append(await asyncio.wait_for(ceremony(port), CEREMONY_TIMEOUT))
            except Exception as error:  # noqa: BLE001 - every failure counts
                failures.append(type(error).__name__ + ": " + str(error)[:60])
            await asyncio.sleep(max(0.0, started + period - time.monotonic()))
    await asyncio.gather(*(loop(i * period / concurrency) for i in range(concurrency)))
    return times, failures


async def healthz(port):
    try:
        r, w = await asyncio.wait_for(open_conn(port), 2)
        w.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        head = await asyncio.wait_for(read_head(r), 2)
        w.close()
        return " 200 " in head.split("\r\n")[0]
    except Exception:  # noqa: BLE001
        return False


# ---------------------------------------------------------------- attacks (own process, own address)

async def hold_forever(tasks):
    await asyncio.gather(*tasks, return_exceptions=True)


async def attack_ping_flood(port, source, sockets=20):
    ping = frame(0x9, b"abcd") * 8192

    async def one():
        while True:  # reconnects whenever the relay closes it
            try:
                _, w = await open_conn(port, source, rcvbuf=4096)
                w.write(upgrade(f"/cable/new/{tunnel_id()}"))
                while True:  # reads nothing; drain() waits once the relay stops reading
                    w.write(ping)
                    await w.drain()
            except Exception:  # noqa: BLE001
                await asyncio.sleep(0.05)
    await hold_forever([one() for _ in range(sockets)])


async def attack_prepairing_flood(port, source, sockets=20):
    big = frame(0x2, os.urandom(1 << 20))

    async def one():
        while True:
            try:
                r, w = await open_conn(port, source)
                w.write(upgrade(f"/cable/new/{tunnel_id()}"))
                await read_head(r)
                for _ in range(64):
                    w.write(big)
                    await w.drain()
                await r.read()  # until the relay closes it
            except Exception:  # noqa: BLE001
                await asyncio.sleep(0.1)
    await hold_forever([one() for _ in range(sockets)])


async def attack_partial_messages(port, source, sockets=150):
    """Each socket sends all but the last byte of a maximum-size (1 MiB) message and then waits:
    without the relay-wide in-flight budget the relay would hold sockets x 1 MiB (150 pending
    tunnels here, under the per-IP pending cap); with it, the sockets beyond get 1013."""
    partial = frame(0x2, os.urandom(1 << 20))[:-1]
    await hold_forever([upgraded_then_send(port, source, lambda: partial, hold=None) for _ in range(sockets)])


async def attack_pending_hog(port, source):
    held = []
    while True:
        try:
            r, w = await open_conn(port, source)
            w.write(upgrade(f"/cable/new/{tunnel_id()}"))
            head = await read_head(r)
            if " 101 " in head.split("\r\n")[0]:
                held.append(w)
            else:
                w.close()
                await asyncio.sleep(0.01)
        except Exception:  # noqa: BLE001
            await asyncio.sleep(0.01)


async def attack_descriptors(port, source, limit=18000):
    held = []
    while True:
        held = [w for w in held if not w.is_closing()]
        if len(held) >= limit:
            await asyncio.sleep(0.1)
            continue
        try:
            r, w = await open_conn(port, source)
            held.append(w)
            asyncio.ensure_future(r.read())  # notice closes
        except Exception:  # noqa: BLE001
            await asyncio.sleep(0.01)


async def attack_idle_sockets(port, source):
    """Connections opened as fast as possible and left idle (most are rate-limited)."""
    await attack_descriptors(port, source, limit=10**9)


async def upgraded_then_send(port, source, make_bytes, hold=5):
    """Upgrades /cable/new, sends `make_bytes()`, waits for the relay to close (at most `hold`
    seconds; None: as long as it takes); again and again."""
    while True:
        try:
            r, w = await open_conn(port, source)
            w.write(upgrade(f"/cable/new/{tunnel_id()}"))
            await read_head(r)
            w.write(make_bytes())
            await asyncio.wait_for(r.read(), hold)
            w.close()
        except Exception:  # noqa: BLE001
            await asyncio.sleep(0.01)


async def attack_rsv(port, source):
    await upgraded_then_send(port, source, lambda: frame(0x2, b"x" * 100, rsv=random.choice([0x40, 0x20, 0x10])))


async def attack_slowloris(port, source, sockets=1000):
    async def one():
        while True:
            try:
                r, w = await open_conn(port, source)
                request = upgrade(f"/cable/new/{tunnel_id()}")
                for byte in request:
                    w.write(bytes([byte]))
                    await w.drain()
                    await asyncio.sleep(1)
            except Exception:  # noqa: BLE001
                await asyncio.sleep(0.5)
    await hold_forever([one() for _ in range(sockets)])


async def attack_half_open(port, source, sockets=1000):
    """Half-closed requests, and upgraded sockets that go silent and never read."""
    async def one(i):
        while True:
            try:
                r, w = await open_conn(port, source, rcvbuf=4096)
                if i % 2:
                    w.write(b"GET /cable/new/" + tunnel_id().encode() + b" HTTP/1.1\r\nHost: x\r\n")
                    w.write_eof()
                else:
                    w.write(upgrade(f"/cable/new/{tunnel_id()}"))
                await asyncio.sleep(3600)
            except Exception:  # noqa: BLE001
                await asyncio.sleep(0.5)
    await hold_forever([one(i) for i in range(sockets)])


MALFORMED = [
    bytes([0x82, 0xFF]) + struct.pack(">Q", 1 << 62) + MASK,  # absurd length
    frame(0x2, b"x" * ((1 << 20) + 1)),  # one byte over the limit
    frame(0x3, b"reserved opcode"),
    frame(0x9, b"x" * 126),  # control frame too long
    frame(0x9, b"x", fin=False),  # fragmented control frame
    frame(0x0, b"continuation first"),
    frame(0x2, b"unmasked", masked=False),
    frame(0x1, b"text"),
    frame(0x2, b"a", fin=False) + frame(0x2, b"b"),  # new message inside a fragmented one
]


async def attack_malformed(port, source):
    await upgraded_then_send(port, source, lambda: random.choice(MALFORMED))


GARBAGE = [
    lambda: os.urandom(random.randint(1, 4096)),
    lambda: b"GET /" + b"a" * 100000 + b" HTTP/1.1\r\n\r\n",
    lambda: b"GET / HTTP/1.1\r\n" + b"X: " + b"y" * 200000 + b"\r\n\r\n",
    lambda: b"POST /cable/new/" + tunnel_id().encode() + b" HTTP/1.1\r\nContent-Length: 100000000\r\n\r\n" + b"z" * 65536,
    lambda: b"\r\n" * 10000,
    lambda: b"GET /cable/connect/zz/" + tunnel_id().encode() + b" HTTP/9.9\r\n\r\n",
]


async def attack_garbage(port, source, concurrency=20):
    async def one():
        while True:
            try:
                r, w = await open_conn(port, source)
                w.write(random.choice(GARBAGE)())
                await asyncio.wait_for(r.read(), 5)
                w.close()
            except Exception:  # noqa: BLE001
                await asyncio.sleep(0.01)
    await hold_forever([one() for _ in range(concurrency)])


async def attack_sigkill(port, source):
    """Child processes that start a ceremony and are SIGKILLed in the middle of it."""
    script = os.path.abspath(__file__)
    while True:
        children = [subprocess.Popen([sys.executable, script, "--half-ceremony", str(port), source],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for _ in range(5)]
        await asyncio.sleep(random.uniform(0.2, 0.6))
        for child in children:
            child.send_signal(signal.SIGKILL)
            child.wait()


async def half_ceremony(port, source):
    tid = tunnel_id()
    pr, pw = await open_conn(port, source)
    pw.write(upgrade(f"/cable/new/{tid}"))
    head = await read_head(pr)
    routing = re.search(r"(?i)x-cable-routing-id:\s*([0-9a-f]{6})", head).group(1)
    cr, cw = await open_conn(port, source)
    cw.write(upgrade(f"/cable/connect/{routing}/{tid}"))
    await read_head(cr)
    cw.write(frame(0x2, os.urandom(81)))
    pw.write(frame(0x2, os.urandom(1 << 19)))
    await asyncio.sleep(3600)  # killed here


ATTACKS = {
    "ping-flood": attack_ping_flood,
    "prepairing-flood": attack_prepairing_flood,
    "partial-messages": attack_partial_messages,
    "pending-hog": attack_pending_hog,
    "descriptors": attack_descriptors,
    "idle-sockets": attack_idle_sockets,
    "rsv-frames": attack_rsv,
    "slowloris": attack_slowloris,
    "half-open": attack_half_open,
    "malformed-frames": attack_malformed,
    "garbage": attack_garbage,
    "sigkill-peers": attack_sigkill,
}

# ---------------------------------------------------------------- measuring


def status_kib(pid, field):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def metric(port, name):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
            data = b""
            while chunk := sock.recv(65536):
                data += chunk
        for line in data.decode().splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
    except OSError:
        pass
    return None


def start_relay(binary):
    """The relay, its tunnel port and its metrics port (/metrics is served on a loopback listener
    of its own, never on the tunnel port)."""
    relay = subprocess.Popen([binary, "--host", "127.0.0.1", "--port", "0", "--metrics-port", "0",
                              "--log-level", "error"], stdout=subprocess.PIPE, text=True)
    port = int(relay.stdout.readline().strip().rsplit(":", 1)[1])   # listening on 127.0.0.1:P
    metrics_port = int(relay.stdout.readline().strip().rsplit(":", 1)[1])   # metrics on 127.0.0.1:M
    return relay, port, metrics_port


def stop(process):
    if process.poll() is None:
        process.send_signal(signal.SIGKILL)
        process.wait()


async def health_loop(port, seconds):
    answered = asked = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        asked += 1
        answered += await healthz(port)
        await asyncio.sleep(0.5)
    return answered, asked


async def measure(port, seconds):
    (times, failures), health = await asyncio.gather(ceremonies(port, seconds), health_loop(port, seconds))
    return times, failures, health


def run_pattern(binary, name, attack_seconds, settle_seconds, source):
    relay, port, metrics_port = start_relay(binary)
    attacker = None
    try:
        if name != "idle":
            attacker = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--attack", name, str(port), source])
            time.sleep(1.0)  # let the attack start before the ceremonies do
        times, failures, health = asyncio.run(measure(port, attack_seconds))
        open_during = metric(metrics_port, "relay_connections_open")
        if attacker:
            stop(attacker)
        peak = status_kib(relay.pid, "VmHWM")
        time.sleep(settle_seconds)
        after = status_kib(relay.pid, "VmRSS")
        alive = relay.poll() is None
        return {"name": name, "peak": peak, "after": after, "health": health, "times": times,
                "failures": failures, "alive": alive, "open": open_during}
    finally:
        if attacker:
            stop(attacker)
        stop(relay)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--relay", required=False)
    parser.add_argument("--attack-seconds", type=float, default=20)
    parser.add_argument("--settle", type=float, default=30)
    parser.add_argument("--patterns", default=",".join(ATTACKS))
    parser.add_argument("--short", action="store_true")
    parser.add_argument("--attack", nargs=3, metavar=("NAME", "PORT", "SOURCE"))
    parser.add_argument("--half-ceremony", nargs=2, metavar=("PORT", "SOURCE"))
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

    if args.attack:
        name, port, source = args.attack
        asyncio.run(ATTACKS[name](int(port), source))
        return 0
    if args.half_ceremony:
        asyncio.run(half_ceremony(int(args.half_ceremony[0]), args.half_ceremony[1]))
        return 0

    patterns = args.patterns.split(",")
    if args.short:
        patterns, args.attack_seconds, args.settle = ["ping-flood", "prepairing-flood"], 8, 5
    budget_mib = 256
    rows = []
    for index, name in enumerate(["idle"] + patterns):
        row = run_pattern(args.relay, name, args.attack_seconds, args.settle, f"127.0.0.{index + 2}")
        rows.append(row)
        print_row(row, rows[0])
        sys.stdout.flush()
    failed = [r["name"] for r in rows
              if r["peak"] > budget_mib * 1024 or success(r) < 0.99 or not r["alive"]]
    print(f"load average {os.getloadavg()[0]:.1f} {os.getloadavg()[1]:.1f} {os.getloadavg()[2]:.1f}; "
          f"targets (peak RSS <= {budget_mib} MiB, >= 99 % ceremonies): "
          + ("all met" if not failed else "missed by " + ", ".join(failed)))
    slow = [r["name"] for r in rows[1:] if r["times"] and rows[0]["times"]
            and statistics.median(r["times"]) > 2 * statistics.median(rows[0]["times"])]
    if slow:
        print("median slowdown above 2x: " + ", ".join(slow))
    return 1 if (args.short and failed) else 0


def success(row):
    total = len(row["times"]) + len(row["failures"])
    return len(row["times"]) / total if total else 0.0


HEADER_PRINTED = []


def print_row(row, idle):
    if not HEADER_PRINTED:
        print("| pattern | peak RSS | RSS after settle | /healthz | ceremonies ok | median | vs idle | relay conns open |")
        print("|---|---|---|---|---|---|---|---|")
        HEADER_PRINTED.append(True)
    median = statistics.median(row["times"]) * 1000 if row["times"] else float("nan")
    idle_median = statistics.median(idle["times"]) * 1000 if idle["times"] else float("nan")
    total = len(row["times"]) + len(row["failures"])
    print(f"| {row['name']} | {row['peak'] / 1024:.1f} MiB | {row['after'] / 1024:.1f} MiB"
          f"{'' if row['alive'] else ' (DIED)'} | {row['health'][0]}/{row['health'][1]} | "
          f"{len(row['times'])}/{total} ({100 * success(row):.1f} %) | {median:.1f} ms | "
          f"{median / idle_median:.2f}x | {row['open'] if row['open'] is not None else '-'} |")
    if row["failures"]:
        kinds = {}
        for failure in row["failures"]:
            kinds[failure] = kinds.get(failure, 0) + 1
        print("  failures: " + "; ".join(f"{k} x{v}" for k, v in sorted(kinds.items(), key=lambda kv: -kv[1])[:3]))


if __name__ == "__main__":
    sys.exit(main())
