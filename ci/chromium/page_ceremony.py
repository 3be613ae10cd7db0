"""What the Chromium drivers share: arguments, the QR code off chromium-peer's Xvfb screen
(screenshot + zbarimg), and the page's ceremony result (window.__result, set by prf-page.js)."""
import json
import os
import subprocess
import sys
import time


def arg(name, default=None):
    """The value after `name` on the command line, or `default`."""
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def read_qr(run, label, deadline):
    """Screenshots until zbarimg finds a FIDO:/ code or `deadline` passes.

    Returns (screenshot path, QR text), or (None, None)."""
    shot = os.path.join(run, 'qr_%s.png' % ''.join(c if c.isalnum() else '_' for c in label))
    while time.time() < deadline:
        subprocess.run(['import', '-window', 'root', shot], check=True)
        found = subprocess.run(['zbarimg', '-q', '--raw', '--nodbus', shot], capture_output=True, text=True)
        if found.returncode == 0 and found.stdout.startswith('FIDO:/'):
            return shot, found.stdout.strip()
        time.sleep(0.2)
    return None, None


def wait_result(cdp, start, limit=60):
    """Polls the page until its ceremony settled or `limit` seconds after `start`; None if not."""
    while time.time() - start < limit:
        value = cdp.evaluate('window.__result').get('result', {}).get('result', {}).get('value')
        if value:
            return json.loads(value)
        time.sleep(0.1)
    return None


def no_result(cdp, limit=60):
    """Resets a page whose ceremony never settled and returns the failure to report."""
    cdp.call('Page.reload')
    return {'ok': False, 'error': 'no result within %d s' % limit}


def start_authenticator(run, authenticator, store, qr, out):
    """Starts our `hybrid-authenticator serve -` (JSON events to `out`) for the QR text `qr`.

    The QR text goes on standard input ('-'): an argument would show it to every local user (ps)."""
    phone = subprocess.Popen(
        [authenticator, 'serve', '-', '--ble', 'bluez', '--ca-file', os.path.join(run, 'pki', 'ca.pem'),
         '--store', store, '--yes', '--json', '--client-timeout', '30', '--timeout', '60'],
        stdin=subprocess.PIPE, stdout=out, stderr=subprocess.STDOUT)
    phone.stdin.write((qr + '\n').encode())
    phone.stdin.close()
    return phone


def finish_authenticator(phone):
    """Waits up to 15 s for the authenticator to end (then stops it); returns its exit status."""
    try:
        return phone.wait(15)
    except subprocess.TimeoutExpired:
        phone.terminate()
        return phone.wait()
