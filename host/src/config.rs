//! Configuration: Claude Code–compatible `settings.json` layers and plugin bundles,
//! resolved into a list of [`HookSpec`]s in configuration order.
//!
//! Loading is two-stage: [`settings`] reads raw JSON entry by entry (a bad entry becomes a
//! [`Diagnostic`] and is skipped, the rest loads), [`layer`] discovers the files and
//! merges the layers (managed ▸ user ▸ project ▸ local ▸ `--settings` ▸ plugins), and
//! [`plugin`] reads bundles. Only resolved types reach the engine.

mod discover;
pub(crate) mod envelope_setting;
pub mod grant_policy;
mod http_policy;
pub mod hygge;
pub mod layer;
mod options;
mod owners;
pub mod plugin;
mod policy_layer;
pub mod settings;
mod source;
mod telemetry_setting;
pub mod trust;

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

use crate::condition::Rule;
use crate::matcher::Matcher;

pub use discover::{candidate_files, detect, trusted_folder};
pub use grant_policy::WasmGrantPolicy;
pub use layer::load;
pub use options::{DEFAULT_MANAGED_PATH, FileSet, LoadOptions, OWN_MANAGED_PATH};
pub use policy_layer::{PolicyState, named as named_policy};
pub use telemetry_setting::TelemetrySettings;
pub use trust::{Trust, TrustError, TrustStore, TrustedBy};

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Severity {
    /// Something was skipped or could not be read.
    Error,
    /// Loaded, but probably not what was meant.
    Warning,
}

/// One problem found while loading configuration; always names the file and where.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[non_exhaustive]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// The file (or `--settings` argument) it concerns.
    pub file: String,
    /// Where in the file, e.g. `hooks.PreToolUse[0].hooks[1]`.
    pub location: String,
    /// What is wrong and what was done about it.
    pub message: String,
    /// What kind of problem it is, where the engine acts on it.
    #[serde(skip_serializing_if = "DiagnosticKind::is_problem")]
    pub kind: DiagnosticKind,
}

/// What kind of problem a [`Diagnostic`] reports, where the engine acts on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum DiagnosticKind {
    /// A problem to report; the engine runs what could be read.
    #[default]
    Problem,
    /// An owner's `failClosed` hook that cannot run: a guard lost, so the front door
    /// refuses every event until it is fixed.
    LostGuard,
}

impl DiagnosticKind {
    fn is_problem(&self) -> bool {
        *self == DiagnosticKind::Problem
    }
}

impl Diagnostic {
    /// A problem of `severity` in `file` at `location` (empty: the whole file).
    pub fn new(
        severity: Severity,
        file: impl Into<String>,
        location: impl Into<String>,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            severity,
            file: file.into(),
            location: location.into(),
            message: message.into(),
            kind: DiagnosticKind::Problem,
        }
    }

    /// An owner's `failClosed` hook that cannot run (an error).
    pub fn lost_guard(
        file: impl Into<String>,
        location: impl Into<String>,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            kind: DiagnosticKind::LostGuard,
            ..Diagnostic::new(Severity::Error, file, location, message)
        }
    }

    /// Whether it reports a guard lost.
    pub fn is_lost_guard(&self) -> bool {
        self.kind == DiagnosticKind::LostGuard
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let level = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        if self.location.is_empty() {
            write!(f, "{level}: {}: {}", self.file, self.message)
        } else {
            write!(
                f,
                "{level}: {}: {}: {}",
                self.file, self.location, self.message
            )
        }
    }
}

/// Where a hook was configured.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Layer {
    /// Managed policy settings.
    Managed,
    /// `~/.claude/settings.json`.
    User,
    /// `<project>/.claude/settings.json`.
    Project,
    /// `<project>/.claude/settings.local.json`.
    Local,
    /// An explicit `--settings` file.
    Settings,
    /// A plugin bundle, by name.
    Plugin(String),
    /// Registered at run time through the library.
    Session,
    /// hookhost itself, for a result no configured hook produced (a failure before any
    /// hook could run).
    Hookhost,
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label())
    }
}

/// Serialised as its label (`managed`, `plugin:<name>`, …).
impl serde::Serialize for Layer {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.label())
    }
}

impl PartialEq<&str> for Layer {
    fn eq(&self, other: &&str) -> bool {
        self.label() == *other
    }
}

