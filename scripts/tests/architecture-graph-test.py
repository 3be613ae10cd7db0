#!/usr/bin/env python3
"""docs/architecture.md's module graph against Package.swift.

Reads the ```text block under "## Module graph" (lines `Target ← Dep, Dep` or `Target ← —`) and
`swift package dump-package`, and fails when a non-test target is missing from the block, the block
names a target the package does not have, or a target's in-package dependencies differ (order does
not matter). Products equal the public API: the rows under the block's "# Products" headings must be
exactly the package's library products, every library product must declare something `public`, and
no other module in Sources/ may (what only our modules share is `package`). Prints each difference.
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
drawn_products = set()
in_products = False
for line in match.group(1).splitlines():
    if line.startswith("#"):
        in_products = line.startswith("# Products")
        continue
    if not line.strip():
        continue
    name, _, deps = line.partition("←")
    deps = deps.strip()
    drawn[name.strip()] = set() if deps == "—" else {d.strip() for d in deps.split(",")}
    if in_products:
        drawn_products.add(name.strip())

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
library_products = {target for product in package["products"] if "library" in product["type"]
                    for target in product["targets"]}
for name in sorted(library_products - drawn_products):
    problems.append(f"{name} is a library product but not drawn under a '# Products' heading")
for name in sorted(drawn_products - library_products):
    problems.append(f"{name} is drawn under '# Products' but Package.swift has no such library product")

public_declaration = re.compile(
    r"^\s*(@[A-Za-z_]+(\([^)]*\))?\s+)*public\s+((static|final|override|mutating|nonisolated|indirect|"
    r"convenience|required|lazy|class)\s+)*(func|var|let|struct|enum|class|actor|protocol|init|typealias|case|"
    r"subscript)\b", re.M)
for target in package["targets"]:
    if target["type"] != "regular" or target["name"].startswith("C"):
        continue
    folder = root / (target.get("path") or f"Sources/{target['name']}")
    if not str(folder.relative_to(root)).startswith("Sources/"):
        continue
    count = sum(len(public_declaration.findall(f.read_text())) for f in folder.rglob("*.swift"))
    if target["name"] in library_products and count == 0:
        problems.append(f"{target['name']} is a product with no public declaration (make it a module, not a product)")
    if target["name"] not in library_products and count > 0:
        problems.append(f"{target['name']} is no product but declares {count} things public (make them package)")

for problem in problems:
    print(f"architecture-graph-test: FAIL: {problem}")
print(f"architecture-graph-test: {len(drawn)} targets drawn, {len(problems)} differences")
sys.exit(1 if problems else 0)
