#!/usr/bin/python3
"""Real Chromium asks OUR hybrid-authenticator for a digital credential (inside chromium-peer's namespace).

  dc_interop.py --peer DIR --authenticator BIN --store PATH

The SD-JWT issuer and verifier need the `sd-jwt` package, which the Debian Python that drives
Chromium lacks: they run under $DC_SDJWT_PYTHON, else the first python3 on PATH that imports it.

The page (chromium-peer's, origin http://localhost:8000) calls
navigator.credentials.get({digital: {requests: [{protocol: "openid4vp-v1-unsigned", data: {DCQL}}]}})
with a user gesture through DevTools, asking for one mDL claim (org.iso.18013.5.1 age_over_18).
Chromium shows a FIDO:/ QR code (read off the Xvfb screen); our `hybrid-authenticator serve - --yes`
scans it, offers the "dc" feature and answers Chromium's JSON request (message type 03). Four
ceremonies, on one store:

1. empty-wallet: the wallet holds nothing, so the phone declines with the refusal
   {"response": {"digital": {"error": "USER_CANCELED"}}}. Chromium must parse it (its device log
   prints "-> [large JSON payload: 50 bytes]", the size of our answer, then "Remote error from
   digital identity request: 0", RemoteError::kUserCanceled, the first value of the enum in
   content/public/browser/digital_credentials_cross_device.h), and the page's promise must reject
   with the DOMException Chromium 156 makes of a remote USER_CANCELED: NotAllowedError "Request is
   cancelled." (seen here; older Chromium sources map every remote error but DEVICE_ABORTED to
   NetworkError "Error retrieving a token.").
2. mdl: `wallet key` makes the phone's device key, scripts/issue-test-credential.py (an
   independent issuer) issues an mDL (doctype org.iso.18013.5.1.mDL, age_over_18 true) bound to
   it, and `wallet add` stores it. Asked again (a new nonce), the phone presents; the page's
   promise must resolve with a DigitalCredential whose protocol is "openid4vp-v1-unsigned" and
   whose data.vp_token.mdl[0] is a DeviceResponse that scripts/mdoc_check.py (cbor2 and
   cryptography, written from ISO/IEC 18013-5 and OpenID4VP 1.0 Appendix B.2.6.2, not our code)
   accepts: the issuer's signature, the item digests, and the device signature over the
   SessionTranscript of the page's origin and the request's nonce, disclosing age_over_18 only.

3. sd-jwt: the same issuer issues a PID as an SD-JWT VC (vct urn:eudi:pid:1, the `sd-jwt` PyPI
   reference implementation) bound to the same device key. The page asks for ONE claim of it,
   age_equals_or_over.18; the promise must resolve with data.vp_token.pid[0], an SD-JWT
   presentation that scripts/sd_jwt_check.py (that same library's SDJWTVerifier, not our code)
   accepts: issuer signature, disclosures, and a key-binding JWT with the request's nonce and
   audience "origin:http://localhost:8000" (OpenID4VP 1.0 Appendix A.4, the origin as Chromium
   sends it); the verified claims hold age_equals_or_over = {"18": true} and no other PID claim.
   This runs before the mdl ceremony, so the page asks for an SD-JWT claim and then for an mdoc
   element.
4. declined: the page asks for the mDL element again; the phone runs without --yes and its user
   answers "n". The page's promise must reject, no credential data reaches the page (so a verifier
   gets nothing), and the phone reports "declined" and exits 3.

Chromium is the judge of the transport in all: the QR code's request type (key 5) must be "dcp";
Chromium must accept our post-handshake features (no "doesn't advertise support for digital
identities" in its log) and send its JSON request (our phone reports the page's origin and
protocol). The claim path ends in age_over_18, which Chromium lets through without its "verify your
identity" interstitial (digital_identity_request_impl.cc CanClaimBypassInterstitial), so no
extra click is needed.

Prints one PASS/FAIL line per check; exits 1 on any failure.
"""
import json
import os
import shutil
import subprocess
import sys
import time

from cryptography.hazmat.primitives import serialization

