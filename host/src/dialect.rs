//! Dialects: the hook systems hookhost stands in for, as data.
//!
//! A [`Dialect`] is one value that says how a hook system finds its configuration, how
//! its layers combine, what its configuration entries default to, which events it names
//! and what they honour, how a hook answers (JSON shape, exit codes), in which order its
//! hooks run and when a chain stops, and how several answers merge. The loader, the
//! protocol parser, the scheduler and the merge read these columns; none of them compares
//! dialect names. The default is [`Dialect::CLAUDE`].
//!
//! | dialect | system |
//! | --- | --- |
//! | `claude` | Claude Code `settings.json` / `plugin.json` hooks (the default) |
//! | `gen` | the Go hook engine with `.gen/settings.json` |
//! | `hygge` | hygge's `hooks.toml` (`pre_tool`, `post_tool`, `pre_message`, `post_message`) |
//! | `evva` | evva's `.evva/settings.json` (six events, project hooks first) |
//! | `agent-sdk` | the Agent SDK hook spec (glob matchers, first decider wins) |

use std::fmt;
use std::sync::OnceLock;

use std::ops::Deref;
use std::sync::Arc;

use crate::event::{CATALOG, CUSTOM, EventSpec, Fields, MatcherSyntax, ModeRule};

mod agent_sdk;
mod claude;
mod evva;
mod gen_engine;
mod hygge;

pub use agent_sdk::AGENT_SDK;
pub use claude::CLAUDE;
pub use evva::EVVA;
pub use gen_engine::GEN;
pub use hygge::HYGGE;

/// Which layer a discovered configuration file belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileLayer {
    /// The user's own file.
    User,
    /// The project's shared file (comes with the repository).
    Project,
    /// The project's local file (`settings.local.json`).
    Local,
}

/// The folder a configuration file's path is relative to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Root {
    /// The home folder.
    Home,
    /// The project directory.
    Project,
    /// `$XDG_CONFIG_HOME`, else `<home>/.config`.
    XdgConfig,
    /// hookhost's configuration folder: the one the options name (`--config-dir`), else
    /// `hookhost` below [`Root::XdgConfig`].
    HookhostConfig,
    /// evva's `evvaHome`: `$EVVA_HOME`, else `<home>/.evva`.
    EvvaHome,
    /// The project root found by walking up from the project directory (stopping below
    /// the home folder): the nearest folder holding one of the dialect's `WalkUp` files;
    /// the project directory itself when none does (hygge).
    WalkUp,
}

/// One configuration file a dialect reads: its layer, the folder it is relative to and
/// its path there. The loader and `serve`'s watcher both read this table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConfigFile {
    /// Its layer.
    pub layer: FileLayer,
    /// What `path` is relative to.
    pub root: Root,
    /// The path below the root.
    pub path: &'static str,
}

pub(crate) const fn file(layer: FileLayer, root: Root, path: &'static str) -> ConfigFile {
    ConfigFile { layer, root, path }
}

/// How the hooks of the user and project layers combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layering {
    /// Every layer's hooks run, user before project (Claude Code).
    Additive,
    /// Where the project configures an event, the user's hooks for it are dropped (gen).
    ProjectReplacesUser,
    /// Every layer's hooks run, project before user, so a project hook can stop the
    /// chain before the user's run (evva).
    ProjectFirst,
}

/// What `timeout: 0` in a configuration entry means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeoutZero {
    /// An error: timeouts must be positive (Claude Code).
    Invalid,
    /// The event's default timeout (evva).
    EventDefault,
    /// No timeout (hygge); hookhost still stops the hook after its one-day ceiling.
    Unlimited,
}

/// The JSON shape a command or HTTP hook answers with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnswerForm {
    /// Claude Code's answer (`decision`, `continue`, `hookSpecificOutput`, …); exit code 2
    /// blocks, other non-zero exits are non-blocking errors.
    Claude,
    /// hygge's action (`decision: allow|deny|modify`, `modified_*`,
    /// `system_prompt_append`); empty output allows, any non-zero exit denies with stderr
    /// (at most [`Dialect::deny_reason_cap`] bytes) as the reason.
    HyggeAction,
}

