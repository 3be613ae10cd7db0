"""An independent mdoc presentation checker (not our code's logic), shared by the wallet's judges.

Written from ISO/IEC 18013-5 (DeviceResponse, IssuerSigned, MSO, DeviceAuthentication) and
OpenID4VP 1.0 Appendix B.2.6.2 (the DC API SessionTranscript) with cbor2 and cryptography only.
Used by scripts/wallet-e2e.py (`wallet present`) and ci/chromium/dc_interop.py (real Chromium).
"""
import base64
import hashlib

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, utils


def b64decode(text):
    """base64url without padding, as OpenID4VP carries a DeviceResponse."""
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def session_transcript(origin, nonce):
    """[null, null, ["OpenID4VPDCAPIHandover", SHA-256(CBOR [origin, nonce, null])]] (B.2.6.2)."""
    handover_info = cbor2.dumps([origin, nonce, None])
    return [None, None, ["OpenID4VPDCAPIHandover", hashlib.sha256(handover_info).digest()]]


def _verify_es256(public, signature, to_be_signed):
    r, s = int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big")
    public.verify(utils.encode_dss_signature(r, s), to_be_signed, ec.ECDSA(hashes.SHA256()))


def verify_mdoc(encoded, issuer_public, nonce, origin):
    """Checks a base64url DeviceResponse; returns {(namespace, element): value} it discloses.

    Raises on any failure: the issuer's COSE_Sign1 over the MSO, each returned item's digest, and
    the device signature (detached COSE_Sign1, ES256, with the MSO's device key) over
    DeviceAuthentication with the SessionTranscript of `origin` and `nonce`."""
    response = cbor2.loads(b64decode(encoded))
    assert response["status"] == 0 and len(response["documents"]) == 1
    document = response["documents"][0]
    protected, _, payload, signature = document["issuerSigned"]["issuerAuth"]
    _verify_es256(issuer_public, signature, cbor2.dumps(["Signature1", protected, b"", payload]))
    mso = cbor2.loads(cbor2.loads(payload).value)
    assert mso["docType"] == document["docType"], "MSO docType"
    disclosed = {}
    for namespace, items in document["issuerSigned"]["nameSpaces"].items():
        for item in items:
            inner = cbor2.loads(item.value)
            digest = hashlib.sha256(cbor2.dumps(item)).digest()
            assert mso["valueDigests"][namespace][inner["digestID"]] == digest, "item digest"
            disclosed[(namespace, inner["elementIdentifier"])] = inner["elementValue"]
    device_key = mso["deviceKeyInfo"]["deviceKey"]
    public = ec.EllipticCurvePublicNumbers(int.from_bytes(device_key[-2], "big"), int.from_bytes(device_key[-3], "big"),
                                           ec.SECP256R1()).public_key()
    device_signed = document["deviceSigned"]
    authentication = ["DeviceAuthentication", session_transcript(origin, nonce), document["docType"],
                      device_signed["nameSpaces"]]
    authentication_bytes = cbor2.dumps(cbor2.CBORTag(24, cbor2.dumps(authentication)))
    d_protected, _, d_payload, d_signature = device_signed["deviceAuth"]["deviceSignature"]
    assert d_payload is None, "detached payload"
    assert cbor2.loads(d_protected) == {1: -7}
    _verify_es256(public, d_signature, cbor2.dumps(["Signature1", d_protected, b"", authentication_bytes]))
    return disclosed
