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
"""

import argparse
import hashlib
import json
import os
import struct
import sys

import cbor2
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec


def auth_data(rp_id: str, flags: int, counter: int, attested: bytes = b"") -> bytes:
    return hashlib.sha256(rp_id.encode()).digest() + bytes([flags]) + struct.pack(">I", counter) + attested


def cose_key(public_key: ec.EllipticCurvePublicKey) -> bytes:
    numbers = public_key.public_numbers()
    key = {1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")}
    return cbor2.dumps(key, canonical=True)


def make_credential(args: argparse.Namespace) -> dict:
    private_key = ec.generate_private_key(ec.SECP256R1())
    credential_id = os.urandom(32)
    user_id = os.urandom(16)
    with open(args.key_file, "w", encoding="utf-8") as handle:
        json.dump({
            "credentialId": credential_id.hex(),
            "userId": user_id.hex(),
            "privateKey": private_key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            ).decode(),
        }, handle)
    flags = 0x01 | 0x40 | (0x04 if args.uv else 0)
    attested = bytes(16) + struct.pack(">H", len(credential_id)) + credential_id + cose_key(private_key.public_key())
    rp_id = "wrong.example" if args.wrong_rp else args.rp_id
    data = auth_data(rp_id, flags, 0, attested)
    if args.fmt == "packed-self":
        signature = private_key.sign(data + bytes.fromhex(args.client_data_hash), ec.ECDSA(hashes.SHA256()))
        fmt, statement = "packed", {"alg": -7, "sig": signature}
    else:
        fmt, statement = "none", {}
    body = cbor2.dumps({1: fmt, 2: data, 3: statement}, canonical=True)
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
    body = cbor2.dumps(response, canonical=True)
    return {"response": (b"\x00" + body).hex(), "credentialId": stored["credentialId"], "userId": stored["userId"]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("make-credential", "get-assertion"):
        command = sub.add_parser(name)
        command.add_argument("--rp-id", required=True)
        command.add_argument("--client-data-hash", required=True)
        command.add_argument("--key-file", required=True)
        command.add_argument("--uv", action="store_true")
        command.add_argument("--wrong-rp", action="store_true", help="sign for wrong.example instead")
        if name == "make-credential":
            command.add_argument("--fmt", choices=["none", "packed-self"], default="none")
        else:
            command.add_argument("--omit-credential", action="store_true")
            command.add_argument("--omit-user", action="store_true")
            command.add_argument("--user-name", help="add name and displayName to the user entity")
            command.add_argument("--number-of-credentials", type=int, help="response key 5")
            command.add_argument("--attested", action="store_true", help="add attested credential data (AT)")
            command.add_argument("--extension", action="append", help="add an extension output NAME: true (ED)")
    args = parser.parse_args()
    result = make_credential(args) if args.command == "make-credential" else get_assertion(args)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
