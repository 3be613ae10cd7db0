#!/usr/bin/env python3
"""The wallet end to end, judged by code that is not ours.

  wallet-e2e.py BIN_DIR

An independent issuer (issue-test-credential.py: the PyPI `sd-jwt` reference implementation for
the SD-JWT VC, cbor2 and cryptography for the mdoc) issues a PID to the device key that
`hybrid-authenticator wallet key` prints; `wallet add` stores both in an encrypted store;
`wallet present` answers openid4vp-v1-unsigned requests as the phone does over hybrid. Then:

- SD-JWT VC: the `sd-jwt` library's SDJWTVerifier checks the issuer signature, the disclosures
  and the key-binding JWT against the expected audience `origin:<origin>` and nonce (OpenID4VP 1.0
  Appendix A.4); the verified claims must be exactly the requested ones.
- mdoc: scripts/mdoc_check.py, written from ISO/IEC 18013-5 and OpenID4VP 1.0 Appendix B.2.6.2 with cbor2 and
  cryptography: the issuer's COSE_Sign1 over the MSO, each returned item's digest, only the
  requested element returned, and the device signature over DeviceAuthentication with the
  SessionTranscript [null, null, ["OpenID4VPDCAPIHandover", SHA-256([origin, nonce, null])]].
- A declined request prints nothing on standard output and exits non-zero; a wrong nonce or
  audience fails the judge (so the judge can fail).
Prints 'N passed, 0 failed' at the end.
"""
import base64
import json
import os
import subprocess
import sys
import tempfile

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mdoc_check import verify_mdoc  # noqa: E402  (the independent mdoc checker, shared with ci/chromium)
from sd_jwt_check import verify_sd_jwt  # noqa: E402  (the sd-jwt library's verifier, shared with ci/chromium)

HERE = os.path.dirname(os.path.abspath(__file__))
ORIGIN = "https://example.com"
PASSED = []


def check(condition, label, detail=b""):
    if not condition:
        print(f"FAIL: {label}")
        if detail:
            print(detail.decode(errors="replace")[-2000:])
        print(f"{len(PASSED)} passed, 1 failed")
        sys.exit(1)
    PASSED.append(label)
    print(f"ok: {label}")


def request(nonce, credential_query):
    return json.dumps({"response_type": "vp_token", "response_mode": "dc_api", "nonce": nonce,
                       "client_metadata": {}, "dcql_query": {"credentials": [credential_query]}})


class Wallet:
    def __init__(self, binary, directory):
        self.binary = binary
        self.store = os.path.join(directory, "store.json")
        self.env = dict(os.environ, HYBRID_AUTHENTICATOR_PASSPHRASE="wallet e2e passphrase",
                        HYBRID_ALLOW_INSECURE_FAST_KDF="1")

    def run(self, *args, stdin=b""):
        command = [self.binary, "wallet", *args, "--store", self.store, "--insecure-fast-store-kdf"]
        # A new session has no controlling terminal: prompts read standard input.
        return subprocess.run(command, input=stdin, capture_output=True, env=self.env, timeout=120,
                              start_new_session=True)


def judged(function, *args):
    """The judge's verdict; a rejection is a failed check, not a traceback."""
    try:
        return function(*args)
    except Exception as error:
        check(False, f"{function.__name__} rejected the presentation: {type(error).__name__}: {error}")


def fails(function, *args):
    try:
        function(*args)
    except Exception:
        return True
    return False