impl Layer {
    /// The label used in reports and `hookhost list`.
    pub fn label(&self) -> String {
        match self {
            Layer::Hookhost => "hookhost".into(),
            Layer::Managed => "managed".into(),
            Layer::User => "user".into(),
            Layer::Project => "project".into(),
            Layer::Local => "local".into(),
            Layer::Settings => "settings".into(),
            Layer::Plugin(name) => format!("plugin:{name}"),
            Layer::Session => "session".into(),
        }
    }

    /// Whether the layer belongs to the machine's owners (managed settings, the user's
    /// own files, `--settings` given on the command line, hooks registered through the
    /// library, hookhost itself) rather than to a repository or a plugin. The one
    /// definition every policy decision reads: owner keys, first-decider order, grant
    /// bounds, duplicate removal.
    pub fn is_owner(&self) -> bool {
        matches!(
            self,
            Layer::Managed | Layer::User | Layer::Settings | Layer::Session | Layer::Hookhost
        )
    }

    /// Authority, lower is stronger: managed (0), `--settings` (1), user (2), session and
    /// hookhost (3), project and local (4), plugins (5). Of two identical hooks the one
    /// with the stronger authority is kept.
    pub fn authority(&self) -> u8 {
        match self {
            Layer::Managed => 0,
            Layer::Settings => 1,
            Layer::User => 2,
            Layer::Session | Layer::Hookhost => 3,
            Layer::Project | Layer::Local => 4,
            Layer::Plugin(_) => 5,
        }
    }
}

/// The shell a shell-form command runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shell {
    /// `sh -c` (the default).
    Sh,
    /// `bash -c`.
    Bash,
    /// PowerShell (`pwsh -NoProfile -Command`, else `powershell`), where installed.
    PowerShell,
}

/// Whether the engine waits for a hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RunMode {
    /// The event waits for the hook's answer.
    #[default]
    Sync,
    /// `async`: the hook runs in the background; its answer is reported as a notice.
    Async,
    /// `asyncRewake`: in the background; a block queues a notice that wakes the model.
    AsyncRewake,
}

/// A `command` hook.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandHandler {
    /// Shell string, or the executable in exec form.
    pub command: String,
    /// Exec-form arguments (no shell when present).
    pub args: Option<Vec<String>>,
    /// Shell for the shell form.
    pub shell: Shell,
}

/// A directory a Wasm hook may open.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct AllowedPath {
    /// Host directory.
    pub path: PathBuf,
    /// Read-write when true, read-only otherwise.
    pub write: bool,
}

/// A `wasm` hook.
#[derive(Debug, Clone, PartialEq)]
pub struct WasmHandler {
    /// Path to the component.
    pub component: PathBuf,
    /// Fuel budget per call.
    pub fuel: Option<u64>,
    /// Memory cap per call, MiB.
    pub memory_mb: Option<u64>,
    /// Preopened directories.
    pub allowed_paths: Vec<AllowedPath>,
    /// Environment variables passed through (names).
    pub env: Vec<String>,
    /// Per-hook config values offered through the `config` import.
    pub config: Value,
    /// Cap on the answer size, bytes.
    pub max_output_bytes: Option<usize>,
    /// `sha256`: the component's pinned digest (hex); other bytes are refused.
    pub sha256: Option<String>,
}

impl WasmHandler {
    /// A handler for `component` with every limit, grant and option at its default.
    pub fn new(component: impl Into<PathBuf>) -> Self {
        Self {
            component: component.into(),
            fuel: None,
            memory_mb: None,
            allowed_paths: Vec::new(),
            env: Vec::new(),
            config: Value::Null,
            max_output_bytes: None,
            sha256: None,
        }
    }
}

/// An `http` hook.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpHandler {
    /// Target.
    pub url: String,
    /// Request method (`POST` unless the entry sets `method`).
    pub method: String,
    /// Extra headers; values may reference granted env vars.
    pub headers: Vec<(String, String)>,
    /// Env var names that may be interpolated into headers.
    pub allowed_env_vars: Vec<String>,
}

/// A `prompt` hook.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptHandler {
    /// Prompt text (`$ARGUMENTS` is replaced by the input JSON).
    pub prompt: String,
    /// Model override.
    pub model: Option<String>,
    /// Keep going after `ok: false` where the event allows it.
    pub continue_on_block: bool,
}

