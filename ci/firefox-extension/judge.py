#!/usr/bin/env python3
"""Judges proof.py's records (ci/run-firefox-extension.sh): every credential and assertion is
verified with py_webauthn against the page's origin and the RP ID; the rest are facts the
records state (error names, QR codes counted, windows seen). Prints one line per check and
'N passed, M failed'; exits 1 when a check fails.

  judge.py RECORDS.jsonl ISSUER_KEY.pem
  judge.py --portal RECORDS.jsonl PORTAL_LOG.jsonl [RECORDS PORTAL_LOG ...]   (ci/run-firefox-portal.sh)

With --portal, each pair is one portal run: proof.py --portal's records and the stand-in portal's
log (portal.py). A run where the portal granted: the credentials verified the same way, the log
showing what Firefox called and every host the portal spawned ended with its session (SIGTERM:
by itself, within the portal's 10 s; SIGKILL: killed). A run where it refused (records no-host-*):
Firefox's own behaviour, and nothing spawned.

The digital credential's SD-JWT presentation is judged by scripts/sd_jwt_check.py (the `sd-jwt`
reference library's verifier) against the issuer's key, the request's nonce and the audience
`origin:<the page's origin>`.
"""
import os
import json

import cbor2
import sys

from webauthn import verify_authentication_response, verify_registration_response
from webauthn.helpers import base64url_to_bytes

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from sd_jwt_check import verify_sd_jwt  # noqa: E402  (the sd-jwt library's verifier)

PASSED, FAILED = [], []


def check(condition, label):
    (PASSED if condition else FAILED).append(label)
    print("%s: %s" % ("ok" if condition else "FAIL", label))


def challenge(options):
    return base64url_to_bytes(options["challenge"])


def as_json(credential):
    """The page's own description (its fields and methods) as RegistrationResponseJSON /
    AuthenticationResponseJSON, for py_webauthn."""
    out = {k: credential[k] for k in ("id", "rawId", "type", "authenticatorAttachment")}
    out["response"] = dict(credential["response"])
    out["clientExtensionResults"] = credential["clientExtensionResults"]
    return json.dumps(out)


def outcome(result):
    """A step's result in a few words: the credential's transports, or the error."""
    if result.get("ok"):
        return "a credential, transports %s" % result["credential"]["response"].get("transports")
    return "%s: %s" % (result.get("name"), result.get("message"))


def reached_firefox(result):
    """A credential of Firefox's own implementation: its soft token (proof.py adds it as a WebDriver
    virtual authenticator) answered, not our phone (whose credentials name the hybrid transport)."""
    return bool(result.get("ok")) and "hybrid" not in result["credential"]["response"].get("transports", [])


def verify_create(entry, label):
    result = entry["result"]
    if not result.get("ok"):
        check(False, "%s: %s %s" % (label, result.get("name"), result.get("message")))
        return None
    verified = verify_registration_response(
        credential=as_json(result["credential"]), expected_challenge=challenge(entry["options"]),
        expected_origin=entry["origin"], expected_rp_id="localhost")
    check(True, "%s: verified by py_webauthn (origin %s, RP ID localhost)" % (label, entry["origin"]))
    return verified


def verify_get(entry, registration, label):
    result = entry["result"]
    if not result.get("ok"):
        check(False, "%s: %s %s" % (label, result.get("name"), result.get("message")))
        return
    verify_authentication_response(
        credential=as_json(result["credential"]), expected_challenge=challenge(entry["options"]),
        expected_origin=entry["origin"], expected_rp_id="localhost",
        credential_public_key=registration.credential_public_key, credential_current_sign_count=0)
    check(True, "%s: verified by py_webauthn with the created credential's key" % label)


