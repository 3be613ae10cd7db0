"""Firefox over WebDriver BiDi, shared by the browser proofs: ci/browser-seckey/driver.py (in the
blevm guest) and ci/firefox-extension/proof.py (the extension and its native host, on the host).
"""
import json
import os
import subprocess
import time


class BiDi:
    """Firefox over WebDriver BiDi (websocket-client, no Origin header: Firefox refuses one)."""

    def __init__(self, port):
        import websocket
        deadline = time.monotonic() + 300
        while True:
            try:
                self.ws = websocket.create_connection("ws://127.0.0.1:%d/session" % port, timeout=300,
                                                      suppress_origin=True)
                break
            except Exception as error:  # Firefox still starting under TCG
                if time.monotonic() > deadline:
                    raise RuntimeError("Firefox's remote agent did not answer: %s" % error)
                time.sleep(0.5)
        self.next_id = 0
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
