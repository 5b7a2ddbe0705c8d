// ts-guard: refuses destructive shell commands, written in TypeScript.
// Build: `bash build.sh` (→ ts-guard.wasm); test: `hookhost test .`.
import { Answer, Command, PreToolUse, config, defineHook } from '../../guest-sdk/js/index.js';

const DEFAULT_PATTERNS: string[] = ['rm -rf /', 'git push --force', 'git reset --hard'];

function patterns(): string[] {
  const extra = config.get('deny');
  return Array.isArray(extra) ? DEFAULT_PATTERNS.concat(extra.map(String)) : DEFAULT_PATTERNS;
}

const fetches = (c: Command): boolean => ['curl', 'wget'].includes(c.name);
const secret = (file: string): boolean => /(^|\/)\.env(\.(?!example$)[^/]*)?$/.test(file);

// Warmed up at build time (`warmUp`): the handler keeps nothing at module level (it reads
// `deny` on every call), so the made-up calls leave nothing behind that a real call uses.
export const handle = defineHook({
  preToolUse(call: PreToolUse): Answer {
    const script = call.shell();
    if (script === undefined) return Answer.none();
    if (script.partial) return Answer.deny(`ts-guard: could not read this command (${script.error})`);
    for (const cmd of script.commands()) {
      if (cmd.runsCode() && cmd.upstream().concat(cmd.inside()).some(fetches)) {
        return Answer.deny('ts-guard: a download must not run as code; save it, read it, then run it');
      }
      const file = cmd.operands().find(secret);
      if (file !== undefined) return Answer.deny(`ts-guard: \`${file}\` holds secrets; read .env.example`);
    }
    const hit = patterns().find((pattern) => call.command?.includes(pattern));
    if (hit !== undefined) {
      return Answer.deny(`ts-guard: \`${hit}\` is not allowed here; run a narrower command`);
    }
    return Answer.none();
  },
}, { warmUp: true });
