// @hookhost/guest: the JavaScript side of hookhost:hooks@0.2.0.
//
// A hook module exports `handle`, made with `defineHook`. Every call runs in a fresh
// instance, so nothing survives between calls. The common fields arrive with the call;
// the raw input, the tool input JSON and other fields are fetched from the host on
// first use and kept for the rest of the call.

import * as input from 'hookhost:hooks/input@0.2.0';
import * as host from 'hookhost:hooks/host@0.2.0';

/** Any event. */
export class Event {
  constructor(record) {
    this.record = record;
    this.cache = new Map();
  }

  /** Event name, e.g. `PreToolUse`. */
  get name() { return this.record.event; }
  /** Session id. */
  get sessionId() { return this.record.sessionId; }
  /** The session's working directory. */
  get cwd() { return this.record.cwd; }
  /** The permission mode, when the host sent one. */
  get permissionMode() { return this.record.permissionMode; }
  /** The tool name, on tool events. */
  get toolName() { return this.record.toolName; }
  /** What the event's matcher compares against (`source`, `trigger`, …). */
  get matcherValue() { return this.record.matcherValue; }

  /** A top-level string field of the tool input (no JSON parsing, no host call). */
  toolField(name) {
    for (const [key, value] of this.record.toolInputFields) {
      if (key === name) return value;
    }
    return undefined;
  }

  /** The tool input, parsed (fetched on first use). */
  toolInput() {
    return this.#once('tool_input', () => {
      const text = input.toolInput();
      return text === undefined ? undefined : JSON.parse(text);
    });
  }

  /** One top-level field of the input, parsed (`tool_response`, `stop_hook_active`, …). */
  field(name) {
    return this.#once(`field:${name}`, () => {
      const text = input.field(name);
      return text === undefined ? undefined : JSON.parse(text);
    });
  }

  /** The complete input JSON text. */
  raw() { return this.#once('raw', () => input.raw()); }

  /** The complete input, parsed. */
  json() { return this.#once('json', () => JSON.parse(this.raw())); }

  #once(key, make) {
    if (!this.cache.has(key)) this.cache.set(key, make());
    return this.cache.get(key);
  }
}

/** A tool call about to run. */
export class PreToolUse extends Event {
  /** `command` of a Bash call. */
  get command() { return this.toolField('command'); }
  /** `file_path` of a file tool call. */
  get filePath() { return this.toolField('file_path'); }
}

/** A tool call that succeeded. */
export class PostToolUse extends Event {
  /** The tool's response. */
  toolResponse() { return this.field('tool_response'); }
}

/** A prompt before the model sees it. */
export class UserPromptSubmit extends Event {
  /** The prompt text. */
  get prompt() { return this.record.prompt ?? ''; }
}

/** The agent wants to stop. */
export class Stop extends Event {
  /** Whether the agent is already continuing because of a stop hook. */
  get stopHookActive() { return this.field('stop_hook_active') === true; }
}

/** A session begins or resumes. */
export class SessionStart extends Event {
  /** `startup`, `resume`, `clear`, `compact` or `fork`. */
  get source() { return this.matcherValue ?? ''; }
}

function emptyAnswer(decision, reason) {
  return {
    decision,
    reason,
    additionalContext: undefined,
    systemMessage: undefined,
    updatedInput: undefined,
    updatedToolOutput: undefined,
    watchPaths: [],
    stop: false,
    stopReason: undefined,
    initialUserMessage: undefined,
    retry: undefined,
    updatedPermissions: [],
    interrupt: false,
    sessionTitle: undefined,
    suppressOutput: false,
    updatedMessage: undefined,
    systemPromptAppend: undefined,
    worktreePath: undefined,
    customInstructions: undefined,
  };
}

/** What a hook answers: start from a decision, then add to it. */
export class Answer {
  constructor(decision, reason) { this.wit = emptyAnswer(decision, reason); }

  /** No decision: other hooks and the host decide. */
  static none() { return new Answer('none'); }
  /** Allow the tool call without asking. */
  static allow(reason) { return new Answer('allow', reason); }
  /** Deny the tool call (or block the event) with a reason for the model. */
  static deny(reason) { return new Answer('deny', reason); }
  /** Ask the user. */
  static ask(reason) { return new Answer('ask', reason); }
  /** Defer the tool call (headless hosts). */
  static defer() { return new Answer('defer'); }
  /** Block the event (prompt erased, stop refused, …). */
  static block(reason) { return new Answer('block', reason); }

