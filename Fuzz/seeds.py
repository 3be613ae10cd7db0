#!/usr/bin/env python3
"""Writes libFuzzer seed corpora from the shared vectors: one folder per fuzz target, one file per input.

Usage: Fuzz/seeds.py VECTORS_DIR OUT_DIR
Each target gets the vector fields that hold its input (hex decoded, or text as UTF-8), valid and
invalid cases alike.
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


if __name__ == "__main__":
    main()
