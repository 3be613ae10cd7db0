#!/usr/bin/env bash
# The main job. Until the roles land this runs the conformance vector runner over the shared vectors.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift run hybrid-conformance vectors "${HYBRID_VECTORS_DIR:-../shared/vectors}"
