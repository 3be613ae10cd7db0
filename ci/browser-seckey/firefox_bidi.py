"""Firefox over WebDriver BiDi, shared by the browser proofs: ci/browser-seckey/driver.py (in the
blevm guest) and ci/firefox-extension/proof.py (the extension and its native host, on the host).
"""
import json
import os
import socket
import subprocess
import time

# How long Firefox may take to open its remote ports (seconds; it starts slowly under TCG).
START_LIMIT = 300


class BiDi:
    """Firefox over WebDriver BiDi (websocket-client, no Origin header: Firefox refuses one).

    With session_url (Marionette.new_session's), it joins that WebDriver session; else it opens a
    BiDi-only session of its own on port."""

    def __init__(self, port, session_url=None):
        import websocket
        deadline = time.monotonic() + START_LIMIT
        while True:
            try:
                self.ws = websocket.create_connection(session_url or "ws://127.0.0.1:%d/session" % port,
                                                      timeout=300, suppress_origin=True)
                break
            except Exception as error:  # Firefox still starting under TCG
                if time.monotonic() > deadline:
                    raise RuntimeError("Firefox's remote agent did not answer: %s" % error)
                time.sleep(0.5)
        self.next_id = 0
        if session_url is None:
            self.call("session.new", {"capabilities": {"alwaysMatch": {"acceptInsecureCerts": True}}})

    def call(self, method, params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") == self.next_id:
                if message.get("type") == "error":
                    raise RuntimeError("%s: %s %s" % (method, message.get("error"), message.get("message")))
                return message["result"]


class Marionette:
    """Firefox's Marionette protocol (WebDriver classic's commands, no geckodriver): "LENGTH:JSON"
    packets, a command [0, id, name, parameters], its answer [1, id, error, result]. It carries
    what BiDi lacks: WebAuthn's virtual authenticators (WebAuthn Level 3 §11.3, Firefox's
    "WebAuthn:AddVirtualAuthenticator", which answer with its soft token). Firefox allows one
    WebDriver session: new_session asks for BiDi's webSocketUrl, for BiDi(session_url=...)."""

    def __init__(self, port):
        deadline = time.monotonic() + START_LIMIT
        while True:
            try:
                self.socket = socket.create_connection(("127.0.0.1", port), timeout=300)
                break
            except OSError as error:  # Firefox still starting under TCG
                if time.monotonic() > deadline:
                    raise RuntimeError("Firefox's Marionette did not answer on port %d: %s" % (port, error))
                time.sleep(0.5)
        self.buffer = b""
        self.next_id = 0
        hello = self.receive()
        if hello.get("marionetteProtocol") != 3:
            raise RuntimeError("not Marionette protocol 3: %s" % hello)

    def receive(self):
        while b":" not in self.buffer:
            self.buffer += self.read()
        length, rest = self.buffer.split(b":", 1)
        length = int(length)
        while len(rest) < length:
            rest += self.read()
        self.buffer = rest[length:]
        return json.loads(rest[:length])

    def read(self):
        data = self.socket.recv(65536)
        if not data:
            raise RuntimeError("Marionette closed the connection")
        return data

    def call(self, name, parameters):
        self.next_id += 1
        packet = json.dumps([0, self.next_id, name, parameters]).encode()
        self.socket.sendall(b"%d:%s" % (len(packet), packet))
        while True:
            message = self.receive()
            if message[0] == 1 and message[1] == self.next_id:
                if message[2]:
                    raise RuntimeError("%s: %s" % (name, message[2]))
                return message[3]

    def new_session(self):
        """Opens the WebDriver session (Marionette takes the capabilities flat); returns its BiDi URL."""
        answer = self.call("WebDriver:NewSession", {"webSocketUrl": True, "acceptInsecureCerts": True})
        url = answer["capabilities"].get("webSocketUrl")
        if not url:
            raise RuntimeError("Marionette's session has no webSocketUrl: %s" % json.dumps(answer)[:300])
        return url

    def add_virtual_authenticator(self):
        """A CTAP2 USB authenticator that keeps passkeys, verifies its user and consents to every
        request (WebAuthn §11.3's parameters); returns its ID."""
        return self.call("WebAuthn:AddVirtualAuthenticator", {
            "protocol": "ctap2", "transport": "usb", "hasResidentKey": True, "hasUserVerification": True,
            "isUserConsenting": True, "isUserVerified": True})["value"]


# Prefs that keep Firefox from blocking on a prompt or reaching the network; listed in the README
# of the proof (ci/run-browser-seckey-proof.sh).
FIREFOX_PREFS = {
    "security.webauth.webauthn_enable_softtoken": False,   # no built-in test token
    "security.webauth.webauthn_enable_usbtoken": True,     # USB/HID keys (ours)
    "security.webauthn.always_allow_direct_attestation": True,  # no attestation consent prompt
    "security.webauthn.ctap2": True,
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.homepage_override.mstone": "ignore",
    "browser.aboutwelcome.enabled": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "toolkit.telemetry.reportingpolicy.firstRun": False,
    "app.update.disabledForTesting": True,
    "network.proxy.type": 0,
    "browser.sessionstore.resume_from_crash": False,
    "remote.active-protocols": 1,  # WebDriver BiDi only
}


def write_prefs(profile, prefs):
    """The profile's user.js: one user_pref line per pref."""
    os.makedirs(profile, exist_ok=True)
    with open(os.path.join(profile, "user.js"), "w") as f:
        for key, value in prefs.items():
            f.write("user_pref(%s, %s);\n" % (json.dumps(key), json.dumps(value)))


class BrowserProcess:
    """A browser started by us; close() ends it (TERM, then KILL after 10 s)."""

    def close(self):
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
