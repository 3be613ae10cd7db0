#!/usr/bin/python3
"""Real Chromium asks OUR hybrid-authenticator for a digital credential (inside chromium-peer's namespace).

  dc_interop.py --peer DIR --authenticator BIN --store PATH

The page (chromium-peer's, origin http://localhost:8000) calls
navigator.credentials.get({digital: {requests: [{protocol: "openid4vp-v1-unsigned", data: {DCQL}}]}})
with a user gesture through DevTools. Chromium shows a FIDO:/ QR code (read off the Xvfb screen);
our `hybrid-authenticator serve -` scans it, offers the "dc" feature (its wallet is empty: it
declines every request) and answers Chromium's JSON request (message type 03) with the refusal
{"response": {"digital": {"error": "USER_CANCELED"}}}.

Chromium is the judge: the QR code's request type (key 5) must be "dcp"; Chromium must accept our
post-handshake features (no "doesn't advertise support for digital identities" in its log), send
its JSON request (our phone reports the page's origin and protocol) and parse our JSON answer (its
device log prints "-> [large JSON payload: 50 bytes]", the size of our answer, then "Remote error from
digital identity request: 0", RemoteError::kUserCanceled, the first value of the enum in
content/public/browser/digital_credentials_cross_device.h); and the page's promise must reject with
the DOMException Chromium 156 makes of a remote USER_CANCELED: NotAllowedError "Request is
cancelled." (seen here; older Chromium sources map every remote error but DEVICE_ABORTED to
NetworkError "Error retrieving a token.").

Prints one PASS/FAIL line per check; exits 1 on any failure.
"""
import json
import os
import sys
import time

from page_ceremony import arg, finish_authenticator, read_qr, start_authenticator, wait_result

RUN = os.environ['CP_RUN']
sys.path.insert(0, arg('--peer'))
import cable  # noqa: E402  (chromium-peer's caBLE maths: QR parsing)
import cdp  # noqa: E402  (chromium-peer's DevTools driver)

AUTHENTICATOR = arg('--authenticator')
STORE = arg('--store')
ORIGIN = 'http://localhost:8000'
failures = []

# One OpenID4VP (unsigned, DC API) request with a DCQL query for one claim. The claim path ends in
# age_over_18, which Chromium lets through without its "verify your identity" interstitial
# (digital_identity_request_impl.cc CanClaimBypassInterstitial), so no extra click is needed.
REQUEST = {'requests': [{'protocol': 'openid4vp-v1-unsigned', 'data': {
    'response_type': 'vp_token', 'nonce': 'dc-interop-nonce-1',
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


def main():
    before = len(chrome_log())
    start = time.time()
    cdp.evaluate(PAGE_JS)
    cdp.evaluate('dcGet(%s)' % json.dumps(REQUEST), gesture=True)
    shot, qr = read_qr(RUN, 'digital credential', start + 30)
    if not qr:
        early = wait_result(cdp, start, limit=1)
        check('Chromium shows a FIDO:/ QR code for navigator.credentials.get({digital})', False,
              'page result: %s' % json.dumps(early))
        return
    check('Chromium shows a FIDO:/ QR code for navigator.credentials.get({digital})', True)
    fields = cable.parse_qr(qr)
    check('the QR code asks for a presentation (key 5 = "dcp")', fields['request_type'] == 'dcp',
          repr(fields['request_type']))
    print('  QR keys: request type %r, known domains %r, linking %r, other keys %r' % (
        fields['request_type'], fields['num_known_domains'], fields['supports_linking'], fields['other_keys']),
        flush=True)

    events_path = os.path.join(RUN, 'logs', 'authenticator-dc.jsonl')
    with open(events_path, 'w') as events_file:
        phone = start_authenticator(RUN, AUTHENTICATOR, STORE, qr, events_file)
        result = wait_result(cdp, start)
        code = finish_authenticator(phone)
    print('  page result after %.2fs: %s; authenticator exit %s' % (time.time() - start, json.dumps(result), code),
          flush=True)
    events = []
    for line in open(events_path, errors='replace'):
        try:
            events.append(json.loads(line))
        except ValueError:
            pass
    by_name = {event.get('event'): event for event in events}
    request = by_name.get('digitalCredentialRequest') or {}
    answer = by_name.get('digitalCredentialAnswered') or {}
    log = chrome_log()[before:]

    check('Chromium accepted our post-handshake features ["dc"] (no "doesn\'t advertise support")',
          "doesn't advertise support for digital identities" not in log and 'handshakeDone' in by_name)
    check('our phone read Chromium\'s JSON request: origin %s' % ORIGIN, request.get('origin') == ORIGIN,
          json.dumps(request))
    check('  ... for the page\'s protocol openid4vp-v1-unsigned',
          request.get('protocols') == ['openid4vp-v1-unsigned'], json.dumps(request))
    check('our phone declined (empty wallet)', answer.get('answer') == 'no-matching-credential', json.dumps(answer))
    refusal = b'{"response":{"digital":{"error":"USER_CANCELED"}}}'
    check('Chromium read our type-03 JSON answer (%d bytes) as RemoteError::kUserCanceled (0)' % len(refusal),
          '-> [large JSON payload: %d bytes]' % len(refusal) in log
          and 'Remote error from digital identity request: 0' in log)
    check('no JSON or transport error in Chromium\'s digital-credential flow',
          'Invalid JSON response' not in log and 'No response for digital credential request' not in log)
    check('the page\'s promise rejects with NotAllowedError (a declined request)',
          result is not None and not result.get('ok') and result.get('name') == 'NotAllowedError', json.dumps(result))
    check('hybrid-authenticator exits 3 (session ended, nothing served)', code == 3, str(code))
    for line in log.splitlines():
        if 'cross_device' in line or 'fido_tunnel_device' in line:
            print('  chrome: %s' % line.strip()[:200], flush=True)


if __name__ == '__main__':
    elapsed = -time.time()
    try:
        main()
    except Exception as error:  # a crash of the driver is a failure, never a pass
        check('driver ran to the end', False, repr(error))
    elapsed += time.time()
    print('chromium digital credentials: %d checks failed, %.1fs' % (len(failures), elapsed))
    sys.exit(1 if failures else 0)