from page_ceremony import arg, finish_authenticator, read_qr, start_authenticator, wait_result

RUN = os.environ['CP_RUN']
sys.path.insert(0, arg('--peer'))
import cable  # noqa: E402  (chromium-peer's caBLE maths: QR parsing)
import cdp  # noqa: E402  (chromium-peer's DevTools driver)

SCRIPTS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), 'scripts')
sys.path.insert(0, SCRIPTS)
from mdoc_check import verify_mdoc  # noqa: E402  (the independent mdoc checker, shared with wallet-e2e.py)

AUTHENTICATOR = arg('--authenticator')
STORE = arg('--store')
ORIGIN = 'http://localhost:8000'
failures = []

# One OpenID4VP (unsigned, DC API) request with a DCQL query for one claim (OpenID4VP 1.0 Appendix
# A.2: response_mode "dc_api" is required; our wallet refuses a request without it). The claim path ends in
# age_over_18, which Chromium lets through without its "verify your identity" interstitial
# (digital_identity_request_impl.cc CanClaimBypassInterstitial), so no extra click is needed.
# The SD-JWT VC query: one claim of the PID (OpenID4VP 1.0 §6 DCQL, claims path into the
# SD-JWT VC's age_equals_or_over object).
SD_JWT_QUERY = {'id': 'pid', 'format': 'dc+sd-jwt', 'meta': {'vct_values': ['urn:eudi:pid:1']},
                'claims': [{'path': ['age_equals_or_over', '18']}]}
PID_CLAIMS_NOT_ASKED = ('given_name', 'family_name', 'birthdate')

REQUEST = {'requests': [{'protocol': 'openid4vp-v1-unsigned', 'data': {
    'response_type': 'vp_token', 'response_mode': 'dc_api', 'nonce': 'dc-interop-nonce-1',
    'dcql_query': {'credentials': [{'id': 'mdl', 'format': 'mso_mdoc',
                                    'meta': {'doctype_value': 'org.iso.18013.5.1.mDL'},
                                    'claims': [{'path': ['org.iso.18013.5.1', 'age_over_18']}]}]}}}]}

PAGE_JS = '''
window.dcGet = function (digital) {
  window.__result = null;
  if (!('DigitalCredential' in window)) {
    window.__result = JSON.stringify({ok: false, name: 'NoAPI', message: 'no DigitalCredential interface'});
    return 'no api';
  }
  navigator.credentials.get({digital: digital}).then((credential) => {
    window.__result = JSON.stringify({ok: true, protocol: credential.protocol, data: credential.data});
  }, (error) => {
    window.__result = JSON.stringify({ok: false, name: error.name, message: error.message});
  });
  return 'started';
};
'''


def check(name, condition, detail=''):
    print('%s %s%s' % ('PASS' if condition else 'FAIL', name, (': ' + detail) if detail and not condition else ''),
          flush=True)
    if not condition:
        failures.append(name)


def chrome_log():
    with open(os.path.join(RUN, 'logs', 'chrome.log'), errors='replace') as log:
        return log.read()


def dc_request(nonce, query=None):
    """The page's request: one OpenID4VP (unsigned, DC API) request for one claim: by default the mDL's
    age_over_18, else the one DCQL credential query `query`."""
    request = json.loads(json.dumps(REQUEST))
    request['requests'][0]['data']['nonce'] = nonce
    if query is not None:
        request['requests'][0]['data']['dcql_query'] = {'credentials': [query]}
    return request


