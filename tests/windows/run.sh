#!/usr/bin/env bash
# The Windows CI stage: hookhost built for x86_64-pc-windows-gnu (linked by zig through
# cargo-zigbuild) and run under Wine 8. It checks, each against a control:
#   1. `fire` with the bash guard (a Wasm component) denies `rm -rf /` and allows `ls`;
#   2. a second process loads the stored artifact instead of compiling again;
#   3. `serve` answers on TCP;
#   4. a command hook runs through the shell hookhost picks on Windows (Git Bash, else
#      PowerShell 7 `pwsh.exe` on PATH), with stand-in shells: Wine has neither;
#   5. a runaway hook and the process it started end when the timeout passes (the Job
#      Object), and hookhost reports the timeout.
# Wine 8 lacks bcryptprimitives.dll (ProcessPrng, which Rust's std calls at start): a
# stand-in built from bcryptprimitives.c sits beside the binary, for this stage only.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
here="$root/tests/windows"
target=x86_64-pc-windows-gnu
cd "$root"

if ! command -v wine >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wine64 >/dev/null
fi
python3 -m pip install --quiet --disable-pip-version-check ziglang cargo-zigbuild
rustup target add "$target" wasm32-wasip2 >/dev/null
# The build is the Windows lint too: clippy's driver compiles the workspace's crates (the
# library and the binary; dependencies as usual), and a warning fails it.
RUSTC_WORKSPACE_WRAPPER="$(rustup which clippy-driver)" CLIPPY_ARGS=-Dwarnings \
    cargo-zigbuild build --quiet -p hookhost --lib --bins --target "$target" --target-dir target/cross --timings \
    --profile cross
cargo build --quiet --profile guest --target wasm32-wasip2 --target-dir target/guests -p bash-guard

work="$(mktemp -d)"
export WINEPREFIX="$work/prefix" WINEDEBUG=-all
cleanup() {
    wineserver -k 2>/dev/null || true
    [[ -n "${KEEP_WORK:-}" ]] || rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/bin" "$work/shells" "$work/project" "$work/home"
cp "target/cross/$target/cross/hookhost.exe" "$work/bin/"
cp target/guests/wasm32-wasip2/guest/bash_guard.wasm "$work/"
zigcc() { python3 -m ziglang cc -target x86_64-windows-gnu -O2 "$@"; }
zigcc -shared -o "$work/bin/bcryptprimitives.dll" "$here/bcryptprimitives.c" -ladvapi32
zigcc -o "$work/shells/pwsh.exe" "$here/shell.c"
cp "$work/shells/pwsh.exe" "$work/shells/bash.exe"
zigcc -o "$work/bin/runaway.exe" "$here/runaway.c"
wineboot -i >/dev/null 2>&1
win() { winepath -w "$1"; }

failures=0
pass() { echo "ok: $1"; }
fail() {
    echo "FAILED: $1" >&2
    failures=$((failures + 1))
}
# expect NAME PATTERN TEXT: TEXT matches the extended regular expression PATTERN.
expect() {
    if grep -Eq -- "$2" <<<"$3"; then pass "$1"; else fail "$1 (wanted /$2/, got: $3)"; fi
}
hookhost() { wine "$work/bin/hookhost.exe" "$@"; }
event() { printf '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"%s"}}' "$1"; }
config=(--no-discover --home "$(win "$work/home")" --project-dir "$(win "$work/project")"
    --cache-dir "$(win "$work/cache")")
common=("${config[@]}" --format claude)

# 1. The Wasm guard through `fire`.
guard="$work/guard.json"
cat >"$guard" <<JSON
{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[
  {"type":"wasm","component":"$(win "$work/bash_guard.wasm" | sed 's/\\/\\\\/g')","failClosed":true}]}]}}
JSON
denied="$(event 'rm -rf /' | hookhost fire --settings "$(win "$guard")" "${common[@]}" 2>"$work/fire1.err" || true)"
expect "fire: the Wasm guard denies rm -rf /" '"permissionDecision": ?"deny"' "$denied"
artifacts() { find "$work/cache" -name '*.cwasm' -printf '%f %i\n' | sort; }
stored="$(artifacts)"
expect "cache: the compiled guard is stored" '\.cwasm [0-9]+$' "$stored"
allowed="$(event 'ls' | HOOKHOST_LOG=hookhost=debug hookhost fire --settings "$(win "$guard")" "${common[@]}" 2>"$work/fire2.err" || true)"
if grep -q '"deny"' <<<"$allowed"; then fail "fire: the Wasm guard allows ls (got: $allowed)"; else pass "fire: the Wasm guard allows ls"; fi
# 2. That second process loaded the stored artifact: a compile would have stored a new
# file in its place (Wine refuses wasmtime's map of a file; hookhost then reads it).
if [[ "$(artifacts)" == "$stored" ]] && ! grep -q 'ignoring cached artifact' "$work/fire2.err"; then
    pass "cache: a second process loads the stored artifact, no compile"
    if grep -q 'the map was refused' "$work/fire2.err"; then
        echo "note: Wine refused the map of the artifact; it was read into memory instead"
    fi