def main():
    if sys.argv[1] == "--portal":
        return judge_portal(list(zip(sys.argv[2::2], sys.argv[3::2])))
    records = load_records(sys.argv[1])
    steps = set(records)

    if "no-host-capabilities" in steps:
        capabilities = records["no-host-capabilities"]["result"]["capabilities"]
        check(capabilities.get("hybridTransport") is not True,
              "without the host: getClientCapabilities() is Firefox's own (hybridTransport %s)"
              % capabilities.get("hybridTransport", "absent"))
        entry = records["no-host-create"]
        check(entry["choiceWindows"] == 0, "without the host: no choice window")
        check(reached_firefox(entry["result"]), "without the host: create() gets Firefox's own answer (%s)"
              % outcome(entry["result"]))
        if entry["result"].get("ok"):
            verify_create(entry, "without the host: Firefox's own create()")
    if "capabilities" not in steps:
        return finish()

    capabilities = records["capabilities"]["result"]["capabilities"]
    check(capabilities.get("hybridTransport") is True, "getClientCapabilities() has hybridTransport: true")

    entry = records["browser-create"]
    check(entry["chose"], "the choice window opened for create() and took \"a security key or this browser\"")
    check(entry["qrCodes"] == 0, "that choice shows no QR code")
    check(reached_firefox(entry["result"]), "that choice gets Firefox's own answer (%s)"
          % outcome(entry["result"]))
    browser_registration = verify_create(entry, "Firefox's own create() (its soft token)")
    if browser_registration:
        entry = records.get("browser-get")
        check(entry is not None and entry["chose"] and entry["qrCodes"] == 0,
              "get() of that passkey: the choice window took \"a security key or this browser\" again, no QR code")
        if entry:
            check(reached_firefox(entry["result"]), "that get() is answered by Firefox's own implementation")
            verify_get(entry, browser_registration, "Firefox's own get() (its soft token)")

    entry = records["phone-create"]
    check(entry["chose"], "the choice window took \"Use a phone or tablet\", remembered")
    registration = verify_create(entry, "phone create()")
    if registration:
        credential = entry["result"]["credential"]
        check(credential["authenticatorAttachment"] == "cross-platform", "authenticatorAttachment cross-platform")
        check(credential["instanceOfPublicKeyCredential"] and credential["responseInstanceOf"],
              "instanceof PublicKeyCredential and AuthenticatorAttestationResponse")
        check(credential["response"]["transports"] == ["hybrid"] or "hybrid" in credential["response"]["transports"],
              "getTransports() %s has hybrid" % credential["response"]["transports"])
        attestation = cbor2.loads(base64url_to_bytes(credential["response"]["attestationObject"]))
        check(base64url_to_bytes(credential["response"]["authenticatorData"]) == attestation["authData"],
              "getAuthenticatorData() is the attestation object's authData")
        check(credential["response"]["publicKeyAlgorithm"] == -7, "getPublicKeyAlgorithm() -7")
        check(bool(credential["response"]["publicKey"]), "getPublicKey() gives the SPKI")
        check(credential["clientExtensionResults"].get("credProps") == {"rk": True}, "credProps {rk: true}")
        check(credential["clientExtensionResults"].get("prf", {}).get("enabled") is True, "prf enabled at create")
        check(credential["toJSON"]["id"] == credential["id"] and credential["toJSON"]["response"]["attestationObject"]
              == credential["response"]["attestationObject"], "toJSON() matches the fields")
        prf = []
        for step in ("phone-get-1", "phone-get-2"):
            entry = records[step]
            verify_get(entry, registration, "phone get() %s" % step[-1])
            check(entry["choiceWindows"] == 0, "%s: no choice window (remembered for the site)" % step)
            results = entry["result"].get("credential", {}).get("clientExtensionResults", {}).get("prf", {}).get("results", {})
            prf.append(results.get("first"))
        check(prf[0] is not None and len(base64url_to_bytes(prf[0])) == 32 and prf[0] == prf[1],
              "prf: the same 32-byte result for the same salt across two gets")
        for tab in ("a", "b"):
            verify_get(records["two-tabs-%s" % tab], registration, "two tabs at once: tab %s" % tab)
        check(records["two-tabs-b"]["qrCodesDuring"] == 2, "two tabs: two QR codes, one per request")

    entry = records["rp-id-not-origins"]
    check(entry["result"].get("name") == "SecurityError" and entry["result"].get("isDOMException"),
          "RP ID example.com on localhost: SecurityError (%s)" % entry["result"].get("name"))
    check(entry["qrCodesDuring"] == 0, "... and no QR code shown")

    entry = records["abort"]
    check(entry["qrShown"], "abort: the QR code was up")
    check(entry["result"].get("name") == "AbortError", "abort: the page got AbortError (%s)" % entry["result"].get("name"))
    check(entry["airEmptied"], "abort: the host's ceremony ended (no live scanner on the simulated air; files: %s)"
          % entry.get("airLeft"))
    check(entry["hostExited"], "abort: no host process left under Firefox")
    probe = entry["pageProbe"]
    check(probe["browser"] == "undefined" and probe["chrome"] == "undefined",
          "the page has no extension API to reach the host (browser, chrome undefined)")
    check(probe["seen"]["messages"] == 0 and probe["seen"]["qrElements"] == 0,
          "while the QR code was up the page saw no message event and no image, canvas, svg or frame")
    entry = records["digital"]
    result = entry["result"]
    check(entry["choiceWindows"] == 0, "digital: no choice window")
    check(result.get("ok") and result["credential"].get("protocol") == "openid4vp-v1-unsigned",
          "digital: the page got a DigitalCredential, protocol openid4vp-v1-unsigned (%s)" % json.dumps(result)[:200])
    if result.get("ok"):
        data = result["credential"]["data"]
        data = json.loads(data) if isinstance(data, str) else data
        token = (data.get("vp_token") or {}).get("pid") or [None]
        try:
            with open(sys.argv[2], "rb") as f:
                claims = verify_sd_jwt(token[0], f.read(), entry["nonce"], "origin:" + entry["origin"])
            check(claims.get("age_equals_or_over") == {"18": True} and "given_name" not in claims,
                  "digital: the sd-jwt reference verifier accepts the presentation (issuer, disclosures, key binding "
                  "to nonce and origin:%s); only the asked claim" % entry["origin"])
        except Exception as error:  # the verifier's rejection is the verdict
            check(False, "digital: the sd-jwt verifier rejects the presentation: %s: %s" % (type(error).__name__, error))
    probe = records["page-probe"]["result"]["probe"]
    check(probe["seen"]["messages"] == 0 and probe["seen"]["qrElements"] == 0,
          "after every ceremony: still no message event and no QR-like element in the page")
    return finish()


