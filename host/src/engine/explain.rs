//! `explain`: for every configured hook, whether it would run for an input and, if not,
//! why — event, matcher (with the value tested), `if`, `once`, trust, a refusal by the
//! owners' policy, or its removal at load (a duplicate, a policy switch, the layering).
//! Nothing runs and no `once` is claimed.

use serde::Serialize;

use super::inner::Inner;
use super::select::{Check, MatchInput};
use crate::config::ExecutorKind;
use crate::hook_input::HookInput;
use crate::matcher::Matcher;

/// Whether one configured hook runs for an input, and why not.
#[derive(Debug, Clone, Serialize)]
#[non_exhaustive]
pub struct HookVerdict {
    /// The hook's display name.
    pub name: String,
    /// The event it is configured for.
    pub event: String,
    /// Its file and place there.
    pub file: String,
    /// Where in the file.
    pub location: String,
    /// Its handler type (`None` for a hook dropped at load).
    pub executor: Option<ExecutorKind>,
    /// Whether it runs for this input.
    pub runs: bool,
    /// Why it does not run, or a note on how it runs (`once`, matcher ignored).
    pub why: Option<String>,
}

/// [`crate::Engine::explain`]: for every configured hook, and every hook left out at load,
/// whether it runs for `event` with `input`, and why not.
pub(super) fn explain(inner: &Inner, input: &HookInput) -> Vec<HookVerdict> {
    let event = input.event.clone();
    let context = MatchInput::new(input, inner.home.as_deref());
    let mut verdicts = Vec::new();
    for hook in &inner.hooks {
        let spec = &hook.spec;
        let mut runs = false;
        let why = if spec.event != event {
            Some(format!("event: configured for `{}`", spec.event))
        } else if let Some(error) = hook.executor.load_error() {
            Some(format!(
                "refused: {error} (every call fails; a block when failClosed)"
            ))
        } else if !spec.trusted && spec.handler.executor_kind() != ExecutorKind::Wasm {
            Some(crate::admission::UNTRUSTED.to_string())
        } else {
            let value = context.value().map(|v| format!("`{v}`"));
            let field = event.matcher_field.unwrap_or("value");
            let matcher = spec.matcher_text.as_deref().unwrap_or("*");
            let condition = spec.condition.as_ref().map(|c| c.as_str().to_string());
            match context.check(spec) {
                Check::MatcherMiss if matches!(spec.matcher, Matcher::Tool(_)) => Some(format!(
                    "matcher: the tool rule `{matcher}` does not match this tool call"
                )),
                Check::MatcherMiss => Some(format!(
                    "matcher: `{matcher}` does not match {field} {}",
                    value.unwrap_or_else(|| "(absent)".into())
                )),
                Check::IfOnToolEventsOnly => Some(format!(
                    "if: `{}` applies to tool events only; on `{event}` the hook never fires",
                    condition.unwrap_or_default()
                )),
                Check::IfMiss => Some(format!(
                    "if: `{}` does not match this tool call",
                    condition.unwrap_or_default()
                )),
                Check::Fires => {
                    runs = true;
                    let mut notes = Vec::new();
                    if event.known && event.matcher_field.is_none() && spec.matcher_text.is_some() {
                        notes.push(format!(
                            "matcher `{matcher}` ignored: `{event}` has no matcher"
                        ));
                    } else if let Some(value) = value.filter(|_| spec.matcher_text.is_some()) {
                        notes.push(format!("matcher `{matcher}` matches {field} {value}"));
                    }
                    if let Some(condition) = condition {
                        notes.push(format!("if `{condition}` matches"));
                    }
                    if spec.once {
                        notes.push("once: only the first time per session".into());
                    }
                    (!notes.is_empty()).then(|| notes.join("; "))
                }
            }
        };
        verdicts.push(HookVerdict {
            name: hook.name.to_string(),
            event: spec.event.to_string(),
            file: spec.file.clone(),
            location: spec.location.clone(),
            executor: Some(spec.handler.executor_kind()),
            runs,
            why,
        });
    }
    for dropped in &inner.dropped {
        verdicts.push(HookVerdict {
            name: dropped.name.clone(),
            event: dropped.event.clone(),
            file: dropped.file.clone(),
            location: dropped.location.clone(),
            executor: None,
            runs: false,
            why: Some(dropped.why.clone()),
        });
    }
    verdicts
}