else
    fail "cache: the second process compiled again: $(artifacts) vs $stored; $(grep -i artifact "$work/fire2.err" | head -3)"
fi

# 3. `serve` on TCP, with a token.
printf 'windows-stage-token' >"$work/token"
port=$((20000 + RANDOM % 20000))
hookhost serve --settings "$(win "$guard")" "${config[@]}" --listen "127.0.0.1:$port" \
    --token-file "$(win "$work/token")" 2>"$work/serve.err" &
serve_pid=$!
answer=""
for _ in $(seq 1 150); do
    answer="$(curl -s -m 5 -H 'Authorization: Bearer windows-stage-token' \
        -H 'Content-Type: application/json' --data "$(event 'rm -rf /')" \
        "http://127.0.0.1:$port/hooks" 2>/dev/null || true)"
    [[ -n "$answer" ]] && break
    sleep 0.2
done
expect "serve: answers on TCP with the guard's deny" '"permissionDecision": ?"deny"' "$answer"
unauthorised="$(curl -s -o /dev/null -w '%{http_code}' -m 5 --data '{}' "http://127.0.0.1:$port/v1/fire" || true)"
expect "serve: a call without the token is refused" '^401$' "$unauthorised"
# Killing Wine's launcher leaves the Windows process running: end them all.
wineserver -k 2>/dev/null || true
wait "$serve_pid" 2>/dev/null || true

# 4. A command hook through the shell hookhost picks: Git Bash named by
# CLAUDE_CODE_GIT_BASH_PATH first, else pwsh.exe on PATH.
printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"said by the shell"}}' >"$work/project/answer.json"
shell_hook="$work/shell.json"
cat >"$shell_hook" <<'JSON'
{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"type answer.json"}]}]}}
JSON
export SHELL_SHIM_LOG="$work/shell.log"
through_pwsh="$(event 'ls' | WINEPATH="$(win "$work/shells")" hookhost fire --settings "$(win "$shell_hook")" "${common[@]}" 2>&1 || true)"
expect "command hook: runs through pwsh.exe on PATH" 'said by the shell' "$through_pwsh"
expect "command hook: pwsh gets -NoProfile -NonInteractive -Command" 'pwsh(\.exe)? \[-NoProfile\] \[-NonInteractive\] \[-Command\] \[type answer.json\]' "$(cat "$work/shell.log" 2>/dev/null)"
: >"$work/shell.log"
through_bash="$(event 'ls' | CLAUDE_CODE_GIT_BASH_PATH="$(win "$work/shells/bash.exe")" WINEPATH="$(win "$work/shells")" \
    hookhost fire --settings "$(win "$shell_hook")" "${common[@]}" 2>&1 || true)"
expect "command hook: Git Bash named by CLAUDE_CODE_GIT_BASH_PATH comes first" 'bash(\.exe)? \[-c\] \[type answer.json\]' "$(cat "$work/shell.log" 2>/dev/null)"
expect "command hook: the Git Bash answer is read" 'said by the shell' "$through_bash"
# Control: with neither shell, the hook is reported (no PowerShell under Wine), not run.
no_shell="$(event 'ls' | hookhost fire --settings "$(win "$shell_hook")" "${common[@]}" 2>&1 || true)"
if grep -q 'said by the shell' <<<"$no_shell"; then fail "command hook control: without a shell nothing answers (got: $no_shell)"; else pass "command hook control: without a shell nothing answers"; fi

# 5. A runaway hook: the tree ends at the timeout.
runaway="$work/runaway.json"
cat >"$runaway" <<JSON
{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[
  {"type":"command","command":"$(win "$work/bin/runaway.exe" | sed 's/\\/\\\\/g')","args":[],"timeout":4}]}]}}
JSON
live_runaways() { ps -eo stat=,args= | awk '$1 !~ /^Z/ && /runaway\.exe/' | grep -v awk || true; }
event 'ls' | hookhost fire --settings "$(win "$runaway")" "${config[@]}" --format outcome >"$work/runaway.out" 2>&1 &
fire_pid=$!
seen_child=""
for _ in $(seq 1 40); do
    if live_runaways | grep -q 'runaway.exe child'; then seen_child=yes; break; fi
    sleep 0.1
done
wait "$fire_pid" || true
if [[ -n "$seen_child" ]]; then pass "runaway control: the hook and its child ran"; else fail "runaway control: the hook's child never started"; fi
expect "runaway: the timeout is reported" 'timed out|timeout' "$(cat "$work/runaway.out")"
sleep 1
left="$(live_runaways)"
if [[ -z "$left" ]]; then pass "runaway: no process of the hook is left"; else fail "runaway: left behind: $left"; fi

if ((failures > 0)); then
    echo "windows stage: $failures check(s) failed" >&2
    exit 1
fi
echo "windows stage: every check passed"
