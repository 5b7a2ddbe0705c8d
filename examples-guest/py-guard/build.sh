#!/usr/bin/env bash
# Builds app.py (with the hookhost_guest SDK) into the component py-guard.wasm with
# componentize-py. The tool comes from $HOOKHOST_TOOLCHAINS (default: the repository's
# target/toolchains, filled by tests/toolchains/install.sh).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
tool="${HOOKHOST_TOOLCHAINS:-$root/target/toolchains}/py/bin/componentize-py"
out="${1:-$here/py-guard.wasm}"
# A failure is reported as app.py:line: message (build_errors.py).
python3 "$root/guest-sdk/python/build_errors.py" -- "$tool" --quiet --wit-path "$root/wit/hooks@0.3.0" --world hook componentize app \
    --python-path "$here" --python-path "$root/guest-sdk/python" --output "$out"
echo "built $out"
