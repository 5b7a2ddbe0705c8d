#!/usr/bin/env bash
# The hookhost demo: builds the example Wasm guests into the demo plugin bundle, builds
# the CLI, and fires a handful of sample events at the bundled settings + plugin.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
demo="$root/examples-guest/demo"
cd "$root"

rustup target add wasm32-wasip2 >/dev/null 2>&1 || echo "note: could not run rustup target add wasm32-wasip2" >&2
echo "== building the example guests (wasm32-wasip2)"
cargo build --quiet --profile guest --target wasm32-wasip2 --target-dir target/guests \
  -p bash-guard -p secret-scan -p path-guard -p context-inject
mkdir -p "$demo/plugin/wasm"
for guest in bash_guard secret_scan path_guard context_inject; do
  cp "target/guests/wasm32-wasip2/guest/$guest.wasm" "$demo/plugin/wasm/"
done
echo "== building hookhost"
cargo build --quiet -p hookhost
hookhost="$root/target/debug/hookhost"

cd "$demo/project"
# Each run is one fresh session: `--session-id demo` keeps per-session state (`once`,
# consecutive Stop blocks) across the fire processes below, in ../home/.local/state.
rm -rf ../home/.local/state
"$hookhost" check --settings ../settings.json --plugin ../plugin --project-dir . --home ../home
for input in ../events/*.json; do
  name="$(basename "$input" .json)"
  event="${name#*-}"
  echo
  echo "== $event: $(tr -d '\n' < "$input" | cut -c1-110)"
  "$hookhost" fire "$event" --input "$input" --settings ../settings.json --plugin ../plugin \
    --project-dir . --home ../home --session-id demo --cache-dir "$root/target/hookhost-cache" \
    --format summary
done
