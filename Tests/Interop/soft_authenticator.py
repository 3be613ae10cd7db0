#!/usr/bin/env python3
"""A minimal software CTAP2 authenticator, independent of the Swift code, for client tests.

It builds authenticatorMakeCredential / authenticatorGetAssertion *responses* (status byte 00 followed by
canonical CBOR, as a phone sends them over hybrid) with Python `cryptography` and `cbor2`, for a
client-chosen RP ID and clientDataHash. Needs `pip install webauthn` (which brings both libraries).

    soft_authenticator.py make-credential --rp-id example.com --client-data-hash HEX --key-file K.json \
        [--fmt none|packed-self] [--uv] [--wrong-rp]
    soft_authenticator.py get-assertion --rp-id example.com --client-data-hash HEX --key-file K.json \
        [--omit-credential] [--omit-user] [--uv] [--wrong-rp] [--user-name NAME] \
        [--number-of-credentials N] [--attested] [--extension NAME]

Prints one JSON object: {"response": hex, "credentialId": hex, "spki": hex (make-credential only)}.

Extensions, as a phone answers them: with `--request HEX` (the client's whole CTAP request, command byte
first) the authenticator reads the request's extension inputs and answers those it supports
(`--supports prf,largeBlob,credProtect`), where phones put them (protocol.md §8.3):
- prf: a random per-credential secret kept in the key file; makeCredential answers unsigned output
  (key 6) {"prf": {"enabled": true[, "results": ...]}}, getAssertion answers unsigned output (key 8)
  {"prf": {"results": {"first": HMAC-SHA256(secret, salt1)[, "second": HMAC-SHA256(secret, salt2)]}}},
  choosing evalByCredential[credential ID] over eval, as phones do;
- credProtect: the requested level, in authenticator data extensions;
- largeBlob: {"supported": true} at creation; {"read": true} answers {"blob", "originalSize"} with the
  stored blob (compressed with zlib's raw DEFLATE); {"write", "originalSize"} inflates and stores it
  and answers {"written": true}.

    soft_authenticator.py prf-salt --input HEX          WebAuthn L3 salt, SHA-256("WebAuthn PRF" || 00 || input)
    soft_authenticator.py prf-expected --key-file K.json --input HEX
                                                        HMAC-SHA256(secret, salt(input)), computed here
"""

import argparse
import hashlib
import json
import os
import struct
import sys

import zlib

import cbor2
from cryptography.hazmat.primitives import hashes, hmac, serialization
from cryptography.hazmat.primitives.asymmetric import ec


def auth_data(rp_id: str, flags: int, counter: int, attested: bytes = b"") -> bytes:
    return hashlib.sha256(rp_id.encode()).digest() + bytes([flags]) + struct.pack(">I", counter) + attested


def cose_key(public_key: ec.EllipticCurvePublicKey) -> bytes:
    numbers = public_key.public_numbers()
    key = {1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")}
    return cbor2.dumps(key, canonical=True)


def request_extensions(args: argparse.Namespace) -> dict:
    """The extension inputs of the client's CTAP request (makeCredential key 6, getAssertion key 4)."""
    if not args.request:
        return {}
    raw = bytes.fromhex(args.request)
    parameters = cbor2.loads(raw[1:])
    return parameters.get(6 if raw[0] == 0x01 else 4, {})


def supported(args: argparse.Namespace) -> set:
    return set(filter(None, (args.supports or "").split(",")))


def prf_salt(value: bytes) -> bytes:
    return hashlib.sha256(b"WebAuthn PRF\x00" + value).digest()


def hmac_sha256(key: bytes, message: bytes) -> bytes:
    mac = hmac.HMAC(key, hashes.SHA256())
    mac.update(message)
    return mac.finalize()


def prf_results(secret: bytes, inputs: dict) -> dict:
    results = {"first": hmac_sha256(secret, inputs["first"])}
    if "second" in inputs:
        results["second"] = hmac_sha256(secret, inputs["second"])
    return results


def save(path: str, stored: dict) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(stored, handle)


def make_credential(args: argparse.Namespace) -> dict:
    private_key = ec.generate_private_key(ec.SECP256R1())
    credential_id = os.urandom(32)
    user_id = os.urandom(16)
    prf_secret = os.urandom(32)
    save(args.key_file, {
        "credentialId": credential_id.hex(),
        "userId": user_id.hex(),
        "prfSecret": prf_secret.hex(),
        "privateKey": private_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ).decode(),
    })
    inputs, supports = request_extensions(args), supported(args)
    extensions, unsigned = {}, {}
    if "credProtect" in inputs and "credProtect" in supports:
        extensions["credProtect"] = inputs["credProtect"]
    if "prf" in inputs and "prf" in supports:
        unsigned["prf"] = {"enabled": True}
        if "eval" in inputs["prf"]:
            unsigned["prf"]["results"] = prf_results(prf_secret, inputs["prf"]["eval"])
    if "largeBlob" in inputs and "largeBlob" in supports:
        unsigned["largeBlob"] = {"supported": True}
    for name in args.extension or []:
        extensions[name] = True
    flags = 0x01 | 0x40 | (0x04 if args.uv else 0) | (0x80 if extensions else 0)
    attested = bytes(16) + struct.pack(">H", len(credential_id)) + credential_id + cose_key(private_key.public_key())
    if extensions:
        attested += cbor2.dumps(extensions, canonical=True)
    rp_id = "wrong.example" if args.wrong_rp else args.rp_id
    data = auth_data(rp_id, flags, 0, attested)
    if args.fmt == "packed-self":
        signature = private_key.sign(data + bytes.fromhex(args.client_data_hash), ec.ECDSA(hashes.SHA256()))
        fmt, statement = "packed", {"alg": -7, "sig": signature}
    else:
        fmt, statement = "none", {}
    response = {1: fmt, 2: data, 3: statement}
    if unsigned:
        response[6] = unsigned
    body = cbor2.dumps(response, canonical=True)
    spki = private_key.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return {"response": (b"\x00" + body).hex(), "credentialId": credential_id.hex(), "spki": spki.hex(),
            "userId": user_id.hex()}


