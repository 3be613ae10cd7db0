#!/usr/bin/env python3
"""Passkey export and import in CXF 1.0, end to end through hybrid, checked by independent peers.

Starts tunnel-relay on a free loopback port; every ceremony is `hybrid-client --ble sim` (the
simulated air) answered by one `hybrid-authenticator` process. py_webauthn
(Tests/Interop/verify_webauthn.py) is the relying party; scripts/cxf-peer.py (Python json and
`cryptography`, no code of ours) reads and writes the CXF documents.

 1. Register a passkey (prf eval, user verification) in store A; py_webauthn verifies it.
 2. Sign in with prf on store A: the reference prf result.
 3. `credentials export --output` from A: the file is 0600; cxf-peer checks the field rules and that
    the exported key gives the public key py_webauthn registered.
 4. `credentials import` into a fresh store B; sign in: py_webauthn verifies the assertion with the
    original public key, the counter is 0 and the prf result equals step 2's.
 5. cxf-peer writes a CXF document for a key it generated; import it into B; sign in with it:
    py_webauthn verifies with cxf-peer's public key, and prf equals HMAC-SHA-256(credWithUV,
    SHA-256("WebAuthn PRF" || 0x00 || input)) computed here.
 6. Importing the same document again is refused (exit 1) and leaves store B byte for byte.

Usage: cxf-e2e.py BIN_DIR
"""
import base64
import hashlib
import hmac
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
VERIFY = os.path.join(HERE, "..", "Tests", "Interop", "verify_webauthn.py")
PEER = os.path.join(HERE, "cxf-peer.py")
ORIGIN, RP_ID = "https://example.com", "example.com"


