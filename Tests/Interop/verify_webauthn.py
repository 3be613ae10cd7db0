#!/usr/bin/env python3
"""Verify hybrid-client output as a relying party would, with py_webauthn (PyPI `webauthn`, >= 2.0).

    pip install webauthn

Registration (prints the verified credential as JSON on stdout, for the authentication step):

    verify_webauthn.py register --response reg.json --challenge B64URL \
        --origin https://example.com --rp-id example.com [--require-uv] [--credential-out cred.json]

Authentication (needs the credential printed by `register`):

    verify_webauthn.py authenticate --response auth.json --challenge B64URL \
        --origin https://example.com --rp-id example.com --credential cred.json [--sign-count N] [--require-uv]

`--response -` reads the response JSON from stdin; `--challenge` is base64url (no padding needed).
Exit status: 0 verified, 1 verification failed (reason on stderr), 2 usage or input error.
"""

import argparse
import json
import sys

try:
    from webauthn import verify_authentication_response, verify_registration_response
    from webauthn.helpers import base64url_to_bytes, bytes_to_base64url
except ImportError:  # pragma: no cover - environment problem, not a verification result
    sys.stderr.write("py_webauthn is not installed: pip install webauthn\n")
    sys.exit(2)


def read_text(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def register(args: argparse.Namespace) -> dict:
    verified = verify_registration_response(
        credential=read_text(args.response),
        expected_challenge=base64url_to_bytes(args.challenge),
        expected_origin=args.origin,
        expected_rp_id=args.rp_id,
        require_user_verification=args.require_uv,
    )
    return {
        "credentialId": bytes_to_base64url(verified.credential_id),
        "credentialPublicKey": bytes_to_base64url(verified.credential_public_key),
        "signCount": verified.sign_count,
        "aaguid": verified.aaguid,
        "fmt": str(getattr(verified.fmt, "value", verified.fmt)),
        "userVerified": verified.user_verified,
        "backedUp": verified.credential_backed_up,
    }


def authenticate(args: argparse.Namespace) -> dict:
    credential = json.loads(read_text(args.credential))
    response_text = read_text(args.response)
    response_id = json.loads(response_text).get("id")
    if response_id != credential["credentialId"]:
        raise ValueError(f"response id {response_id!r} is not the registered credential")
    sign_count = args.sign_count if args.sign_count is not None else credential.get("signCount", 0)
    verified = verify_authentication_response(
        credential=response_text,
        expected_challenge=base64url_to_bytes(args.challenge),
        expected_origin=args.origin,
        expected_rp_id=args.rp_id,
        credential_public_key=base64url_to_bytes(credential["credentialPublicKey"]),
        credential_current_sign_count=sign_count,
        require_user_verification=args.require_uv,
    )
    return {
        "credentialId": bytes_to_base64url(verified.credential_id),
        "newSignCount": verified.new_sign_count,
        "userVerified": verified.user_verified,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="ceremony", required=True)
    for name in ("register", "authenticate"):
        command = sub.add_parser(name)
        command.add_argument("--response", required=True, help="response JSON file, or - for stdin")
        command.add_argument("--challenge", required=True, help="expected challenge, base64url")
        command.add_argument("--origin", required=True, help="expected origin, e.g. https://example.com")
        command.add_argument("--rp-id", required=True, help="expected RP ID, e.g. example.com")
        command.add_argument("--require-uv", action="store_true", help="require the UV flag")
        if name == "register":
            command.add_argument("--credential-out", help="also write the verified credential JSON here")
        else:
            command.add_argument("--credential", required=True, help="credential JSON printed by `register`")
            command.add_argument("--sign-count", type=int, help="stored sign count (default: from --credential)")
    args = parser.parse_args()

    try:
        result = register(args) if args.ceremony == "register" else authenticate(args)
    except (OSError, KeyError, json.JSONDecodeError) as error:
        sys.stderr.write(f"input error: {error!r}\n")
        return 2
    except Exception as error:  # py_webauthn raises InvalidRegistrationResponse etc., plus parse errors
        sys.stderr.write(f"verification failed: {type(error).__name__}: {error}\n")
        return 1

    text = json.dumps(result, sort_keys=True)
    if args.ceremony == "register" and args.credential_out:
        with open(args.credential_out, "w", encoding="utf-8") as handle:
            handle.write(text + "\n")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
