#!/usr/bin/env python3
"""Writes libFuzzer seed corpora from the shared vectors: one folder per fuzz target, one file per input.

Usage: Fuzz/seeds.py VECTORS_DIR OUT_DIR
Each target gets the vector fields that hold its input (hex decoded, or text as UTF-8), valid and
invalid cases alike. The WebAuthn options targets get documents written by py_webauthn (an
independent relying-party library), with the extensions it cannot write added; the CTAPHID targets
get reports and state-machine scripts laid out from CTAP 2.2 §11.2, carrying the vectors' CTAP requests.
"""
import hashlib
import json
import os
import sys

# target -> [(vector kind, field path)]; a path is dot-separated, "frames[]" walks a list.
FIELDS = {
    "cbor": [("cbor", "cbor"), ("qr", "cbor"), ("postHandshake", "plaintext"), ("linking", "linkingMap")],
    "digits": [("digits", "digits:text")],
    "qr": [("qr", "cbor"), ("qr", "url:text"), ("session", "qr.cbor"), ("session", "qr.url:text")],
    "advert": [("eid", "advert"), ("eidPlaintext", "plaintext"), ("advertSuffix", "serviceData"),
               ("session", "advert.serviceData")],
    "advertSuffix": [("advertSuffix", "suffix")],
    "handshakeResponder": [("handshake", "msg1"), ("session", "handshake.msg1")],
    "handshakeInitiator": [("handshake", "msg2"), ("session", "handshake.msg2")],
    "crypter": [("crypter", "ciphertext"), ("crypter", "plaintext"), ("session", "frames[].ciphertext")],
    "padding": [("padding", "padded"), ("postHandshake", "plaintext")],
    "postHandshake": [("postHandshake", "plaintext")],
    "update": [("session", "frames[].plaintext")],
    "linking": [("linking", "linkingMap"), ("session", "linking.linkingMap")],
    "frame": [("frame", "frame"), ("session", "frames[].plaintext")],
    "clientPayload": [("clientPayload", "header:text"), ("session", "tunnel.clientPayload:text")],
    "ctapRequest": [("session", "frames[].plaintext:ctap")],
    "ctapResponse": [("session", "frames[].plaintext:ctap"), ("postHandshake", "getInfo")],
    "tunnelPath": [("tunnelPath", "path:text"), ("tunnelURL", "newURL:path"), ("tunnelURL", "connectURL:path"),
                   ("tunnelURL", "contactURL:path")],
}


def values(node, path):
    """Every value at `path` under `node`."""
    if not path:
        yield node
        return
    head, rest = path[0], path[1:]
    if head.endswith("[]"):
        for item in node.get(head[:-2], []) if isinstance(node, dict) else []:
            yield from values(item, rest)
    elif isinstance(node, dict) and head in node:
        yield from values(node[head], rest)


def decode(value, how):
    if not isinstance(value, str):
        return None
    if how == "text":
        return value.encode()
    if how == "path":
        rest = value.split("://", 1)[-1]
        return ("/" + rest.split("/", 1)[1]).encode() if "/" in rest else None
    try:
        raw = bytes.fromhex(value)
    except ValueError:
        return None
    return raw[1:] if how == "ctap" else raw


def cases(document):
    if document.get("kind") == "bundle":
        for inner in document.get("cases", []):
            yield from cases(inner)
        return
    for case in document.get("cases", []):
        yield document.get("kind"), case


def write(folder, data):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, hashlib.sha1(data).hexdigest()), "wb") as f:
        f.write(data)


def webauthn_seeds(out):
    """Options JSON from py_webauthn, bare and wrapped in {"publicKey": …}, plus extension inputs."""
    try:
        import webauthn
        from webauthn.helpers import options_to_json
        from webauthn.helpers import structs as s
    except ImportError:
        print("webauthn options: py_webauthn missing (scripts/setup.sh installs it), no seeds")
        return
    descriptor = s.PublicKeyCredentialDescriptor(id=b"\x01\x02\x03", transports=[s.AuthenticatorTransport.HYBRID])
    creation = [json.loads(options_to_json(webauthn.generate_registration_options(
        rp_id="example.com", rp_name="Example", user_name="alice", user_id=b"user-1", challenge=b"0123456789abcdef",
        exclude_credentials=[descriptor], timeout=60000, hints=[s.PublicKeyCredentialHint.HYBRID],
        attestation=s.AttestationConveyancePreference.DIRECT,
        authenticator_selection=s.AuthenticatorSelectionCriteria(
            resident_key=s.ResidentKeyRequirement.REQUIRED, user_verification=s.UserVerificationRequirement.REQUIRED))))]
    creation.append(json.loads(options_to_json(webauthn.generate_registration_options(
        rp_id="login.example.org", rp_name="Org", user_name="bob"))))
    request = [json.loads(options_to_json(webauthn.generate_authentication_options(
        rp_id="example.com", challenge=b"0123456789abcdef", allow_credentials=[descriptor]))),
        json.loads(options_to_json(webauthn.generate_authentication_options(rp_id="example.com")))]
    salt = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"
    for extensions in [{"credProps": True, "somethingNew": {"a": 1}},
                       {"prf": {"eval": {"first": salt, "second": salt}}, "largeBlob": {"support": "required"}},
                       {"credentialProtectionPolicy": "userVerificationRequired", "enforceCredentialProtectionPolicy": True}]:
        creation.append(dict(creation[0], extensions=extensions))
    for extensions in [{"prf": {"evalByCredential": {"AQID": {"first": salt}}}}, {"largeBlob": {"read": True}},
                       {"largeBlob": {"write": "aGVsbG8"}}]:
        request.append(dict(request[0], extensions=extensions))
    for target, documents in [("creationOptions", creation), ("requestOptions", request)]:
        for document in documents:
            write(os.path.join(out, target), json.dumps(document).encode())
            write(os.path.join(out, target), json.dumps({"publicKey": document, "mediation": "optional"}).encode())
        print(f"{target}: {2 * len(documents)} seeds")


