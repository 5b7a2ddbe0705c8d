#!/usr/bin/env bash
# The digest of the sources the builtins are built from: `sha256sum` of every Rust and
# TOML file of the guests and the guest SDK, in byte order of their paths, then of that
# listing; the guests are the ones host/builtin/GUESTS names. tests/it/builtins.rs computes
# the same.
set -euo pipefail
cd "$(dirname "$0")/../.."
guests=$(grep -v '^#' host/builtin/GUESTS | while read -r package _; do
    [ -n "$package" ] && echo "examples-guest/$package"
done)
# shellcheck disable=SC2086 # one folder per word
find $guests guest-sdk/src guest-sdk/Cargo.toml \
    -type f \( -name '*.rs' -o -name '*.toml' \) | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -d' ' -f1
