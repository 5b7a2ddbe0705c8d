#!/usr/bin/env bash
# Rebuilds the guards that come with hookhost (host/builtin/*.wasm) from their sources in
# examples-guest/, and records the digest of those sources in host/builtin/SOURCES; the
# test `builtins_are_built_from_the_sources_in_the_tree` (tests/it/builtins.rs) fails when
# the sources move on without a refresh. Needs the wasm32-wasip2 target.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
# guest package → builtin name, from the one list (GUESTS)
guests=()
while read -r package name; do
    case "$package" in ''|'#'*) continue ;; esac
    guests+=("$package:$name")
done < host/builtin/GUESTS
packages=()
for pair in "${guests[@]}"; do packages+=(-p "${pair%%:*}"); done
cargo build --quiet --profile guest --target wasm32-wasip2 --target-dir target/builtin "${packages[@]}"
for pair in "${guests[@]}"; do
    package="${pair%%:*}" name="${pair##*:}"
    cp "target/builtin/wasm32-wasip2/guest/${package//-/_}.wasm" "host/builtin/$name.wasm"
done
bash host/builtin/sources.sh > host/builtin/SOURCES
echo "refreshed: $(ls host/builtin/*.wasm | tr '\n' ' ')"
