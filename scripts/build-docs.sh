#!/usr/bin/env bash
# Builds the DocC documentation of every module with a catalogue (Sources/<Module>/<Module>.docc)
# with the swift-docc-plugin, warnings as errors: a broken symbol link, an unknown snippet or a bad topic
# fails the run. The archives land in .build/plugins/Swift-DocC/outputs/<Module>.doccarchive.
# The Start-here snippets (Snippets/*.swift) are compiled by `swift build`, not here.
#   scripts/build-docs.sh [MODULE...]
set -euo pipefail
cd "$(dirname "$0")/.."
modules=("$@")
if [ ${#modules[@]} -eq 0 ]; then
    for catalogue in Sources/*/*.docc; do
        module=$(basename "$(dirname "$catalogue")")
        [ "$catalogue" = "Sources/$module/$module.docc" ] || { echo "build-docs: $catalogue is not named after its module" >&2; exit 1; }
        modules+=("$module")
    done
fi
targets=()
for module in "${modules[@]}"; do targets+=(--target "$module"); done
swift package --disable-sandbox generate-documentation "${targets[@]}" --warnings-as-errors --disable-indexing
