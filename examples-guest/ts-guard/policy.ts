// ts-guard: refuses destructive shell commands, written in TypeScript.
// Build: `bash build.sh` (→ ts-guard.wasm); test: `hookhost test .`.
import { Answer, PreToolUse, config, defineHook } from '../../guest-sdk/js/index.js';

const DEFAULT_PATTERNS: string[] = ['rm -rf /', 'git push --force', 'git reset --hard', '| sh'];

function patterns(): string[] {
  const extra = config.get('deny');
  return Array.isArray(extra) ? DEFAULT_PATTERNS.concat(extra.map(String)) : DEFAULT_PATTERNS;
}

export const handle = defineHook({
  preToolUse(call: PreToolUse): Answer {
    const command = call.command;
    if (command === undefined) return Answer.none();
    const hit = patterns().find((pattern) => command.includes(pattern));
    if (hit !== undefined) {
      return Answer.deny(`ts-guard: \`${hit}\` is not allowed here; run a narrower command`);
    }
    return Answer.none();
  },
});
