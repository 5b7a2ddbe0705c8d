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

/** Makes the component's `handle` export. */
export function defineHook(handlers: Handlers): (record: HookInput) => unknown;

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