def fail(message):
    print(f"cxf-e2e: FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Run:
    def __init__(self, bin_dir):
        self.bin = bin_dir
        self.work = tempfile.mkdtemp(prefix="cxf-e2e-")
        self.env = dict(os.environ, HYBRID_SIMULATED_AIR_DIR=os.path.join(self.work, "air"),
                        HYBRID_ALLOW_SIMULATED_AIR="1", HYBRID_ALLOW_INSECURE_FAST_KDF="1",
                        HYBRID_AUTHENTICATOR_PASSPHRASE="cxf-e2e-" + secrets.token_hex(8))
        os.makedirs(self.env["HYBRID_SIMULATED_AIR_DIR"], mode=0o700)
        self.relay = subprocess.Popen(
            [os.path.join(bin_dir, "tunnel-relay"), "--host", "127.0.0.1", "--port", "0", "--rate-per-ip", "0",
             "--log-level", "error"], stdout=subprocess.PIPE, text=True)
        line = self.relay.stdout.readline().strip()
        if not line.startswith("listening on 127.0.0.1:"):
            fail(f"tunnel-relay did not start: {line!r}")
        self.tunnel = "ws://" + line.split("listening on ", 1)[1]

    def path(self, name):
        return os.path.join(self.work, name)

    def store_command(self, store, *args):
        return [os.path.join(self.bin, "hybrid-authenticator"), "credentials", *args, "--store", store,
                "--insecure-fast-store-kdf"]

    def ceremony(self, kind, options, store):
        """One hybrid-client ceremony answered from `store`; the client's response JSON."""
        options_path = self.path(f"{kind}-{secrets.token_hex(4)}.json")
        with open(options_path, "w") as handle:
            json.dump(options, handle)
        client = subprocess.Popen(
            [os.path.join(self.bin, "hybrid-client"), kind, "--options", options_path, "--origin", ORIGIN,
             "--ble", "sim", "--json", "--timeout", "60", "--linger", "0", "--tunnel-server", f"0={self.tunnel}"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=self.env)
        authenticator = None
        events = []
        for line in client.stderr:
            events.append(line)
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            if event.get("event") == "qr" and authenticator is None:
                authenticator = subprocess.Popen(
                    [os.path.join(self.bin, "hybrid-authenticator"), event["url"], "--tunnel-url", self.tunnel,
                     "--ble", "sim", "--yes", "--json", "--store", store, "--insecure-fast-store-kdf",
                     "--log-level", "error"],
                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=self.env)
        output = client.stdout.read()
        status = client.wait(timeout=120)
        if authenticator is None:
            fail(f"{kind}: no QR event: {''.join(events)}")
        authenticator_output = authenticator.communicate(timeout=120)[0]
        if status != 0 or authenticator.returncode != 0:
            fail(f"{kind}: client exit {status}, authenticator exit {authenticator.returncode}:\n"
                 f"{''.join(events)}\n{authenticator_output}")
        return json.loads(output)

    def register(self, store, prf_input):
        challenge = b64url(secrets.token_bytes(32))
        response = self.ceremony("create", {
            "rp": {"id": RP_ID, "name": "Example"},
            "user": {"id": b64url(secrets.token_bytes(16)), "name": "alice@example.com", "displayName": "Alice"},
            "challenge": challenge, "pubKeyCredParams": [{"type": "public-key", "alg": -7}],
            "authenticatorSelection": {"residentKey": "required", "userVerification": "required"},
            "attestation": "none", "extensions": {"prf": {"eval": {"first": b64url(prf_input)}}},
        }, store)
        response_path = self.path("registration.json")
        with open(response_path, "w") as handle:
            json.dump(response, handle)
        credential_path = self.path("credential.json")
        subprocess.run([sys.executable, VERIFY, "register", "--response", response_path, f"--challenge={challenge}",
                        "--origin", ORIGIN, "--rp-id", RP_ID, "--require-uv", "--credential-out", credential_path],
                       check=True, stdout=subprocess.DEVNULL)
        return credential_path

    def sign_in(self, store, credential_path, prf_input):
        """A verified assertion with `credential_path`'s key; its prf first result."""
        with open(credential_path) as handle:
            credential = json.load(handle)
        challenge = b64url(secrets.token_bytes(32))
        response = self.ceremony("get", {
            "challenge": challenge, "rpId": RP_ID, "userVerification": "required",
            "allowCredentials": [{"type": "public-key", "id": credential["credentialId"]}],
            "extensions": {"prf": {"eval": {"first": b64url(prf_input)}}},
        }, store)
        response_path = self.path("assertion.json")
        with open(response_path, "w") as handle:
            json.dump(response, handle)
        verified = subprocess.run(
            [sys.executable, VERIFY, "authenticate", "--response", response_path, f"--challenge={challenge}",
             "--origin", ORIGIN, "--rp-id", RP_ID, "--credential", credential_path, "--require-uv"],
            capture_output=True, text=True)
        if verified.returncode != 0:
            fail(f"py_webauthn refused the assertion: {verified.stderr}")
        if json.loads(verified.stdout)["newSignCount"] != 0:
            fail(f"the signature counter is not 0: {verified.stdout}")
        results = response.get("clientExtensionResults", {}).get("prf", {}).get("results", {})
        if "first" not in results:
            fail(f"no prf result: {response.get('clientExtensionResults')}")
        return unb64url(results["first"])

    def close(self):
        self.relay.terminate()
        self.relay.wait(timeout=30)
        shutil.rmtree(self.work, ignore_errors=True)  # test keys only, but keys


def main():
    if len(sys.argv) != 2:
        fail("usage: cxf-e2e.py BIN_DIR")
    run = Run(sys.argv[1])
    try:
        store_a, store_b = run.path("a.json"), run.path("b.json")
        prf_input = b"cxf-e2e prf input"
        credential = run.register(store_a, prf_input)
        reference = run.sign_in(store_a, credential, prf_input)

        export = run.path("export.cxf.json")
        subprocess.run(run.store_command(store_a, "export", "--output", export), env=run.env, check=True)
        mode = os.stat(export).st_mode & 0o777
        if mode != 0o600:
            fail(f"the export has mode {mode:o}, not 600")
        subprocess.run([sys.executable, PEER, "check", export, "--expect", credential], check=True,
                       stdout=subprocess.DEVNULL)

        subprocess.run(run.store_command(store_b, "import", export), env=run.env, check=True)
        moved = run.sign_in(store_b, credential, prf_input)
        if moved != reference:
            fail(f"prf after the move {moved.hex()} is not {reference.hex()}")

        written = run.path("peer.cxf.json")
        peer = subprocess.run([sys.executable, PEER, "write", written, "--rp-id", RP_ID, "--user", "carol"],
                              check=True, capture_output=True, text=True)
        peer_credential = run.path("peer-credential.json")
        with open(peer_credential, "w") as handle:
            handle.write(peer.stdout)
        subprocess.run(run.store_command(store_b, "import", written), env=run.env, check=True)
        result = run.sign_in(store_b, peer_credential, prf_input)
        salt = hashlib.sha256(b"WebAuthn PRF\x00" + prf_input).digest()
        expected = hmac.new(unb64url(json.loads(peer.stdout)["credWithUV"]), salt, hashlib.sha256).digest()
        if result != expected:
            fail(f"prf of the peer's passkey {result.hex()} is not HMAC(credWithUV, salt) {expected.hex()}")

        with open(store_b, "rb") as handle:
            before = handle.read()
        again = subprocess.run(run.store_command(store_b, "import", written), env=run.env, capture_output=True)
        with open(store_b, "rb") as handle:
            after = handle.read()
        if again.returncode != 1 or before != after:
            fail(f"a second import: exit {again.returncode}, store changed: {before != after}")
        print("cxf-e2e: export, peer check, import and sign-in (py_webauthn, prf unchanged); "
              "peer-written import and sign-in; duplicate refused")
    finally:
        run.close()


if __name__ == "__main__":
    main()
