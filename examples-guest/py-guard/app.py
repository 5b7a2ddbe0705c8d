"""py-guard: refuses destructive shell commands, written in Python.

Build: ``bash build.sh`` (-> py-guard.wasm); test: ``hookhost test .``.
"""

import re

from hookhost_guest import Answer, Hook, config, export

DEFAULT_PATTERNS = ["rm -rf /", "git push --force", "git reset --hard"]
SECRET = re.compile(r"(^|/)\.env(\.(?!example$)[^/]*)?$")


class PyGuard(Hook):
    def pre_tool_use(self, call):
        script = call.shell()
        if script is None:
            return Answer.none()
        if script.partial:
            return Answer.deny(f"py-guard: could not read this command ({script.error})")
        for cmd in script.commands():
            feeders = cmd.upstream() + cmd.inside()
            if cmd.runs_code() and any(c.name in ("curl", "wget") for c in feeders):
                return Answer.deny("py-guard: a download must not run as code; save it, read it, then run it")
            for file in cmd.operands():
                if SECRET.search(file):
                    return Answer.deny(f"py-guard: `{file}` holds secrets; read .env.example")
        patterns = DEFAULT_PATTERNS + [str(p) for p in config.get("deny", [])]
        for pattern in patterns:
            if pattern in call.command:
                return Answer.deny(
                    f"py-guard: `{pattern}` is not allowed here; run a narrower command"
                )
        return Answer.none()


# Warmed up at build time: the hook keeps nothing at module level (it reads `deny` on
# every call), so the made-up calls leave nothing behind that a real call would use.
WitWorld = export(PyGuard, warm_up=True)
