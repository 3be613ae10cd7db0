"""Reads the hybrid QR code off chromium-peer's Xvfb screen (screenshot + zbarimg)."""
import os
import subprocess
import time


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
