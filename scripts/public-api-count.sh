#!/usr/bin/env bash
# Counts public declarations per module (Sources/<Module>), and how many of them have no doc
# comment (`///` or `/** */` on the line before, after attributes). Prints a table and a total;
# CI prints it on every run so the size of the API is visible on each change. Always exits 0.
#   scripts/public-api-count.sh [SOURCES_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
sources="${1:-Sources}"
python3 - "$sources" <<'PY'
import os, re, sys
root = sys.argv[1]
decl = re.compile(r'^\s*(@[A-Za-z_]+(\([^)]*\))?\s+)*public\s+((static|final|override|mutating|nonisolated|indirect|convenience|required|lazy|class)\s+)*(func|var|let|struct|enum|class|actor|protocol|init|typealias|case|subscript|extension)\b')
rows = []
for module in sorted(os.listdir(root)):
    path = os.path.join(root, module)
    if not os.path.isdir(path):
        continue
    count = undocumented = 0
    for folder, _, files in os.walk(path):
        for name in files:
            if not name.endswith(".swift"):
                continue
            lines = open(os.path.join(folder, name), encoding="utf-8").read().splitlines()
            for index, line in enumerate(lines):
                if not decl.match(line) or re.match(r'^\s*public\s+extension\b', line) or re.search(r'\bpublic\s+extension\b', line):
                    continue
                count += 1
                previous = index - 1
                while previous >= 0 and re.match(r'^\s*@', lines[previous]):
                    previous -= 1
                if previous < 0 or not re.match(r'^\s*(///|\*/|/\*\*)', lines[previous]):
                    undocumented += 1
    if count:
        rows.append((module, count, undocumented))
print("public declarations per module (extensions not counted)")
print(f"{'module':<28}{'public':>8}{'no doc':>8}")
for module, count, undocumented in rows:
    print(f"{module:<28}{count:>8}{undocumented:>8}")
print(f"{'total':<28}{sum(r[1] for r in rows):>8}{sum(r[2] for r in rows):>8}")
PY
