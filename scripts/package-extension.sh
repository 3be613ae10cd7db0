#!/usr/bin/env bash
# Builds the Firefox extension (extension/firefox, docs/firefox.md) as an unsigned .xpi: a zip of
# its files, manifest.json at the top, with fixed timestamps and order (the same sources give the
# same bytes). Its tests and nothing else are left out. The .xpi's path is the last line of output.
# Usage: scripts/package-extension.sh [--out DIR]   (default .build/xpi)
# Signing for release Firefox (addons.mozilla.org): docs/firefox.md, "Signing".
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$repo/.build/xpi"
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out=${2:?--out needs a directory}; shift 2 ;;
        -h | --help) sed -n '2,6p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "package-extension.sh: unknown option $1" >&2; exit 64 ;;
    esac
done
source_dir="$repo/extension/firefox"
version=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' "$source_dir/manifest.json")
mkdir -p "$out"
xpi="$out/hybrid-transport-firefox-$version.xpi"
python3 - "$source_dir" "$xpi" <<'PY'
import os, sys, zipfile
source, target = sys.argv[1], sys.argv[2]
files = sorted(name for name in os.listdir(source) if os.path.isfile(os.path.join(source, name)))
files.remove("manifest.json")
with zipfile.ZipFile(target + ".part", "w", zipfile.ZIP_DEFLATED) as archive:
    for name in ["manifest.json"] + files:
        info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
        info.external_attr = 0o644 << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        with open(os.path.join(source, name), "rb") as f:
            archive.writestr(info, f.read())
os.replace(target + ".part", target)
PY
echo "$xpi"
