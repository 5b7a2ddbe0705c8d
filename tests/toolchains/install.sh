#!/usr/bin/env bash
# Installs the pinned guest toolchains the TypeScript and Python examples build with,
# under target/toolchains/ (idempotent: a second run only checks):
#   target/toolchains/js/node_modules/.bin/{componentize-js,rolldown,jco}  (npm registry)
#   target/toolchains/py/bin/componentize-py                              (PyPI, in a venv)
# Needs Node.js ≥ 18 with npm, and Python ≥ 3.10.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$root/target/toolchains"
mkdir -p "$out/js"

if ! cmp -s "$here/package.json" "$out/js/package.json" || [ ! -x "$out/js/node_modules/.bin/componentize-js" ]; then
    cp "$here/package.json" "$out/js/package.json"
    (cd "$out/js" && npm install --no-audit --no-fund --loglevel=error)
fi

if ! cmp -s "$here/requirements.txt" "$out/py/requirements.txt" 2>/dev/null || [ ! -x "$out/py/bin/componentize-py" ]; then
    python3 -m venv "$out/py"
    "$out/py/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
    cp "$here/requirements.txt" "$out/py/requirements.txt"
fi
echo "guest toolchains ready in $out"