/// In which order the hooks of one event run and when the chain stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Every hook at once; every hook runs to completion (Claude Code). `sequential`
    /// groups still run in order.
    Concurrent,
    /// One after another in configuration order.
    InOrder(Chain),
}

/// The rules of a chain of hooks run one after another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chain {
    /// A rewrite (tool input, message, tool output) is fed to the hooks after it, in
    /// these input fields (`None`: each hook sees the input as the host sent it).
    pub feed_forward: Option<FedForward>,
    /// A block stops the hooks not yet started.
    pub stop_on_block: bool,
    /// `continue: false` stops the hooks not yet started.
    pub stop_on_continue_false: bool,
}

/// The input fields a chained hook's rewrites replace for the hooks after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FedForward {
    /// Replaced by an updated tool input.
    pub tool_input: &'static str,
    /// Replaced by an updated message.
    pub message: &'static str,
    /// Replaced by an updated tool output.
    pub tool_result: &'static str,
}

/// The fed-forward fields of every dialect that chains rewrites (the catalog's names).
pub const FED_FORWARD: FedForward = FedForward {
    tool_input: "tool_input",
    message: "message",
    tool_result: "tool_result",
};

/// How permission decisions of several hooks combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecisionRule {
    /// deny > defer > ask > allow: the most restrictive wins.
    MostRestrictive,
    /// The first hook (configuration order) that allows or denies decides; when none
    /// does, the answer is `ask` (Agent SDK).
    FirstDecider,
}

/// What a block of a Stop-like event means and how re-entry is bounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopRule {
    /// A block keeps the agent going; consecutive blocks per session are capped.
    Capped,
    /// A block keeps the agent going once: on the re-entry pass (`stop_hook_active` true
    /// in the input) hooks are consulted but a block is not honoured (evva).
    Once,
    /// The agent keeps going when a hook answers `continue: true`; `decision: "block"` is
    /// not read (Agent SDK). Consecutive continuations are capped.
    ContinueTrue,
}

/// How `hookhost list` shows hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listing {
    /// One line per hook and event, in configuration order.
    ConfigOrder,
    /// One line per hook name (first seen wins), sorted by name (hygge's `All()`).
    ByName,
}

/// A dialect's own scoping of answer fields, applied to every event of its catalog and
/// to its custom events.
#[derive(Debug, Clone, Copy)]
pub struct FieldScope {
    /// Fields honoured on every event (gen: `AdditionalContext` is "any event").
    pub everywhere: Fields,
    /// Fields honoured on the events listed with them besides the catalog's (gen:
    /// `ShouldBlock` on every event its caller waits for; exit code 2 then blocks there).
    pub also_on: &'static [(Fields, &'static [&'static str])],
    /// Fields honoured only on the events listed with them (gen: `PermissionDecision`
    /// on PreToolUse only).
    pub only_on: &'static [(Fields, &'static [&'static str])],
}

/// The input a dialect's hooks receive: the dialect owns its shape.
#[derive(Debug, Clone, Copy)]
pub struct InputShape {
    /// The field naming the agent's working directory, always present: the host's value,
    /// else the project directory (claude `cwd`, hygge `pwd`).
    pub cwd: &'static str,
    /// Fields filled with these values when the host leaves them out (besides
    /// `session_id` and the working directory).
    pub defaults: &'static [(&'static str, &'static str)],
    /// The only fields a hook receives (`None`: every field the host sent).
    pub only: Option<&'static [&'static str]>,
}

/// The catalog's own scoping.
pub const CATALOG_SCOPE: FieldScope = FieldScope {
    everywhere: Fields::NONE,
    also_on: &[],
    only_on: &[],
};

/// What becomes of identical hooks configured in several settings files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Duplicates {
    /// They run once: the copy from the layer of strongest authority (Claude Code).
    RunOnce,
    /// Every registration runs (hygge).
    RunEach,
}

/// A dialect's event: its name, the catalog event it maps onto, and how it differs.
#[derive(Debug, Clone, Copy)]
pub struct EventRule {
    /// The name in the dialect's vocabulary.
    pub name: &'static str,
    /// The catalog event it behaves like.
    pub catalog: &'static str,
    /// Answer fields honoured in addition to the catalog's.
    pub add: Fields,
    /// Answer fields the dialect does not honour on this event.
    pub remove: Fields,
    /// Whether `async` is allowed.
    pub mode: ModeRule,
    /// Whether the event's matcher is dropped (the dialect has no matcher for it).
    pub no_matcher: bool,
}

