"""py-guard: refuses destructive shell commands, written in Python.

Build: ``bash build.sh`` (-> py-guard.wasm); test: ``hookhost test .``.
"""

from hookhost_guest import Answer, Hook, config, export

DEFAULT_PATTERNS = ["rm -rf /", "git push --force", "git reset --hard", "| sh"]


class PyGuard(Hook):
    def pre_tool_use(self, call):
        command = call.command
        if command is None:
            return Answer.none()
        patterns = DEFAULT_PATTERNS + [str(p) for p in config.get("deny", [])]
        for pattern in patterns:
            if pattern in command:
                return Answer.deny(
                    f"py-guard: `{pattern}` is not allowed here; run a narrower command"
                )
        return Answer.none()


WitWorld = export(PyGuard)
