#!/usr/bin/env python3
"""CPU per ceremony of tunnel-relay over ws:// and wss://, side by side with nginx and HAProxy
terminating TLS in front of a plain relay, and the TLS crypto floor.

Usage: Benchmarks/relay-ceremony.py --relay BINARY [--baseline BINARY] [--ceremonies N]
           [--concurrency 16] [--generator native|python] [--processes 2] [--seed S] [--rounds 3]
           [--cert ec|rsa] [--rows a,b,...] [--client-suites boringssl|openssl] [--hold TUNNELS]
           [--perf ROW,... [--perf-prefix PATH-]]

A ceremony is the one of Benchmarks/relay-abuse.py: /cable/new and /cable/connect (two
connections, two WebSocket upgrades, over TLS for wss rows), seven messages of 48-528 B each
checked byte for byte at the other end, a close that reaches the phone. Every row runs 200
warm-up ceremonies, then N at the given concurrency, spread over --processes load-generator
processes. The default generator is Benchmarks/ceremony-load.c (compiled with cc against
libssl-dev at start): C, epoll, OpenSSL, ~0.2 ms of client CPU per plain ceremony and ~1.2 ms per
TLS ceremony, so that the server rather than the generator sets the rate; its phone also answers
the relay's close frame and both ends read until the relay closes, as a browser and a phone do.
Full TLS 1.3 handshakes with X25519, no resumption, the TLS 1.3 suites in BoringSSL's order (as
Chrome and Android phones offer them, so AES-128-GCM-SHA256 is chosen). --generator python uses
the earlier asyncio processes (~5 ms of client CPU per TLS ceremony, which capped the rate at
~200 TLS ceremonies/s on this machine; --client-suites sets their suite order). A
row's cost is the user+system CPU, from /proc, of the processes the row is about, divided by
N: for relay rows the relay's; for nginx/HAProxy rows the proxy's own (master and workers),
with the plain relay behind it printed as upstream_us. Rows:

  relay-ws      our relay, plain                      relay-wss     our relay terminating TLS
  nginx-wss     nginx (1 worker) TLS -> plain relay   haproxy-wss   HAProxy (nbthread 1) TLS -> plain relay
  nginx-ws      nginx forwarding plain                haproxy-ws    HAProxy forwarding plain
  base-ws, base-wss  the same two rows for --baseline BINARY (before/after in one run)

Each server runs with one event loop / worker / thread. Rows alternate inside each round (the
order reverses every other round), so a burst of load from other work hits rows evenly. The
crypto floor is 2 x (X25519 key generation + X25519 shared secret + ECDSA P-256 signature) from
`openssl speed`, a key generation counted as one more X25519 operation (openssl speed has no
figure for it), measured before the first and after the last round. Output: one
"summary round=R row=..." line per measured row, then one "summary row=..." line per row with
the median, min and max over rounds and its ratios to nginx-wss and the floor, and the load
average. --hold N then opens N paired tunnels (one message each way) on the plain and on the TLS
relay, held open, and prints the relay's RSS growth per paired tunnel (the relays have run the
rounds before, so their allocators are warm). Exit status 1 if any ceremony failed. --perf runs `perf record -g` on the measured
process of the rows named during their measured ceremonies (perf's own cost inflates those
rows' CPU: profile in a separate run from the one you quote).

Needs cc, libssl-dev, haproxy and nginx (`apt-get install gcc libssl-dev nginx-light haproxy`); rows whose binary is missing
are skipped with a note. Results and how to read them: Benchmarks/RESULTS.md.
"""
import argparse
import asyncio
import importlib.util
import multiprocessing
import os
import re
import shutil
import signal
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("abuse", os.path.join(HERE, "relay-abuse.py"))
abuse = importlib.util.module_from_spec(spec)
spec.loader.exec_module(abuse)

ALL_ROWS = ["relay-ws", "relay-wss", "nginx-wss", "haproxy-wss", "nginx-ws", "haproxy-ws", "base-ws", "base-wss"]
WARM_UP = 200
RELAY_ARGS = ["--host", "127.0.0.1", "--port", "0", "--rate-per-ip", "0", "--max-connections-per-ip", "0",
              "--max-pending-per-ip", "0", "--event-loops", "1"]