def read_qr_past_interstitial(label, deadline):
    """Like page_ceremony.read_qr, but a request for claims outside Chromium's bypass list (for an
    SD-JWT VC every claim: CanClaimBypassInterstitial knows only mdoc age and carrier elements) first
    shows the tab-modal "Do you trust this site with your data? [Cancel] [Continue]" with Continue
    focused: when no QR code is up after a second, the screen is kept as evidence and the user
    presses Return (xdotool), once."""
    shot = os.path.join(RUN, 'qr_%s.png' % ''.join(c if c.isalnum() else '_' for c in label))
    started = time.time()
    pressed = False
    evidence = None
    while time.time() < deadline:
        subprocess.run(['import', '-window', 'root', shot], check=True)
        found = subprocess.run(['zbarimg', '-q', '--raw', '--nodbus', shot], capture_output=True, text=True)
        if found.returncode == 0 and found.stdout.startswith('FIDO:/'):
            print('  %s: %s' % (label, 'pressed Continue on the interstitial (screen before: %s)' % evidence
                                 if pressed else 'no interstitial: the QR code came at once'), flush=True)
            return shot, found.stdout.strip()
        if not pressed and time.time() - started > 1.0:
            evidence = os.path.join(RUN, 'interstitial_%s.png' % label.replace('-', '_'))
            shutil.copyfile(shot, evidence)
            subprocess.run(['xdotool', 'key', 'Return'], check=True)
            pressed = True
        time.sleep(0.2)
    return None, None


def sd_jwt_python():
    """A Python that has the `sd-jwt` reference library, or None."""
    candidates = [os.environ.get('DC_SDJWT_PYTHON')]
    for directory in os.environ.get('PATH', '').split(os.pathsep):
        candidates.append(os.path.join(directory, 'python3'))
    candidates += [os.path.expanduser('~/.pyenv/shims/python3'), shutil.which('python3'), sys.executable]
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK) and subprocess.run(
                [candidate, '-c', 'import sd_jwt, jwcrypto'], capture_output=True).returncode == 0:
            return candidate
    return None


SD_JWT_PYTHON = sd_jwt_python()


def ceremony(label, request, answer=None, interstitial=False):
    """One navigator.credentials.get({digital}) answered by our phone: `serve --yes`, or, with `answer`,
    `serve` without --yes whose user types `answer` at the consent question. With `interstitial`,
    Chromium first asks "Do you trust this site with your data?" and the user continues.

    Returns (page result, authenticator exit status, its events by name, Chromium's log of this
    ceremony), or None when no QR code appeared (then the failure is reported here)."""
    before = len(chrome_log())
    start = time.time()
    cdp.evaluate(PAGE_JS)
    cdp.evaluate('dcGet(%s)' % json.dumps(request), gesture=True)
    if interstitial:
        shot, qr = read_qr_past_interstitial(label, start + 30)
    else:
        shot, qr = read_qr(RUN, 'digital credential %s' % label, start + 30)
    if not qr:
        early = wait_result(cdp, start, limit=1)
        check('%s: Chromium shows a FIDO:/ QR code for navigator.credentials.get({digital})' % label, False,
              'page result: %s; screen: %s' % (json.dumps(early), shot))
        return None
    check('%s: Chromium shows a FIDO:/ QR code for navigator.credentials.get({digital})' % label, True)
    fields = cable.parse_qr(qr)
    check('%s: the QR code asks for a presentation (key 5 = "dcp")' % label, fields['request_type'] == 'dcp',
          repr(fields['request_type']))
    print('  QR keys: request type %r, known domains %r, linking %r, other keys %r' % (
        fields['request_type'], fields['num_known_domains'], fields['supports_linking'], fields['other_keys']),
        flush=True)

    events_path = os.path.join(RUN, 'logs', 'authenticator-dc-%s.jsonl' % label)
    with open(events_path, 'w') as events_file:
        if answer is None:
            phone = start_authenticator(RUN, AUTHENTICATOR, STORE, qr, events_file)
        else:
            phone = start_asking_authenticator(qr, answer, events_file)
        result = wait_result(cdp, start)
        code = finish_authenticator(phone)
    shown = json.dumps(result)
    print('  page result after %.2fs: %s; authenticator exit %s' % (
        time.time() - start, shown if len(shown) < 300 else shown[:300] + '...', code), flush=True)
    events = []
    for line in open(events_path, errors='replace'):
        try:
            events.append(json.loads(line))
        except ValueError:
            pass
    by_name = {event.get('event'): event for event in events}
    log = chrome_log()[before:]
    request_seen = by_name.get('digitalCredentialRequest') or {}
    check('%s: Chromium accepted our post-handshake features ["dc"] (no "doesn\'t advertise support")' % label,
          "doesn't advertise support for digital identities" not in log and 'handshakeDone' in by_name)
    check('%s: our phone read Chromium\'s JSON request: origin %s' % (label, ORIGIN),
          request_seen.get('origin') == ORIGIN, json.dumps(request_seen))
    check('%s:   ... for the page\'s protocol openid4vp-v1-unsigned' % label,
          request_seen.get('protocols') == ['openid4vp-v1-unsigned'], json.dumps(request_seen))
    check('%s: no JSON or transport error in Chromium\'s digital-credential flow' % label,
          'Invalid JSON response' not in log and 'No response for digital credential request' not in log)
    for line in log.splitlines():
        if 'cross_device' in line or 'fido_tunnel_device' in line:
            print('  chrome: %s' % line.strip()[:200], flush=True)
    return result, code, by_name, log


