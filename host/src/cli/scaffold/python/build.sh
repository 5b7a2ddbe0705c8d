#!/bin/sh
# Builds app.py into {{name}}.wasm with componentize-py. The first run installs the pinned
# componentize-py (requirements.txt) into .venv; set COMPONENTIZE_PY to use another one.
# Unchanged sources keep the component they made (same bytes, same sha256).
set -eu
cd "$(dirname "$0")"
# A syntax error is reported as a compiler would: file, line, column and message.
for file in ./*.py; do
    python3 -c 'import sys
try:
    compile(open(sys.argv[1]).read(), sys.argv[1], "exec")
except SyntaxError as e:
    print(f"{e.filename}:{e.lineno}:{e.offset}: {e.msg}\n    {(e.text or str()).rstrip()}", file=sys.stderr)
    sys.exit(1)' "$file"
done
inputs="$(ls ./*.py) sdk/python sdk/wit requirements.txt"
# shellcheck disable=SC2086
if sh sdk/unchanged.sh check {{name}}.wasm $inputs; then
    echo "{{name}}.wasm is up to date"
    exit 0
fi
tool="${COMPONENTIZE_PY:-.venv/bin/componentize-py}"
if [ -z "${COMPONENTIZE_PY:-}" ] && [ ! -x "$tool" ]; then
    echo "installing componentize-py into .venv (once)"
    python3 -m venv .venv
    .venv/bin/pip install --quiet --disable-pip-version-check -r requirements.txt
fi
# An exception while the component initialises is reported as file:line: message.
python3 sdk/python/build_errors.py -- "$tool" --quiet --wit-path sdk/wit/hooks@{{wit}} --world hook componentize app \
    --python-path . --python-path sdk/python --output {{name}}.wasm
# shellcheck disable=SC2086
sh sdk/unchanged.sh record {{name}}.wasm $inputs
echo "built {{name}}.wasm"
