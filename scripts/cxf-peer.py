#!/usr/bin/env python3
"""An independent reader and writer of FIDO Credential Exchange Format 1.0 passkeys.

Written from the specification (CXF 1.0 Proposed Standard 2025-08-14,
https://fidoalliance.org/specs/cx/cxf-v1.0-ps-20250814.html, with the errata of 2026-03-09), with
Python's json and the `cryptography` package only: no code of hybrid-authenticator.

    cxf-peer.py check FILE [--expect CREDENTIAL_JSON ...]
        Checks the header ("Header": version 1.0, exporterRpId, exporterDisplayName, timestamp,
        accounts), every account and item, and every passkey ("Passkey": credentialId 1-1023
        bytes, rpId a domain, username and userDisplayName strings, userHandle 1-64 bytes, key a
        PKCS#8 DER P-256 private key; "Fido2HmacCredentials": algorithm hmac-sha256 and two
        different 32-byte secrets). Byte strings must be canonical unpadded base64url. Each
        --expect file is a credential as Tests/Interop/verify_webauthn.py prints it
        ({"credentialId", "credentialPublicKey" (COSE)}): the document must hold that credential,
        and its key must give that public key. Prints one JSON line per passkey:
        {"credentialId", "rpId", "credWithUV"} (base64url). Exit 1 on the first violation.

    cxf-peer.py write FILE --rp-id RP --user NAME
        Generates a P-256 key, a 16-byte credential ID and user handle and a 32-byte prf secret,
        writes a CXF 1.0 document with that one passkey (new file, mode 0600), and prints the
        credential as verify_webauthn.py's `register` would ({"credentialId",
        "credentialPublicKey", "signCount": 0}) plus "credWithUV".
"""
import base64
import json
import os
import re
import secrets
import sys
import time

from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import (
    Encoding, NoEncryption, PrivateFormat, PublicFormat, load_der_private_key)

