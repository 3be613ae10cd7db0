#!/usr/bin/python3
"""Drives real Firefox ESR (headless, WebDriver BiDi) with the extension and its native host
installed as scripts/install.sh installs them; ci/run-firefox-extension.sh runs it and then
judge.py, which verifies every credential with py_webauthn.

  proof.py --bin DIR --xpi FILE --relay-port PORT --work DIR --out FILE [--no-host]

The page is ci/browser-seckey/page.html (the browser proofs' one relying party) on http://localhost:PORT. The phone is
hybrid-authenticator on the simulated air (the host's settings name the same air and the
loopback relay); it is started for each QR code the host writes to WORK/qr-urls.jsonl (the
host's --qr-url-file setting), as a camera would read it. Every step writes one JSON record to
FILE; hard failures of the browser or the protocol exit non-zero at once. With --no-host, no
host manifest is installed (the caller runs this outside the mount namespace): the page must get
Firefox's own behaviour.

  proof.py ... --portal PORTAL_LOG [--no-host]

The portal run (ci/run-firefox-portal.sh): Firefox with widget.use-xdg-desktop-portal.native-messaging
= 1 and DBUS_SESSION_BUS_ADDRESS naming a private bus where portal.py (a stand-in for
xdg-desktop-portal's WebExtensions portal, logging to PORTAL_LOG) starts the host; Firefox itself
sees no host manifest and has its own HOME. The cases: getClientCapabilities, the phone's create
and two gets, an abort, and Firefox quitting during a ceremony (the host must end with the
session). With --no-host, the portal refuses the manifest: Firefox's own behaviour.
"""
import argparse
import base64
import functools
import http.server
import json
import os
import re
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# The browser proofs' shared harness: firefox_bidi.py and the relying party's page.html.
PAGE_DIRECTORY = os.path.join(HERE, "..", "browser-seckey")
sys.path.insert(0, PAGE_DIRECTORY)
from firefox_bidi import FIREFOX_PREFS, BiDi, BrowserProcess, Marionette, write_prefs  # noqa: E402

STEP_LIMIT = 60.0
QR_LINE = re.compile(r'\{"event":"qr","id":"([A-Za-z0-9_-]+)","url":"(FIDO:/[0-9]+)"\}')


