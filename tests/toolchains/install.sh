#!/usr/bin/env bash
# Installs the pinned guest toolchains the TypeScript and Python guests build with, under
# target/toolchains/ (idempotent: a second run only checks):
#   target/toolchains/js/node_modules/.bin/{componentize-js,rolldown,tsc,jco}  (npm registry)
#   target/toolchains/py/bin/componentize-py                                  (PyPI, in a venv)
#   target/toolchains/claude/node_modules/.bin/claude                         (npm registry: the Claude Code CLI, newest)
#   target/toolchains/claude-2.1.197/node_modules/.bin/claude                 (npm registry: the release users still run)
#   target/toolchains/agents/node_modules/.bin/{copilot,codex,gemini}         (npm registry: the other agents' CLIs)
#   target/toolchains/phoenix/bin/phoenix                                     (PyPI, in a venv: the OTLP receiver of tests/it/fleet.rs)
# and, from Debian's packages where apt-get can install them, the CNCF Distribution
# registry (`docker-registry`) and `minisign` for tests/it/oci.rs (which skip, saying so,
# where they are missing).
# Needs Node.js ≥ 18 with npm, and Python ≥ 3.10.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$root/target/toolchains"
mkdir -p "$out"

# One npm tree: `$here/$1/package{,-lock}.json` installed into `$out/$2` unless the lock
# file installed last is this one and `$3` is there. `npm install` rather than `npm ci`:
# npm leaves other platforms' optional packages out of a lock file, which `npm ci` then
# refuses. The stamp is written only once the install succeeded.
npm_tree() {
    local from="$here/$1" to="$out/$2"
    mkdir -p "$to"
    if ! cmp -s "$from/package-lock.json" "$to/installed-lock.json" || [ ! -x "$to/node_modules/.bin/$3" ]; then
        rm -f "$to/installed-lock.json"
        cp "$from/package.json" "$from/package-lock.json" "$to/"
        (cd "$to" && npm install --no-audit --no-fund --loglevel=error)
        cp "$from/package-lock.json" "$to/installed-lock.json"
    fi
}

# The guests' tree (componentize-js finds some of its modules only where package-lock.json
# hoists them).
npm_tree . js componentize-js
# The real Claude Code CLI for tests/it/claude_code.rs.
npm_tree claude claude claude
npm_tree claude-2.1.197 claude-2.1.197 claude
# The other agents' real clients for tests/it/agent_clients.rs.
npm_tree agents agents codex

if ! cmp -s "$here/requirements.txt" "$out/py/requirements.txt" 2>/dev/null || [ ! -x "$out/py/bin/componentize-py" ]; then
    python3 -m venv "$out/py"
    "$out/py/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
    cp "$here/requirements.txt" "$out/py/requirements.txt"
fi
if ! cmp -s "$here/phoenix/requirements.txt" "$out/phoenix/requirements.txt" 2>/dev/null || [ ! -x "$out/phoenix/bin/phoenix" ]; then
    python3 -m venv "$out/phoenix"
    "$out/phoenix/bin/pip" install --quiet --disable-pip-version-check -r "$here/phoenix/requirements.txt"
    cp "$here/phoenix/requirements.txt" "$out/phoenix/requirements.txt"
fi
if ! command -v docker-registry >/dev/null || ! command -v minisign >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker-registry minisign) >/dev/null \
            || echo "could not install docker-registry and minisign: the OCI tests will be skipped"
    else
        echo "docker-registry and minisign are not installed (apt-get install docker-registry minisign): the OCI tests will be skipped"
    fi
    # Under CI a skipped suite is a failed one.
    if [ -n "${HOOKHOST_CI:-}" ] && { ! command -v docker-registry >/dev/null || ! command -v minisign >/dev/null; }; then
        echo "HOOKHOST_CI: docker-registry and minisign are required" >&2
        exit 1
    fi
fi
# The envelope's tests (tests/it/envelope/left_behind.rs): the user's tmux server that a
# command must not reach, and, when they run as root, an ordinary user to run every attack
# and control as too (the envelope then makes a user namespace).
if ! command -v tmux >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux) >/dev/null \
        || echo "could not install tmux: the envelope's tmux test fails"
fi
if [ "$(id -u)" = 0 ] && ! id "${HOOKHOST_TEST_USER:-hhtest}" >/dev/null 2>&1; then
    useradd --no-create-home --shell /bin/sh "${HOOKHOST_TEST_USER:-hhtest}"
fi
echo "guest toolchains ready in $out"
