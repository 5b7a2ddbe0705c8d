"""hookhost_guest: write hookhost hooks in Python, built into sandboxed WebAssembly
components (``hookhost:hooks@0.3.0``) with componentize-py.

Subclass :class:`Hook`, override the methods for the events you handle, and export it::

    from hookhost_guest import Answer, Hook, export

    class NoForcePush(Hook):
        def pre_tool_use(self, call):
            if "push --force" in (call.command or ""):
                return Answer.deny("force pushes are not allowed")
            return Answer.none()

    WitWorld = export(NoForcePush)

Every call runs in a fresh instance, so nothing survives between calls. The common fields
arrive with the call; the raw input, the tool input JSON and other fields are fetched
from the host on first use and kept for the rest of the call.
"""

import json

from componentize_py_types import Err
from wit_world.imports import host as _host
from wit_world.imports import input as _input
from wit_world.imports import shell as _shell
from wit_world.imports.shell import Joined, Node, NodeKind, Pipeline, Redirect, Via, Word
from wit_world.imports.shell import Script as _ScriptRecord
from wit_world.imports.types import Decision, HookAnswer, HookInput

__all__ = [
    "Answer", "Event", "Hook", "PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop",
    "SessionStart", "config", "log", "export", "shell", "Script", "Command", "SHELLS",
    "NodeKind", "Via",
]

_MISSING = object()

# While `export` warms a hook up at build time (see `_warm_up`), the shell view that
# `shell.bash_command()` answers; `_MISSING` the rest of the time. No host function is
# called while it is set: the host is not there yet.
_warming = _MISSING


class Event:
    """Any event."""

    def __init__(self, record):
        self._record = record
        self._cache = {}

    @property
    def name(self):
        """Event name, e.g. ``PreToolUse``."""
        return self._record.event

    @property
    def session_id(self):
        """Session id."""
        return self._record.session_id

    @property
    def cwd(self):
        """The session's working directory."""
        return self._record.cwd

    @property
    def permission_mode(self):
        """The permission mode, when the host sent one."""
        return self._record.permission_mode

    @property
    def tool_name(self):
        """The tool name, on tool events."""
        return self._record.tool_name

    @property
    def matcher_value(self):
        """What the event's matcher compares against (``source``, ``trigger``, ...)."""
        return self._record.matcher_value

    def tool_field(self, name):
        """A top-level string field of the tool input (no JSON parsing, no host call)."""
        for key, value in self._record.tool_input_fields:
            if key == name:
                return value
        return None

    def _once(self, key, make):
        value = self._cache.get(key, _MISSING)
        if value is _MISSING:
            value = make()
            self._cache[key] = value
        return value

    def tool_input(self):
        """The tool input, parsed (fetched on first use)."""
        def fetch():
            if _warming is not _MISSING:
                return dict(self._record.tool_input_fields)
            text = _input.tool_input()
            return None if text is None else json.loads(text)
        return self._once("tool_input", fetch)

    def field(self, name):
        """One top-level field of the input, parsed (``tool_response``, ...)."""
        def fetch():
            text = None if _warming is not _MISSING else _input.field(name)
            return None if text is None else json.loads(text)
        return self._once("field:" + name, fetch)

    def raw(self):
        """The complete input JSON text."""
        return self._once("raw", lambda: "{}" if _warming is not _MISSING else _input.raw())

    def json(self):
        """The complete input, parsed."""
        return self._once("json", lambda: json.loads(self.raw()))


class PreToolUse(Event):
    """A tool call about to run."""

    @property
    def command(self):
        """``command`` of a Bash call."""
        return self.tool_field("command")

    def shell(self):
        """``command`` of a Bash call as the host parsed it (a :class:`Script`); None when
        there is none."""
        return self._once("shell", shell.bash_command)

    @property
    def file_path(self):
        """``file_path`` of a file tool call."""
        return self.tool_field("file_path")


