//! Reads the `hooks` section of a settings file (or a plugin's `hooks.json`) entry by
//! entry. Raw serde types mirror the file; each entry is resolved on its own, so a bad
//! entry becomes a diagnostic naming file, event and index and the rest still loads.
//!
//! Claude Code's handler types tolerate unknown fields (real plugins add their own); the
//! `wasm` type is ours and is strict, so a misspelt limit is reported instead of ignored.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use super::{
    AllowedPath, CommandHandler, Diagnostic, Handler, HookSpec, HttpHandler, Layer, PromptHandler,
    RunMode, Severity, Shell, WasmHandler,
};
use crate::condition::Rule;
use crate::dialect::{Dialect, TimeoutZero};
use crate::event::ModeRule;
use crate::event::{EventSpec, Handlers};
use crate::matcher::Matcher;

/// What a file's entries share.
#[derive(Debug, Clone)]
pub struct FileContext {
    /// File label for diagnostics and reports.
    pub file: String,
    /// The layer it belongs to.
    pub layer: Layer,
    /// Base directory for `/pattern` rules.
    pub base_dir: Option<PathBuf>,
    /// What a relative Wasm `component` path is relative to: the folder of the file that
    /// names it (`None`: `base_dir`, for inline settings and session hooks).
    pub component_base: Option<PathBuf>,
    /// `${NAME}` placeholders expanded in commands, args, urls and paths.
    pub vars: Vec<(String, String)>,
    /// Environment added to the hooks of this file.
    pub env: Vec<(String, String)>,
    /// Whether the file is trusted to run unsandboxed hooks (see [`HookSpec::trusted`]).
    pub trusted: bool,
    /// The dialect the file is written in.
    pub dialect: &'static Dialect,
    /// Whether its `Tool(args)` matchers are tool patterns (see `Dialect::tool_patterns`).
    pub tool_patterns: bool,
}

impl FileContext {
    pub(crate) fn diag(&self, severity: Severity, location: String, message: String) -> Diagnostic {
        Diagnostic::new(severity, self.file.clone(), location, message)
    }

