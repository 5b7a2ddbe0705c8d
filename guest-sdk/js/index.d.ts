// Types of @hookhost/guest (hookhost:hooks@0.2.0).

/** The call record the host passes to `handle`. */
export interface HookInput {
  event: string;
  sessionId: string;
  cwd: string;
  permissionMode?: string;
  toolName?: string;
  toolInputFields: Array<[string, string]>;
  matcherValue?: string;
  prompt?: string;
}

/** Any event. */
export class Event {
  constructor(record: HookInput);
  readonly name: string;
  readonly sessionId: string;
  readonly cwd: string;
  readonly permissionMode: string | undefined;
  readonly toolName: string | undefined;
  readonly matcherValue: string | undefined;
  /** A top-level string field of the tool input (no host call). */
  toolField(name: string): string | undefined;
  /** The tool input, parsed (fetched on first use). */
  toolInput(): unknown;
  /** One top-level field of the input, parsed. */
  field(name: string): unknown;
  /** The complete input JSON text. */
  raw(): string;
  /** The complete input, parsed. */
  json(): Record<string, unknown>;
}
export class PreToolUse extends Event {
  readonly command: string | undefined;
  readonly filePath: string | undefined;
  /** `command` of a Bash call as the host parsed it; undefined when none. */
  shell(): Script | undefined;
}
export class PostToolUse extends Event {
  toolResponse(): unknown;
}
export class UserPromptSubmit extends Event {
  readonly prompt: string;
}
export class Stop extends Event {
  readonly stopHookActive: boolean;
}
export class SessionStart extends Event {
  readonly source: string;
}

/** What a hook answers. */
export class Answer {
  static none(): Answer;
  static allow(reason?: string): Answer;
  static deny(reason: string): Answer;
  static ask(reason?: string): Answer;
  static defer(): Answer;
  static block(reason: string): Answer;
  withReason(reason: string): Answer;
  withContext(text: string): Answer;
  withSystemMessage(text: string): Answer;
  updateInput(value: unknown): Answer;
  updateToolOutput(value: unknown): Answer;
  watch(path: string): Answer;
  stop(reason: string): Answer;
  withInitialUserMessage(text: string): Answer;
  retry(value: boolean): Answer;
  updatePermissions(rule: Record<string, unknown>): Answer;
  interrupt(): Answer;
  withSessionTitle(title: string): Answer;
  suppressOutput(): Answer;
  updateMessage(text: string): Answer;
  appendSystemPrompt(text: string): Answer;
  withWorktreePath(path: string): Answer;
  withCustomInstructions(text: string): Answer;
}

/** One method per event; a missing one answers "no decision". */
export interface Handlers {
  preToolUse?(call: PreToolUse): Answer;
  postToolUse?(call: PostToolUse): Answer;
  userPromptSubmit?(prompt: UserPromptSubmit): Answer;
  stop?(stop: Stop): Answer;
  sessionStart?(start: SessionStart): Answer;
  other?(event: Event): Answer;
}

/** Options of `defineHook`. */
export interface HookOptions {
  /**
   * Also run every handler at build time on made-up calls, so that the snapshot every
   * call starts from has done the handlers' first-run work (default false). Only for
   * handlers that keep nothing at module level: what they keep would be in every call.
   */
  warmUp?: boolean;
}

/** Makes the component's `handle` export. */
export function defineHook(handlers: Handlers, options?: HookOptions): (record: HookInput) => unknown;

/** This hook's `config` object from its settings entry. */
export const config: {
  get(key: string): unknown;
  all(): Record<string, unknown>;
};

/** The host's log. */
export const log: {
  trace(message: string): void;
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
};

/** Programs that run a script (`-c TEXT`, a file, or their stdin). */
export const SHELLS: string[];

/** One word: quotes removed, escapes applied, expansions kept as written. */
export interface Word { text: string; dynamic: boolean }
/** One redirection (`2>&1`, `> out`, `<<< text`, …). */
export interface Redirect { fd?: number; op: string; target: Word }
/** What a node is. */
export type NodeKind = 'simple' | 'subshell' | 'group' | 'if-clause' | 'loop' | 'case-clause'
  | 'function' | 'arithmetic' | 'test' | 'coprocess';
/** How a pipeline's text reaches bash. */
export type Via = 'top' | 'body' | 'function-body' | 'command-substitution'
  | 'process-substitution' | 'shell' | 'eval';

/** A script as the host parsed it: every command bash would run, nested ones included. */
export class Script {
  /** Some text was not read: do not treat the command as understood. */
  readonly partial: boolean;
  /** Why it is partial. */
  readonly error: string | undefined;
  /** Every simple command, nested ones included, in order. */
  commands(): Command[];
  /** Every node, compound commands too. */
  nodes(): Command[];
}

/** One node of a `Script`; a simple command unless `kind` says otherwise. */
export class Command {
  readonly kind: NodeKind;
  /** The program it finally runs, as written, past `sudo`, `env`, `timeout`, `xargs`, … */
  readonly program: string;
  /** The program's last path component. */
  readonly name: string;
  /** The program is `name`. */
  is(name: string): boolean;
  /** The program's name holds an expansion: it could be anything. */
  readonly nameIsDynamic: boolean;
  /** The arguments after the program. */
  readonly args: string[];
  /** Every word, wrappers included. */
  readonly words: Word[];
  /** `NAME=value` words before the command. */
  readonly assignments: Word[];
  /** Its redirections. */
  readonly redirects: Redirect[];
  /** Every file it may name: its arguments and its redirection targets. */
  operands(): string[];
  /** Its text. */
  readonly text: string;
  /** How its pipeline is held. */
  readonly via: Via;
  /** It runs code given to it: a shell, `eval`, `source`, `.`, or a dynamic name. */
  runsCode(): boolean;
  /** The nodes that hold this one, nearest first. */
  ancestors(): Command[];
  /** Every simple command nested inside this node. */
  inside(): Command[];
  /** Every simple command whose output may reach this one's stdin. */
  upstream(): Command[];
}

/** The host's shell parser. */
export const shell: {
  /** The Bash call's `command`, parsed; undefined when the event has none. */
  bashCommand(): Script | undefined;
  /** Parses any text as a bash script. */
  parse(text: string): Script;
};