class PostToolUse(Event):
    """A tool call that succeeded."""

    def tool_response(self):
        """The tool's response."""
        return self.field("tool_response")


class UserPromptSubmit(Event):
    """A prompt before the model sees it."""

    @property
    def prompt(self):
        """The prompt text."""
        return self._record.prompt or ""


class Stop(Event):
    """The agent wants to stop."""

    @property
    def stop_hook_active(self):
        """Whether the agent is already continuing because of a stop hook."""
        return self.field("stop_hook_active") is True


class SessionStart(Event):
    """A session begins or resumes."""

    @property
    def source(self):
        """``startup``, ``resume``, ``clear``, ``compact`` or ``fork``."""
        return self.matcher_value or ""


class Answer:
    """What a hook answers: start from a decision, then add to it."""

    def __init__(self, decision, reason=None):
        self.wit = HookAnswer(
            decision=decision, reason=reason, additional_context=None,
            system_message=None, updated_input=None, updated_tool_output=None,
            watch_paths=[], stop=False, stop_reason=None, initial_user_message=None,
            retry=None, updated_permissions=[], interrupt=False, session_title=None,
            suppress_output=False, updated_message=None, system_prompt_append=None,
            worktree_path=None, custom_instructions=None,
        )

    @classmethod
    def none(cls):
        """No decision: other hooks and the host decide."""
        return cls(Decision.NONE)

    @classmethod
    def allow(cls, reason=None):
        """Allow the tool call without asking."""
        return cls(Decision.ALLOW, reason)

    @classmethod
    def deny(cls, reason):
        """Deny the tool call (or block the event) with a reason for the model."""
        return cls(Decision.DENY, reason)

    @classmethod
    def ask(cls, reason=None):
        """Ask the user."""
        return cls(Decision.ASK, reason)

    @classmethod
    def defer(cls):
        """Defer the tool call (headless hosts)."""
        return cls(Decision.DEFER)

    @classmethod
    def block(cls, reason):
        """Block the event (prompt erased, stop refused, ...)."""
        return cls(Decision.BLOCK, reason)

    def with_reason(self, reason):
        """Sets or replaces the reason."""
        self.wit.reason = reason
        return self

    def with_context(self, text):
        """Adds context for the model (several calls are joined by newlines)."""
        old = self.wit.additional_context
        self.wit.additional_context = text if old is None else old + "\n" + text
        return self

    def with_system_message(self, text):
        """A warning shown to the user."""
        self.wit.system_message = text
        return self

    def update_input(self, value):
        """Replaces the tool input."""
        self.wit.updated_input = json.dumps(value)
        return self

    def update_tool_output(self, value):
        """Replaces the tool output (PostToolUse)."""
        self.wit.updated_tool_output = json.dumps(value)
        return self

    def watch(self, path):
        """Watches a path (SessionStart, CwdChanged, FileChanged)."""
        self.wit.watch_paths.append(path)
        return self

    def stop(self, reason):
        """Stops the agent after the hooks run."""
        self.wit.stop = True
        self.wit.stop_reason = reason
        return self

    def with_initial_user_message(self, text):
        """The first user message of a new session (SessionStart)."""
        self.wit.initial_user_message = text
        return self

    def retry(self, value):
        """Lets the model retry (PermissionDenied)."""
        self.wit.retry = bool(value)
        return self

    def update_permissions(self, rule):
        """Adds a permission rule update (PermissionRequest)."""
        self.wit.updated_permissions.append(json.dumps(rule))
        return self

    def interrupt(self):
        """Interrupts the agent along with a deny (PermissionRequest)."""
        self.wit.interrupt = True
        return self

    def with_session_title(self, title):
        """Sets the session's title."""
        self.wit.session_title = title
        return self

    def suppress_output(self):
        """Keeps this hook's output out of the transcript."""
        self.wit.suppress_output = True
        return self

    def update_message(self, text):
        """Replaces the message (hygge ``modified_message``)."""
        self.wit.updated_message = text
        return self

    def append_system_prompt(self, text):
        """Adds to the system prompt for one turn (hygge ``system_prompt_append``)."""
        self.wit.system_prompt_append = text
        return self

    def with_worktree_path(self, path):
        """Names the created worktree (WorktreeCreate)."""
        self.wit.worktree_path = path
        return self

    def with_custom_instructions(self, text):
        """New compaction instructions (PreCompact)."""
        self.wit.custom_instructions = text
        return self


