#!/usr/bin/python3
"""Real Chromium against our hybrid-authenticator (run inside chromium-peer's namespace).

  prf_interop.py --peer DIR --authenticator BIN --store PATH [--repeat N]

For each ceremony: inject prf-page.js into chromium-peer's page, start create()/get() with a user
gesture through DevTools, read the QR code off the Xvfb screen (screenshot + zbarimg), and run our
`hybrid-authenticator serve - --ble bluez` (the QR text on its standard input) (the fake BlueZ loops its advert back to Chromium;
the tunnel is our tunnel-relay on cable.ua5v.com:443). Chromium is the judge: its
getClientExtensionResults() must show prf.enabled and 32-byte results that are stable for the
same input and differ across inputs and credentials. The results are also recomputed here from
the passkey store (scrypt + AES-GCM opened with Python's `cryptography`, HMAC-SHA256 over
SHA-256("WebAuthn PRF" || 0x00 || input) with `hashlib`/`hmac`).

Prints one line per check (PASS/FAIL) and per ceremony (timing); exits 1 on any failure.
"""
import base64
import hashlib
import hmac
import json
import os
import sys
import time
import unicodedata

from page_ceremony import arg, finish_authenticator, no_result, read_qr, start_authenticator, wait_result

RUN = os.environ['CP_RUN']
HERE = os.path.dirname(os.path.abspath(__file__))


sys.path.insert(0, arg('--peer'))
import cbor2  # noqa: E402
import cdp  # noqa: E402  (chromium-peer's DevTools driver)
from cryptography.hazmat.primitives.ciphers.aead import AESGCM  # noqa: E402
from cryptography.hazmat.primitives.kdf.scrypt import Scrypt  # noqa: E402

AUTHENTICATOR = arg('--authenticator')
STORE = arg('--store')
PAGE_JS = open(os.path.join(HERE, 'prf-page.js')).read()
failures = []
timings = []


def check(name, condition, detail=''):
    print('%s %s%s' % ('PASS' if condition else 'FAIL', name, (': ' + detail) if detail and not condition else ''), flush=True)
    if not condition:
        failures.append(name)


def ceremony(label, call):
    """Runs one ceremony; returns Chromium's outcome as a dict ({ok: false, error} on failure)."""
    start = time.time()
    cdp.evaluate(PAGE_JS)
    cdp.evaluate(call, gesture=True)
    qr = read_qr(RUN, label, start + 30)[1]
    if not qr:
        cdp.call('Page.reload')
        return {'ok': False, 'error': 'no QR code on screen'}
    shown = time.time()
    log = open(os.path.join(RUN, 'logs', 'authenticator.log'), 'a')
    log.write('== %s\n' % label)
    log.flush()
    phone = start_authenticator(RUN, AUTHENTICATOR, STORE, qr, log)
    result = wait_result(cdp, start)
    done = time.time()
    code = finish_authenticator(phone)
    if result is None:
        result = no_result(cdp)
    result['authenticatorExit'] = code
    timings.append((label, shown - start, done - shown, done - start))
    print('  %-28s QR %.2fs, QR->result %.2fs, total %.2fs, authenticator exit %s, %s' % (
        label, shown - start, done - shown, done - start, code,
        'OK' if result['ok'] else result['error']), flush=True)
    return result


def create(label, name, prf_eval=None):
    return ceremony(label, 'interopCreate(%s, %s)' % (json.dumps(name), json.dumps(prf_eval)))


def get(label, allow=None, prf=None):
    return ceremony(label, 'interopGet(%s, %s)' % (json.dumps(allow), json.dumps(prf)))


def results(outcome):
    prf = (outcome.get('prf') or {}).get('results') or {}
    return prf.get('first'), prf.get('second')


# The independent recomputation from the store file (format: StoreFileFormat.swift).

def store_secrets(passphrase):
    document = json.load(open(STORE))
    protection = document['protection']
    key = Scrypt(salt=bytes.fromhex(protection['salt']), length=32, n=protection['scryptN'],
                 r=protection['scryptR'], p=protection['scryptP']).derive(
        unicodedata.normalize('NFC', passphrase).encode())
    secrets = {}
    for record in document['credentials']:
        if 'prfSecret' not in record:
            continue
        box = bytes.fromhex(record['prfSecret'])
        aad = b'hybrid-authenticator/v%d credential prf secret' % document['version'] + cbor2.dumps(
            [bytes.fromhex(record['id']), record['rpId'], bytes.fromhex(record['userHandle'])])
        secrets[record['id']] = AESGCM(key).decrypt(box[:12], box[12:], aad)
    return secrets


def expected(secret, text):
    salt = hashlib.sha256(b'WebAuthn PRF\x00' + text.encode()).digest()
    return hmac.new(secret, salt, hashlib.sha256).hexdigest()