const fn same(name: &'static str) -> EventRule {
    EventRule {
        name,
        catalog: name,
        add: Fields::NONE,
        remove: Fields::NONE,
        mode: ModeRule::Free,
        no_matcher: false,
    }
}

const fn adding(mut rule: EventRule, fields: Fields) -> EventRule {
    rule.add = rule.add.with(fields);
    rule
}

const fn removing(mut rule: EventRule, fields: Fields) -> EventRule {
    rule.remove = rule.remove.with(fields);
    rule
}

/// The rule without a matcher: its hooks run whatever their matcher says.
const fn unmatched(mut rule: EventRule) -> EventRule {
    rule.no_matcher = true;
    rule
}

const fn alias(name: &'static str, catalog: &'static str, mode: ModeRule) -> EventRule {
    EventRule {
        name,
        catalog,
        add: Fields::NONE,
        remove: Fields::NONE,
        mode,
        no_matcher: true,
    }
}

/// Which dialect: the name used on the command line and in [`crate::LoadOptions`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum DialectId {
    /// Claude Code (the default).
    #[default]
    Claude,
    /// The Go hook engine (`.gen/`).
    Gen,
    /// hygge's `hooks.toml`.
    Hygge,
    /// evva (`.evva/`).
    Evva,
    /// The Agent SDK hook spec.
    AgentSdk,
}

impl DialectId {
    /// Every dialect, default first.
    pub const ALL: [DialectId; 5] = [
        DialectId::Claude,
        DialectId::Gen,
        DialectId::Hygge,
        DialectId::Evva,
        DialectId::AgentSdk,
    ];

    /// The dialect's rules.
    pub fn dialect(self) -> &'static Dialect {
        &DIALECTS[self as usize]
    }

    /// The name (`claude`, `gen`, `hygge`, `evva`, `agent-sdk`).
    pub fn name(self) -> &'static str {
        self.dialect().name
    }
}

impl fmt::Display for DialectId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for DialectId {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        DialectId::ALL
            .into_iter()
            .find(|id| id.name() == text)
            .ok_or_else(|| {
                format!(
                    "unknown dialect `{text}` (one of {})",
                    DialectId::ALL.map(|id| id.name()).join(", ")
                )
            })
    }
}

/// One hook system's rules. See the [module documentation](self).
#[derive(Debug, Clone, Copy)]
pub struct Dialect {
    /// Which dialect.
    pub id: DialectId,
    /// Its name.
    pub name: &'static str,
    /// Its configuration files besides managed and `--settings` files, in reading order.
    pub discovery: &'static [ConfigFile],
    /// How user and project hooks combine.
    pub layering: Layering,
    /// The handler `type` of an entry that names none (`None`: `type` is required).
    pub type_default: Option<&'static str>,
    /// What `timeout: 0` means.
    pub timeout_zero: TimeoutZero,
    /// Whether HTTP hooks run in the background unless `async: false`.
    pub http_async_default: bool,
    /// Whether `async`/`asyncRewake` apply to every handler type (else only commands).
    pub async_any_executor: bool,
    /// The answer shape and exit codes of command and HTTP hooks.
    pub answer: AnswerForm,
    /// Longest deny reason read from stderr, bytes (hygge: 1 KiB).
    pub deny_reason_cap: usize,
    /// Run order and chain stops.
    pub order: Order,
    /// How permission decisions combine.
    pub decision: DecisionRule,
    /// Whether `continue: false` blocks the operation (evva) instead of stopping the
    /// agent.
    pub continue_false_blocks: bool,
    /// Stop-event semantics.
    pub stop: StopRule,
    /// The input field that names the event (`hook_event_name`, hygge `event`).
    pub event_field: &'static str,
    /// The input field that carries the running hook's name (hygge `hook_name`).
    pub hook_name_field: Option<&'static str>,
    /// How listings show hooks.
    pub listing: Listing,
    /// What becomes of identical hooks from several settings files.
    pub duplicates: Duplicates,
    /// How matchers are written.
    pub matcher: MatcherSyntax,
    /// Whether a matcher written `Tool(args)` on a tool event, in the dialect's own files,
    /// is a tool pattern (hookhost's form, with an argument filter) — or, as Claude Code
    /// reads its files, a regular expression on the tool name that never matches one.
    /// hookhost's own files and `--settings` files always read the tool-pattern form.
    pub tool_patterns: bool,
    /// The dialect's events; `None`: the whole catalog under its own names.
    pub events: Option<&'static [EventRule]>,
    /// How the dialect scopes answer fields differently from the catalog.
    pub scope: FieldScope,
    /// The shape of the input its hooks receive.
    pub input: InputShape,
}

