#!/usr/bin/env bash
# Real Chromium (through Tools/chromium-peer) as the client under test of
# `hybrid-conformance phone`: one create(), one discoverable get() and one
# navigator.credentials.get({digital}), each judged by the phone
# mode in place of hybrid-authenticator, with our tunnel-relay (TLS) and the fake BlueZ.
# Prints the reports; exits non-zero when a required check fails or Chromium rejects.
# Needs root and scripts/setup.sh's chromium packages; run `swift build` first.
exec "$(dirname "$0")/run-chromium-interop.sh" --phone-conformance "$@"