HOST_START = "/usr/local/lib/hybrid-client/firefox-native-messaging-host"
HOST_MANIFEST = "/usr/lib/mozilla/native-messaging-hosts/hybrid_transport.json"
EXTENSION_ID = "hybrid@swift-hybrid-transport"


def sessions_of(log):
    """The portal's log grouped by session, in order of creation: each a list of events."""
    sessions = {}
    for event in log:
        if event.get("session"):
            sessions.setdefault(event["session"], []).append(event)
    return sessions


def load_records(path):
    records = {}
    with open(path) as f:
        for line in f:
            entry = json.loads(line)
            records[entry["step"]] = entry
    return records


def judge_portal(pairs):
    for records_path, log_path in pairs:
        records = load_records(records_path)
        with open(log_path) as f:
            log = [json.loads(line) for line in f if line.strip()]
        if "no-host-capabilities" in records:
            judge_portal_refused(records, log)
        else:
            judge_portal_granted(records, log)
    return finish()


def judge_portal_granted(records, granted):
    ready = next(e for e in granted if e["event"] == "ready")
    close_signal = ready["closeSignal"]
    print("== the portal grants, SIG%s on Close" % close_signal)
    capabilities = records["capabilities"]["result"]["capabilities"]
    check(capabilities.get("hybridTransport") is True,
          "portal: getClientCapabilities() has hybridTransport: true (the host answered through the portal)")
    entry = records["phone-create"]
    check(entry["chose"], "portal: the choice window took \"Use a phone or tablet\", remembered")
    registration = verify_create(entry, "portal: phone create()")
    if registration:
        check(entry["result"]["credential"]["clientExtensionResults"].get("credProps") == {"rk": True},
              "portal: credProps {rk: true}")
        prf = []
        for step in ("phone-get-1", "phone-get-2"):
            verify_get(records[step], registration, "portal: phone get() %s" % step[-1])
            results = records[step]["result"].get("credential", {}).get("clientExtensionResults", {})
            prf.append(results.get("prf", {}).get("results", {}).get("first"))
        check(prf[0] is not None and prf[0] == prf[1], "portal: prf gives the same result for the same salt")
    check(records["sessions-closed"]["result"]["ok"],
          "portal: after the ceremonies every host the portal spawned has ended (%s)" % records["sessions-closed"]["hosts"])
    entry = records["abort"]
    check(entry["qrShown"] and entry["result"].get("name") == "AbortError",
          "portal: abort while the QR code is up gives AbortError (%s)" % entry["result"].get("name"))
    check(entry["hostExited"], "portal: after the abort the host has ended (%s)" % entry["hosts"])
    entry = records["firefox-quit"]
    check(entry["qrShown"] and entry["runningAtQuit"], "portal: a host was running a ceremony when Firefox quit (%s)"
          % entry["runningAtQuit"])
    check(entry["result"]["ok"], "portal: Firefox quit mid-ceremony: no host left (%s)" % entry["hosts"])

    sessions = sessions_of(granted)
    spawned = [e for e in granted if e["event"] == "host-spawned"]
    check(len(spawned) >= 6, "portal: one session and one host per port of the extension (%d hosts)" % len(spawned))
    first = [e["event"] for e in next(iter(sessions.values()), [])]
    print("portal: the first session, as the portal saw it: %s" % " -> ".join(first))
    complete = all([e["event"] for e in events][:6] == ["CreateSession", "GetManifest", "Start", "host-spawned",
                                                       "Response", "GetPipes"]
                   for events in sessions.values() if any(e["event"] == "host-spawned" for e in events))
    check(complete, "portal: Firefox called CreateSession, GetManifest, Start (Response 0), GetPipes in that order")
    check(all(e["argv"] == [HOST_START, HOST_MANIFEST, EXTENSION_ID] for e in spawned),
          "portal: the host started as the portal starts it: %s" % (spawned[0]["argv"] if spawned else None))
    check(all(e["cwd"] == "/" and "DISPLAY" not in e["environment"] for e in spawned),
          "portal: ... with the portal's working directory / and its environment (%s)"
          % (" ".join(spawned[0]["environment"]) if spawned else None))
    ended = {e["pid"]: e for e in granted if e["event"] == "host-ended"}
    exited = {e["pid"] for e in granted if e["event"] == "host-exited"}
    check(all(e["pid"] in ended or e["pid"] in exited for e in spawned),
          "portal: every host ended with its session (%d at Close or the caller's exit: SIG%s, %d by itself)"
          % (len(ended), close_signal, len(exited)))
    if close_signal == "TERM":
        slow = [e for e in ended.values() if e["forcedAfter10s"] or e["exitStatus"] is False and e["exitedBySignal"] != 15]
        check(not slow, "portal: each host ended on SIGTERM on its own, within %.2f s at most (%s)"
              % (max([e["seconds"] for e in ended.values()] or [0]), slow))
    else:
        check(all(e["exitedBySignal"] == 9 or e["exitStatus"] is not False for e in ended.values()),
              "portal: each host still running at Close was killed (SIGKILL), the others had exited")
    closes = sorted({e["why"] for e in granted if e["event"] == "session-closed"})
    print("portal: sessions ended by: %s" % ", ".join(closes))