def ctaphid_seeds(out, ctap_requests):
    """CTAPHID reports and state-machine scripts (Fuzz/Sources/HybridClientFuzz/CTAPHIDTargets.swift)."""
    def init_report(channel, command, payload, length=None):
        length = len(payload) if length is None else length
        body = channel.to_bytes(4, "big") + bytes([0x80 | command]) + length.to_bytes(2, "big") + payload[:57]
        return body + bytes(64 - len(body))

    def cont_report(channel, sequence, payload):
        body = channel.to_bytes(4, "big") + bytes([sequence]) + payload[:59]
        return body + bytes(64 - len(body))

    nonce = bytes(range(8))
    reports = [init_report(0xFFFFFFFF, 0x06, nonce), init_report(1, 0x10, b"\x04"), init_report(1, 0x01, b"ping"),
               init_report(1, 0x08, b""), init_report(1, 0x04, b"\x05"), init_report(1, 0x11, b""),
               init_report(1, 0x10, bytes(57), length=100), cont_report(1, 0, bytes(59))]
    for data in reports:
        write(os.path.join(out, "ctaphidPacket"), data)

    # Script opcodes: 0 report (64 bytes), 1 report (length byte, bytes), 2/3 message (channel index,
    # command, length), 4 advance (×10 ms), 5 answer (header, payload), 6 user presence, 7 close.
    def message(channel_index, command, payload):
        if len(payload) <= 255:
            return bytes([2, channel_index, command, len(payload)]) + payload
        padded = payload + bytes(-len(payload) % 29)
        return bytes([3, channel_index, command, len(padded) // 29]) + padded

    allocate = bytes([0]) + init_report(0xFFFFFFFF, 0x06, nonce)
    scripts = [allocate + message(0, 0x10, b"\x04") + bytes([4, 15, 6, 4, 20, 5, 3, 0, 1, 2])]
    for request in ctap_requests[:8]:
        scripts.append(allocate + message(0, 0x10, request) + bytes([4, 10, 5, 0x85, 1, 2, 5, 2, 0, 0]))
    scripts.append(allocate + message(0, 0x10, b"\x04") + message(0, 0x11, b"") + bytes([7]))
    scripts.append(allocate + message(0, 0x04, b"\x0a") + allocate + message(1, 0x10, b"\x04") + bytes([4, 200, 4, 200]))
    scripts.append(allocate + bytes([0]) + init_report(1, 0x10, bytes(57), length=200) + bytes([4, 60]))
    scripts.append(allocate + bytes([1, 10]) + bytes(10) + bytes([0]) + cont_report(1, 3, bytes(59)))
    for data in scripts:
        write(os.path.join(out, "ctaphidStateMachine"), data)
    print(f"ctaphidPacket: {len(reports)} seeds\nctaphidStateMachine: {len(scripts)} seeds")


def main():
    vectors, out = sys.argv[1], sys.argv[2]
    all_cases = []
    for name in sorted(os.listdir(vectors)):
        if name.endswith(".json"):
            with open(os.path.join(vectors, name)) as f:
                all_cases.extend(cases(json.load(f)))
    for target, fields in FIELDS.items():
        folder = os.path.join(out, target)
        os.makedirs(folder, exist_ok=True)
        count = 0
        for kind, spec in fields:
            path, _, how = spec.partition(":")
            for case_kind, case in all_cases:
                if case_kind != kind:
                    continue
                for value in values(case, path.split(".")):
                    data = decode(value, how)
                    if data is None:
                        continue
                    with open(os.path.join(folder, hashlib.sha1(data).hexdigest()), "wb") as f:
                        f.write(data)
                    count += 1
        print(f"{target}: {count} seeds")
    ctap_requests = []
    for case_kind, case in all_cases:
        if case_kind == "session":
            for value in values(case, ["frames[]", "plaintext"]):
                data = decode(value, "ctap")
                if data:
                    ctap_requests.append(data)
    webauthn_seeds(out)
    ctaphid_seeds(out, ctap_requests)


if __name__ == "__main__":
    main()
