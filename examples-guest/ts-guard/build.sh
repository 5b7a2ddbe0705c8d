#!/usr/bin/env bash
# Builds policy.ts into the component ts-guard.wasm: type-check (tsc, strict), bundle
# (rolldown, the SDK inlined), then componentize (componentize-js; no HTTP, no fetch).
# Tools come from $HOOKHOST_TOOLCHAINS (default: the repository's target/toolchains,
# filled by tests/toolchains/install.sh).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
bin="${HOOKHOST_TOOLCHAINS:-$root/target/toolchains}/js/node_modules/.bin"
out="${1:-$here/ts-guard.wasm}"
mkdir -p "$here/dist"
"$bin/tsc" -p "$here"
"$bin/rolldown" "$here/policy.ts" --file "$here/dist/policy.js" --format esm --sourcemap \
    --external hookhost:hooks/input@0.3.0 --external hookhost:hooks/host@0.3.0 --external hookhost:hooks/shell@0.3.0 --logLevel warn
# A failure is reported as policy.ts:line:column: message (build-errors.mjs).
node "$root/guest-sdk/js/build-errors.mjs" -- "$bin/componentize-js" "$here/dist/policy.js" --wit "$root/wit/hooks@0.3.0" \
    --world-name hook --disable http fetch-event --out "$out" >/dev/null
echo "built $out"