/// What runs a hook.
#[derive(Debug, Clone, PartialEq)]
pub enum Handler {
    /// Shell or exec command.
    Command(CommandHandler),
    /// HTTP POST.
    Http(HttpHandler),
    /// One LLM completion.
    Prompt(PromptHandler),
    /// Wasm component.
    Wasm(WasmHandler),
    /// A handler type hookhost accepts in configuration but does not run (`agent`,
    /// `mcp_tool`); reported as a non-blocking error naming the type.
    Unsupported(String),
}

/// Which executor runs a hook: a closed set, serialised as its lowercase name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ExecutorKind {
    /// A shell command or program.
    Command,
    /// An HTTP endpoint.
    Http,
    /// One LLM prompt.
    Prompt,
    /// A Wasm component.
    Wasm,
    /// A type hookhost accepts in configuration but does not run.
    Unsupported,
    /// hookhost itself: a failure before any hook could run (unreadable input with a
    /// fail-closed hook configured).
    Hookhost,
}

impl ExecutorKind {
    /// The lowercase name (`command`, `http`, `prompt`, `wasm`, `unsupported`).
    pub fn as_str(self) -> &'static str {
        match self {
            ExecutorKind::Command => "command",
            ExecutorKind::Http => "http",
            ExecutorKind::Prompt => "prompt",
            ExecutorKind::Wasm => "wasm",
            ExecutorKind::Unsupported => "unsupported",
            ExecutorKind::Hookhost => "hookhost",
        }
    }
}

impl fmt::Display for ExecutorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for ExecutorKind {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl Handler {
    /// The executor that runs this handler.
    pub fn executor_kind(&self) -> ExecutorKind {
        match self {
            Handler::Command(_) => ExecutorKind::Command,
            Handler::Http(_) => ExecutorKind::Http,
            Handler::Prompt(_) => ExecutorKind::Prompt,
            Handler::Wasm(_) => ExecutorKind::Wasm,
            Handler::Unsupported(_) => ExecutorKind::Unsupported,
        }
    }

    /// A short human name for reports.
    pub fn display_name(&self) -> String {
        let name = match self {
            Handler::Command(c) => match &c.args {
                Some(args) if !args.is_empty() => format!("{} {}", c.command, args.join(" ")),
                _ => c.command.clone(),
            },
            Handler::Http(h) => redacted_url(&h.url),
            Handler::Prompt(p) => p.prompt.clone(),
            Handler::Wasm(w) => w
                .component
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| w.component.display().to_string()),
            Handler::Unsupported(kind) => kind.clone(),
        };
        crate::text::shorten(&crate::text::redact_userinfo(&name), 80)
    }
}

/// `url` without what may be a credential (user info, query, fragment), for names that
/// reach reports, listings and the audit log. Text that is not a URL is kept.
pub(crate) fn redacted_url(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut parsed) => {
            let _ = parsed.set_username("");
            let _ = parsed.set_password(None);
            parsed.set_query(None);
            parsed.set_fragment(None);
            parsed.to_string()
        }
        Err(_) => url.to_string(),
    }
}

/// One resolved hook.
#[derive(Debug, Clone)]
pub struct HookSpec {
    /// The event it is configured for.
    pub event: crate::dialect::Event,
    /// Compiled L2 matcher.
    pub matcher: Matcher,
    /// The matcher as written.
    pub matcher_text: Option<String>,
    /// The `if` rule.
    pub condition: Option<Rule>,
    /// What runs.
    pub handler: Handler,
    /// Per-hook timeout (the event default applies when absent).
    pub timeout: Option<Duration>,
    /// The matcher group's shared `timeout`: the group's hooks, run one after another,
    /// must all finish within it (Agent SDK).
    pub group_timeout: Option<Duration>,
    /// Whether the event waits for the hook.
    pub mode: RunMode,
    /// Spinner text while running.
    pub status_message: Option<String>,
    /// Run at most once per session.
    pub once: bool,
    /// Member of a `sequential` group.
    pub sequential: bool,
    /// Identifies the matcher group (file, event, index) for sequential runs.
    pub group: String,
    /// Where the entry stands in its file, e.g. `hooks.PreToolUse[0].hooks[1]`
    /// (`session` for session hooks): every diagnostic about the hook names it.
    pub location: String,
    /// Where it came from.
    pub layer: Layer,
    /// The file it came from.
    pub file: String,
    /// Base directory for `/pattern` rules (the project root for project settings).
    pub base_dir: Option<PathBuf>,
    /// Extra environment (`CLAUDE_PLUGIN_ROOT`, `CLAUDE_PLUGIN_DATA`).
    pub env: Vec<(String, String)>,
    /// Explicit name (`name` field), if any.
    pub name: Option<String>,
    /// `failClosed`: a failure of the hook (timeout, crash, bad answer, refused load)
    /// blocks the event, with a reason naming the hook.
    pub fail_closed: bool,
    /// Whether the hook may run unsandboxed: false for command, HTTP and prompt hooks of
    /// an untrusted workspace's project and local settings (they are reported `skipped`).
    pub trusted: bool,
}