def b64u(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def log(message):
    print("proof: %s" % message, flush=True)


def fail(message):
    print("proof: FAIL: %s" % message, file=sys.stderr, flush=True)
    sys.exit(1)


class Phones:
    """Starts hybrid-authenticator for each QR code the host prints, unless held."""

    def __init__(self, args, urls):
        self.args = args
        self.urls = urls
        self.seen = []          # (request id, time) of every QR code, in order
        self.processes = []
        self.hold = False
        # The phone's encrypted store (passkeys and the wallet; its passphrase in
        # HYBRID_AUTHENTICATOR_PASSPHRASE): with --yes the phone then verifies the user, as prf needs.
        self.store = ["--store", os.path.join(args.work, "wallet.json")]
        self.lock = threading.Lock()
        threading.Thread(target=self.watch, daemon=True).start()

    def watch(self):
        offset = 0
        while True:
            try:
                with open(self.urls, "rb") as f:
                    f.seek(offset)
                    chunk = f.read()
            except FileNotFoundError:
                chunk = b""
            complete = chunk[: chunk.rfind(b"\n") + 1]
            offset += len(complete)
            for match in QR_LINE.finditer(complete.decode(errors="replace")):
                with self.lock:
                    self.seen.append((match.group(1), time.monotonic()))
                    if not self.hold:
                        self.start(match.group(2))
            time.sleep(0.05)

    def start(self, url):
        phone_log = open(os.path.join(self.args.work, "phone.log"), "ab")
        process = subprocess.Popen(
            [os.path.join(self.args.bin, "hybrid-authenticator"), "-", "--tunnel-url",
             "ws://127.0.0.1:%d" % self.args.relay_port, "--ble", "sim", "--yes", "--json"] + self.store,
            stdin=subprocess.PIPE, stdout=phone_log, stderr=subprocess.STDOUT,
            env=dict(os.environ, HYBRID_SIMULATED_AIR_DIR=os.path.join(self.args.work, "air"),
                     HYBRID_ALLOW_SIMULATED_AIR="1"))
        process.stdin.write((url + "\n").encode())
        process.stdin.close()
        self.processes.append(process)

    def count(self):
        with self.lock:
            return len(self.seen)

    def wait_for(self, count, limit):
        deadline = time.monotonic() + limit
        while self.count() < count:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
        return True


class Firefox(BrowserProcess):
    def __init__(self, args, origin, prefs):
        self.origin = origin
        label = "nohost" if args.no_host else "host"
        port = {"nohost": 9340, "host": 9341}[label] + (2 if args.portal else 0)
        if args.portal:  # one profile per portal run: portal-NAME of the portal's log NAME.jsonl
            label = "portal-" + os.path.splitext(os.path.basename(args.portal))[0]
        profile = os.path.join(args.work, "profile-%s" % label)
        marionette_port = port + 100
        write_prefs(profile, dict(prefs, **{"marionette.port": marionette_port}))
        self.log_path = os.path.join(args.work, "firefox-%s.log" % label)
        if args.portal:
            # A confined Firefox: its own HOME (no native-messaging-hosts, no host settings), none
            # of the host's variables; it reaches the host only through the portal on the bus.
            home = os.path.join(args.work, "home-firefox")
            os.makedirs(home, exist_ok=True)
            env = {k: v for k, v in os.environ.items() if not k.startswith("HYBRID_")}
            env.update(HOME=home, MOZ_HEADLESS="1", MOZ_CRASHREPORTER_DISABLE="1")
            assert env.get("DBUS_SESSION_BUS_ADDRESS"), "the portal run needs DBUS_SESSION_BUS_ADDRESS"
        else:
            env = dict(os.environ, HOME=os.path.join(args.work, "home"), MOZ_HEADLESS="1",
                       MOZ_CRASHREPORTER_DISABLE="1", HYBRID_SIMULATED_AIR_DIR=os.path.join(args.work, "air"),
                       HYBRID_ALLOW_SIMULATED_AIR="1")
        self.process = subprocess.Popen(
            ["firefox-esr", "--headless", "--no-remote", "--profile", profile, "--remote-debugging-port", str(port),
             "--marionette", "about:blank"], stdout=open(self.log_path, "wb"), stderr=subprocess.STDOUT, env=env)
        # Firefox's own implementation gets an authenticator: its soft token, as a WebDriver
        # virtual authenticator (Marionette: BiDi has none), so that "a security key or this
        # browser" and the pages without our host complete their ceremonies.
        self.marionette = Marionette(marionette_port)
        session_url = self.marionette.new_session()
        log("Firefox's virtual authenticator: %s" % self.marionette.add_virtual_authenticator())
        self.bidi = BiDi(port, session_url=session_url)
        installed = self.bidi.call("webExtension.install", {"extensionData": {"type": "archivePath", "path": args.xpi}})
        log("webExtension.install: %s" % installed)
        self.tabs = {}
        self.answered_windows = set()

    def tab(self, name):
        if name not in self.tabs:
            # Headless Firefox focuses no first window, and WebAuthn refuses an unfocused page:
            # each tab of ours is a new window (as ci/browser-seckey/driver.py does).
            context = self.bidi.call("browsingContext.create", {"type": "window"})["context"]
            self.bidi.call("browsingContext.navigate",
                           {"context": context, "url": self.origin + "/page.html", "wait": "complete"})
            self.tabs[name] = context
        return self.tabs[name]

    def evaluate(self, expression, tab="a", gesture=False, context=None):
        result = self.bidi.call("script.evaluate", {
            "expression": expression, "target": {"context": context or self.tab(tab)},
            "awaitPromise": False, "userActivation": gesture})
        if result.get("type") != "success":
            fail("script.evaluate %s: %s" % (expression[:60], json.dumps(result)[:500]))
        return result["result"].get("value")

    def start(self, kind, options, tab="a"):
        if self.evaluate("start(%s, %s)" % (json.dumps(kind), json.dumps(json.dumps(options))), tab, True) != "started":
            fail("start() did not start")

    def result(self, tab="a", limit=STEP_LIMIT):
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            text = self.evaluate("JSON.stringify(window.__result)", tab)
            if text and text != "null":
                return json.loads(text)
            time.sleep(0.1)
        fail("no result within %.0f s" % limit)

    def choice_windows(self):
        tree = self.bidi.call("browsingContext.getTree", {})
        return [c["context"] for c in tree["contexts"] if c["url"].startswith("moz-extension://")
                and "/choice.html" in c["url"]]

    def choose(self, choice, remember, limit=20.0):
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            windows = [w for w in self.choice_windows() if w not in self.answered_windows]
            if windows:
                self.answered_windows.add(windows[0])
                self.evaluate("document.getElementById('remember').checked = %s; document.getElementById(%s).click(); 'ok'"
                              % ("true" if remember else "false", json.dumps(choice)), context=windows[0], gesture=True)
                return True
            time.sleep(0.1)
        return False

    def capabilities(self):
        self.evaluate("capabilities()")
        deadline = time.monotonic() + STEP_LIMIT
        while time.monotonic() < deadline:
            value = self.evaluate("window.__capabilities")
            if value:
                return value
            time.sleep(0.1)
        fail("getClientCapabilities() did not settle")


def creation(name, extensions=None, rp_id="localhost"):
    return {"challenge": b64u(os.urandom(32)), "rp": {"id": rp_id, "name": "Proof"},
            "user": {"id": b64u(os.urandom(16)), "name": name, "displayName": name},
            "pubKeyCredParams": [{"type": "public-key", "alg": -7}], "timeout": 60000,
            "authenticatorSelection": {"residentKey": "required", "userVerification": "preferred"},
            "extensions": extensions or {}}


def request(credential_id, extensions=None):
    return {"challenge": b64u(os.urandom(32)), "rpId": "localhost", "timeout": 60000,
            "allowCredentials": [{"type": "public-key", "id": credential_id}], "userVerification": "preferred",
            "extensions": extensions or {}}


def host_processes(firefox_pid):
    """The pids of native hosts (hybrid-client native-messaging) under Firefox."""
    children = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % pid) as f:
                parent = int(f.read().rsplit(")", 1)[1].split()[1])
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                command = f.read().split(b"\0")
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(parent, []).append((int(pid), command))
    found, queue = [], [firefox_pid]
    while queue:
        for pid, command in children.get(queue.pop(), []):
            queue.append(pid)
            if b"native-messaging" in command:
                found.append(pid)
    return found