# ---------------------------------------------------------------- /proc

def cpu_seconds(pid):
    """User + system CPU of `pid` (all its threads) so far."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(pid):
    """CPU of `pid` and its direct children (an nginx master and its worker)."""
    children = []
    for task in os.listdir(f"/proc/{pid}/task"):
        children += open(f"/proc/{pid}/task/{task}/children").read().split()
    return cpu_seconds(pid) + sum(cpu_seconds(int(child)) for child in children)


def rss_bytes(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for {pid}")


def load_average():
    return "/".join(open("/proc/loadavg").read().split()[:3])


# ---------------------------------------------------------------- servers

def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_listening(port, process, name):
    for _ in range(200):
        if process.poll() is not None:
            raise RuntimeError(f"{name} exited with {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"{name} does not listen on {port}")


class Server:
    """A server process for one or more rows: its port(s) and CPU."""

    def __init__(self, name, process, ports, tree=False):
        self.name, self.process, self.ports, self.tree = name, process, ports, tree

    def cpu(self):
        return tree_cpu_seconds(self.process.pid) if self.tree else cpu_seconds(self.process.pid)

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def start_relay(binary, name, tls=None):
    args = [binary] + RELAY_ARGS
    if tls:
        args += ["--tls-cert", tls[0], "--tls-key", tls[1]]
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = process.stdout.readline().strip()
    if "listening on" not in line:
        process.kill()
        raise RuntimeError(f"{name}: {line!r}")
    return Server(name, process, {"port": int(line.rsplit(":", 1)[1])})


def start_nginx(directory, cert, key, upstream):
    tls_port, plain_port = free_port(), free_port()
    config = f"""
worker_processes 1;
daemon off;
pid {directory}/nginx.pid;
error_log {directory}/nginx-error.log error;
events {{ worker_connections 9000; }}
http {{
    access_log off;
    client_body_temp_path {directory}; proxy_temp_path {directory}; fastcgi_temp_path {directory};
    uwsgi_temp_path {directory}; scgi_temp_path {directory};
    tcp_nodelay on;
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_certificate {cert};
    ssl_certificate_key {key};
    server {{
        listen 127.0.0.1:{tls_port} ssl;
        listen 127.0.0.1:{plain_port};
        location / {{
            proxy_pass http://127.0.0.1:{upstream};
            proxy_http_version 1.1;
            proxy_set_header Upgrade $http_upgrade;
            proxy_set_header Connection "upgrade";
            proxy_read_timeout 1h;
            proxy_send_timeout 1h;
        }}
    }}
}}
"""
    path = os.path.join(directory, "nginx.conf")
    with open(path, "w") as f:
        f.write(config)
    process = subprocess.Popen(["nginx", "-p", directory, "-c", path], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    wait_listening(tls_port, process, "nginx")
    return Server("nginx", process, {"tls": tls_port, "plain": plain_port}, tree=True)


def start_haproxy(directory, cert, key, upstream):
    tls_port, plain_port = free_port(), free_port()
    combined = os.path.join(directory, "haproxy.pem")
    with open(combined, "w") as f:
        f.write(open(cert).read() + open(key).read())
    config = f"""
global
    maxconn 9000
    nbthread 1
    ssl-default-bind-options ssl-min-ver TLSv1.2
defaults
    mode http
    timeout connect 5s
    timeout client 60s
    timeout server 60s
    timeout tunnel 1h
frontend relay_front
    bind 127.0.0.1:{tls_port} ssl crt {combined}
    bind 127.0.0.1:{plain_port}
    default_backend relay_back
backend relay_back
    server relay 127.0.0.1:{upstream}