impl HookSpec {
    /// The name used in reports.
    pub fn display_name(&self) -> String {
        match &self.name {
            Some(name) => crate::text::redact_userinfo(name).into_owned(),
            None => self.handler.display_name(),
        }
    }

    /// Whether a failure of this hook blocks the event (`failClosed`): read once, from
    /// the entry, for every executor.
    pub fn fail_closed(&self) -> bool {
        self.fail_closed
    }
}

/// Settings keys that govern HTTP hooks, merged across files.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HttpPolicy {
    /// `allowedHttpHookUrls`, if set anywhere.
    pub allowed_urls: Option<Vec<String>>,
    /// `httpHookAllowedEnvVars`, if set anywhere.
    pub allowed_env_vars: Option<Vec<String>>,
}

/// The owners' `promptEndpoint`: what prompt hooks call (each field `None`: the engine's
/// default). Only owner layers set it; the environment never does.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PromptEndpoint {
    /// `provider`: `Some(true)` for an OpenAI-compatible endpoint, `Some(false)` for the
    /// Anthropic Messages API.
    pub openai: Option<bool>,
    /// `baseUrl`.
    pub base_url: Option<String>,
    /// `model`: the model used when a hook names none.
    pub model: Option<String>,
    /// `apiKeyEnv`: the environment variable holding the API key.
    pub api_key_env: Option<String>,
}

/// The owners' `selfProtection` setting.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SelfProtectionSettings {
    /// On unless an owner turned it off.
    pub enabled: bool,
    /// Places added to the protected set.
    pub paths: Vec<PathBuf>,
    /// Places taken out of it.
    pub allow: Vec<PathBuf>,
}

/// The owners' `envelope` setting (managed ▸ `--settings` ▸ user; a repository's is
/// ignored): whether every shell command the agent runs gets the kernel's envelope, and
/// what the owner adds to it.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct EnvelopeSettings {
    /// Off unless an owner turns it on (`true`, or an object).
    pub enabled: bool,
    /// How strictly (`enforce`, the default, or the weaker `landlock-only`).
    pub mode: envelope_setting::Mode,
    /// What the network may reach.
    pub network: envelope_setting::Network,
    /// Folders the owner adds to the writable ones.
    pub writable: Vec<PathBuf>,
    /// Places the owner adds to the read-only ones (relative: to the project).
    pub read_only: Vec<PathBuf>,
    /// Signals only to processes of the same command (default off: a later command
    /// stopping a server an earlier one started is ordinary work).
    pub scope_signals: bool,
    /// Abstract unix sockets only when made inside (default on).
    pub scope_abstract_sockets: bool,
    /// The repository's own skills and slash commands (by `command_name`) whose `!` lines
    /// may run unenclosed: Claude Code cannot run those lines inside the envelope, so the
    /// repository's are refused unless the owner names them here.
    pub unenclosed_skills: Vec<String>,
    /// Unix sockets of processes outside that commands may still connect to (every other
    /// listening one is covered).
    pub sockets: Vec<PathBuf>,
    /// Whether commands may use the ssh-agent (`SSH_AUTH_SOCK`): signatures with the
    /// user's keys, which git over ssh needs when the key is in the agent only.
    pub ssh_agent: bool,
    /// Environment variables the enclosed command does not inherit.
    pub withhold_env: Vec<String>,
    /// Programs judged where they run inside the envelope, besides git and those the
    /// owner's `Bash(...)` conditions name (a Wasm guard's or a regex's programs).
    pub judge: Vec<String>,
}

