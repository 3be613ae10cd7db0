#!/usr/bin/env python3
"""docs/architecture.md's module graph against Package.swift.

Reads the ```text block under "## Module graph" (lines `Target ← Dep, Dep` or `Target ← —`) and
`swift package dump-package`, and fails when a non-test target is missing from the block, the block
names a target the package does not have, or a target's in-package dependencies differ (order does
not matter). Prints each difference.
"""
import json
import re
import subprocess
import sys
from pathlib import Path

root = Path(__file__).resolve().parents[2]
doc = (root / "docs/architecture.md").read_text()
match = re.search(r"## Module graph\n.*?```text\n(.*?)```", doc, re.S)
if not match:
    sys.exit("architecture-graph-test: FAIL: no ```text block under '## Module graph' in docs/architecture.md")
drawn = {}
for line in match.group(1).splitlines():
    if not line.strip() or line.startswith("#"):
        continue
    name, _, deps = line.partition("←")
    deps = deps.strip()
    drawn[name.strip()] = set() if deps == "—" else {d.strip() for d in deps.split(",")}

package = json.loads(subprocess.run(
    ["swift", "package", "dump-package"], cwd=root, check=True, capture_output=True, text=True).stdout)
names = {t["name"] for t in package["targets"]}
actual = {}
for target in package["targets"]:
    if target["type"] in ("test", "system"):
        continue
    deps = set()
    for dep in target["dependencies"]:
        for kind in ("byName", "target"):
            if kind in dep and dep[kind][0] in names:
                deps.add(dep[kind][0])
    actual[target["name"]] = deps

problems = []
for name in sorted(set(actual) - set(drawn)):
    if not name.startswith("C"):  # C shims appear as dependencies, not as rows
        problems.append(f"{name} is in Package.swift but not drawn")
for name in sorted(set(drawn) - set(actual)):
    problems.append(f"{name} is drawn but Package.swift has no such target")
for name in sorted(set(drawn) & set(actual)):
    if drawn[name] != actual[name]:
        missing = ", ".join(sorted(actual[name] - drawn[name])) or "nothing"
        extra = ", ".join(sorted(drawn[name] - actual[name])) or "nothing"
        problems.append(f"{name}: the drawing lacks {missing} and adds {extra}")
for problem in problems:
    print(f"architecture-graph-test: FAIL: {problem}")
print(f"architecture-graph-test: {len(drawn)} targets drawn, {len(problems)} differences")
sys.exit(1 if problems else 0)