def refusal_case():
    """The phone's wallet is empty: it declines, and the page's promise rejects."""
    outcome = ceremony('empty-wallet', dc_request('dc-interop-nonce-1'))
    if outcome is None:
        return
    result, code, by_name, log = outcome
    answer = by_name.get('digitalCredentialAnswered') or {}
    check('empty-wallet: our phone declined (empty wallet)', answer.get('answer') == 'no-matching-credential',
          json.dumps(answer))
    refusal = b'{"response":{"digital":{"error":"USER_CANCELED"}}}'
    check('empty-wallet: Chromium read our type-03 JSON answer (%d bytes) as RemoteError::kUserCanceled (0)'
          % len(refusal),
          '-> [large JSON payload: %d bytes]' % len(refusal) in log
          and 'Remote error from digital identity request: 0' in log)
    check('empty-wallet: the page\'s promise rejects with NotAllowedError (a declined request)',
          result is not None and not result.get('ok') and result.get('name') == 'NotAllowedError', json.dumps(result))
    check('empty-wallet: hybrid-authenticator exits 3 (session ended, nothing served)', code == 3, str(code))


def start_asking_authenticator(qr, answer, out):
    """`hybrid-authenticator serve -` without --yes: the QR text, then the user's `answer` on standard
    input (a new session has no controlling terminal, so the consent question reads it there)."""
    phone = subprocess.Popen(
        [AUTHENTICATOR, 'serve', '-', '--ble', 'bluez', '--ca-file', os.path.join(RUN, 'pki', 'ca.pem'),
         '--store', STORE, '--json', '--client-timeout', '30', '--timeout', '60'],
        stdin=subprocess.PIPE, stdout=out, stderr=subprocess.DEVNULL, start_new_session=True)
    phone.stdin.write((qr + '\n' + answer + '\n').encode())
    phone.stdin.close()
    return phone


def wallet(*arguments, stdin=None):
    """`hybrid-authenticator wallet ...` on the phone's store (passphrase from the environment)."""
    return subprocess.run([AUTHENTICATOR, 'wallet', *arguments, '--store', STORE], input=stdin,
                          capture_output=True, timeout=120, start_new_session=True)


