#!/usr/bin/env python3
"""The independent SD-JWT VC verifier, as a command (for drivers whose Python lacks `sd-jwt`).

  sd_jwt_check.py ISSUER_PUBLIC_PEM NONCE AUDIENCE < PRESENTATION

The PyPI `sd-jwt` reference implementation's SDJWTVerifier checks the issuer's signature, every
disclosure's digest and the key-binding JWT (signed by the key in the issuer-signed `cnf`, with
`nonce` NONCE and `aud` AUDIENCE, OpenID4VP 1.0 Appendix A.4: `origin:<origin>` for an unsigned
request) and the `sd_hash`. Prints the verified claims as JSON and exits 0, or prints the
verifier's error on stderr and exits 1. Not our code: the judge of scripts/wallet-e2e.py and
ci/chromium/dc_interop.py.
"""
import json
import sys


def verify_sd_jwt(presentation, issuer_public_pem, nonce, audience):
    from jwcrypto.jwk import JWK
    from sd_jwt.verifier import SDJWTVerifier
    issuer = JWK.from_pem(issuer_public_pem)
    verifier = SDJWTVerifier(presentation, lambda iss, header: issuer, expected_aud=audience, expected_nonce=nonce)
    return verifier.get_verified_payload()


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        sys.exit(64)
    with open(sys.argv[1], 'rb') as f:
        issuer_pem = f.read()
    presentation = sys.stdin.read().strip()
    try:
        payload = verify_sd_jwt(presentation, issuer_pem, sys.argv[2], sys.argv[3])
    except Exception as error:  # any rejection is the verdict, not a traceback
        print('%s: %s' % (type(error).__name__, error), file=sys.stderr)
        sys.exit(1)
    print(json.dumps(payload, sort_keys=True))


if __name__ == '__main__':
    main()
