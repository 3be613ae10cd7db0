#!/usr/bin/python3
"""Runs the browser-seckey cases (ci/browser-seckey/README.md) through hybrid-security-key with one program, in the blevm guest's chroot.

  driver.py firefox|chromium|fido2 --out FILE [--origin http://localhost:PORT]

Programs: real Firefox ESR (WebDriver BiDi on --remote-debugging-port), real Chromium (DevTools
protocol), python-fido2 2.x from PyPI (Fido2Client over hidraw, userVerification "preferred").
Every step writes one record to FILE (JSON lines): the options sent, the outcome, the wall time,
the bridge's JSON events during the step (timestamped by /proc/uptime in the guest script) and the
phone store's credential count. Nothing is judged here: ci/browser-seckey/judge.py (host) checks
each record, verifying every credential and assertion with py_webauthn.

Environment: SECKEY_DIR (the guest script's work dir: bridge.ts, phone.log, store-name, stores),
SECKEY_HIDRAW (the key's hidraw node), SECKEY_UNKNOWN_COUNT (unknown IDs in case 3). Defaults:
the longest list each program sends. python-fido2 65 (with the real one, 66: four probe chunks of
the key's maxCredentialCountInList, 20); Firefox 19 (it refuses allowCredentials longer than 20
with SecurityError before any request: MAX_ALLOWED_CREDENTIALS in dom/webauthn: one chunk);
Chromium 63 (it refuses more than 64 with a RangeError: it batches them in chunks of 20).
"""
import argparse
import base64
import json
import os
import subprocess
import sys
import threading
import time

from firefox_bidi import FIREFOX_PREFS, BiDi, BrowserProcess, write_prefs

# Attempts of a request that uhid cut short (it drops reports beyond its 32-report queue when the
# key's reader is not scheduled in time; docs/security-key.md, "A known limit of uhid").

WORK = os.environ.get("SECKEY_DIR", "/run/seckey")
STEP_LIMIT = float(os.environ.get("SECKEY_STEP_LIMIT", "60"))
# Chromium holds an "already registered" / "no passkey" answer on its error sheet until a person
# dismisses it (the promise never settles headless): the driver waits this long after the key's
# answer, then aborts, and the judge reads the key's answer (see judge.py).
SHEET_GRACE = 5.0
# How long one poll for a step's result waits (the page's resultWithin, python-fido2's thread):
# between two polls the driver checks for its own cancels (case 6, Chromium's error sheet).
POLL_WAIT = 2.0
# The key's status bytes for "already registered" and "no such credential".
STATUS_NAMES = {0x19: "CREDENTIAL_EXCLUDED", 0x2E: "NO_CREDENTIALS"}


def unknown_count(program):
    return int(os.environ.get("SECKEY_UNKNOWN_COUNT") or {"fido2": 65, "firefox": 19}.get(program, 63))


def uptime():
    with open("/proc/uptime") as f:
        return float(f.read().split()[0])