def issue_mdl():
    """The phone gets a device key and an mDL from the independent test issuer; returns the issuer's public key."""
    key = wallet('key')
    check('wallet key: the phone\'s store gets a device key', key.returncode == 0, key.stderr.decode(errors='replace'))
    if key.returncode != 0:
        return None
    issuer_pem = os.path.join(RUN, 'issuer.pem')
    mdl = os.path.join(RUN, 'mdl.mdoc')
    issued = subprocess.run([sys.executable, os.path.join(SCRIPTS, 'issue-test-credential.py'), '--device-jwk',
                             key.stdout.decode(), '--format', 'mdoc', '--doctype', 'mdl', '--issuer-key', issuer_pem,
                             '--out', mdl], capture_output=True)
    check('issue-test-credential.py issues an mDL (org.iso.18013.5.1.mDL) bound to that key', issued.returncode == 0,
          issued.stderr.decode(errors='replace'))
    added = wallet('add', mdl)
    check('wallet add: the phone stores the mDL', added.returncode == 0, added.stderr.decode(errors='replace'))
    listed = wallet('list')
    check('wallet list shows one mso_mdoc org.iso.18013.5.1.mDL',
          listed.returncode == 0 and listed.stdout.count(b'\n') == 1 and b'org.iso.18013.5.1.mDL' in listed.stdout,
          listed.stdout.decode(errors='replace') + listed.stderr.decode(errors='replace'))
    pid = os.path.join(RUN, 'pid.sd-jwt')
    check('a Python with the sd-jwt reference library is available (issuer and verifier)', SD_JWT_PYTHON is not None,
          'set DC_SDJWT_PYTHON or install sd-jwt (scripts/setup.sh)')
    if SD_JWT_PYTHON is not None:
        issued = subprocess.run([SD_JWT_PYTHON, os.path.join(SCRIPTS, 'issue-test-credential.py'), '--device-jwk',
                                 key.stdout.decode(), '--format', 'sd-jwt', '--issuer-key', issuer_pem, '--out', pid],
                                capture_output=True)
        check('issue-test-credential.py issues a PID SD-JWT VC (sd-jwt library) bound to that key',
              issued.returncode == 0, issued.stderr.decode(errors='replace'))
        added = wallet('add', pid)
        check('wallet add: the phone stores the PID SD-JWT VC', added.returncode == 0,
              added.stderr.decode(errors='replace'))
        listed = wallet('list')
        check('wallet list shows the mDL and the PID', listed.returncode == 0 and listed.stdout.count(b'\n') == 2,
              listed.stdout.decode(errors='replace') + listed.stderr.decode(errors='replace'))
    with open(issuer_pem, 'rb') as f:
        return serialization.load_pem_private_key(f.read(), password=None).public_key()


def judged(function, *arguments):
    """The checker's verdict: (value, None), or (None, the error) when it rejects."""
    try:
        return function(*arguments), None
    except Exception as error:  # any rejection by the checker is a failed check
        return None, '%s: %s' % (type(error).__name__, error)


def presented_token(label, outcome, credential_id):
    """Checks that our phone presented (consent by --yes) and that the page's promise resolved with
    one openid4vp-v1-unsigned presentation under vp_token[credential_id]; returns it, or None."""
    result, code, by_name, log = outcome
    answer = by_name.get('digitalCredentialAnswered') or {}
    check('%s: our phone presented (consent by --yes)' % label, answer.get('answer') == 'presented', json.dumps(answer))
    check('%s: hybrid-authenticator exits 0 (served)' % label, code == 0, str(code))
    ok = result is not None and result.get('ok')
    check('%s: the page\'s promise resolves with a DigitalCredential' % label, ok, json.dumps(result))
    if not ok:
        return None
    check('%s: credential.protocol is "openid4vp-v1-unsigned"' % label,
          result.get('protocol') == 'openid4vp-v1-unsigned', repr(result.get('protocol')))
    data = result.get('data')
    if isinstance(data, str):
        data = json.loads(data)
    token = ((data or {}).get('vp_token') or {}).get(credential_id)
    one = isinstance(token, list) and len(token) == 1
    check('%s: credential.data.vp_token.%s is one presentation' % (label, credential_id), one, json.dumps(data)[:300])
    return token[0] if one else None


def presentation_case(issuer_public):
    """The phone holds a matching mDL: it presents (--yes), and Chromium resolves the page's promise."""
    nonce = 'dc-interop-nonce-2'
    outcome = ceremony('mdl', dc_request(nonce))
    if outcome is None:
        return
    token = presented_token('mdl', outcome, 'mdl')
    if token is None:
        return
    disclosed, error = judged(verify_mdoc, token, issuer_public, nonce, ORIGIN)
    check('mdl: independent checker (scripts/mdoc_check.py): issuer signature, item digests, device signature '
          'over the SessionTranscript of %s and the request\'s nonce' % ORIGIN, error is None, error)
    check('mdl:   ... discloses only org.iso.18013.5.1 age_over_18 = true',
          disclosed == {('org.iso.18013.5.1', 'age_over_18'): True}, repr(disclosed))
    _, wrong_nonce = judged(verify_mdoc, token, issuer_public, 'dc-interop-nonce-1', ORIGIN)
    _, wrong_origin = judged(verify_mdoc, token, issuer_public, nonce, 'https://localhost:8000')
    check('mdl:   ... and the checker rejects it for another nonce or another origin (it can fail)',
          wrong_nonce is not None and wrong_origin is not None)


