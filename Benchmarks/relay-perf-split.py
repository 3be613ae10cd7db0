#!/usr/bin/env python3
"""Splits a `perf record -g` profile of tunnel-relay into the work of a connection.

Usage: Benchmarks/relay-perf-split.py PERF_DATA [CPU_US_PER_CEREMONY]

Each sample goes to the category of its innermost recognised frame, leaf to root: a sample in
`swift_retain` called from the HTTP decoder counts as HTTP parsing, one in the kernel under
`Socket.write` as the write system call (on loopback that includes the delivery to the reader's
socket). Prints each category's share, the share of it spent in the kernel and, given the row's
CPU per ceremony (measured under perf, which inflates it), the µs per ceremony. Profiles come from
`Benchmarks/relay-ceremony.py --perf relay-ws,relay-wss`.
"""
import collections
import subprocess
import sys

RULES = [  # (category, substrings of a frame)
    ("crypto: X25519", ["curve25519", "x25519", "fe_sq_tt", "fe_mul_", "ge_p3", "ge_scalarmult"]),
    ("crypto: ECDSA P-256", ["nistz256", "ecdsa", "ECDSA", "ec_GFp", "p256", "CNIOBoringSSL_bn_", "BN_"]),
    ("crypto: hash/AEAD", ["sha256", "sha512", "SHA256", "HMAC", "hkdf", "HKDF", "aes_", "gcm", "GCM", "chacha", "poly1305"]),
    ("syscall write", ["Socket5write", "libc_write", "writev", "sendmsg"]),
    ("syscall read", ["Socket4read", "libc_read", "readv", "recvmsg"]),
    ("syscall accept", ["accept4", "accept"]),
    ("syscall close", ["__close", "libc_close", "Socket5close", "shutdown"]),
    ("syscall epoll", ["epoll_wait", "epoll_ctl", "whenReady", "_blockingWaitForWork"]),
    ("TLS handshake other", ["handshake", "Handshake", "ssl_", "SSL_", "tls13", "x509", "X509", "CBB", "CBS", "CRYPTO_BUFFER", "BoringSSL"]),
    ("TLS records (NIOSSL)", ["NIOSSL"]),
    ("HTTP upgrade", ["HTTPServerUpgradeHandler", "WebSocketUpgrader", "RequestGate", "acceptValue"]),
    ("HTTP parse/encode", ["HTTPDecoder", "llhttp", "HTTPResponseEncoder", "HTTPHeaders", "RequestHeadParser", "RelayHTTPResponse"]),
    ("pipeline add/remove", ["addHandler", "removeHandler", "ChannelPipeline", "Initializer", "ChannelOptions", "Bootstrap"]),
    ("tunnel frames", ["TunnelRelay", "WebSocketFrame", "RelayFrame"]),
    ("channel lifecycle", ["close0", "Inactive", "Unregistered", "register", "Registered", "becomeActive", "Active"]),
    ("timers/tasks", ["runOneTick", "ScheduledTask", "scheduleTask"]),
]
def stacks(path):
    """The call stacks of `perf script`, leaf first, one list of frames per sample."""
    out = subprocess.run(["perf", "script", "-i", path], capture_output=True, text=True).stdout
    for block in out.split("\n\n"):
        lines = block.strip().split("\n")
        if len(lines) < 2: continue
        yield [l.strip().split(" ", 1)[1] if " " in l.strip() else l for l in lines[1:]]
def category(frames):
    """The rule of the innermost frame that matches one (crypto rules skip kernel frames)."""
    for frame in frames:
        for name, keys in RULES:
            if name.startswith("crypto") and "[kernel" in frame:
                continue
            if any(k in frame for k in keys):
                return name
    return "other"
def main(path, per_unit_us=None):
    """Prints each category's share of the samples in `path` (and of `per_unit_us`, if given)."""
    counts = collections.Counter(); kernel = collections.Counter(); total = 0
    for frames in stacks(path):
        c = category(frames); counts[c] += 1; total += 1
        if "kernel" in frames[0]: kernel[c] += 1
    print(f"{path}: {total} samples")
    for c, n in counts.most_common():
        extra = f"  ~{n / total * per_unit_us:.0f} us/ceremony" if per_unit_us else ""
        print(f"  {c:26s} {100 * n / total:5.1f}%  (kernel {100 * kernel[c] / max(n, 1):3.0f}%){extra}")
if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else None)
