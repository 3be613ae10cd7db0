#!/usr/bin/env python3
"""CPU per plain (ws://) ceremony of one tunnel-relay binary, for before/after comparisons.

Usage: Benchmarks/relay-ceremony-cpu.py RELAY_BINARY [CEREMONIES]

Starts the binary on a loopback port with one event loop and no per-IP limits, runs 200
warm-up ceremonies, then CEREMONIES (default 2000) at concurrency 16, each the ceremony of
Benchmarks/relay-abuse.py (/cable/new, /cable/connect, six messages of 81-320 B checked byte
for byte, a close), and prints one summary line: the relay's user+system CPU from /proc per
ceremony, failures and the load average. Not the ceremony phase issue 23 asks for (no TLS, no
nginx/HAProxy rows, no crypto floor): a quick check that a change does not raise the cost.
Alternate before/after runs: on a shared machine single numbers vary by up to 2x.
"""
import asyncio
import importlib.util
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("abuse", os.path.join(HERE, "relay-abuse.py"))
abuse = importlib.util.module_from_spec(spec)
spec.loader.exec_module(abuse)


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def run(port, count, concurrency=16):
    slots = asyncio.Semaphore(concurrency)
    failed = 0

    async def one():
        nonlocal failed
        async with slots:
            try:
                await abuse.ceremony(port)
            except Exception:
                failed += 1

    await asyncio.gather(*[one() for _ in range(count)])
    return failed


def main():
    binary = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
    relay = subprocess.Popen(
        [binary, "--host", "127.0.0.1", "--port", "0", "--log-level", "error", "--rate-per-ip", "0",
         "--max-connections-per-ip", "0", "--max-pending-per-ip", "0", "--event-loops", "1"],
        stdout=subprocess.PIPE, text=True)
    try:
        port = int(relay.stdout.readline().strip().rsplit(":", 1)[1])
        asyncio.run(run(port, 200))
        before = cpu_seconds(relay.pid)
        failed = asyncio.run(run(port, count))
        spent = cpu_seconds(relay.pid) - before
        load = " ".join(open("/proc/loadavg").read().split()[:3])
        print(f"summary binary={binary} ceremonies={count} failed={failed} "
              f"cpu_us_per_ceremony={spent / count * 1e6:.0f} load={load}")
    finally:
        relay.terminate()
        relay.wait()


if __name__ == "__main__":
    main()