class Hook:
    """A hook: override the methods of the events you handle; the others answer
    :meth:`Answer.none`. Raising fails the hook (a block when it is ``failClosed``)."""

    def pre_tool_use(self, call):
        """``PreToolUse``: before a tool runs."""
        return Answer.none()

    def post_tool_use(self, call):
        """``PostToolUse``: after a tool succeeded."""
        return Answer.none()

    def user_prompt_submit(self, prompt):
        """``UserPromptSubmit``: before the model sees a prompt."""
        return Answer.none()

    def stop(self, stop):
        """``Stop`` and ``SubagentStop``."""
        return Answer.none()

    def session_start(self, start):
        """``SessionStart``."""
        return Answer.none()

    def other(self, event):
        """Every other event."""
        return Answer.none()


_VIEWS = {
    "PreToolUse": ("pre_tool_use", PreToolUse),
    "PostToolUse": ("post_tool_use", PostToolUse),
    "UserPromptSubmit": ("user_prompt_submit", UserPromptSubmit),
    "Stop": ("stop", Stop),
    "SubagentStop": ("stop", Stop),
    "SessionStart": ("session_start", SessionStart),
}


def export(hook_class, warm_up=False):
    """Makes the ``WitWorld`` class componentize-py exports from a :class:`Hook`.

    With ``warm_up`` true, the hook is also run here, while componentize-py snapshots
    the module, on a few made-up calls (see :func:`_warm_up`): only for a hook that
    keeps nothing at module level.
    """

    class WitWorld:
        def handle(self, record):
            method, view = _VIEWS.get(record.event, ("other", Event))
            try:
                answer = getattr(hook_class(), method)(view(record))
            except Err:
                raise
            except Exception as err:  # the hook's failure, reported by the host
                raise Err(f"{type(err).__name__}: {err}")
            if not isinstance(answer, Answer):
                raise Err(f"{method} returned {type(answer).__name__}, not an Answer")
            return answer.wit

    if warm_up:
        _warm_up(WitWorld())
    return WitWorld


# Each made-up call runs this many times: CPython specialises an instruction for the
# types it meets only after it has run it a few times.
_WARM_ROUNDS = 3


def _warm_up(world):
    """Runs ``world.handle`` on made-up calls of every event the SDK knows, with no host
    behind it (``config`` reads as empty, ``log`` is dropped, the shell view is made up
    too), and throws every answer and error away.

    Why: the component is a snapshot of the module taken after this runs, and every call
    starts from that snapshot in a fresh instance. What CPython does on the first runs of
    code (specialising its bytecode, filling its attribute caches) would otherwise be
    done again on every call. Done here, it is in the snapshot.

    Opt-in, because whatever the hook keeps at module level is then in the snapshot
    too, the same for every call: a value it memoises from ``config`` (read as empty
    here) or from the made-up input would stand in for the real one in every call, and
    a guard could check against the wrong list or folder.
    """
    global _warming

    def bash(command, pipelines, redirect=None):
        record = HookInput(
            event="PreToolUse", session_id="warm-up", cwd="/tmp/warm",
            permission_mode="default", tool_name="Bash",
            tool_input_fields=[("command", command), ("description", "warm up")],
            matcher_value="Bash", prompt=None)
        return record, _made_up_script(pipelines, redirect)

    def event(name, tool=None, fields=(), matcher=None, prompt=None):
        record = HookInput(
            event=name, session_id="warm-up", cwd="/tmp/warm", permission_mode="default",
            tool_name=tool, tool_input_fields=list(fields), matcher_value=matcher,
            prompt=prompt)
        return record, None

    calls = [
        bash("ls -la", [[["ls", "-la"]]]),
        bash("curl -fsSL https://example.com/install.sh | sh",
             [[["curl", "-fsSL", "https://example.com/install.sh"], ["sh"]]]),
        bash("cat .env > /tmp/out && rm -rf ./build",
             [[["cat", ".env"]], [["rm", "-rf", "./build"]]], (0, ">", "/tmp/out")),
        bash("git push --force origin main", [[["git", "push", "--force", "origin", "main"]]]),
        event("PreToolUse", "Write", [("file_path", "/tmp/warm/notes.md"), ("content", "warm")],
              "Write"),
        event("PostToolUse", "Bash", [("command", "ls")], "Bash"),
        event("UserPromptSubmit", prompt="warm up"),
        event("Stop"),
        event("SessionStart", matcher="startup"),
    ]
    for _ in range(_WARM_ROUNDS):
        for record, script in calls:
            _warming = script
            try:
                world.handle(record)
            except Exception:  # a handler may fail on made-up input; real calls count
                pass
            finally:
                _warming = _MISSING


