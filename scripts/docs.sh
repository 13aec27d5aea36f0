#!/usr/bin/env bash
# Usage: scripts/docs.sh [OUT]        (default OUT: .build-docs/archives)
#   Builds the DocC documentation of the library modules from their symbol graphs, with the toolchain's docc and
#   warnings as errors: ObjectStack (Sources/ObjectStack/ObjectStack.docc), ObjectStackSQLite, ObjectStackLMDB, and
#   the lab's LabCore (Sources/LabCore/LabCore.docc), LabWorkloads and LabCommands: one .doccarchive per module in OUT.
#   Then checks that every public type, method and initializer of those modules has a doc comment.
#   The graphs are extracted from the debug build in .build (`swift package dump-symbol-graph`, which builds first if
#   needed); .build-docs holds the per-module copies and the archives. Exit status: 0 clean, 1 a docc warning or an
#   undocumented public symbol.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-.build-docs/archives}
scratch=.build-docs
modules=(ObjectStack ObjectStackSQLite ObjectStackLMDB LabCore LabWorkloads LabCommands)
mkdir -p "$scratch" "$out"
# The symbol graphs come from the debug build in .build (which `swift test` has made in CI, so nothing compiles
# again): `swift package dump-symbol-graph` extracts them from the built modules, with their doc comments.
swift package dump-symbol-graph --minimum-access-level public | tee "$scratch/dump-symbol-graph.log"
graphs=$(sed -n 's/^Files written to //p' "$scratch/dump-symbol-graph.log" | tail -1)
if [ ! -d "$graphs" ]; then
    echo "docs: swift package dump-symbol-graph wrote no symbol graphs" >&2
    exit 1
fi
failed=()
for module in "${modules[@]}"; do
    # The module's own graph and its extensions of other modules' types (Module@Other), nothing of its dependencies.
    dir="$scratch/graphs/$module"
    rm -rf "$dir"
    mkdir -p "$dir"
    cp "$graphs/$module.symbols.json" "$dir/"
    find "$graphs" -maxdepth 1 -name "$module@*.symbols.json" -exec cp {} "$dir/" \;
    catalog=()
    if [ -d "Sources/$module/$module.docc" ]; then catalog=("Sources/$module/$module.docc"); fi
    echo "docs: $module"
    docc convert "${catalog[@]}" --additional-symbol-graph-dir "$dir" \
        --fallback-display-name "$module" --fallback-bundle-identifier "org.stacklab.$module" \
        --output-path "$out/$module.doccarchive" --warnings-as-errors || failed+=("$module")
done
if [ "${#failed[@]}" -gt 0 ]; then
    echo "docs: docc found problems in ${failed[*]}" >&2
    exit 1
fi
# Every public declaration has a doc comment (a protocol requirement's implementation inherits the protocol's).
python3 - "$scratch/graphs" "${modules[@]}" <<'PY'
import json, sys, pathlib
root, modules = pathlib.Path(sys.argv[1]), sys.argv[2:]
# Types and methods, as the project's standard asks (a stored property or an enum case is often its own name).
kinds = {"swift.struct", "swift.class", "swift.enum", "swift.protocol", "swift.typealias", "swift.func",
         "swift.method", "swift.type.method", "swift.init", "swift.subscript", "swift.associatedtype"}
missing = []
for module in modules:
    for path in sorted((root / module).glob("*.symbols.json")):
        graph = json.loads(path.read_text())
        implementations = {r["source"] for r in graph.get("relationships", [])
                           if r["kind"] in ("requirementOf", "optionalRequirementOf", "defaultImplementationOf")}
        implementations |= {r["source"] for r in graph.get("relationships", [])
                            if r["kind"] == "memberOf" and r.get("sourceOrigin")}
        for symbol in graph["symbols"]:
            if symbol["kind"]["identifier"] not in kinds or symbol.get("docComment"):
                continue
            if symbol["identifier"]["precise"] in implementations:
                continue
            # A symbol declared in another module's sources (LabWorkloads re-exports LabCore) is that module's.
            if f"/Sources/{module}/" not in symbol.get("location", {}).get("uri", f"/Sources/{module}/"):
                continue
            names = symbol["pathComponents"]
            missing.append(f"{module}: {'.'.join(names)} ({symbol['kind']['displayName']})")
for line in missing:
    print(f"docs: no doc comment: {line}", file=sys.stderr)
if missing:
    sys.exit(f"docs: {len(missing)} public declaration(s) without a doc comment")
print(f"docs: every public type, method and initializer of {', '.join(modules)} has a doc comment")
PY
echo "docs: archives in $out"