def get_assertion(args: argparse.Namespace) -> dict:
    with open(args.key_file, encoding="utf-8") as handle:
        stored = json.load(handle)
    private_key = serialization.load_pem_private_key(stored["privateKey"].encode(), password=None)
    rp_id = "wrong.example" if args.wrong_rp else args.rp_id
    flags = 0x01 | (0x04 if args.uv else 0)
    attested = b""
    if args.attested:
        flags |= 0x40
        public_key = private_key.public_key()
        credential_id = bytes.fromhex(stored["credentialId"])
        attested = bytes(16) + struct.pack(">H", len(credential_id)) + credential_id + cose_key(public_key)
    if args.extension:
        flags |= 0x80
        attested += cbor2.dumps({name: True for name in args.extension}, canonical=True)
    data = auth_data(rp_id, flags, 1, attested)
    signature = private_key.sign(data + bytes.fromhex(args.client_data_hash), ec.ECDSA(hashes.SHA256()))
    response = {2: data, 3: signature}
    if not args.omit_credential:
        response[1] = {"id": bytes.fromhex(stored["credentialId"]), "type": "public-key"}
    if not args.omit_user:
        response[4] = {"id": bytes.fromhex(stored["userId"])}
        if args.user_name:
            response[4].update({"name": args.user_name, "displayName": args.user_name})
    if args.number_of_credentials:
        response[5] = args.number_of_credentials
    inputs, supports, unsigned = request_extensions(args), supported(args), {}
    if "prf" in inputs and "prf" in supports:
        credential_id = bytes.fromhex(stored["credentialId"])
        chosen = inputs["prf"].get("evalByCredential", {}).get(credential_id, inputs["prf"].get("eval"))
        unsigned["prf"] = {"results": prf_results(bytes.fromhex(stored["prfSecret"]), chosen)} if chosen else {}
    if "largeBlob" in inputs and "largeBlob" in supports:
        request = inputs["largeBlob"]
        if request.get("read"):
            blob = bytes.fromhex(stored.get("largeBlob", ""))
            compressor = zlib.compressobj(wbits=-15)
            unsigned["largeBlob"] = {"blob": compressor.compress(blob) + compressor.flush(), "originalSize": len(blob)}
        else:
            blob = zlib.decompress(request["write"], wbits=-15)
            if len(blob) != request["originalSize"]:
                raise ValueError("largeBlob.write: originalSize does not match the inflated blob")
            stored["largeBlob"] = blob.hex()
            save(args.key_file, stored)
            unsigned["largeBlob"] = {"written": True}
    if unsigned:
        response[8] = unsigned
    body = cbor2.dumps(response, canonical=True)
    return {"response": (b"\x00" + body).hex(), "credentialId": stored["credentialId"], "userId": stored["userId"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    salt = sub.add_parser("prf-salt")
    salt.add_argument("--input", required=True)
    expected = sub.add_parser("prf-expected")
    expected.add_argument("--key-file", required=True)
    expected.add_argument("--input", required=True)
    for name in ("make-credential", "get-assertion"):
        command = sub.add_parser(name)
        command.add_argument("--rp-id", required=True)
        command.add_argument("--client-data-hash", required=True)
        command.add_argument("--key-file", required=True)
        command.add_argument("--uv", action="store_true")
        command.add_argument("--wrong-rp", action="store_true", help="sign for wrong.example instead")
        command.add_argument("--request", help="the client's CTAP request (hex), for its extension inputs")
        command.add_argument("--supports", help="extensions this phone answers: prf,largeBlob,credProtect")
        command.add_argument("--extension", action="append", help="add an extension output NAME: true (ED)")
        if name == "make-credential":
            command.add_argument("--fmt", choices=["none", "packed-self"], default="none")
        else:
            command.add_argument("--omit-credential", action="store_true")
            command.add_argument("--omit-user", action="store_true")
            command.add_argument("--user-name", help="add name and displayName to the user entity")
            command.add_argument("--number-of-credentials", type=int, help="response key 5")
            command.add_argument("--attested", action="store_true", help="add attested credential data (AT)")
    args = parser.parse_args()
    if args.command == "prf-salt":
        result = {"salt": prf_salt(bytes.fromhex(args.input)).hex()}
    elif args.command == "prf-expected":
        with open(args.key_file, encoding="utf-8") as handle:
            secret = bytes.fromhex(json.load(handle)["prfSecret"])
        result = {"result": hmac_sha256(secret, prf_salt(bytes.fromhex(args.input))).hex()}
    elif args.command == "make-credential":
        result = make_credential(args)
    else:
        result = get_assertion(args)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