/// The chain rules of a Claude Code `sequential` group.
pub const SEQUENTIAL_GROUP: Chain = Chain {
    feed_forward: Some(FED_FORWARD),
    stop_on_block: true,
    stop_on_continue_false: false,
};

static DIALECTS: [Dialect; 5] = [CLAUDE, GEN, HYGGE, EVVA, AGENT_SDK];

static CATALOGS: [OnceLock<Vec<EventSpec>>; 5] = [const { OnceLock::new() }; 5];

static CUSTOMS: [OnceLock<EventSpec>; 5] = [const { OnceLock::new() }; 5];

impl Dialect {
    /// The default dialect.
    pub fn claude() -> &'static Dialect {
        DialectId::Claude.dialect()
    }

    /// The dialect's event catalog: the catalog entries under the dialect's names, with
    /// its differences applied.
    pub fn catalog(&'static self) -> &'static [EventSpec] {
        CATALOGS[self.id as usize].get_or_init(|| match self.events {
            None => CATALOG.iter().map(|spec| self.adjust(*spec)).collect(),
            Some(rules) => rules
                .iter()
                .map(|rule| {
                    let base = EventSpec::lookup(rule.catalog).unwrap_or_else(|| {
                        panic!("dialect event maps onto unknown `{}`", rule.catalog)
                    });
                    let mut spec = self.adjust(*base);
                    spec.name = rule.name;
                    spec.fields = Fields::from_bits(
                        (spec.fields.bits() | rule.add.bits()) & !rule.remove.bits(),
                    );
                    spec.can_block = spec.fields.contains(Fields::BLOCK);
                    if !spec.can_block {
                        spec.exit2 = crate::event::Exit2::Reported;
                    }
                    spec.mode = rule.mode;
                    if rule.no_matcher {
                        spec.matcher_field = None;
                        spec.matcher_value = crate::event::MatcherValue::None;
                    }
                    spec
                })
                .collect(),
        })
    }

    fn adjust(&self, mut spec: EventSpec) -> EventSpec {
        spec.matcher_syntax = self.matcher;
        let mut fields = spec.fields.with(self.scope.everywhere);
        for (also, events) in self.scope.also_on {
            if events.contains(&spec.name) {
                fields = fields.with(*also);
            }
        }
        for (only, events) in self.scope.only_on {
            if !events.contains(&spec.name) {
                fields = Fields::from_bits(fields.bits() & !only.bits());
            }
        }
        spec.fields = fields;
        if fields.contains(Fields::BLOCK) && !spec.can_block {
            spec.can_block = true;
            spec.exit2 = crate::event::Exit2::Blocks;
        }
        spec
    }

    /// The entry of events this dialect does not know: the permissive custom entry under
    /// the dialect's own scoping.
    pub(crate) fn custom(&'static self) -> &'static EventSpec {
        CUSTOMS[self.id as usize].get_or_init(|| self.adjust(CUSTOM))
    }

    /// The catalog entry of `name` in this dialect, if it names one of its events.
    pub fn lookup(&'static self, name: &str) -> Option<&'static EventSpec> {
        self.catalog().iter().find(|spec| spec.name == name)
    }

    /// The event `name` as this dialect fires it (an unknown name gets the permissive
    /// custom entry).
    pub fn event(&'static self, name: &str) -> Event {
        Event::in_dialect(name, self.lookup(name), self)
    }

    /// Whether a chain of this dialect's hooks ends at the first block.
    pub fn chain(&self) -> Option<Chain> {
        match self.order {
            Order::Concurrent => None,
            Order::InOrder(chain) => Some(chain),
        }
    }
}

impl PartialEq for Dialect {
    fn eq(&self, other: &Dialect) -> bool {
        self.id == other.id
    }
}

/// An event as fired: its name (as the host wrote it) and its catalog entry. Derefs to
/// the [`EventSpec`], so `event.can_block` reads the catalog. Cheap to clone.
#[derive(Clone)]
pub struct Event {
    name: Arc<str>,
    spec: &'static EventSpec,
    dialect: &'static Dialect,
}

impl Event {
    /// The Claude Code event called `name`: its catalog entry, or the custom entry.
    pub fn new(name: &str) -> Event {
        Dialect::claude().event(name)
    }

    /// The event `name` of `dialect`, with its entry in the dialect's catalog (`None`:
    /// the custom entry).
    pub(crate) fn in_dialect(
        name: &str,
        spec: Option<&'static EventSpec>,
        dialect: &'static Dialect,
    ) -> Event {
        match spec {
            Some(spec) => Event {
                name: Arc::from(spec.name),
                spec,
                dialect,
            },
            None => Event {
                name: Arc::from(name),
                spec: dialect.custom(),
                dialect,
            },
        }
    }

    /// The dialect the event is fired in.
    pub fn dialect(&self) -> &'static Dialect {
        self.dialect
    }

    /// The catalog name Wasm guests see (the event's own name when it is custom).
    pub fn catalog_name(&self) -> &str {
        if self.spec.known {
            self.spec.catalog_name
        } else {
            &self.name
        }
    }

    /// The event name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The name, shared.
    pub fn shared_name(&self) -> Arc<str> {
        self.name.clone()
    }

    /// The catalog entry.
    pub fn spec(&self) -> &'static EventSpec {
        self.spec
    }
}

