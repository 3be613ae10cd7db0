#!/usr/bin/python3
"""The uhid load proof's caller (not our code: python-fido2's low-level Ctap2 API, unpatched, from
PyPI): COUNT getAssertion requests, one after another, each with an allow list of 66 random 64-byte
credential IDs (~5.6 KB of CBOR, ~90 reports that python-fido2 writes to hidraw without waiting),
no retry. A request counts as received whole when the key answers with a KEEPALIVE (it is waiting
for the phone, which only a complete, valid CTAPHID message reaches); the caller then cancels it
(CTAPHID_CANCEL) and expects CTAP2_ERR_KEEPALIVE_CANCEL. A report uhid dropped shows as an error
instead (INVALID_SEQ, INVALID_LENGTH, MSG_TIMEOUT) or as no keepalive within 20 s.
Prints one `LOAD-REQUEST <label> <n> ok|FAIL <detail>` line each and `LOAD-RESULT <label> <ok>/<count>`."""
import os
import sys
import threading
import time

from fido2.ctap import CtapError
from fido2.ctap2 import Ctap2
from fido2.hid import open_device


def one(ctap, label, n):
    ids = [{"type": "public-key", "id": os.urandom(64)} for _ in range(66)]
    cancel = threading.Event()
    seen = []

    def keepalive(status):
        seen.append(status)
        cancel.set()

    timer = threading.Timer(20, cancel.set)
    timer.start()
    started = time.monotonic()
    try:
        ctap.get_assertion("load.example", os.urandom(32), ids, event=cancel, on_keepalive=keepalive)
        outcome = "answered without a phone"
    except CtapError as error:
        outcome = error.code.name if hasattr(error.code, "name") else str(error.code)
    except Exception as error:  # a broken channel, a wrong reply: a failure, reported as such
        outcome = "%s: %s" % (type(error).__name__, error)
    finally:
        timer.cancel()
    elapsed = time.monotonic() - started
    ok = bool(seen) and outcome == "KEEPALIVE_CANCEL"
    print("LOAD-REQUEST %s %d %s %s after %.2f s (keepalive %s)"
          % (label, n, "ok" if ok else "FAIL", outcome, elapsed, "seen" if seen else "never"), flush=True)
    return ok


def main():
    path, count, label = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    device = open_device(path)
    ctap = Ctap2(device)
    passed = sum(one(ctap, label, n) for n in range(1, count + 1))
    print("LOAD-RESULT %s %d/%d" % (label, passed, count), flush=True)
    return 0 if passed == count else 1


if __name__ == "__main__":
    sys.exit(main())