def main():
    binary = os.path.join(sys.argv[1], "hybrid-authenticator")
    with tempfile.TemporaryDirectory() as directory:
        wallet = Wallet(binary, directory)
        key = wallet.run("key")
        check(key.returncode == 0, "wallet key", key.stderr)
        jwk = json.loads(key.stdout)
        check(wallet.run("key").stdout == key.stdout, "wallet key is made once")
        issuer_pem = os.path.join(directory, "issuer.pem")
        credentials = {}
        for kind in ("sd-jwt", "mdoc"):
            path = os.path.join(directory, kind)
            subprocess.run([sys.executable, os.path.join(HERE, "issue-test-credential.py"), "--device-jwk",
                            json.dumps(jwk), "--format", kind, "--issuer-key", issuer_pem, "--out", path], check=True)
            credentials[kind] = path
        with open(credentials["sd-jwt"], "rb") as f:
            added = wallet.run("add", "-", stdin=f.read())
        check(added.returncode == 0, "wallet add - (SD-JWT VC)", added.stderr)
        added = wallet.run("add", credentials["mdoc"])
        check(added.returncode == 0, "wallet add FILE (mdoc)", added.stderr)
        with open(issuer_pem, "rb") as f:
            issuer_key = serialization.load_pem_private_key(f.read(), password=None)
        issuer_public_pem = issuer_key.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)

        other = ec.generate_private_key(ec.SECP256R1()).public_key().public_numbers()
        b64 = lambda n: base64.urlsafe_b64encode(n.to_bytes(32, "big")).rstrip(b"=").decode()
        stranger = os.path.join(directory, "stranger")
        subprocess.run([sys.executable, os.path.join(HERE, "issue-test-credential.py"), "--device-jwk",
                        json.dumps({"kty": "EC", "crv": "P-256", "x": b64(other.x), "y": b64(other.y)}),
                        "--format", "sd-jwt", "--issuer-key", issuer_pem, "--out", stranger], check=True)
        check(wallet.run("add", stranger).returncode != 0, "a credential bound to another key is refused")

        listed = wallet.run("list")
        check(listed.returncode == 0 and listed.stdout.count(b"\n") == 2, "wallet list shows two credentials")
        check(b"Mustermann" not in listed.stdout and b"Erika" not in listed.stdout, "wallet list shows no values")
        with_values = wallet.run("list", "--values")
        check(b"Mustermann" in with_values.stdout, "wallet list --values shows values")
        with open(wallet.store, "rb") as f:
            check(b"Mustermann" not in f.read(), "the store file holds no claim in the clear")

        # SD-JWT VC: age over 18 only.
        nonce = "n-0S6_WzA2Mj"
        sd_query = {"id": "pid", "format": "dc+sd-jwt", "meta": {"vct_values": ["urn:eudi:pid:1"]},
                    "claims": [{"path": ["age_equals_or_over", "18"]}]}
        path = os.path.join(directory, "request-sd.json")
        with open(path, "w") as f:
            f.write(request(nonce, sd_query))
        answer = wallet.run("present", "--origin", ORIGIN, "--yes", path)
        check(answer.returncode == 0, "wallet present (SD-JWT VC)", answer.stderr)
        presentation = json.loads(answer.stdout)["vp_token"]["pid"][0]
        payload = judged(verify_sd_jwt, presentation, issuer_public_pem, nonce, "origin:" + ORIGIN)
        check(payload.get("age_equals_or_over") == {"18": True}, "sd-jwt verifier: age_equals_or_over.18 disclosed")
        check(not any(name in payload for name in ("given_name", "family_name", "birthdate")),
              "sd-jwt verifier: nothing else disclosed")
        check(len(presentation.split("~")) == 4, "two disclosures and the key-binding JWT")
        check(fails(verify_sd_jwt, presentation, issuer_public_pem, "other-nonce", "origin:" + ORIGIN),
              "sd-jwt verifier rejects another nonce")
        check(fails(verify_sd_jwt, presentation, issuer_public_pem, nonce, "origin:https://evil.example"),
              "sd-jwt verifier rejects another audience")

        # mdoc: age_over_18 only.
        md_query = {"id": "pid", "format": "mso_mdoc", "meta": {"doctype_value": "eu.europa.ec.eudi.pid.1"},
                    "claims": [{"path": ["eu.europa.ec.eudi.pid.1", "age_over_18"]}]}
        with open(path, "w") as f:
            f.write(request(nonce, md_query))
        answer = wallet.run("present", "--origin", ORIGIN, "--yes", path)
        check(answer.returncode == 0, "wallet present (mdoc)", answer.stderr)
        encoded = json.loads(answer.stdout)["vp_token"]["pid"][0]
        disclosed = judged(verify_mdoc, encoded, issuer_key.public_key(), nonce, ORIGIN)
        check(disclosed == {("eu.europa.ec.eudi.pid.1", "age_over_18"): True},
              "mdoc judge: issuer signature, digests, device signature; only age_over_18")
        check(fails(verify_mdoc, encoded, issuer_key.public_key(), "other-nonce", ORIGIN),
              "mdoc judge rejects another nonce")
        check(fails(verify_mdoc, encoded, issuer_key.public_key(), nonce, "https://evil.example"),
              "mdoc judge rejects another origin")

        # Declined: nothing on standard output.
        declined = wallet.run("present", "--origin", ORIGIN, path, stdin=b"n\n")
        check(declined.returncode != 0 and declined.stdout == b"", "declined: no presentation")
        # The mdoc's issuerAuth (ISO 18013-5's mobile security object: the issuer's certificate, validityInfo and
        # deviceKeyInfo) leaves the phone with every presentation, so the consent names it too.
        check(b"asks for: age over 18, issuer, validity, device key, from your PID. Share? [y/N]" in declined.stderr,
              "the prompt names the origin, the claim, what issuerAuth reveals and the credential",
              declined.stderr)
        shared = wallet.run("present", "--origin", ORIGIN, path, stdin=b"y\n")
        check(shared.returncode == 0 and b"vp_token" in shared.stdout, "answered y: presentation")

        listed = wallet.run("list").stdout.decode().split()
        deleted = wallet.run("delete", listed[0])
        check(deleted.returncode == 0 and wallet.run("list").stdout.count(b"\n") == 1, "wallet delete")
    print(f"{len(PASSED)} passed, 0 failed")


if __name__ == "__main__":
    main()