impl Deref for Event {
    type Target = EventSpec;
    fn deref(&self) -> &EventSpec {
        self.spec
    }
}

impl From<&str> for Event {
    fn from(name: &str) -> Self {
        Event::new(name)
    }
}

impl PartialEq for Event {
    fn eq(&self, other: &Event) -> bool {
        self.name == other.name
    }
}

impl Eq for Event {}

impl std::hash::Hash for Event {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name.hash(state)
    }
}

impl PartialEq<str> for Event {
    fn eq(&self, other: &str) -> bool {
        &*self.name == other
    }
}

impl PartialEq<&str> for Event {
    fn eq(&self, other: &&str) -> bool {
        &*self.name == *other
    }
}

impl fmt::Debug for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Event({:?})", &*self.name)
    }
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)
    }
}

impl serde::Serialize for Event {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for id in DialectId::ALL {
            assert_eq!(id.name().parse::<DialectId>().unwrap(), id);
            assert_eq!(id.dialect().id, id);
        }
        assert!(
            "zsh"
                .parse::<DialectId>()
                .unwrap_err()
                .contains("agent-sdk")
        );
    }

    #[test]
    fn dialect_catalogs_apply_their_differences() {
        let hygge = DialectId::Hygge.dialect();
        let pre = hygge.lookup("pre_tool").unwrap();
        assert!(pre.can_block && pre.matcher_field.is_none());
        assert_eq!(pre.catalog_name, "PreToolUse");
        assert_eq!(pre.mode, ModeRule::SyncOnly);
        let post = hygge.lookup("post_tool").unwrap();
        assert!(!post.can_block && post.honours(Fields::UPDATED_TOOL_OUTPUT));
        assert_eq!(
            hygge.lookup("post_message").unwrap().mode,
            ModeRule::AlwaysAsync
        );
        assert!(hygge.lookup("PreToolUse").is_none());
        let evva = DialectId::Evva.dialect();
        assert!(!evva.lookup("PostToolUse").unwrap().can_block);
        assert_eq!(evva.lookup("Notification").unwrap().fields, Fields::NONE);
        assert_eq!(evva.catalog().len(), 6);
        assert_eq!(DialectId::AgentSdk.dialect().catalog().len(), 15);
        assert!(
            DialectId::AgentSdk
                .dialect()
                .lookup("Notification")
                .unwrap()
                .honours(Fields::ADDITIONAL_CONTEXT)
        );
        assert_eq!(
            DialectId::AgentSdk
                .dialect()
                .lookup("PreToolUse")
                .unwrap()
                .matcher_syntax,
            MatcherSyntax::Glob
        );
        assert_eq!(Dialect::claude().catalog().len(), CATALOG.len());
    }
}