def sd_jwt_verdict(presentation, nonce, audience):
    """scripts/sd_jwt_check.py's verdict: (verified claims, None) or (None, the verifier's error)."""
    checked = subprocess.run([SD_JWT_PYTHON, os.path.join(SCRIPTS, 'sd_jwt_check.py'), os.path.join(RUN, 'issuer.pem'),
                              nonce, audience], input=presentation.encode(), capture_output=True, timeout=60)
    if checked.returncode != 0:
        return None, checked.stderr.decode(errors='replace').strip() or 'exit %d' % checked.returncode
    return json.loads(checked.stdout), None


def sd_jwt_case():
    """The phone holds the PID SD-JWT VC: the page asks for one claim, age_equals_or_over.18."""
    nonce = 'dc-interop-nonce-sd-jwt'
    outcome = ceremony('sd-jwt', dc_request(nonce, SD_JWT_QUERY), interstitial=True)
    if outcome is None:
        return
    token = presented_token('sd-jwt', outcome, 'pid')
    if token is None:
        return
    check('sd-jwt: the presentation is a string (SD-JWT compact form)', isinstance(token, str), repr(token)[:300])
    if not isinstance(token, str):
        return
    audience = 'origin:' + ORIGIN
    claims, error = sd_jwt_verdict(token, nonce, audience)
    check('sd-jwt: the sd-jwt reference verifier (scripts/sd_jwt_check.py) accepts it: issuer signature, '
          'disclosures, key-binding JWT with nonce %s and aud %s' % (nonce, audience), error is None, error)
    if claims is not None:
        check('sd-jwt:   ... discloses only age_equals_or_over = {"18": true}',
              claims.get('age_equals_or_over') == {'18': True}
              and not any(name in claims for name in PID_CLAIMS_NOT_ASKED), json.dumps(claims)[:300])
    print('  sd-jwt: %d disclosures and a key-binding JWT' % (len(token.split('~')) - 2), flush=True)
    _, wrong_nonce = sd_jwt_verdict(token, 'dc-interop-nonce-1', audience)
    _, wrong_audience = sd_jwt_verdict(token, nonce, 'origin:https://localhost:8000')
    check('sd-jwt:   ... and the verifier rejects it for another nonce or another audience (it can fail)',
          wrong_nonce is not None and wrong_audience is not None, '%s / %s' % (wrong_nonce, wrong_audience))


def declined_case():
    """The phone holds a matching mDL but its user answers "n": the page gets an error and no credential."""
    outcome = ceremony('declined', dc_request('dc-interop-nonce-3'), answer='n')
    if outcome is None:
        return
    result, code, by_name, log = outcome
    answer = by_name.get('digitalCredentialAnswered') or {}
    check('declined: our phone reports the user declined', answer.get('answer') == 'declined', json.dumps(answer))
    check('declined: hybrid-authenticator exits 3 (session ended, nothing served)', code == 3, str(code))
    check('declined: the page\'s promise rejects (%s), with no credential data for a verifier'
          % ((result or {}).get('name')),
          result is not None and not result.get('ok') and 'data' not in result, json.dumps(result))


def main():
    refusal_case()
    issuer_public = issue_mdl()
    if issuer_public is not None:
        if SD_JWT_PYTHON is not None:
            sd_jwt_case()
        presentation_case(issuer_public)
        declined_case()


if __name__ == '__main__':
    elapsed = -time.time()
    try:
        main()
    except Exception as error:  # a crash of the driver is a failure, never a pass
        check('driver ran to the end', False, repr(error))
    elapsed += time.time()
    print('chromium digital credentials: %d checks failed, %.1fs' % (len(failures), elapsed))
    sys.exit(1 if failures else 0)