def b64u(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64u(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def log(message):
    print("[%8.2f] driver: %s" % (uptime(), message), flush=True)


class Bridge:
    """The key's JSON events (bridge.ts: "UPTIME {json}" lines) and the phone's log and store."""

    def __init__(self, program):
        self.program = program

    def lines(self):
        try:
            with open(os.path.join(WORK, "bridge.ts")) as f:
                text = f.read()
        except FileNotFoundError:
            return []
        out = []
        for line in text.splitlines():
            stamp, _, rest = line.partition(" ")
            try:
                out.append((float(stamp), json.loads(rest)))
            except ValueError:
                out.append((float(stamp) if stamp.replace(".", "").isdigit() else 0.0, {"raw": rest}))
        return out

    def mark(self):
        return len(self.lines())

    def since(self, mark):
        return self.lines()[mark:]

    def wait_for(self, mark, predicate, limit):
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            for stamp, event in self.since(mark):
                if predicate(event):
                    return stamp, event
            time.sleep(0.05)
        return None

    def phone_exit_after(self, begin, limit):
        """When the first phone started at or after `begin` (guest uptime) exited, waiting up to
        `limit` s for it; None if it did not. phone.log: "== phone: ceremony N for STORE at T" and
        "== phone: ceremony N exit RC at T"."""
        deadline = time.monotonic() + limit
        while True:
            try:
                with open(os.path.join(WORK, "phone.log")) as f:
                    lines = [line.split() for line in f if line.startswith("== phone: ceremony ")]
            except FileNotFoundError:
                lines = []
            starts = [(w[3], float(w[-1])) for w in lines if len(w) >= 8 and w[4] == "for"]
            number = next((n for n, t in starts if t >= begin), None)
            ends = [float(w[-1]) for w in lines if len(w) >= 8 and w[4] == "exit" and w[3] == number]
            if ends:
                return ends[0]
            if time.monotonic() > deadline:
                return None
            time.sleep(0.05)

    def store_count(self):
        try:
            with open(os.path.join(WORK, "store-%s.json" % self.program)) as f:
                return len(json.load(f).get("credentials", []))
        except FileNotFoundError:
            return 0


# ---------------------------------------------------------------- programs
class Firefox(BrowserProcess):
    name = "firefox"

    def __init__(self, origin):
        self.origin = origin
        profile = "/tmp/ff-profile"
        write_prefs(profile, FIREFOX_PREFS)
        port = 9222
        self.process = subprocess.Popen(
            ["firefox-esr", "--headless", "--no-remote", "--profile", profile,
             "--remote-debugging-port", str(port), "about:blank"],
            stdout=open("/tmp/firefox.log", "w"), stderr=subprocess.STDOUT,
            env=dict(os.environ, MOZ_HEADLESS="1", MOZ_CRASHREPORTER_DISABLE="1"))
        started = time.monotonic()
        self.bidi = BiDi(port)
        # Headless Firefox's first window never gets focus, and WebAuthn refuses an unfocused
        # page: each tab of ours is a new window.
        self.contexts = [self.new_window(), None]
        log("firefox ready after %.1f s" % (time.monotonic() - started))

    def new_window(self):
        context = self.bidi.call("browsingContext.create", {"type": "window"})["context"]
        self.bidi.call("browsingContext.navigate", {"context": context, "url": self.origin + "/page.html", "wait": "complete"})
        return context

    def evaluate(self, expression, tab=0, gesture=False, await_promise=False):
        if self.contexts[tab] is None:
            self.contexts[tab] = self.new_window()
        result = self.bidi.call("script.evaluate", {
            "expression": expression, "target": {"context": self.contexts[tab]},
            "awaitPromise": await_promise, "userActivation": gesture})
        if result.get("type") != "success":
            raise RuntimeError("script.evaluate: %s" % json.dumps(result)[:500])
        return result["result"].get("value")



class CDP:
    def __init__(self, url):
        import websocket
        self.ws = websocket.create_connection(url, timeout=300, suppress_origin=True)
        self.next_id = 0

    def call(self, method, params=None):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params or {}}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError("%s: %s" % (method, message["error"]))
                return message["result"]


class Chromium(BrowserProcess):
    name = "chromium"

    def __init__(self, origin):
        import urllib.request
        self.origin = origin
        port = 9223
        self.process = subprocess.Popen(
            ["chromium", "--headless=new", "--no-sandbox", "--user-data-dir=/tmp/chromium-profile",
             "--no-first-run", "--no-default-browser-check", "--password-store=basic",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--disable-gpu", "--disable-dev-shm-usage", "--disable-extensions",
             # Under TCG the network service's own process was restarted as hung (the page never
             # loaded): keep it in the browser process.
             "--enable-features=NetworkServiceInProcess",
             # The key is a USB key: no hybrid (caBLE) and no platform authenticator of Chromium's own.
             "--disable-features=WebAuthenticationCable,WebAuthenticationHybridLinking,WebAuthenticationEnclaveAuthenticator",
             # Under TCG its WebAuthn sheet's drawing took most of the guest's CPU (browser and GPU
             # process), starving the key and the phone: no GPU rasterization, no SwiftShader,
             # software compositing, reduced motion.
             "--disable-gpu-rasterization", "--disable-software-rasterizer", "--disable-gpu-compositing",
             "--force-prefers-reduced-motion",
             "--remote-debugging-port=%d" % port, "--remote-allow-origins=*",
             "--enable-logging=stderr", "--v=0", "--vmodule=*fido*=2,*webauthn*=2",
             "about:blank"],
            stdout=open("/tmp/chromium.log", "w"), stderr=subprocess.STDOUT)
        started = time.monotonic()
        deadline = started + 300
        while True:
            try:
                urllib.request.urlopen("http://127.0.0.1:%d/json/version" % port, timeout=5).read()
                break
            except Exception as error:
                if time.monotonic() > deadline:
                    raise RuntimeError("Chromium's DevTools did not answer: %s" % error)
                time.sleep(0.5)
        self.port = port
        self.tabs = [self.new_tab(), None]
        log("chromium ready after %.1f s" % (time.monotonic() - started))

    def new_tab(self):
        import urllib.request
        request = urllib.request.Request("http://127.0.0.1:%d/json/new?%s/page.html" % (self.port, self.origin), method="PUT")
        target = json.loads(urllib.request.urlopen(request, timeout=240).read())
        cdp = CDP(target["webSocketDebuggerUrl"])
        cdp.call("Page.enable")
        cdp.call("Emulation.setFocusEmulationEnabled", {"enabled": True})
        deadline = time.monotonic() + 240
        while cdp.call("Runtime.evaluate", {"expression": "typeof start", "returnByValue": True})["result"].get("value") != "function":
            if time.monotonic() > deadline:
                raise RuntimeError("the page did not load in Chromium")
            time.sleep(0.2)
        return cdp

    def evaluate(self, expression, tab=0, gesture=False, await_promise=False):
        if self.tabs[tab] is None:
            self.tabs[tab] = self.new_tab()
        result = self.tabs[tab].call("Runtime.evaluate", {"expression": expression, "userGesture": gesture,
                                                          "returnByValue": True, "awaitPromise": await_promise})
        if "exceptionDetails" in result:
            raise RuntimeError("Runtime.evaluate: %s" % json.dumps(result["exceptionDetails"])[:500])
        return result["result"].get("value")



class BrowserRunner:
    """start() on the page, then resultWithin() (the page's long poll); abort() for case 6."""

    def __init__(self, browser):
        self.browser = browser

    def start(self, kind, options, tab):
        started = self.browser.evaluate("start(%s, %s)" % (json.dumps(kind), json.dumps(json.dumps(options))), tab, gesture=True)
        if started != "started":
            raise RuntimeError("start() returned %r" % started)

    def poll(self, tab):
        text = self.browser.evaluate("resultWithin(%d)" % (POLL_WAIT * 1000), tab, await_promise=True)
        return json.loads(text) if text else None

    def abort(self, tab):
        self.browser.evaluate("abort()", tab)


def jsonable(value):
    from collections.abc import Mapping
    from enum import Enum
    if isinstance(value, Mapping):
        return {k: jsonable(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, bytes):
        return b64u(value)
    return value


class Fido2Runner:
    """python-fido2 2.x: Fido2Client over the key's hidraw node; a thread per ceremony so that
    case 6 can set the cancel event. Tab 1 is a second Fido2Client on a second open of the
    device (its own CTAPHID channel): "another program"."""

    name = "fido2"

    def __init__(self, origin):
        import fido2
        from importlib.metadata import version
        from fido2.client import DefaultClientDataCollector, Fido2Client, UserInteraction
        from fido2.hid import open_device
        log("python-fido2 %s from %s" % (version("fido2"), os.path.dirname(fido2.__file__)))
        self.origin = origin
        path = os.environ["SECKEY_HIDRAW"]
        self.make_client = lambda: Fido2Client(open_device(path), DefaultClientDataCollector(origin), UserInteraction())
        self.clients = [self.make_client(), None]
        self.results = [None, None]
        self.events = [None, None]
        self.settled = [threading.Event(), threading.Event()]

    def start(self, kind, options, tab):
        if self.clients[tab] is None:
            self.clients[tab] = self.make_client()
        client = self.clients[tab]
        event = threading.Event()
        self.events[tab] = event
        self.results[tab] = None
        settled = self.settled[tab] = threading.Event()
        started = time.monotonic()

        def run():
            try:
                if kind == "create":
                    response = client.make_credential(options, event=event)
                else:
                    response = client.get_assertion(options, event=event).get_response(0)
                result = {"ok": True, "credential": jsonable(dict(response))}
            except Exception as error:
                cause = getattr(error, "cause", None)
                result = {"ok": False, "name": type(error).__name__,
                          "code": str(getattr(error, "code", "")), "message": "%s (cause: %r)" % (error, cause)}
            result["ms"] = (time.monotonic() - started) * 1000
            self.results[tab] = result
            settled.set()

        threading.Thread(target=run, daemon=True).start()

    def poll(self, tab):
        self.settled[tab].wait(POLL_WAIT)
        return self.results[tab]

    def abort(self, tab):
        self.events[tab].set()

    def close(self):
        pass


# ---------------------------------------------------------------- cases
def creation_options(name, resident, exclude=()):
    options = {
        "challenge": b64u(os.urandom(32)),
        "rp": {"id": "localhost", "name": "seckey proof"},
        "user": {"id": b64u(os.urandom(16)), "name": name, "displayName": name},
        "pubKeyCredParams": [{"type": "public-key", "alg": -7}],
        "authenticatorSelection": {"residentKey": "required" if resident else "discouraged",
                                   "requireResidentKey": resident, "userVerification": "preferred"},
        "attestation": "none",
        "timeout": 60000,
    }
    if exclude:
        options["excludeCredentials"] = [{"type": "public-key", "id": i} for i in exclude]
    return options


def request_options(allow=(), uv="preferred", challenge=None):
    options = {"challenge": challenge or b64u(os.urandom(32)), "rpId": "localhost",
               "userVerification": uv, "timeout": 60000}
    if allow:
        options["allowCredentials"] = [{"type": "public-key", "id": i} for i in allow]
    return options


def unknown_ids(count):
    return [b64u(os.urandom(32)) for _ in range(count)]


class Session:
    def __init__(self, runner, program, out):
        self.runner = runner
        self.program = program
        self.bridge = Bridge(program)
        self.out = out
        self.credentials = {}

    def key_answer(self, mark):
        return _key_answer(self.bridge.since(mark))

    def step(self, case, step, kind, options, expect, tab=0, abort_on=None, note=""):
        """Runs one ceremony, once, and records it. expect: "ok" or the error the program must
        report. No request is tried again: each chunk of a long list fits in uhid's queue (the
        key's maxCredentialCountInList), so a report lost there is a failure like any other."""
        record = self.attempt(case, step, kind, options, expect, tab, abort_on, note)
        self.out.write(json.dumps(record) + "\n")
        self.out.flush()
        return record["result"]

    def attempt(self, case, step, kind, options, expect, tab, abort_on, note):
        if expect in ("excluded", "notallowed"):
            # Chromium shows its error sheet and rejects only when it is dismissed or the request
            # times out; a short timeout bounds the step (the judge still wants the right error).
            # 45 s: the phone's encrypted store alone costs 10-30 s under TCG before it connects.
            options = dict(options, timeout=45000)
        # A cancelled step's phone waits for its user instead of approving at once (the guest
        # script reads this file when the QR code appears), so the cancel cannot lose a race.
        holds = os.path.join(WORK, "phone-holds")
        if abort_on:
            open(holds, "w").close()
        try:
            return self.attempt_once(case, step, kind, options, expect, tab, abort_on, note)
        finally:
            if os.path.exists(holds):
                os.remove(holds)

    def attempt_once(self, case, step, kind, options, expect, tab, abort_on, note):
        mark = self.bridge.mark()
        count = self.bridge.store_count()
        record = {"program": self.program, "case": case, "step": step, "kind": kind, "expect": expect,
                  "note": note, "options": options, "tab": tab}
        log("%s %s: %s (%s)" % (case, step, kind, note))
        begin = uptime()
        result = None
        aborted_at = None
        try:
            self.runner.start(kind, options, tab)
            deadline = time.monotonic() + STEP_LIMIT
            while result is None and time.monotonic() < deadline:
                if abort_on and aborted_at is None:
                    hit = abort_on(self.bridge.since(mark))
                    if hit:
                        self.runner.abort(tab)
                        aborted_at = uptime()
                        record["aborted_at"] = aborted_at - begin
                if self.program == "chromium" and expect in ("excluded", "notallowed") and "sheet_abort_at" not in record:
                    answer = self.key_answer(mark)
                    if answer and uptime() - answer[0] > SHEET_GRACE:
                        self.runner.abort(tab)
                        record["sheet_abort_at"] = uptime() - begin
                        record["key_answer"] = {"at": answer[0] - begin, "status": answer[1]}
                result = self.runner.poll(tab)  # waits up to POLL_WAIT for the result
            if result is None:
                result = {"ok": False, "name": "HarnessTimeout", "message": "no result within %.0f s" % STEP_LIMIT}
                if hasattr(self.runner, "abort"):
                    try:
                        self.runner.abort(tab)
                    except Exception:
                        pass
        except Exception as error:
            result = {"ok": False, "name": "HarnessError", "message": repr(error)}
        end = uptime()
        if aborted_at is not None:
            # case 6: the bridge's end of the phone ceremony, and the phone process's exit.
            hit = self.bridge.wait_for(mark, lambda e: e.get("event") in ("error", "cancelled") , 5)
            record["bridge_cancel_after_abort"] = (hit[0] - aborted_at) if hit else None
            exited = self.bridge.phone_exit_after(begin, 5)
            record["phone_exit_after_abort"] = (exited - aborted_at) if exited is not None else None
        else:
            time.sleep(0.3)  # the bridge's "done" line follows the answer by a moment
        if "key_answer" not in record and self.key_answer(mark):
            stamp, status = self.key_answer(mark)
            record["key_answer"] = {"at": stamp - begin, "status": status}
        record.update({"result": result, "begin": begin, "wall": end - begin,
                       "events": [[round(t - begin, 2), e] for t, e in self.bridge.since(mark)],
                       "store_before": count, "store_after": self.bridge.store_count()})
        log("  -> %s %s in %.1f s; events: %s" % ("ok" if result.get("ok") else "error",
            result.get("name", ""), end - begin,
            ", ".join(_short(e) for _, e in self.bridge.since(mark))))
        return record


def _key_answer(events):
    """(guest uptime, status) of the key's last answer to the program that came from the phone."""
    answers = [(t, e.get("status")) for t, e in events if e.get("event") in ("done", "error") and "status" in e]
    return answers[-1] if answers else None


def _short(event):
    parts = [str(event.get(k)) for k in ("event", "command", "status", "reason") if k in event]
    return "/".join(parts)


def credential_id(result):
    return result["credential"]["rawId"] if result and result.get("ok") else None


def run_cases(session):
    s = session
    count = unknown_count(s.program)
    # 1: discoverable
    r = s.step("1", "create discoverable", "create", creation_options("alice-rk", True), "ok")
    discoverable = credential_id(r)
    s.step("1", "get, empty allow list, uv preferred", "get", request_options(), "ok", note="discoverable %s" % discoverable)
    s.step("1", "get, empty allow list, uv discouraged", "get", request_options(uv="discouraged"), "ok")
    # 2: non-discoverable
    r = s.step("2", "create non-discoverable", "create", creation_options("bob", False), "ok")
    plain = credential_id(r) or b64u(os.urandom(32))
    s.step("2", "get, allow=[it]", "get", request_options([plain]), "ok")
    # 3: long lists
    s.step("3", "get, allow=[%d unknown, real last]" % count, "get",
           request_options(unknown_ids(count) + [plain]), "ok")
    s.step("3", "get, allow=[real first, %d unknown]" % count, "get",
           request_options([plain] + unknown_ids(count)), "ok")
    s.step("3", "get, allow=[unknown, real, unknown]", "get",
           request_options(unknown_ids(1) + [plain] + unknown_ids(1)), "ok")
    # 4: exclude lists
    s.step("4", "create, exclude=[existing]", "create", creation_options("bob", False, [plain]), "excluded")
    s.step("4", "create, exclude=[3 unknown]", "create", creation_options("carol", False, unknown_ids(3)), "ok")
    # 5: a credential the phone does not have
    s.step("5", "get, allow=[unknown]", "get", request_options(unknown_ids(1)), "notallowed")

    # 6: cancel mid-ceremony, then a request at once
    def phone_started(events):
        seen_qr = any(e.get("event") == "qr" for _, e in events)
        return seen_qr and any(e.get("event") in ("connecting", "connectingL2CAP", "handshake", "waitingForApproval") for _, e in events)
    s.step("6", "get, cancelled once the phone connects", "get", request_options([plain]), "aborted", abort_on=phone_started)
    s.step("6", "get right after the cancel", "get", request_options([plain]), "ok")
    # 7: two tabs / programs one after another; an identical repeat answered from the cache
    s.step("7", "get from program/tab A", "get", request_options([plain]), "ok", tab=0)
    repeat = request_options([plain])
    s.step("7", "get from program/tab B", "get", repeat, "ok", tab=1)
    s.step("7", "same request again from B (cache)", "get", repeat, "cached", tab=1)


def run_load(session, repeat):
    """SECKEY_LOAD_REPEAT: case 3's longest list, `repeat` times, once each (the guest script runs a
    busy loop on every core meanwhile): every request must reach the key whole, and each sign-in
    is judged like case 3's. Needs the encrypted phone store (the plaintext one cannot verify users
    and refuses the registration with CTAP2_ERR_UNSUPPORTED_OPTION)."""
    s = session
    r = s.step("2", "create non-discoverable", "create", creation_options("bob", False), "ok")
    plain = credential_id(r) or b64u(os.urandom(32))
    count = unknown_count(s.program)
    for n in range(1, repeat + 1):
        s.step("3", "under load %d/%d: get, allow=[%d unknown, real last]" % (n, repeat, count), "get",
               request_options(unknown_ids(count) + [plain], uv="discouraged"), "ok")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("program", choices=["firefox", "chromium", "fido2"])
    parser.add_argument("--out", required=True)
    parser.add_argument("--origin", default="http://localhost:8000")
    args = parser.parse_args()
    with open(os.path.join(WORK, "store-name"), "w") as f:
        f.write(args.program)
    started = time.monotonic()
    with open(args.out, "a") as out:
        # The clock of the key's report trace (epoch) against the records' (guest uptime).
        out.write(json.dumps({"clock": {"epoch": time.time(), "uptime": uptime()}}) + "\n")
        try:
            if args.program == "fido2":
                runner = Fido2Runner(args.origin)
                program = runner
            else:
                program = (Firefox if args.program == "firefox" else Chromium)(args.origin)
                runner = BrowserRunner(program)
        except Exception as error:
            out.write(json.dumps({"program": args.program, "case": "start", "step": "start the program",
                                  "expect": "ok", "result": {"ok": False, "name": "HarnessError", "message": repr(error)}}) + "\n")
            log("could not start %s: %r" % (args.program, error))
            return 1
        try:
            repeat = int(os.environ.get("SECKEY_LOAD_REPEAT") or 0)
            if repeat:
                run_load(Session(runner, args.program, out), repeat)
            else:
                run_cases(Session(runner, args.program, out))
        finally:
            program.close()
    log("%s: all steps in %.1f s" % (args.program, time.monotonic() - started))
    return 0


if __name__ == "__main__":
    sys.exit(main())
