#!/usr/bin/env python3
"""Writes store-v1.json: a passkey store in format version 1 (the format before the whole-file MAC),
made independently of the Swift code from the format's description (StoreFileFormat.swift, git history).

Deterministic: fixed salt, nonces and scalars. Passphrase "fixture passphrase", scrypt N=2^14 r=8 p=1.
Needs python3 with `cryptography` and `cbor2` (both come with py_webauthn, see scripts/setup.sh).
"""
import hashlib, json, sys
import cbor2
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

PASSPHRASE = "fixture passphrase"
SALT = bytes(range(16))
N, R, P = 1 << 14, 8, 1

# (id, rpId, rpName, userHandle, userName, userDisplayName, discoverable, signCount, created, scalar)
CREDENTIALS = [
    (bytes([0xC1]) * 16, "example.com", "Example", b"\x01\x02", "alice", "Alice A.", True, 7, 1767225600.0,
     hashlib.sha256(b"fixture key 1").digest()),
    (bytes([0xC2]) * 16, "other.example", None, b"\x03", "bob", None, False, 0, 1767312000.5,
     hashlib.sha256(b"fixture key 2").digest()),
]

key = hashlib.scrypt(PASSPHRASE.encode(), salt=SALT, n=N, r=R, p=P, maxmem=64 << 20, dklen=32)
aes = AESGCM(key)

def box(nonce, plaintext, aad):
    return (nonce + aes.encrypt(nonce, plaintext, aad)).hex()

credentials = []
for index, (cid, rp, rp_name, handle, name, display, discoverable, count, created, scalar) in enumerate(CREDENTIALS):
    aad = b"hybrid-authenticator/v1 credential key" + cbor2.dumps([cid, rp, handle])
    record = {"id": cid.hex(), "rpId": rp, "userHandle": handle.hex(), "discoverable": discoverable,
              "signCount": count, "created": created, "privateKey": box(bytes([0x10 + index]) * 12, scalar, aad)}
    if rp_name is not None: record["rpName"] = rp_name
    if name is not None: record["userName"] = name
    if display is not None: record["userDisplayName"] = display
    credentials.append(record)

document = {
    "format": "hybrid-authenticator-passkeys", "version": 1,
    "protection": {"mode": "scrypt-aes-256-gcm", "salt": SALT.hex(), "scryptN": N, "scryptR": R, "scryptP": P,
                   "check": box(bytes([0xEE]) * 12, b"", b"hybrid-authenticator/v1 passphrase check")},
    "credentials": credentials,
}
with open(sys.argv[1] if len(sys.argv) > 1 else "store-v1.json", "w") as out:
    json.dump(document, out, indent=2, sort_keys=True)
    out.write("\n")