  /** Sets the reason. */
  withReason(reason) { this.wit.reason = reason; return this; }
  /** Adds context for the model (several calls are joined by newlines). */
  withContext(text) {
    this.wit.additionalContext = this.wit.additionalContext === undefined
      ? text : `${this.wit.additionalContext}\n${text}`;
    return this;
  }
  /** A warning shown to the user. */
  withSystemMessage(text) { this.wit.systemMessage = text; return this; }
  /** Replaces the tool input. */
  updateInput(value) { this.wit.updatedInput = JSON.stringify(value); return this; }
  /** Replaces the tool output (PostToolUse). */
  updateToolOutput(value) { this.wit.updatedToolOutput = JSON.stringify(value); return this; }
  /** Watches a path (SessionStart, CwdChanged, FileChanged). */
  watch(path) { this.wit.watchPaths.push(path); return this; }
  /** Stops the agent after the hooks run. */
  stop(reason) { this.wit.stop = true; this.wit.stopReason = reason; return this; }
  /** First user turn (SessionStart). */
  withInitialUserMessage(text) { this.wit.initialUserMessage = text; return this; }
  /** Lets the model retry (PermissionDenied). */
  retry(value) { this.wit.retry = value; return this; }
  /** Adds a permission rule update (PermissionRequest). */
  updatePermissions(rule) { this.wit.updatedPermissions.push(JSON.stringify(rule)); return this; }
  /** Interrupts the agent along with a deny (PermissionRequest). */
  interrupt() { this.wit.interrupt = true; return this; }
  /** Sets the session's title. */
  withSessionTitle(title) { this.wit.sessionTitle = title; return this; }
  /** Keeps this hook's output out of the transcript. */
  suppressOutput() { this.wit.suppressOutput = true; return this; }
  /** Replaces the message text (hygge `modified_message`). */
  updateMessage(text) { this.wit.updatedMessage = text; return this; }
  /** Adds to the system prompt for one turn (hygge `system_prompt_append`). */
  appendSystemPrompt(text) { this.wit.systemPromptAppend = text; return this; }
  /** Names the created worktree (WorktreeCreate). */
  withWorktreePath(path) { this.wit.worktreePath = path; return this; }
  /** New compaction instructions (PreCompact). */
  withCustomInstructions(text) { this.wit.customInstructions = text; return this; }
}

const VIEWS = {
  PreToolUse: ['preToolUse', PreToolUse],
  PostToolUse: ['postToolUse', PostToolUse],
  UserPromptSubmit: ['userPromptSubmit', UserPromptSubmit],
  Stop: ['stop', Stop],
  SubagentStop: ['stop', Stop],
  SessionStart: ['sessionStart', SessionStart],
};

/**
 * Makes the component's `handle` export from one method per event (`preToolUse`,
 * `postToolUse`, `userPromptSubmit`, `stop`, `sessionStart`, `other`); a missing method
 * answers "no decision". A method returns an `Answer`; throwing fails the hook (a block
 * when it is configured `failClosed`).
 */
export function defineHook(handlers) {
  return function handle(record) {
    const [method, View] = VIEWS[record.event] ?? ['other', Event];
    const run = handlers[method];
    if (typeof run !== 'function') return Answer.none().wit;
    let answer;
    try {
      answer = run(new View(record));
    } catch (err) {
      throw String(err && err.message ? err.message : err);
    }
    if (!(answer instanceof Answer)) {
      throw `the ${method} handler returned ${typeof answer}, not an Answer`;
    }
    return answer.wit;
  };
}

/** This hook's `config` object from its settings entry. */
export const config = {
  /** The value of `key`, parsed; undefined when absent. */
  get(key) {
    const text = host.config(key);
    return text === undefined ? undefined : JSON.parse(text);
  },
  /** The whole object. */
  all() { return JSON.parse(host.configJson()); },
};

/** Writes to the host's log, attributed to this hook. */
export const log = {
  trace(message) { host.log('trace', message); },
  debug(message) { host.log('debug', message); },
  info(message) { host.log('info', message); },
  warn(message) { host.log('warn', message); },
  error(message) { host.log('error', message); },
};