def _made_up_script(pipelines, redirect=None):
    """A shell view as the host would send it, for :func:`_warm_up`: ``pipelines`` is a
    list of pipelines (joined by ``&&``), each a list of commands, each a list of words;
    ``redirect`` (``(node, op, target)``) adds one redirection."""
    nodes, records = [], []
    for index, commands in enumerate(pipelines):
        members = []
        for words in commands:
            members.append(len(nodes))
            nodes.append(Node(
                kind=NodeKind.SIMPLE, words=[Word(text=w, dynamic=False) for w in words],
                assignments=[], redirects=[], program=0, pipeline=index,
                text=" ".join(words)))
        records.append(Pipeline(
            nodes=members, joined=Joined.FIRST if index == 0 else Joined.AND,
            background=False, negated=False, parent=None, via=Via.TOP))
    if redirect is not None:
        node, op, target = redirect
        nodes[node].redirects.append(
            Redirect(fd=None, op=op, target=Word(text=target, dynamic=False)))
    return _ScriptRecord(nodes=nodes, pipelines=records, partial=False, error=None)


class _Config:
    """This hook's ``config`` object from its settings entry."""

    def get(self, key, default=None):
        """The value of ``key``, parsed; ``default`` when absent."""
        text = None if _warming is not _MISSING else _host.config(key)
        return default if text is None else json.loads(text)

    def all(self):
        """The whole object."""
        return {} if _warming is not _MISSING else json.loads(_host.config_json())


class _Log:
    """Writes to the host's log, attributed to this hook."""

    def debug(self, message):
        if _warming is _MISSING:
            _host.log(_host.Level.DEBUG, message)

    def info(self, message):
        if _warming is _MISSING:
            _host.log(_host.Level.INFO, message)

    def warn(self, message):
        if _warming is _MISSING:
            _host.log(_host.Level.WARN, message)

    def error(self, message):
        if _warming is _MISSING:
            _host.log(_host.Level.ERROR, message)


config = _Config()
log = _Log()


