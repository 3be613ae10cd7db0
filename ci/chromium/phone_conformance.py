#!/usr/bin/python3
"""Real Chromium judged by `hybrid-conformance phone` (run inside chromium-peer's namespace).

  phone_conformance.py --peer DIR --conformance BIN --store PATH --out DIR

One create(), one discoverable get() and one navigator.credentials.get({digital}) (an mDL's
age_over_18 over OpenID4VP, a `dcp` QR code; the tool's phone offers "dc" and answers Chromium's
JSON request with a placeholder presentation, so the phone.dc.* checks judge Chromium's own
envelope): for each, inject prf-page.js into chromium-peer's page,
start the ceremony through DevTools with a user gesture, take screenshots of the Xvfb screen until
zbarimg sees the QR code, and run `hybrid-conformance phone --qr-image <screenshot> --ble bluez`
in place of our hybrid-authenticator (the fake BlueZ loops its advert back to Chromium; the tunnel
is our tunnel-relay on cable.ua5v.com:443 with the peer's test CA). The tool's report is printed
in full; its exit status must be 0 (no required check failed) and Chromium's promise must resolve.
Exits 1 otherwise. $CHROMIUM_PHONE_ARGS adds options to the tool (e.g. `--profile ios`); with a
`--fault`, Chromium is expected to reject and only the tool's report decides.
"""
import json
import os
import subprocess
import sys
import time

from page_ceremony import arg, no_result, read_qr, wait_result

RUN = os.environ['CP_RUN']
HERE = os.path.dirname(os.path.abspath(__file__))


sys.path.insert(0, arg('--peer'))
import cdp  # noqa: E402  (chromium-peer's DevTools driver)

TOOL = arg('--conformance')
STORE = arg('--store')
OUT = arg('--out')
EXTRA = os.environ.get('CHROMIUM_PHONE_ARGS', '').split()
FAULT = '--fault' in EXTRA
PAGE_JS = open(os.path.join(HERE, 'prf-page.js')).read() + '''
window.interopDigital = function (digital) {
  window.__result = null;
  navigator.credentials.get({digital: digital}).then((credential) => {
    window.__result = JSON.stringify({ok: true, protocol: credential.protocol});
  }, (error) => {
    window.__result = JSON.stringify({ok: false, error: error.name + ': ' + error.message});
  });
  return 'started';
};
'''
# One claim Chromium lets through without its interstitial (an mdoc age_over_NN element).
DIGITAL = {'requests': [{'protocol': 'openid4vp-v1-unsigned', 'data': {
    'response_type': 'vp_token', 'response_mode': 'dc_api', 'nonce': 'phone-conformance-nonce',
    'dcql_query': {'credentials': [{'id': 'mdl', 'format': 'mso_mdoc',
                                    'meta': {'doctype_value': 'org.iso.18013.5.1.mDL'},
                                    'claims': [{'path': ['org.iso.18013.5.1', 'age_over_18']}]}]}}}]}
failures = []


def ceremony(label, call):
    start = time.time()
    cdp.evaluate(PAGE_JS)
    cdp.evaluate(call, gesture=True)
    shot = read_qr(RUN, label, start + 30)[0]
    if not shot:
        cdp.call('Page.reload')
        failures.append('%s: no QR code on screen' % label)
        return
    junit = os.path.join(OUT, 'phone-%s.junit.xml' % label)
    tool = subprocess.Popen(
        [TOOL, 'phone', '--qr-image', shot, '--ble', 'bluez', '--ca-file', os.path.join(RUN, 'pki', 'ca.pem'),
         '--store', STORE, '--client-timeout', '30', '--timeout', '60', '--junit', junit] + EXTRA,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    result = wait_result(cdp, start)
    try:
        report, _ = tool.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        tool.terminate()
        report, _ = tool.communicate()
    if result is None:
        result = no_result(cdp)
    print('== %s: hybrid-conformance phone report (exit %s)' % (label, tool.returncode))
    print(report, end='', flush=True)
    print('== %s: Chromium %s, %.2f s' % (label, 'resolved' if result['ok'] else 'rejected: ' + result['error'],
                                           time.time() - start), flush=True)
    with open(os.path.join(OUT, 'phone-%s.txt' % label), 'w') as saved:
        saved.write(report)
    if tool.returncode != 0:
        failures.append('%s: the phone-mode report has failures (exit %s)' % (label, tool.returncode))
    if not result['ok'] and not FAULT:
        failures.append('%s: Chromium rejected: %s' % (label, result['error']))


def main():
    ceremony('create', 'interopCreate("phone-conformance", null)')
    ceremony('get', 'interopGet(null, null)')
    if os.environ.get('CHROMIUM_PHONE_DIGITAL', '1') == '1':
        ceremony('digital-credential', 'interopDigital(%s)' % json.dumps(DIGITAL))


if __name__ == '__main__':
    t0 = time.time()
    try:
        main()
    except Exception as error:  # a crash of the driver is a failure, never a pass
        failures.append('driver crashed: %r' % error)
    for failure in failures:
        print('FAIL ' + failure)
    print('chromium phone conformance: %d failures, %.1fs' % (len(failures), time.time() - t0))
    sys.exit(1 if failures else 0)