def judge_portal_refused(records, refused):
    denied = not next(e for e in refused if e["event"] == "ready")["grant"]
    label = "portal denying" if denied else "portal refusing"
    print("== the portal %s" % ("denies: the user's \"Don't allow\"" if denied else "refuses (allowed_extensions without our id)"))
    capabilities = records["no-host-capabilities"]["result"]["capabilities"]
    check(capabilities.get("hybridTransport") is not True,
          "%s: getClientCapabilities() is Firefox's own (hybridTransport %s)"
          % (label, capabilities.get("hybridTransport", "absent")))
    entry = records["no-host-create"]
    check(entry["choiceWindows"] == 0 and reached_firefox(entry["result"]),
          "%s: create() gets Firefox's own answer, no window of ours (%s)"
          % (label, outcome(entry["result"])))
    if entry["result"].get("ok"):
        verify_create(entry, "%s: Firefox's own create()" % label)
    if denied:
        responses = [e["response"] for e in refused if e["event"] == "Response"]
        check(responses and set(responses) == {1} and not any(e["event"] == "host-spawned" for e in refused),
              "portal denying: GetManifest answered, Start's Response 1 (%d), no host spawned" % len(responses))
        return
    skipped = [e for e in refused if e["event"] == "manifest-skipped"]
    check(any(e["event"] == "GetManifest-refused" for e in refused) and skipped
          and all(EXTENSION_ID in e["reason"] for e in skipped),
          "portal refusing: GetManifest refused, the manifest skipped (%s)" % (skipped[0]["reason"] if skipped else None))
    check(not any(e["event"] in ("Start", "host-spawned") for e in refused), "portal refusing: no Start, no host spawned")


def finish():
    print("%d passed, %d failed" % (len(PASSED), len(FAILED)))
    sys.exit(1 if FAILED else 0)


if __name__ == "__main__":
    main()