def wait_until(predicate, limit):
    deadline = time.monotonic() + limit
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def portal_log(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def spawned_hosts(path):
    """The pids the stand-in portal spawned, and whether each still runs."""
    return {e["pid"]: os.path.exists("/proc/%d" % e["pid"]) for e in portal_log(path) if e["event"] == "host-spawned"}


def phone_create_and_gets(firefox, phones, record, user, failure):
    """The phone chosen and remembered for the site: a create with credProps and prf, then two
    gets with the same prf salt (steps phone-create, phone-get-1, phone-get-2). Returns the
    credential's id."""
    options = creation(user, {"credProps": True, "prf": {}})
    firefox.start("create", options)
    chose = firefox.choose("phone", remember=True)
    log("chose the phone: %s" % chose)
    created = firefox.result()
    record("phone-create", options, created, chose=chose, qrCodes=phones.count())
    if not created.get("ok"):
        fail(failure)
    salt = b64u(b"the proof's prf salt".ljust(32, b"."))
    for step in ("phone-get-1", "phone-get-2"):
        options = request(created["credential"]["id"], {"prf": {"eval": {"first": salt}}})
        firefox.start("get", options)
        record(step, options, firefox.result(), choiceWindows=len(firefox.choice_windows()))
    return created["credential"]["id"]


def portal_run(args, firefox, record):
    """The host through the stand-in portal: the ceremonies, then the session ends."""
    phones = Phones(args, os.path.join(args.work, "qr-urls.jsonl"))
    record("capabilities", None, {"ok": True, "capabilities": json.loads(firefox.capabilities())})
    credential_id = phone_create_and_gets(
        firefox, phones, record, "portal-alice", "the phone's create through the portal failed")
    # Every session so far ended with its host (the extension closes the port when no request
    # runs; Firefox then closes the portal session).
    settled = wait_until(lambda: not any(spawned_hosts(args.portal).values()), 20)
    record("sessions-closed", None, {"ok": settled}, hosts=spawned_hosts(args.portal))

    # Abort while the QR code is up: AbortError, the ceremony cancelled, the host gone.
    phones.hold = True
    before = phones.count()
    options = request(credential_id)
    firefox.start("get", options)
    shown = phones.wait_for(before + 1, 30)
    firefox.evaluate("abort()")
    result = firefox.result()
    host_gone = wait_until(lambda: not any(spawned_hosts(args.portal).values()), 20)
    record("abort", options, result, qrShown=shown, hostExited=host_gone, hosts=spawned_hosts(args.portal))

    # Firefox quits while a ceremony runs (the QR code up): the session ends, so does the host.
    before = phones.count()
    options = request(credential_id)
    firefox.start("get", options)
    shown = phones.wait_for(before + 1, 30)
    running = [pid for pid, alive in spawned_hosts(args.portal).items() if alive]
    firefox.close()
    host_gone = wait_until(lambda: not any(spawned_hosts(args.portal).values()), 20)
    record("firefox-quit", options, {"ok": host_gone}, qrShown=shown, runningAtQuit=running,
           hosts=spawned_hosts(args.portal))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--xpi", required=True)
    parser.add_argument("--relay-port", type=int, default=0)
    parser.add_argument("--work", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--no-host", action="store_true")
    parser.add_argument("--portal", help="the stand-in portal's log: Firefox asks the portal for the host")
    args = parser.parse_args()
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(http.server.SimpleHTTPRequestHandler, directory=PAGE_DIRECTORY))
    server.RequestHandlerClass.log_message = lambda *a: None
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = "http://localhost:%d" % server.server_address[1]
    out = open(args.out, "a")

    def record(step, options, result, **extra):
        entry = dict(step=step, origin=origin, options=options, result=result, **extra)
        out.write(json.dumps(entry) + "\n")
        out.flush()
        log("%s: %s" % (step, "ok" if result.get("ok") else "%s %s" % (result.get("name"), result.get("message", ""))[:200]))

    # Firefox's own soft token (a virtual authenticator, Firefox.__init__): what "a security key or
    # this browser" must reach.
    prefs = dict(FIREFOX_PREFS, **{"security.webauth.webauthn_enable_softtoken": True,
                                   "security.webauth.webauthn_enable_usbtoken": False})
    if args.portal:
        prefs["widget.use-xdg-desktop-portal.native-messaging"] = 1
    firefox = Firefox(args, origin, prefs)
    if args.portal and not args.no_host:
        try:
            portal_run(args, firefox, record)
        finally:
            firefox.close()
            out.close()
        return
    try:
        if args.no_host:
            record("no-host-capabilities", None, {"ok": True, "capabilities": json.loads(firefox.capabilities())})
            options = creation("nohost")
            firefox.start("create", options)
            record("no-host-create", options, firefox.result(), choiceWindows=len(firefox.choice_windows()))
            return
        phones = Phones(args, os.path.join(args.work, "qr-urls.jsonl"))
        record("capabilities", None, {"ok": True, "capabilities": json.loads(firefox.capabilities())})

        # "A security key or this browser": Firefox's own implementation (its soft token); no QR.
        options = creation("browser-choice")
        firefox.start("create", options)
        chose = firefox.choose("browser", remember=False)
        created = firefox.result()
        record("browser-create", options, created, chose=chose, qrCodes=phones.count())
        if created.get("ok"):
            # And a get of that passkey, the same choice again (not remembered): Firefox's soft token signs.
            options = request(created["credential"]["rawId"])
            firefox.start("get", options)
            chose = firefox.choose("browser", remember=False)
            record("browser-get", options, firefox.result(), chose=chose, qrCodes=phones.count())

        # The phone, remembered for this site: create with credProps and prf.
        # Then two gets with the same prf salt: no choice window (remembered), the same results.
        credential_id = phone_create_and_gets(firefox, phones, record, "alice", "the phone's create failed")

        # An RP ID that is not the origin's: SecurityError, and no QR code.
        before = phones.count()
        options = creation("mallory", rp_id="example.com")
        firefox.start("create", options)
        result = firefox.result()
        record("rp-id-not-origins", options, result, qrCodesDuring=phones.count() - before)

        # Abort mid-ceremony: the QR code is up (no phone answers it), the page aborts.
        phones.hold = True
        before = phones.count()
        options = request(credential_id)
        firefox.start("get", options)
        shown = phones.wait_for(before + 1, 30)
        probe = json.loads(firefox.evaluate("probe()"))
        firefox.evaluate("abort()")
        result = firefox.result()
        air = os.path.join(args.work, "air")
        # The host's ceremony ends: its scanner leaves the simulated air, and the host exits once
        # the extension has nothing for it to do.
        # The simulated air deletes a scanner socket of an exited process when it next lists them
        # (SimulatedAir.scannerPaths): a live scanner is one whose process still runs.
        def live_scanners():
            names = os.listdir(air) if os.path.isdir(air) else []
            return [n for n in names if n.startswith("scanner-") and os.path.exists("/proc/" + n.split("-")[1])]
        air_empty = wait_until(lambda: not live_scanners(), 30)
        air_left = os.listdir(air) if os.path.isdir(air) else []
        host_gone = wait_until(lambda: not host_processes(firefox.process.pid), 20)
        record("abort", options, result, qrShown=shown, pageProbe=probe, airEmptied=air_empty, airLeft=air_left,
               hostExited=host_gone)
        phones.hold = False

        # Two tabs at once.
        before = phones.count()
        pair = {}
        for tab in ("a", "b"):
            pair[tab] = request(credential_id)
            firefox.start("get", pair[tab], tab)
        for tab in ("a", "b"):
            record("two-tabs-%s" % tab, pair[tab], firefox.result(tab), qrCodesDuring=phones.count() - before)
        # A digital credential from the phone's wallet (no choice window: Firefox has no Digital
        # Credentials API of its own): one claim of the PID SD-JWT VC the run script issued.
        nonce = b64u(os.urandom(16))
        options = {"digital": {"requests": [{"protocol": "openid4vp-v1-unsigned", "data": {
            "response_type": "vp_token", "response_mode": "dc_api", "nonce": nonce,
            "dcql_query": {"credentials": [{"id": "pid", "format": "dc+sd-jwt",
                                            "meta": {"vct_values": ["urn:eudi:pid:1"]},
                                            "claims": [{"path": ["age_equals_or_over", "18"]}]}]}}}]}}
        firefox.start("get", options)
        record("digital", options, firefox.result(), nonce=nonce, choiceWindows=len(firefox.choice_windows()))
        record("page-probe", None, {"ok": True, "probe": json.loads(firefox.evaluate("probe()"))})
    finally:
        firefox.close()
        out.close()


if __name__ == "__main__":
    main()
