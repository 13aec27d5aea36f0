#!/usr/bin/env bash
# Usage: scripts/import-check.sh
#   Checks that every module a target's Swift sources import is one of that target's direct dependencies in
#   Package.swift, as `swift package dump-package` reads the manifest: a target of this package, or a module of a
#   product it names (the product's targets, from `swift package dump-package` of the dependency's checkout), or a
#   module of the toolchain (Foundation, Dispatch, Glibc, Synchronization, Testing…). The compiler's
#   `--explicit-target-dependency-import-check error` misses a module reached through another dependency
#   (LabCommands importing ObjectStack through LabWorkloads); this does not. Needs the dependencies resolved
#   (`swift package resolve`, or any build). Prints one line per undeclared import: file, line, target, module, and
#   the target's dependencies. Exit status: 0 every import declared, 1 an undeclared import, 2 the manifest or a
#   checkout could not be read.
set -euo pipefail
cd "$(dirname "$0")/.."
manifest=$(mktemp)
dependencies=$(mktemp)
trap 'rm -f "$manifest" "$dependencies"' EXIT
swift package dump-package >"$manifest" || { echo "import-check: swift package dump-package failed" >&2; exit 2; }
swift package show-dependencies --format json >"$dependencies" \
    || { echo "import-check: swift package show-dependencies failed" >&2; exit 2; }
python3 - "$manifest" "$dependencies" <<'PY'
import json, pathlib, re, subprocess, sys

manifest = json.loads(pathlib.Path(sys.argv[1]).read_text())
checkouts = json.loads(pathlib.Path(sys.argv[2]).read_text())["dependencies"]

# Modules every target may import: the toolchain's, not the package's.
toolchain = {
    "Swift", "Foundation", "FoundationEssentials", "FoundationInternationalization", "FoundationNetworking",
    "FoundationXML", "Dispatch", "Glibc", "Musl", "Darwin", "WinSDK", "Synchronization", "Observation",
    "RegexBuilder", "Testing", "XCTest", "os", "_Concurrency", "_StringProcessing", "CoreFoundation",
}

# A product of another package offers the modules of its targets, found by the package's identity (the last
# component of its URL, which `.product(name:package:)` names).
products = {}
for dependency in checkouts:
    path = pathlib.Path(dependency["path"])
    try:
        dumped = subprocess.run(["swift", "package", "dump-package", "--package-path", str(path)],
                                check=True, capture_output=True, text=True).stdout
    except subprocess.CalledProcessError as error:
        sys.exit(f"import-check: cannot read the manifest of {path}: {error.stderr.strip()}")
    for product in json.loads(dumped)["products"]:
        products[(path.name.lower(), product["name"])] = set(product["targets"])
        products.setdefault((None, product["name"]), set()).update(product["targets"])

targets = {target["name"]: target for target in manifest["targets"]}
pattern = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?(\w+)")
problems = 0
for name, target in targets.items():
    if target["type"] == "system":
        continue
    allowed = {name}
    for dependency in target["dependencies"]:
        if "byName" in dependency or "target" in dependency:
            named = (dependency.get("byName") or dependency.get("target"))[0]
            allowed |= {named} if named in targets else products.get((None, named), {named})
        elif "product" in dependency:
            product, package = dependency["product"][0], dependency["product"][1]
            allowed |= products.get(((package or "").lower(), product), products.get((None, product), {product}))
    default = "Tests" if target["type"] == "test" else "Sources"
    root = pathlib.Path(target.get("path") or f"{default}/{name}")
    for source in sorted(root.rglob("*.swift")):
        for number, line in enumerate(source.read_text(encoding="utf-8").splitlines(), 1):
            match = pattern.match(line)
            if not match or match.group(1) in allowed or match.group(1) in toolchain:
                continue
            problems += 1
            declared = ", ".join(sorted(allowed - {name})) or "none"
            print(f"{source}:{number}: {name} imports {match.group(1)}, which is not among its dependencies in "
                  f"Package.swift ({declared})", file=sys.stderr)
if problems:
    sys.exit(f"import-check: {problems} import(s) of modules the manifest does not declare; add each to its "
             "target's dependencies, or import what the target declares")
print(f"import-check: every import of the {len(targets)} targets is a declared dependency")
PY