    /// Replaces every `${NAME}` placeholder this file defines.
    pub fn expand(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (name, value) in &self.vars {
            out = out.replace(&format!("${{{name}}}"), value);
        }
        out
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawCommon {
    #[serde(rename = "type")]
    kind: Option<String>,
    #[serde(rename = "if")]
    condition: Option<String>,
    timeout: Option<f64>,
    status_message: Option<String>,
    #[serde(default)]
    once: bool,
    name: Option<String>,
    fail_closed: Option<Value>,
    #[serde(rename = "async")]
    run_async: Option<Value>,
    async_rewake: Option<Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawCommand {
    command: String,
    args: Option<Vec<String>>,
    shell: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawWasm {
    #[serde(rename = "type")]
    _kind: String,
    #[serde(rename = "if")]
    _condition: Option<String>,
    #[serde(rename = "timeout")]
    _timeout: Option<f64>,
    #[serde(rename = "statusMessage")]
    _status_message: Option<String>,
    #[serde(rename = "once")]
    _once: Option<bool>,
    #[serde(rename = "name")]
    _name: Option<String>,
    #[serde(rename = "async")]
    _async: Option<bool>,
    #[serde(rename = "asyncRewake")]
    _async_rewake: Option<bool>,
    component: String,
    fuel: Option<u64>,
    memory_mb: Option<u64>,
    /// Read with the entry's common fields ([`RawCommon`]); named here only so the strict
    /// reader accepts it.
    #[serde(rename = "failClosed", default)]
    _fail_closed: serde::de::IgnoredAny,
    #[serde(default)]
    allowed_paths: Vec<RawAllowedPath>,
    #[serde(default)]
    env: Vec<String>,
    #[serde(default)]
    config: Value,
    max_output_bytes: Option<usize>,
    sha256: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAllowedPath {
    path: String,
    #[serde(default)]
    write: bool,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawHttp {
    url: String,
    method: Option<String>,
    #[serde(default)]
    headers: serde_json::Map<String, Value>,
    #[serde(default)]
    allowed_env_vars: Vec<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawPrompt {
    prompt: String,
    model: Option<String>,
    #[serde(default)]
    continue_on_block: bool,
}

fn from_value<T: for<'de> Deserialize<'de>>(value: &Value) -> Result<T, String> {
    T::deserialize(value).map_err(|err| err.to_string())
}

/// Whether any handler entry of an event's matcher `groups` is `failClosed`.
fn any_fail_closed(groups: &Value) -> bool {
    groups
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|group| group.get("hooks")?.as_array())
        .flatten()
        .any(|entry| entry.get("failClosed") == Some(&Value::Bool(true)))
}

/// Reads `hooks` (the object mapping event names to matcher groups) into `out`.
pub fn read_hooks(
    hooks: &Value,
    ctx: &FileContext,
    out: &mut Vec<HookSpec>,
    diags: &mut Vec<Diagnostic>,
) {
    let Some(events) = hooks.as_object() else {
        diags.push(ctx.diag(
            Severity::Error,
            "hooks".into(),
            "`hooks` must be an object mapping event names to matcher groups; skipped".into(),
        ));
        return;
    };
    for (event, groups) in events {
        let spec = match ctx.dialect.lookup(event) {
            Some(spec) => spec,
            None if ctx.dialect.events.is_some() => {
                // An owner's hook is never dropped quietly: the dialect was chosen from
                // other files, and the guard would simply be gone. A failClosed one is a
                // lost guard: the front door blocks every event until it is fixed.
                let location = format!("hooks.{event}");
                let not_ours = format!("`{event}` is not a {} event", ctx.dialect.name);
                diags.push(if !ctx.layer.is_owner() {
                    ctx.diag(Severity::Warning, location, format!("{not_ours}; skipped"))
                } else if any_fail_closed(groups) {
                    Diagnostic::lost_guard(
                        ctx.file.clone(),
                        location,
                        format!("{not_ours}; the owner's failClosed hook for it cannot run"),
                    )
                } else {
                    ctx.diag(
                        Severity::Error,
                        location,
                        format!("{not_ours}; the owner's hooks for it cannot run"),
                    )
                });
                continue;
            }
            None => {
                diags.push(ctx.diag(
                    Severity::Warning,
                    format!("hooks.{event}"),
                    format!("unknown event `{event}`: kept as a custom event"),
                ));
                EventSpec::custom()
            }
        };
        let Some(groups) = groups.as_array() else {
            diags.push(ctx.diag(
                Severity::Error,
                format!("hooks.{event}"),
                "expected an array of matcher groups; event skipped".into(),
            ));
            continue;
        };
        for (index, group) in groups.iter().enumerate() {
            read_group(event, spec, index, group, ctx, out, diags);
        }
    }
}

fn read_group(
    event: &str,
    spec: &EventSpec,
    index: usize,
    group: &Value,
    ctx: &FileContext,
    out: &mut Vec<HookSpec>,
    diags: &mut Vec<Diagnostic>,
) {
    let location = format!("hooks.{event}[{index}]");
    let error = |message: String| ctx.diag(Severity::Error, location.clone(), message);
    let Some(object) = group.as_object() else {
        diags.push(error("a matcher group must be an object; skipped".into()));
        return;
    };
    let matcher_text = match object.get("matcher") {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) => Some(text.clone()),
        Some(_) => {
            diags.push(error("`matcher` must be a string; group skipped".into()));
            return;
        }
    };
    let matcher = match Matcher::compile_in(matcher_text.as_deref(), spec, ctx.tool_patterns) {
        Ok(matcher) => matcher,
        Err(err) => {
            diags.push(error(format!("{err}; group skipped")));
            return;
        }
    };
    if spec.known
        && let Some(why) = matcher.never_matches(spec)
    {
        diags.push(ctx.diag(
            Severity::Warning,
            location.clone(),
            format!("this matcher never fires: {why}"),
        ));
    }
    if spec.known && spec.matcher_field.is_none() && !matches!(matcher, Matcher::Any) {
        diags.push(ctx.diag(
            Severity::Warning,
            location.clone(),
            format!("`{event}` has no matcher support; the matcher is ignored"),
        ));
    }
    let group_timeout = match object.get("timeout") {
        None | Some(Value::Null) => None,
        Some(value) => match value.as_f64() {
            Some(secs) if secs.is_finite() && secs > 0.0 => {
                Some(Duration::from_secs_f64(secs.min(MAX_TIMEOUT_SECS)))
            }
            _ => {
                diags.push(error(
                    "matcher group `timeout` must be a positive number of seconds; group skipped"
                        .into(),
                ));
                return;
            }
        },
    };
    let sequential = match object.get("sequential") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => {
            diags.push(error(
                "`sequential` must be a boolean; group skipped".into(),
            ));
            return;
        }
    };
    let Some(handlers) = object.get("hooks").and_then(Value::as_array) else {
        diags.push(error(
            "`hooks` must be an array of handlers; group skipped".into(),
        ));
        return;
    };
    let group_id = format!("{}#{location}", ctx.file);
    for (hook_index, raw) in handlers.iter().enumerate() {
        let location = format!("{location}.hooks[{hook_index}]");
        match read_handler(raw, spec, ctx) {
            Ok((handler, common)) => {
                for warning in &common.warnings {
                    diags.push(ctx.diag(Severity::Warning, location.clone(), warning.clone()));
                }
                if common.condition.is_some() && spec.known && !spec.tool_event {
                    diags.push(ctx.diag(
                        Severity::Warning,
                        location.clone(),
                        format!("`if` is only evaluated on tool events; on `{event}` this hook never runs"),
                    ));
                }
                if common.mode != RunMode::Sync
                    && spec.known
                    && (spec.can_block || spec.honours(crate::event::Fields::PERMISSION_DECISION))
                {
                    diags.push(ctx.diag(
                        Severity::Warning,
                        location.clone(),
                        format!(
                            "`async` hook {} on `{event}` can never decide: the event does not wait for it, so its block or permission decision is ignored",
                            common.name.clone().unwrap_or_else(|| handler.display_name())
                        ),
                    ));
                }
                if let Handler::Unsupported(kind) = &handler {
                    diags.push(ctx.diag(
                        Severity::Warning,
                        location.clone(),
                        format!("`{kind}` hooks are not supported by hookhost; it will be reported as an error when it fires"),
                    ));
                }
                out.push(HookSpec {
                    event: ctx.dialect.event(event),
                    matcher: matcher.clone(),
                    matcher_text: matcher_text.clone(),
                    condition: common.condition,
                    handler,
                    timeout: common.timeout,
                    group_timeout,
                    mode: common.mode,
                    status_message: common.status_message,
                    once: common.once,
                    sequential,
                    group: group_id.clone(),
                    location: location.clone(),
                    layer: ctx.layer.clone(),
                    file: ctx.file.clone(),
                    base_dir: ctx.base_dir.clone(),
                    env: ctx.env.clone(),
                    name: common.name,
                    fail_closed: common.fail_closed,
                    trusted: ctx.trusted,
                });
            }
            Err(refusal) => {
                let (severity, message) = match refusal {
                    Refusal::Error(message) => (Severity::Error, message),
                    Refusal::Warning(message) => (Severity::Warning, message),
                };
                diags.push(ctx.diag(severity, location, format!("{message}; hook skipped")))
            }
        }
    }
}

/// Why a hook entry was skipped: malformed (an error) or valid but not accepted where it
/// stands (a warning).
enum Refusal {
    Error(String),
    Warning(String),
}

impl From<String> for Refusal {
    fn from(message: String) -> Self {
        Refusal::Error(message)
    }
}

impl From<&str> for Refusal {
    fn from(message: &str) -> Self {
        Refusal::Error(message.to_string())
    }
}

struct Common {
    condition: Option<Rule>,
    timeout: Option<Duration>,
    status_message: Option<String>,
    once: bool,
    name: Option<String>,
    fail_closed: bool,
    mode: RunMode,
    /// Values that were out of range and adjusted (the hook still loads).
    warnings: Vec<String>,
}

/// Largest `timeout` a hook may set (seconds); larger values are capped with a warning.
/// A day: no hook protocol needs more, and it keeps every deadline computation in range.
pub const MAX_TIMEOUT_SECS: f64 = 86_400.0;

fn read_handler(
    raw: &Value,
    spec: &EventSpec,
    ctx: &FileContext,
) -> Result<(Handler, Common), Refusal> {
    if !raw.is_object() {
        return Err("a hook must be an object".into());
    }
    let common: RawCommon = from_value(raw)?;
    let mut warnings = Vec::new();
    let kind = match (&common.kind, ctx.dialect.type_default) {
        (Some(kind), _) => kind.clone(),
        (None, Some(default)) => default.to_string(),
        (None, None) => return Err("missing field `type`".into()),
    };
    let timeout = match common.timeout {
        Some(secs) if secs == 0.0 && ctx.dialect.timeout_zero == TimeoutZero::EventDefault => None,
        Some(secs) if secs == 0.0 && ctx.dialect.timeout_zero == TimeoutZero::Unlimited => {
            Some(Duration::from_secs_f64(MAX_TIMEOUT_SECS))
        }
        Some(secs) if !(secs.is_finite() && secs > 0.0) => {
            return Err(
                format!("`timeout` must be a positive number of seconds, found {secs}").into(),
            );
        }
        Some(secs) if secs > MAX_TIMEOUT_SECS => {
            warnings.push(format!(
                "`timeout` {secs} is out of range; capped at {MAX_TIMEOUT_SECS} seconds"
            ));
            Some(Duration::from_secs_f64(MAX_TIMEOUT_SECS))
        }
        Some(secs) => Some(Duration::from_secs_f64(secs)),
        None => None,
    };
    let mode = run_mode(&common, &kind, spec, ctx, &mut warnings)?;
    let condition = common
        .condition
        .as_deref()
        .map(Rule::parse)
        .transpose()
        .map_err(|err| format!("`if`: {err}"))?;
    let fail_closed = match &common.fail_closed {
        // A guard that comes with hookhost guards unless the entry says otherwise.
        None | Some(Value::Null) => {
            kind == "wasm"
                && raw
                    .get("component")
                    .and_then(Value::as_str)
                    .is_some_and(crate::builtin::Builtin::is_builtin)
        }
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err("`failClosed` must be a boolean".into()),
    };
    let llm = matches!(kind.as_str(), "prompt" | "agent");
    let accepted = match spec.handlers {
        Handlers::All => true,
        Handlers::NoLlm => !llm,
        Handlers::CommandOnly => matches!(kind.as_str(), "command" | "wasm" | "mcp_tool"),
    };
    if !accepted {
        return Err(Refusal::Warning(format!(
            "`{kind}` hooks are not accepted on `{}`",
            spec.name
        )));
    }
    let handler = match kind.as_str() {
        "command" => Handler::Command(read_command(raw, ctx)?),
        "wasm" => Handler::Wasm(read_wasm(raw, ctx)?),
        "http" => {
            let http: RawHttp = from_value(raw)?;
            let headers = http
                .headers
                .into_iter()
                .map(|(name, value)| match value {
                    Value::String(v) => Ok((name, v)),
                    _ => Err(Refusal::Error(format!("header `{name}` must be a string"))),
                })
                .collect::<Result<_, _>>()?;
            let method = http
                .method
                .as_deref()
                .unwrap_or("POST")
                .to_ascii_uppercase();
            if reqwest::Method::from_bytes(method.as_bytes()).is_err() {
                return Err(format!("`method` \"{method}\" is not an HTTP method").into());
            }
            Handler::Http(HttpHandler {
                url: ctx.expand(&http.url),
                method,
                headers,
                allowed_env_vars: http.allowed_env_vars,
            })
        }
        "prompt" => {
            let prompt: RawPrompt = from_value(raw)?;
            Handler::Prompt(PromptHandler {
                prompt: prompt.prompt,
                model: prompt.model,
                continue_on_block: prompt.continue_on_block,
            })
        }
        "agent" | "mcp_tool" => Handler::Unsupported(kind.clone()),
        other => return Err(format!("unknown hook type `{other}`").into()),
    };
    Ok((
        handler,
        Common {
            condition,
            timeout,
            status_message: common.status_message,
            once: common.once,
            name: common.name,
            fail_closed,
            mode,
            warnings,
        },
    ))
}

/// Whether the event waits for the hook: `async`/`asyncRewake` as the dialect allows
/// them (command hooks only in Claude Code, any executor in gen and hygge), evva's HTTP
/// hooks in the background unless `async: false`, and the event's [`ModeRule`].
fn run_mode(
    common: &RawCommon,
    kind: &str,
    spec: &EventSpec,
    ctx: &FileContext,
    warnings: &mut Vec<String>,
) -> Result<RunMode, Refusal> {
    let flag = |value: &Option<Value>, key: &str| match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(_) => Err(Refusal::Error(format!("`{key}` must be a boolean"))),
    };
    let run_async = flag(&common.run_async, "async")?;
    let rewake = flag(&common.async_rewake, "asyncRewake")?.unwrap_or(false);
    let dialect = ctx.dialect;
    let default_async = kind == "http" && dialect.http_async_default;
    let mut mode = if rewake {
        RunMode::AsyncRewake
    } else if run_async.unwrap_or(default_async) {
        RunMode::Async
    } else {
        RunMode::Sync
    };
    if mode != RunMode::Sync && kind != "command" && !dialect.async_any_executor && !default_async {
        warnings.push(format!(
            "`async` applies to command hooks only in the {} dialect; this {kind} hook runs synchronously",
            dialect.name
        ));
        mode = RunMode::Sync;
    }
    match spec.mode {
        ModeRule::SyncOnly if mode != RunMode::Sync => Err(Refusal::Warning(format!(
            "`async` is not allowed on `{}`: the event waits for its hooks",
            spec.name
        ))),
        ModeRule::AlwaysAsync if mode == RunMode::Sync => {
            warnings.push(format!(
                "hooks on `{}` always run in the background; this one is treated as async",
                spec.name
            ));
            Ok(RunMode::Async)
        }
        _ => Ok(mode),
    }
}

fn read_command(raw: &Value, ctx: &FileContext) -> Result<CommandHandler, String> {
    let command: RawCommand = from_value(raw)?;
    if command.command.trim().is_empty() {
        return Err("`command` is empty".into());
    }
    let shell = match command.shell.as_deref() {
        None | Some("sh") => Shell::Sh,
        Some("bash") => Shell::Bash,
        Some("powershell" | "pwsh") => Shell::PowerShell,
        Some(other) => {
            return Err(format!(
                "unsupported `shell` \"{other}\" (sh, bash or powershell)"
            ));
        }
    };
    Ok(CommandHandler {
        command: ctx.expand(&command.command),
        args: command
            .args
            .map(|args| args.iter().map(|a| ctx.expand(a)).collect()),
        shell,
    })
}

fn read_wasm(raw: &Value, ctx: &FileContext) -> Result<WasmHandler, String> {
    let wasm: RawWasm = from_value(raw)?;
    if wasm.component.trim().is_empty() {
        return Err("`component` is empty".into());
    }
    if wasm.memory_mb == Some(0) {
        return Err("`memoryMb` must be at least 1".into());
    }
    let resolve = |path: &str| {
        // A registry reference is taken as written: no `${…}` in it is expanded, so no
        // variable (some come from the environment) can move an owner's guard to another
        // registry or repository; one left in it fails to parse, by name.
        if crate::oci::OciRef::is_oci(path) || crate::builtin::Builtin::is_builtin(path) {
            return PathBuf::from(path);
        }
        let expanded = PathBuf::from(ctx.expand(path));
        match (
            ctx.component_base.as_ref().or(ctx.base_dir.as_ref()),
            expanded.is_relative(),
        ) {
            (Some(base), true) => base.join(expanded),
            _ => expanded,
        }
    };
    Ok(WasmHandler {
        component: resolve(&wasm.component),
        fuel: wasm.fuel,
        memory_mb: wasm.memory_mb,
        allowed_paths: wasm
            .allowed_paths
            .iter()
            .map(|p| AllowedPath {
                path: resolve(&p.path),
                write: p.write,
            })
            .collect(),
        env: wasm.env,
        config: match crate::builtin::Builtin::find(&wasm.component) {
            Some(builtin) => builtin.config(
                expand_strings(wasm.config, ctx),
                ctx.vars
                    .iter()
                    .find(|(name, _)| name == "CLAUDE_PROJECT_DIR")
                    .map(|(_, dir)| Path::new(dir)),
            ),
            None => expand_strings(wasm.config, ctx),
        },
        max_output_bytes: wasm.max_output_bytes,
        sha256: match wasm.sha256 {
            Some(hex) if hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()) => {
                Some(hex.to_ascii_lowercase())
            }
            Some(other) => {
                return Err(format!(
                    "`sha256` must be 64 hex digits, found \"{}\"",
                    crate::text::shorten(&other, 80)
                ));
            }
            None => None,
        },
    })
}

/// Expands placeholders in every string of a `config` value.
fn expand_strings(value: Value, ctx: &FileContext) -> Value {
    match value {
        Value::String(text) => Value::String(ctx.expand(&text)),
        Value::Array(items) => {
            Value::Array(items.into_iter().map(|v| expand_strings(v, ctx)).collect())
        }
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| (k, expand_strings(v, ctx)))
                .collect(),
        ),
        other => other,
    }
}

/// A trusted project file `settings.json` in `/proj` (tests).
#[cfg(test)]
fn test_ctx() -> FileContext {
    FileContext {
        file: "settings.json".into(),
        layer: Layer::Project,
        base_dir: Some("/proj".into()),
        component_base: None,
        vars: vec![("CLAUDE_PROJECT_DIR".into(), "/proj".into())],
        env: vec![],
        trusted: true,
        dialect: Dialect::claude(),
        tool_patterns: true,
    }
}

/// A hook read from one `PreToolUse` entry `handler` of a trusted project file (tests of
/// later stages).
#[cfg(test)]
pub(crate) fn test_spec(handler: Value) -> HookSpec {
    let hooks = serde_json::json!({"PreToolUse": [{"hooks": [handler]}]});
    let (mut out, mut diags) = (Vec::new(), Vec::new());
    read_hooks(&hooks, &test_ctx(), &mut out, &mut diags);
    out.pop()
        .unwrap_or_else(|| panic!("no hook read: {diags:?}"))
}

#[cfg(test)]
mod tests;