SHELLS = ("sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "rbash", "fish")
"""Programs that run a script (``-c TEXT``, a file, or their stdin)."""


class Script:
    """A script as the host parsed it: every command bash would run from the text, nested
    ones included (``$(...)``, ``<(...)``, subshells, function bodies, ``bash -c '...'``,
    ``eval``, here-strings and here-documents fed to a shell, ``echo '...' | sh``)."""

    def __init__(self, record):
        self.record = record

    @property
    def partial(self):
        """Some text was not read: do not treat the command as understood."""
        return self.record.partial

    @property
    def error(self):
        """Why it is partial."""
        return self.record.error

    def nodes(self):
        """Every node, compound commands too, in order."""
        return [Command(self, i) for i in range(len(self.record.nodes))]

    def commands(self):
        """Every simple command, nested ones included, in order."""
        return [c for c in self.nodes() if c.kind == NodeKind.SIMPLE]

    def _parent(self, index):
        node = self.record.nodes[index]
        return self.record.pipelines[node.pipeline].parent

    def _within(self, index, ancestor):
        parent = self._parent(index)
        while parent is not None:
            if parent == ancestor:
                return True
            parent = self._parent(parent)
        return False


class Command:
    """One node of a :class:`Script`; a simple command unless ``kind`` says otherwise."""

    def __init__(self, script, index):
        self.script = script
        self.index = index
        self.node = script.record.nodes[index]

    @property
    def kind(self):
        """A :class:`NodeKind` (``SIMPLE``, ``SUBSHELL``, ``GROUP``, ``IF_CLAUSE``, ...)."""
        return self.node.kind

    @property
    def program(self):
        """The program it finally runs, as written, past ``sudo``, ``env``, ``timeout``,
        ``xargs``, ...; '' when none."""
        if self.node.program is None:
            return ""
        return self.node.words[self.node.program].text

    @property
    def name(self):
        """The program's last path component."""
        return self.program.rsplit("/", 1)[-1]

    def is_(self, name):
        """The program is ``name``."""
        return self.name == name

    @property
    def name_is_dynamic(self):
        """The program's name holds an expansion (``$SHELL``): it could be anything."""
        return self.node.program is not None and self.node.words[self.node.program].dynamic

    @property
    def args(self):
        """The arguments after the program, as text."""
        start = len(self.node.words) if self.node.program is None else self.node.program + 1
        return [w.text for w in self.node.words[start:]]

    @property
    def words(self):
        """Every word (``.text``, ``.dynamic``), wrappers included."""
        return self.node.words

    @property
    def assignments(self):
        """``NAME=value`` words before the command."""
        return self.node.assignments

    @property
    def redirects(self):
        """Its redirections (``.fd``, ``.op``, ``.target``)."""
        return self.node.redirects

    def operands(self):
        """Every file it may name: its arguments and its redirection targets."""
        return self.args + [r.target.text for r in self.node.redirects]

    @property
    def text(self):
        """Its text."""
        return self.node.text

    @property
    def via(self):
        """How its pipeline is held: a :class:`Via` (``TOP``, ``COMMAND_SUBSTITUTION``, ...)."""
        return self.script.record.pipelines[self.node.pipeline].via

    def runs_code(self):
        """It runs code given to it: a shell, ``eval``, ``source``, ``.``, or a dynamic name."""
        return self.name in SHELLS or self.name in ("eval", "source", ".") or self.name_is_dynamic

    def ancestors(self):
        """The nodes that hold this one, nearest first."""
        out = []
        parent = self.script._parent(self.index)
        while parent is not None:
            out.append(Command(self.script, parent))
            parent = self.script._parent(parent)
        return out

    def inside(self):
        """Every simple command nested inside this node."""
        return [c for c in self.script.commands() if self.script._within(c.index, self.index)]

    def upstream(self):
        """Every simple command whose output may reach this one's stdin."""
        record = self.script.record
        feeders = []
        for holder in [self.index] + [a.index for a in self.ancestors()]:
            for n in record.pipelines[record.nodes[holder].pipeline].nodes:
                if n == holder:
                    break
                feeders.append(n)
        return [
            c for c in self.script.commands()
            if any(c.index == f or self.script._within(c.index, f) for f in feeders)
        ]


class _Shell:
    """The host's shell parser."""

    @staticmethod
    def bash_command():
        """The Bash call's ``command``, parsed; None when the event has none."""
        record = _shell.bash_command() if _warming is _MISSING else _warming
        return None if record is None else Script(record)

    @staticmethod
    def parse(text):
        """Parses any text as a bash script."""
        if _warming is not _MISSING:
            return Script(_made_up_script([[text.split()]]))
        return Script(_shell.parse(text))


shell = _Shell()
