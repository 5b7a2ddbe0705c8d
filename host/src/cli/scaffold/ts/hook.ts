// {{name}}: a hookhost hook, built into a sandboxed WebAssembly component.
// Build: `npm install && npm run build` (→ {{name}}.wasm); test: `hookhost test`.
import { Answer, PreToolUse, defineHook } from './sdk/js/index.js';

export const handle = defineHook({
  preToolUse(call: PreToolUse): Answer {
    const command = call.command;
    if (command !== undefined && command.includes('rm -rf /')) {
      return Answer.deny('{{name}}: `rm -rf /` is not allowed; delete the specific paths you mean');
    }
    return Answer.none();
  },
});
