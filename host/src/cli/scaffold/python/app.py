"""{{name}}: a hookhost hook, built into a sandboxed WebAssembly component.

Build: ``./build.sh`` (-> {{name}}.wasm); test: ``hookhost test``.
"""

from hookhost_guest import Answer, Hook, export


class Policy(Hook):
    def pre_tool_use(self, call):
        if "rm -rf /" in (call.command or ""):
            return Answer.deny(
                "{{name}}: `rm -rf /` is not allowed; delete the specific paths you mean"
            )
        return Answer.none()


WitWorld = export(Policy)