ALPHABET = re.compile(r"^[A-Za-z0-9_-]*$")
LABEL = re.compile(r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$")
# DER of AlgorithmIdentifier {id-ecPublicKey, prime256v1} (RFC 5480 2.1.1).
EC_P256_ALGORITHM = bytes.fromhex("301306072a8648ce3d020106082a8648ce3d030107")


def fail(message):
    print(f"cxf-peer: FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text, field, lengths=None):
    if not isinstance(text, str) or not ALPHABET.match(text) or len(text) % 4 == 1:
        fail(f"{field} is not unpadded base64url")
    data = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if b64url(data) != text:
        fail(f"{field} is not canonical base64url")
    if lengths and not lengths[0] <= len(data) <= lengths[1]:
        fail(f"{field} has {len(data)} bytes, not {lengths[0]}-{lengths[1]}")
    return data


def member(obj, name, kind, field):
    if name not in obj:
        fail(f"{field}.{name} is missing")
    value = obj[name]
    if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
        fail(f"{field}.{name} is not an integer")
    if kind is not int and not isinstance(value, kind):
        fail(f"{field}.{name} is not a {kind.__name__}")
    return value


def der_length(data, offset):
    first = data[offset]
    if first < 0x80:
        return first, offset + 1
    count = first & 0x7F
    return int.from_bytes(data[offset + 1:offset + 1 + count], "big"), offset + 1 + count


def check_pkcs8_p256(der, field):
    """OneAsymmetricKey (RFC 5958): SEQUENCE {INTEGER 0|1, AlgorithmIdentifier, OCTET STRING ...}."""
    if len(der) < 2 or der[0] != 0x30:
        fail(f"{field} is not a DER SEQUENCE")
    length, start = der_length(der, 1)
    if start + length != len(der):
        fail(f"{field}: the SEQUENCE does not span the key exactly")
    if der[start:start + 3] not in (b"\x02\x01\x00", b"\x02\x01\x01"):
        fail(f"{field}: PKCS#8 version is not 0 or 1")
    if der[start + 3:start + 3 + len(EC_P256_ALGORITHM)] != EC_P256_ALGORITHM:
        fail(f"{field}: the algorithm is not id-ecPublicKey with prime256v1")
    key = load_der_private_key(der, password=None)
    if not isinstance(key, ec.EllipticCurvePrivateKey) or key.curve.name != "secp256r1":
        fail(f"{field} is not a P-256 key")
    return key


def cose_p256(public_key):
    """COSE_Key (RFC 9053): {1: 2 (EC2), 3: -7 (ES256), -1: 1 (P-256), -2: x, -3: y} in CBOR."""
    point = public_key.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    return (bytes.fromhex("a5010203262001215820") + point[1:33] + bytes.fromhex("225820") + point[33:65])


def check(path, expected_files):
    with open(path, "rb") as handle:
        raw = handle.read()
    if len(raw) > 8 << 20:
        fail("the document is larger than 8 MiB")
    try:
        document = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        fail(f"not JSON: {error}")
    if not isinstance(document, dict):
        fail("the document is not a JSON object")
    version = member(document, "version", dict, "header")
    if member(version, "major", int, "version") != 1 or member(version, "minor", int, "version") != 0:
        fail(f"version is {version}, not 1.0")
    member(document, "exporterRpId", str, "header")
    member(document, "exporterDisplayName", str, "header")
    if member(document, "timestamp", int, "header") < 0:
        fail("timestamp is negative")
    found = {}
    for a, account in enumerate(member(document, "accounts", list, "header")):
        field = f"accounts[{a}]"
        unb64url(member(account, "id", str, field), field + ".id", (1, 64))
        member(account, "username", str, field)
        member(account, "email", str, field)
        for i, item in enumerate(member(account, "items", list, field)):
            item_field = f"{field}.items[{i}]"
            unb64url(member(item, "id", str, item_field), item_field + ".id", (1, 64))
            member(item, "title", str, item_field)
            for c, credential in enumerate(member(item, "credentials", list, item_field)):
                cf = f"{item_field}.credentials[{c}]"
                if member(credential, "type", str, cf) != "passkey":
                    continue
                credential_id = unb64url(member(credential, "credentialId", str, cf), cf + ".credentialId", (1, 1023))
                rp_id = member(credential, "rpId", str, cf)
                if len(rp_id) > 253 or not all(LABEL.match(label) for label in rp_id.split(".")):
                    fail(f"{cf}.rpId {rp_id!r} is not a domain")
                member(credential, "username", str, cf)
                member(credential, "userDisplayName", str, cf)
                unb64url(member(credential, "userHandle", str, cf), cf + ".userHandle", (1, 64))
                key = check_pkcs8_p256(unb64url(member(credential, "key", str, cf), cf + ".key"), cf + ".key")
                hmac = credential.get("fido2Extensions", {}).get("hmacCredentials")
                with_uv = None
                if hmac is not None:
                    hf = cf + ".fido2Extensions.hmacCredentials"
                    if member(hmac, "algorithm", str, hf) != "hmac-sha256":
                        fail(f"{hf}.algorithm is not hmac-sha256")
                    with_uv = unb64url(member(hmac, "credWithUV", str, hf), hf + ".credWithUV", (32, 32))
                    without_uv = unb64url(member(hmac, "credWithoutUV", str, hf), hf + ".credWithoutUV", (32, 32))
                    if with_uv == without_uv:
                        fail(f"{hf}: credWithUV and credWithoutUV are the same secret")
                if credential_id in found:
                    fail(f"{cf}.credentialId appears twice")
                found[credential_id] = key
                print(json.dumps({"credentialId": b64url(credential_id), "rpId": rp_id,
                                  "credWithUV": b64url(with_uv) if with_uv else None}))
    for expected_path in expected_files:
        with open(expected_path) as handle:
            expected = json.load(handle)
        credential_id = unb64url(expected["credentialId"], "expected credentialId")
        if credential_id not in found:
            fail(f"credential {expected['credentialId']} is not in the document")
        cose = unb64url(expected["credentialPublicKey"], "expected credentialPublicKey")
        if cose_p256(found[credential_id].public_key()) != cose:
            fail(f"the key of {expected['credentialId']} does not give its registered public key")


def write(path, rp_id, user):
    key = ec.generate_private_key(ec.SECP256R1())
    credential_id, user_handle, prf_secret = secrets.token_bytes(16), secrets.token_bytes(16), secrets.token_bytes(32)
    der = key.private_bytes(Encoding.DER, PrivateFormat.PKCS8, NoEncryption())
    document = {
        "version": {"major": 1, "minor": 0},
        "exporterRpId": "cxf-peer.example", "exporterDisplayName": "cxf-peer.py",
        "timestamp": int(time.time()),
        "accounts": [{
            "id": b64url(secrets.token_bytes(16)), "username": "", "email": "", "collections": [],
            "items": [{
                "id": b64url(secrets.token_bytes(16)), "creationAt": int(time.time()), "title": rp_id,
                "credentials": [{
                    "type": "passkey", "credentialId": b64url(credential_id), "rpId": rp_id, "username": user,
                    "userDisplayName": user, "userHandle": b64url(user_handle), "key": b64url(der),
                    "fido2Extensions": {"hmacCredentials": {
                        "algorithm": "hmac-sha256", "credWithUV": b64url(prf_secret),
                        "credWithoutUV": b64url(secrets.token_bytes(32))}},
                }],
            }],
        }],
    }
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w") as handle:
        json.dump(document, handle, indent=2)
    print(json.dumps({"credentialId": b64url(credential_id), "credentialPublicKey": b64url(cose_p256(key.public_key())),
                      "signCount": 0, "credWithUV": b64url(prf_secret)}))


def main():
    args = sys.argv[1:]
    if len(args) >= 2 and args[0] == "check":
        expected = [args[i + 1] for i, arg in enumerate(args) if arg == "--expect"]
        check(args[1], expected)
    elif len(args) == 6 and args[0] == "write" and args[2] == "--rp-id" and args[4] == "--user":
        write(args[1], args[3], args[5])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
