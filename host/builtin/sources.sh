#!/usr/bin/env bash
# The digest of the sources the builtins are built from: `sha256sum` of every Rust and
# TOML file of the guests and the guest SDK, in byte order of their paths, then of that
# listing. tests/it/builtins.rs computes the same.
set -euo pipefail
cd "$(dirname "$0")/../.."
find examples-guest/bash-guard examples-guest/secret-scan examples-guest/write-guard guest-sdk/src guest-sdk/Cargo.toml \
    -type f \( -name '*.rs' -o -name '*.toml' \) | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -d' ' -f1
