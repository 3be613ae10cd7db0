#!/usr/bin/env bash
# Builds the DocC documentation of every library product (Sources/<Module>/<Module>.docc) with the
# swift-docc-plugin, warnings as errors: a broken symbol link, an unknown snippet or a bad topic
# fails the run. The archives land in .build/plugins/Swift-DocC/outputs/<Module>.doccarchive.
# The Start-here snippets (Snippets/*.swift) are compiled by `swift build`, not here.
#   scripts/build-docs.sh [MODULE...]
set -euo pipefail
cd "$(dirname "$0")/.."
modules=("$@")
if [ ${#modules[@]} -eq 0 ]; then
    modules=(HybridCore HybridCTAP HybridTransport HybridBluetooth TunnelRelay HybridAuthenticator HybridClient
        HybridSecurityKey HybridPresentation)
fi
targets=()
for module in "${modules[@]}"; do targets+=(--target "$module"); done
swift package --disable-sandbox generate-documentation "${targets[@]}" --warnings-as-errors --disable-indexing