def main():
    repeat = int(arg('--repeat', '10'))
    print('== prf and credProps', flush=True)
    a = create('create A (prf {}, credProps)', 'prf-a')
    check('create A succeeds', a['ok'], a.get('error', ''))
    if not a['ok']:
        return
    check('create A: prf.enabled is true', (a.get('prf') or {}).get('enabled') is True, json.dumps(a.get('prf')))
    check('create A: credProps.rk is true', (a.get('credProps') or {}).get('rk') is True, json.dumps(a.get('credProps')))
    one = {'eval': {'first': 'salt one', 'second': 'salt two'}}
    g1 = get('get A eval first+second', [a['rawId']], one)
    first, second = results(g1)
    check('get A succeeds with prf results', g1['ok'] and first is not None, json.dumps(g1))
    check('get A: first and second are 32 bytes', len(first or '') == 64 and len(second or '') == 64)
    check('get A: first != second', first != second)
    check('get A: no prf.enabled on get', g1['ok'] and 'enabled' not in (g1.get('prf') or {}))
    g2 = get('get A eval again', [a['rawId']], one)
    check('get A: same input, same results', first is not None and results(g2) == (first, second), json.dumps(results(g2)))
    other_id = base64.urlsafe_b64encode(bytes(16)).rstrip(b'=').decode()
    by_credential = {'eval': {'first': 'salt one'},
                     'byCredential': {a['id']: {'first': 'salt three'}, other_id: {'first': 'salt one'}}}
    g3 = get('get A evalByCredential', [a['rawId'], bytes(16).hex()], by_credential)
    third = results(g3)
    check('get A evalByCredential: 32-byte first, no second', len(third[0] or '') == 64 and third[1] is None, json.dumps(g3))
    check('get A evalByCredential: its entry is used, not eval', third[0] not in (None, first))
    g4 = get('get A eval first only', [a['rawId']], {'eval': {'first': 'salt three'}})
    check('get A: eval "salt three" == evalByCredential "salt three"', third[0] is not None and results(g4)[0] == third[0])

    b = create('create B (prf eval at creation)', 'prf-b', {'first': 'salt one'})
    check('create B succeeds, prf.enabled', b['ok'] and (b.get('prf') or {}).get('enabled') is True, json.dumps(b))
    created_b = ((b.get('prf') or {}).get('results') or {}).get('first')
    gb = get('get B eval', [b['rawId']], {'eval': {'first': 'salt one'}})
    check('get B: another credential, another result', results(gb)[0] not in (None, first), json.dumps(results(gb)))
    check('create B: results at creation equal get B', results(gb)[0] is not None and created_b in (None, results(gb)[0]),
          'created %s' % created_b)
    print('  create B returned results at creation: %s' % (created_b is not None), flush=True)
    gd = get('get discoverable eval', None, {'eval': {'first': 'salt one'}})
    by_id = {a['rawId']: first, b['rawId']: results(gb)[0]}
    check('discoverable get: results of the chosen credential',
          gd['ok'] and results(gd)[0] is not None and results(gd)[0] == by_id.get(gd['rawId']),
          json.dumps(gd))

    passphrase = os.environ['HYBRID_AUTHENTICATOR_PASSPHRASE']
    secrets = store_secrets(passphrase)
    check('store: A and B hold a prf secret', a['rawId'] in secrets and b['rawId'] in secrets, str(list(secrets)))
    if a['rawId'] in secrets and b['rawId'] in secrets:
        check('independent: A first = HMAC(secret, SHA-256("WebAuthn PRF"||0||"salt one"))',
              first == expected(secrets[a['rawId']], 'salt one'))
        check('independent: A second ("salt two")', second == expected(secrets[a['rawId']], 'salt two'))
        check('independent: A evalByCredential ("salt three")', third[0] == expected(secrets[a['rawId']], 'salt three'))
        check('independent: B ("salt one")', results(gb)[0] == expected(secrets[b['rawId']], 'salt one'))

    print('== %d discoverable create() + get() in a row' % repeat, flush=True)
    passed = 0
    for i in range(repeat):
        c = create('repeat %d create' % (i + 1), 'repeat-%d' % (i + 1))
        g = get('repeat %d get' % (i + 1), None, None) if c['ok'] else {'ok': False}
        ok = c['ok'] and g['ok'] and g.get('userHandle') is not None and c['authenticatorExit'] == 0 and g['authenticatorExit'] == 0
        passed += ok
    check('%d of %d discoverable create+get pairs in a row' % (passed, repeat), passed == repeat)


if __name__ == '__main__':
    t0 = time.time()
    try:
        main()
    except Exception as error:  # a crash of the driver is a failure, never a pass
        check('driver ran to the end', False, repr(error))
    if timings:
        totals = [t[3] for t in timings]
        print('ceremonies: %d, total %.1fs, mean %.2fs, max %.2fs (QR->result mean %.2fs)' % (
            len(totals), sum(totals), sum(totals) / len(totals), max(totals),
            sum(t[2] for t in timings) / len(timings)))
    print('chromium interop: %d checks failed, %.1fs' % (len(failures), time.time() - t0))
    sys.exit(1 if failures else 0)