/// Everything configuration produced.
#[derive(Debug, Clone)]
pub struct LoadedConfig {
    /// Hooks in configuration order.
    pub hooks: Vec<HookSpec>,
    /// Problems found; errors mean something was skipped.
    pub diagnostics: Vec<Diagnostic>,
    /// HTTP hook policy.
    pub http_policy: HttpPolicy,
    /// The project directory, if known.
    pub project_dir: Option<PathBuf>,
    /// The home directory, if known.
    pub home: Option<PathBuf>,
    /// Whether a rewritten input is validated again by the event's hooks
    /// (`revalidateRewrites`, default on).
    pub revalidate_rewrites: bool,
    /// Why the project's own settings are trusted (`None`: they are not, and their
    /// command, HTTP and prompt hooks are skipped).
    pub workspace_trust: Option<trust::TrustedBy>,
    /// `hookAuditLog` from managed or user settings.
    pub audit_log: Option<PathBuf>,
    /// The dialect the configuration was read in.
    pub dialect: crate::dialect::DialectId,
    /// Why that dialect: the file that revealed it, or `None` when it was given (or
    /// nothing was found and the default applies).
    pub dialect_detected_from: Option<PathBuf>,
    /// Owners' `failClosed` hooks the configuration holds but the engine cannot run (an
    /// event its dialect does not have): each is a load error, and while one stands every
    /// event is answered with a block naming it.
    pub lost_guards: Vec<String>,
    /// The owners' Wasm grant bounds and pinning rule (applied by admission).
    pub grant_policy: WasmGrantPolicy,
    /// The project's own files that were read (a repository's): their problems cost
    /// only their own hooks, never a reload of the owner's.
    pub repository_files: Vec<String>,
    /// Hooks configured but left out at load (a duplicate, a policy switch, the
    /// layering), each with why: what `hookhost explain` shows.
    pub dropped: Vec<DroppedHook>,
    /// `wasmCacheMaxMb` from the owners' settings: the artifact cache's cap.
    pub wasm_cache_max_mb: Option<u64>,
    /// `trustedSigners` and `requireSignedWasm` from the owners' settings.
    pub signing: crate::signing::SigningPolicy,
    /// `wasmUpdateInterval` from the owners' settings: seconds between checks of the
    /// OCI tags `serve` runs.
    pub wasm_update_interval: Option<u64>,
    /// `promptEndpoint` from the owners' settings.
    pub prompt_endpoint: Option<PromptEndpoint>,
    /// `selfProtection` from the owners' settings.
    pub self_protection: SelfProtectionSettings,
    /// `envelope` from the owners' settings.
    pub envelope: EnvelopeSettings,
    /// Every file that decides which hooks run (see self-protection).
    pub guard_files: Vec<PathBuf>,
    /// The fleet policy the managed settings name, and the revision in force.
    pub policy: Option<PolicyState>,
    /// `telemetry` from the owners' settings: where decisions are exported.
    pub telemetry: Option<TelemetrySettings>,
}

/// A configured hook that was left out at load, and why.
#[derive(Debug, Clone)]
pub struct DroppedHook {
    /// Its event.
    pub event: String,
    /// Its display name.
    pub name: String,
    /// Its file.
    pub file: String,
    /// Where in the file.
    pub location: String,
    /// Why it does not run.
    pub why: String,
}

impl DroppedHook {
    pub(crate) fn new(hook: &HookSpec, why: String) -> DroppedHook {
        DroppedHook {
            event: hook.event.to_string(),
            name: hook.display_name(),
            file: hook.file.clone(),
            location: hook.location.clone(),
            why,
        }
    }
}

impl LoadedConfig {
    /// A configuration with no files at all (tests of later stages).
    #[cfg(test)]
    pub(crate) fn empty() -> LoadedConfig {
        let nowhere = PathBuf::from("/nonexistent-hookhost-test");
        load(&LoadOptions {
            home: Some(nowhere.clone()),
            managed_path: Some(nowhere.join("managed.json")),
            ..Default::default()
        })
    }

    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }
}