"""
    path = os.path.join(directory, "haproxy.cfg")
    with open(path, "w") as f:
        f.write(config)
    process = subprocess.Popen(["haproxy", "-W", "-db", "-f", path], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    wait_listening(tls_port, process, "haproxy")
    return Server("haproxy", process, {"tls": tls_port, "plain": plain_port}, tree=True)


def make_certificate(directory, kind):
    """A self-signed certificate for localhost (ECDSA P-256 or RSA 2048) and its key, 0600."""
    cert, key = os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")
    algorithm = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"] if kind == "ec" else ["-newkey", "rsa:2048"]
    subprocess.run(["openssl", "req", "-x509", "-nodes", "-days", "2", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost"] + algorithm + ["-keyout", key, "-out", cert],
                   check=True, capture_output=True)
    os.chmod(key, 0o600)
    return cert, key


# ---------------------------------------------------------------- the crypto floor

def crypto_floor_us():
    """2 x (X25519 keygen + X25519 derive + ECDSA P-256 sign) in µs, from `openssl speed`."""
    out = subprocess.run(["openssl", "speed", "-seconds", "2", "ecdhx25519", "ecdsap256"],
                         capture_output=True, text=True, check=True).stdout
    x25519 = float(re.search(r"ecdh \(X25519\)\s+\S+\s+([\d.]+)", out).group(1))
    sign = float(re.search(r"ecdsa \(nistp256\)\s+\S+\s+\S+\s+([\d.]+)", out).group(1))
    return 2 * (2 * 1e6 / x25519 + 1e6 / sign)


# ---------------------------------------------------------------- load generator processes

def worker(connection, cafile):
    """A load-generator process: runs jobs sent on `connection`: ("run", port, tls, count,
    concurrency) answers (failures, first error); ("hold", port, tls, count) opens `count` paired
    tunnels, answers (failures, first error) and keeps them until the next message."""
    context = ssl.create_default_context(cafile=cafile)
    while True:
        job = connection.recv()
        if job is None:
            return
        kind, port, tls, count = job[:4]
        if kind == "run":
            connection.send(asyncio.run(run_ceremonies(port, context if tls else None, count, job[4])))
        else:
            asyncio.run(hold_tunnels(connection, port, context if tls else None, count))


async def hold_tunnels(connection, port, tls, count):
    """Opens `count` paired tunnels 16 at a time, one message each way on each; reports, then
    holds them until `connection` says otherwise."""
    writers, failed, first = [], 0, None
    slots = asyncio.Semaphore(16)

    async def one():
        nonlocal failed, first
        async with slots:
            try:
                ends = await abuse.open_tunnel(port, tls, writers)
                await abuse.exchange(ends, "client", 81)
                await abuse.exchange(ends, "phone", 81)
            except Exception as error:  # noqa: BLE001
                failed += 1
                first = first or f"{type(error).__name__}: {str(error)[:80]}"

    await asyncio.gather(*(one() for _ in range(count)))
    connection.send((failed, first))
    await asyncio.get_running_loop().run_in_executor(None, connection.recv)
    for writer in writers:
        writer.close()


async def run_ceremonies(port, tls, count, concurrency):
    remaining = count
    failed, first = 0, None

    async def loop():
        nonlocal remaining, failed, first
        while remaining > 0:
            remaining -= 1
            try:
                await asyncio.wait_for(abuse.ceremony(port, tls), abuse.CEREMONY_TIMEOUT)
            except Exception as error:  # noqa: BLE001 - every failure counts
                failed += 1
                first = first or f"{type(error).__name__}: {str(error)[:80]}"

    await asyncio.gather(*(loop() for _ in range(concurrency)))
    return failed, first


# TLS 1.3 suites in the order BoringSSL clients (Chrome, Android) offer them. Python's ssl cannot
# set them; OpenSSL reads them from its configuration file when a fresh process starts.
CLIENT_SUITES = {
    "boringssl": "TLS_AES_128_GCM_SHA256:TLS_CHACHA20_POLY1305_SHA256:TLS_AES_256_GCM_SHA384",
    "openssl": "TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256",
}


def client_openssl_config(directory, suites):
    path = os.path.join(directory, "client-openssl.cnf")
    with open(path, "w") as f:
        f.write("openssl_conf = default_conf\n[default_conf]\nssl_conf = ssl_sect\n[ssl_sect]\n"
                "system_default = system_default_sect\n[system_default_sect]\n"
                f"Ciphersuites = {CLIENT_SUITES[suites]}\n")
    return path


class NativeLoadGenerator:
    """Ceremonies from `ceremony-load` processes (Benchmarks/ceremony-load.c, C with epoll and
    OpenSSL), compiled into `directory` first: ~0.2 ms of client CPU per plain ceremony and ~1.2 ms
    per TLS ceremony, against ~5 ms for asyncio, so the server, not the generator, sets the rate."""

    def __init__(self, processes, cafile, directory, seed):
        self.binary = os.path.join(directory, "ceremony-load")
        subprocess.run(["cc", "-O2", "-o", self.binary, os.path.join(HERE, "ceremony-load.c"), "-lssl", "-lcrypto"],
                       check=True)
        self.processes, self.cafile, self.seed, self.runs = processes, cafile, seed, 0

    def run(self, port, tls, count, concurrency):
        """`count` ceremonies at `concurrency`, split evenly over the processes; (failed, first error)."""
        n, children = self.processes, []
        for i in range(n):
            self.runs += 1
            arguments = [self.binary, "--port", str(port), "--count", str(count // n + (i < count % n)),
                         "--concurrency", str(concurrency // n + (i < concurrency % n)),
                         "--seed", str(self.seed * 1000003 + self.runs)]
            children.append(subprocess.Popen(arguments + (["--tls", self.cafile] if tls else []),
                                             stdout=subprocess.PIPE, text=True))
        failed, first = 0, None
        for child in children:
            line = child.communicate()[0].strip()
            match = re.search(r"ok=(\d+) failed=(\d+) .* first_error=(.*)$", line)
            if not match:
                failed, first = failed + 1, first or f"ceremony-load: {line!r}"
                continue
            failed += int(match.group(2))
            if match.group(3) != "-":
                first = first or match.group(3)
        return failed, first

    def stop(self):
        pass


class LoadGenerator:
    def __init__(self, processes, cafile, openssl_config):
        os.environ["OPENSSL_CONF"] = openssl_config  # read by the spawned processes' OpenSSL
        context = multiprocessing.get_context("spawn")
        self.pipes, self.processes = [], []
        for _ in range(processes):
            parent, child = context.Pipe()
            process = context.Process(target=worker, args=(child, cafile), daemon=True)
            process.start()
            self.pipes.append(parent)
            self.processes.append(process)

    def run(self, port, tls, count, concurrency):
        """`count` ceremonies at `concurrency`, split evenly over the processes; (failed, first error)."""
        n = len(self.pipes)
        for i, pipe in enumerate(self.pipes):
            pipe.send(("run", port, tls, count // n + (i < count % n), concurrency // n + (i < concurrency % n)))
        return self.collect()

    def hold(self, port, tls, count):
        """Opens `count` paired tunnels across the processes and keeps them until ``release``."""
        n = len(self.pipes)
        for i, pipe in enumerate(self.pipes):
            pipe.send(("hold", port, tls, count // n + (i < count % n)))
        return self.collect()

    def release(self):
        for pipe in self.pipes:
            pipe.send("release")
        time.sleep(1)  # the workers close their sockets

    def collect(self):
        results = [pipe.recv() for pipe in self.pipes]
        return sum(r[0] for r in results), next((r[1] for r in results if r[1]), None)

    def stop(self):
        for pipe in self.pipes:
            pipe.send(None)
        for process in self.processes:
            process.join(5)


# ---------------------------------------------------------------- rows

def row_targets(row, servers):
    """(port, tls, measured server, upstream server or None) of a row."""
    if row.startswith("relay") or row.startswith("base"):
        prefix = "relay" if row.startswith("relay") else "base"
        server = servers[f"{prefix}-wss" if row.endswith("wss") else f"{prefix}-ws"]
        return server.ports["port"], row.endswith("wss"), server, None
    proxy = servers[row.split("-")[0]]
    return proxy.ports["tls" if row.endswith("wss") else "plain"], row.endswith("wss"), proxy, servers["relay-ws"]


def measure(row, servers, load, args):
    port, tls, server, upstream = row_targets(row, servers)
    failed, first = load.run(port, tls, WARM_UP, args.concurrency)
    perf = None
    if row in args.perf:
        perf = subprocess.Popen(["perf", "record", "-q", "-g", "-F", "1999", "-p", str(server.process.pid),
                                 "-o", f"{args.perf_prefix}{row}.data"], stdout=subprocess.DEVNULL)
        time.sleep(0.5)
    before = server.cpu(), upstream.cpu() if upstream else 0, time.monotonic()
    more, error = load.run(port, tls, args.ceremonies, args.concurrency)
    if perf:
        perf.send_signal(signal.SIGINT)
        perf.wait()
    failed, first = failed + more, first or error
    spent, upstream_spent = server.cpu() - before[0], (upstream.cpu() - before[1]) if upstream else 0
    elapsed = time.monotonic() - before[2]
    return {"cpu_us": spent / args.ceremonies * 1e6, "upstream_us": upstream_spent / args.ceremonies * 1e6,
            "rate": args.ceremonies / elapsed, "failed": failed, "error": first}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--relay", required=True, help="tunnel-relay binary (release build)")
    parser.add_argument("--baseline", help="a second tunnel-relay binary for base-ws/base-wss rows")
    parser.add_argument("--ceremonies", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--generator", choices=["native", "python"], default="native",
                        help="native: ceremony-load.c processes (the default; needs cc and libssl-dev); python: "
                             "asyncio processes, ~5 ms of client CPU per TLS ceremony, which caps the rate")
    parser.add_argument("--processes", type=int, help="load-generator processes (default: 2 native, 4 python)")
    parser.add_argument("--seed", type=int, default=int(time.time()), help="seed of the native generator's payloads "
                        "and tunnel IDs (printed)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cert", choices=["ec", "rsa"], default="ec", help="ECDSA P-256 or RSA 2048 certificate")
    parser.add_argument("--client-suites", choices=sorted(CLIENT_SUITES), default="boringssl",
                        help="TLS 1.3 suite order the clients offer: boringssl (Chrome, Android: AES-128-GCM-SHA256 first) "
                             "or openssl (AES-256-GCM-SHA384 first)")
    parser.add_argument("--rows", default=",".join(r for r in ALL_ROWS if not r.startswith("base")))
    parser.add_argument("--hold", type=int, default=0,
                        help="after the rounds, open this many paired tunnels on relay-ws and relay-wss, one message "
                             "each way, and print the relay's RSS growth per paired tunnel")
    parser.add_argument("--background", type=int, default=0,
                        help="paired tunnels held open on each relay (ours and the baseline, ws and wss) for the whole "
                             "run: the cost per ceremony of a relay that already carries tunnels (its ping interval and "
                             "tunnel lifetime are then an hour, so the held tunnels stay)")
    parser.add_argument("--perf", default="", help="rows to profile: perf record -g on the measured process")
    parser.add_argument("--perf-prefix", default="perf-", help="perf data files: PREFIX + row + .data")
    args = parser.parse_args()
    args.perf = set(filter(None, args.perf.split(",")))
    args.processes = args.processes or (2 if args.generator == "native" else 4)
    rows = [r for r in args.rows.split(",") if r]
    if args.baseline and not any(r.startswith("base") for r in rows):
        rows += ["base-ws", "base-wss"]
    unknown = set(rows) - set(ALL_ROWS)
    if unknown:
        parser.error(f"unknown rows {sorted(unknown)}; known: {ALL_ROWS}")
    for proxy in ("nginx", "haproxy"):
        if any(r.startswith(proxy) for r in rows) and not shutil.which(proxy):
            print(f"note: {proxy} not found, skipping its rows", file=sys.stderr)
            rows = [r for r in rows if not r.startswith(proxy)]

    if args.background:
        RELAY_ARGS.extend(["--ping-interval", "3600", "--tunnel-lifetime", "3600"])
    directory = tempfile.mkdtemp(prefix="relay-ceremony-")  # 0700
    servers, load, python_load, background = {}, None, None, []
    try:
        cert, key = make_certificate(directory, args.cert)
        servers["relay-ws"] = start_relay(args.relay, "relay-ws")
        if "relay-wss" in rows:
            servers["relay-wss"] = start_relay(args.relay, "relay-wss", (cert, key))
        if args.baseline:
            servers["base-ws"] = start_relay(args.baseline, "base-ws")
            servers["base-wss"] = start_relay(args.baseline, "base-wss", (cert, key))
        upstream = servers["relay-ws"].ports["port"]
        if any(r.startswith("nginx") for r in rows):
            servers["nginx"] = start_nginx(directory, cert, key, upstream)
        if any(r.startswith("haproxy") for r in rows):
            servers["haproxy"] = start_haproxy(directory, cert, key, upstream)
        python_load = None
        if args.generator == "python" or args.hold:
            python_load = LoadGenerator(args.processes, cert, client_openssl_config(directory, args.client_suites))
        if args.generator == "native":
            load = NativeLoadGenerator(args.processes, cert, directory, args.seed)
            print(f"generator=native processes={args.processes} seed={args.seed}", flush=True)
        else:
            load = python_load

        for name in [n for n in ("relay-ws", "relay-wss", "base-ws", "base-wss") if n in rows] if args.background else []:
            holder = LoadGenerator(4, cert, client_openssl_config(directory, args.client_suites))
            background.append(holder)
            failed, first = holder.hold(servers[name].ports["port"], name.endswith("wss"), args.background)
            print(f"background {name}: {args.background} paired tunnels held, failed={failed}"
                  + (f" first_error={first!r}" if first else ""), flush=True)
        floors = [crypto_floor_us()]
        results = {row: [] for row in rows}
        for round_number in range(1, args.rounds + 1):
            for row in rows if round_number % 2 else list(reversed(rows)):
                r = measure(row, servers, load, args)
                results[row].append(r)
                print(f"summary round={round_number} row={row} generator={args.generator} background={args.background} cert={args.cert} suites={args.client_suites} ceremonies={args.ceremonies} "
                      f"concurrency={args.concurrency} failed={r['failed']} cpu_us_per_ceremony={r['cpu_us']:.0f} "
                      f"upstream_us={r['upstream_us']:.0f} ceremonies_per_s={r['rate']:.0f} load={load_average()}"
                      + (f" first_error={r['error']!r}" if r["error"] else ""), flush=True)
        floors.append(crypto_floor_us())
        floor = statistics.median(floors)
        print(f"summary row=crypto-floor cpu_us_per_ceremony={floor:.0f} "
              f"measured={'/'.join(f'{f:.0f}' for f in floors)} load={load_average()}")
        medians = {row: statistics.median(r["cpu_us"] for r in rs) for row, rs in results.items()}
        for row, rs in results.items():
            costs = [r["cpu_us"] for r in rs]
            ratios = f" x_floor={medians[row] / floor:.2f}"
            if "nginx-wss" in medians and row.endswith("wss"):
                ratios += f" x_nginx_wss={medians[row] / medians['nginx-wss']:.2f}"
            print(f"summary row={row} generator={args.generator} background={args.background} cert={args.cert} suites={args.client_suites} rounds={len(rs)} failed={sum(r['failed'] for r in rs)} "
                  f"cpu_us_median={medians[row]:.0f} min={min(costs):.0f} max={max(costs):.0f} "
                  f"upstream_us_median={statistics.median(r['upstream_us'] for r in rs):.0f}{ratios} "
                  f"per_core_second={1e6 / medians[row]:.0f} load={load_average()}")
        held_failed = 0
        for row in [r for r in ("relay-ws", "relay-wss") if r in rows] if args.hold else []:
            server = servers[row]
            before = rss_bytes(server.process.pid)
            failed, first = python_load.hold(server.ports["port"], row.endswith("wss"), args.hold)
            time.sleep(1)
            after = rss_bytes(server.process.pid)
            python_load.release()
            held_failed += failed
            print(f"summary row={row}-rss tunnels={args.hold} failed={failed} "
                  f"rss_bytes_per_paired_tunnel={(after - before) / args.hold:.0f} load={load_average()}"
                  + (f" first_error={first!r}" if first else ""), flush=True)
        failed_any = held_failed or any(r["failed"] for rs in results.values() for r in rs)
        return 1 if failed_any else 0
    finally:
        for holder in background:
            holder.release()
        for generator in {id(g): g for g in [load, python_load] + background if g}.values():
            generator.stop()
        for server in servers.values():
            server.stop()
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
