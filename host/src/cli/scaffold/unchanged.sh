#!/bin/sh
# unchanged.sh check|record OUT INPUT...
#
# componentize-js and componentize-py do not build reproducibly yet (ComponentizeJS#321,
# componentize-py#247): the same source gives a component with new bytes each time, so
# a new sha256 (every pin breaks) and a new compile. Until they do, a build keeps OUT when
# it was made from exactly these inputs (files, or folders read whole):
#   check   exits 0 when OUT exists and its recorded inputs are these
#   record  records the inputs OUT was just made from (in .OUT.inputs beside it)
set -eu
mode="$1"
out="$2"
shift 2
if command -v sha256sum >/dev/null 2>&1; then sum="sha256sum"; else sum="shasum -a 256"; fi
key=$(find "$@" -type f ! -path '*/node_modules/*' ! -path '*/.venv/*' \
        ! -path '*/__pycache__/*' | LC_ALL=C sort | while IFS= read -r file; do
    printf '%s %s\n' "$file" "$($sum < "$file" | cut -d' ' -f1)"
done | $sum | cut -d' ' -f1)
stamp="$(dirname "$out")/.$(basename "$out").inputs"
case "$mode" in
    check) [ -f "$out" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$key" ] ;;
    record) printf '%s\n' "$key" > "$stamp" ;;
    *) echo "unchanged.sh: unknown mode $mode" >&2; exit 64 ;;
esac
