#!/bin/sh
# Builds app.py into {{name}}.wasm with componentize-py. The first run installs the pinned
# componentize-py (requirements.txt) into .venv; set COMPONENTIZE_PY to use another one.
set -eu
cd "$(dirname "$0")"
tool="${COMPONENTIZE_PY:-.venv/bin/componentize-py}"
if [ -z "${COMPONENTIZE_PY:-}" ] && [ ! -x "$tool" ]; then
    echo "installing componentize-py into .venv (once)"
    python3 -m venv .venv
    .venv/bin/pip install --quiet --disable-pip-version-check -r requirements.txt
fi
"$tool" --quiet --wit-path sdk/wit/hooks@{{wit}} --world hook componentize app \
    --python-path . --python-path sdk/python --output {{name}}.wasm
echo "built {{name}}.wasm"
