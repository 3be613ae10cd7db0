#!/usr/bin/python3
"""The uhid load proof's caller (not our code: python-fido2 2.x's Fido2Client, unpatched, from
PyPI): COUNT sign-ins, one after another, each with an allow list of 66 random 64-byte credential
IDs, no retry. Fido2Client does what programs do with the key's getInfo: it probes the list in
chunks of maxCredentialCountInList IDs (each chunk one request of up to ~1.8 KB, which python-fido2
writes to hidraw without waiting), then sends the real request. A sign-in counts as received whole
when the key asks for the user's presence (KEEPALIVE UPNEEDED: it is waiting for the phone, which
only complete, valid CTAPHID messages reach); the caller then cancels it and expects
CTAP2_ERR_KEEPALIVE_CANCEL. A report uhid dropped shows as an error instead (INVALID_SEQ,
INVALID_LENGTH, MSG_TIMEOUT) or as no keepalive within 20 s.
Prints one `LOAD-REQUEST <label> <n> ok|FAIL <detail>` line each and `LOAD-RESULT <label> <ok>/<count>`."""
import base64
import os
import sys
import threading
import time

from fido2.client import DefaultClientDataCollector, Fido2Client, UserInteraction
from fido2.hid import open_device

ORIGIN = "https://load.example"


def b64u(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class CancelWhenAsked(UserInteraction):
    """The key asks for the user's presence once the real request reached it whole: cancel then."""

    def __init__(self):
        self.cancel = threading.Event()
        self.asked = False

    def prompt_up(self):
        self.asked = True
        self.cancel.set()


def cause_of(error):
    cause = getattr(error, "cause", None)
    code = getattr(cause, "code", None)
    if code is not None:
        return code.name if hasattr(code, "name") else str(code)
    return "%s: %s (cause: %r)" % (type(error).__name__, error, cause)


def one(device, label, n):
    interaction = CancelWhenAsked()
    client = Fido2Client(device, DefaultClientDataCollector(ORIGIN), interaction)
    options = {"challenge": b64u(os.urandom(32)), "rpId": "load.example", "userVerification": "discouraged",
               "allowCredentials": [{"type": "public-key", "id": b64u(os.urandom(64))} for _ in range(66)]}
    timer = threading.Timer(20, interaction.cancel.set)
    timer.start()
    started = time.monotonic()
    try:
        client.get_assertion(options, event=interaction.cancel)
        outcome = "answered without a phone"
    except Exception as error:  # ClientError with the CTAP cause; anything else is a failure too
        outcome = cause_of(error)
    finally:
        timer.cancel()
    elapsed = time.monotonic() - started
    ok = interaction.asked and outcome == "KEEPALIVE_CANCEL"
    print("LOAD-REQUEST %s %d %s %s after %.2f s (presence %s)"
          % (label, n, "ok" if ok else "FAIL", outcome, elapsed, "asked" if interaction.asked else "never asked"),
          flush=True)
    return ok


def main():
    path, count, label = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    device = open_device(path)
    passed = sum(one(device, label, n) for n in range(1, count + 1))
    print("LOAD-RESULT %s %d/%d" % (label, passed, count), flush=True)
    return 0 if passed == count else 1


if __name__ == "__main__":
    sys.exit(main())
