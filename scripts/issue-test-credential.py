#!/usr/bin/env python3
"""Issues a test PID bound to a wallet's device key, as an independent issuer would.

  issue-test-credential.py --device-jwk JWK --format sd-jwt|mdoc --issuer-key KEY.pem [--doctype pid|mdl]
                           [--out FILE]

--device-jwk is the public JWK that `hybrid-authenticator wallet key` prints (the JSON text, or a
file holding it). --issuer-key is the issuer's P-256 private key (PEM): made there if the file does
not exist, so a verifier can later check the issuer signature with its public half.

sd-jwt: an SD-JWT VC (format dc+sd-jwt, typ "dc+sd-jwt", vct "urn:eudi:pid:1", cnf.jwk the device
key) issued by the reference implementation of SD-JWT (PyPI `sd-jwt`). Selectively disclosable:
given_name, family_name, birthdate, and age_equals_or_over with "18", "21" and "65" each
disclosable on its own. Output: <JWT>~<disclosures>~ (text).

mdoc: an ISO/IEC 18013-5 IssuerSigned (doctype eu.europa.ec.eudi.pid.1, namespace the same) built
here from the standard with cbor2 and cryptography: IssuerSignedItemBytes = #6.24(bstr .cbor
{digestID, random, elementIdentifier, elementValue}), an MSO (version, digestAlgorithm SHA-256,
valueDigests, deviceKeyInfo.deviceKey as a COSE_Key, docType, validityInfo) signed in a COSE_Sign1
(ES256, protected {1: -7}) whose payload is #6.24(bstr .cbor MSO). Output: the IssuerSigned CBOR.
--doctype mdl issues an ISO mobile driving licence instead (doctype org.iso.18013.5.1.mDL,
namespace org.iso.18013.5.1; ISO/IEC 18013-5 §7.2.1 element names: given_name, family_name,
birth_date as a full-date #6.1004 and age_over_18/21/65); the SD-JWT VC is always a PID.
"""
import argparse
import datetime
import hashlib
import json
import os
import secrets
import sys

import cbor2
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, utils

PID_CLAIMS = {"given_name": "Erika", "family_name": "Mustermann", "birthdate": "1964-08-12"}
AGES = {"18": True, "21": True, "65": False}
# doctype: (namespace, elements besides the age_over_NN ones)
MDOC_DOCTYPES = {
    "pid": ("eu.europa.ec.eudi.pid.1", "eu.europa.ec.eudi.pid.1", PID_CLAIMS),
    "mdl": ("org.iso.18013.5.1.mDL", "org.iso.18013.5.1",
            {"given_name": "Erika", "family_name": "Mustermann", "birth_date": cbor2.CBORTag(1004, "1964-08-12")}),
}


def b64decode(text):
    import base64
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def load_issuer_key(path):
    if os.path.exists(path):
        with open(path, "rb") as f:
            return serialization.load_pem_private_key(f.read(), password=None)
    key = ec.generate_private_key(ec.SECP256R1())
    with open(path, "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))
    return key


def issue_sd_jwt(device_jwk, issuer_key):
    from jwcrypto.jwk import JWK
    from sd_jwt.common import SDObj
    from sd_jwt.issuer import SDJWTIssuer

    issuer_jwk = JWK.from_pem(issuer_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    holder_jwk = JWK(**device_jwk)
    claims = {"iss": "https://issuer.example", "vct": "urn:eudi:pid:1", "iat": 1767225600}
    for name, value in PID_CLAIMS.items():
        claims[SDObj(name)] = value
    claims[SDObj("age_equals_or_over")] = {SDObj(age): flag for age, flag in AGES.items()}
    issuer = SDJWTIssuer(claims, issuer_jwk, holder_key=holder_jwk, sign_alg="ES256",
                         extra_header_parameters={"typ": "dc+sd-jwt"})
    return issuer.sd_jwt_issuance.encode()


def issue_mdoc(device_jwk, issuer_key, doctype="pid"):
    doc_type, namespace, claims = MDOC_DOCTYPES[doctype]
    elements = dict(claims)
    elements.update({f"age_over_{age}": flag for age, flag in AGES.items()})
    items, digests = [], {}
    for digest_id, (name, value) in enumerate(elements.items()):
        item = {"digestID": digest_id, "random": secrets.token_bytes(16), "elementIdentifier": name,
                "elementValue": value}
        tagged = cbor2.CBORTag(24, cbor2.dumps(item))
        items.append(tagged)
        digests[digest_id] = hashlib.sha256(cbor2.dumps(tagged)).digest()
    device_key = {1: 2, -1: 1, -2: b64decode(device_jwk["x"]), -3: b64decode(device_jwk["y"])}
    now = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
    mso = {
        "version": "1.0", "digestAlgorithm": "SHA-256", "valueDigests": {namespace: digests},
        "deviceKeyInfo": {"deviceKey": device_key}, "docType": doc_type,
        "validityInfo": {"signed": cbor2.CBORTag(0, "2026-01-01T00:00:00Z"),
                         "validFrom": cbor2.CBORTag(0, "2026-01-01T00:00:00Z"),
                         "validUntil": cbor2.CBORTag(0, (now + datetime.timedelta(days=3650)).strftime("%Y-%m-%dT%H:%M:%SZ"))},
    }
    payload = cbor2.dumps(cbor2.CBORTag(24, cbor2.dumps(mso)))
    protected = cbor2.dumps({1: -7})
    to_be_signed = cbor2.dumps(["Signature1", protected, b"", payload])
    r, s = utils.decode_dss_signature(issuer_key.sign(to_be_signed, ec.ECDSA(hashes.SHA256())))
    issuer_auth = [protected, {}, payload, r.to_bytes(32, "big") + s.to_bytes(32, "big")]
    return cbor2.dumps({"nameSpaces": {namespace: items}, "issuerAuth": issuer_auth})


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--device-jwk", required=True)
    parser.add_argument("--format", choices=["sd-jwt", "mdoc"], required=True)
    parser.add_argument("--issuer-key", required=True)
    parser.add_argument("--doctype", choices=sorted(MDOC_DOCTYPES), default="pid",
                        help="the mdoc's document type (pid: the EU PID, mdl: the ISO mDL); mdoc only")
    parser.add_argument("--out")
    args = parser.parse_args()
    text = args.device_jwk
    if os.path.exists(text):
        with open(text) as f:
            text = f.read()
    device_jwk = json.loads(text)
    issuer_key = load_issuer_key(args.issuer_key)
    if args.format == "sd-jwt":
        if args.doctype != "pid":
            parser.error("--doctype mdl is for --format mdoc; the SD-JWT VC is a PID")
        credential = issue_sd_jwt(device_jwk, issuer_key)
    else:
        credential = issue_mdoc(device_jwk, issuer_key, args.doctype)
    if args.out:
        with open(args.out, "wb") as f:
            f.write(credential)
    else:
        sys.stdout.buffer.write(credential)


if __name__ == "__main__":
    main()
