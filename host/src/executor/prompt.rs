//! The `prompt` executor: one LLM completion per call, through the Anthropic Messages API
//! or any OpenAI-compatible chat-completions endpoint (reference section 3.5).
//!
//! The prompt's `$ARGUMENTS` becomes the input JSON (`\$` is a literal dollar); without
//! it the JSON is appended. The model must answer `{"ok": true}` or
//! `{"ok": false, "reason": …, "impossible": …}`; code fences and text around one JSON
//! object are tolerated, anything else is a non-blocking error naming the hook. What
//! `ok: false` does depends on the event ([`effect`]).

use std::time::Duration;

use reqwest::Client;
use serde_json::{Value, json};

use super::{BoxFuture, Executor, HookCall};
use crate::config::PromptHandler;
use crate::event::{EventSpec, PromptEffect};
use crate::outcome::HookRun;
use crate::output::{HookAnswer, PermissionDecision};

/// Which API shape the endpoint speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Provider {
    /// `POST {base}/v1/messages` with `x-api-key`.
    Anthropic,
    /// `POST {base}/chat/completions` with a bearer token.
    OpenAi,
}

/// Engine-wide LLM settings.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LlmOptions {
    /// API shape.
    pub provider: Provider,
    /// Base URL (Anthropic: without `/v1`; OpenAI-compatible: including `/v1`).
    pub base_url: String,
    /// Model used when a hook sets none.
    pub model: String,
    /// Name of the environment variable holding the API key.
    pub api_key_env: String,
    /// Token cap of one answer.
    pub max_tokens: u32,
    /// The API key itself, for hosts that hold it (takes precedence over `api_key_env`).
    pub api_key: Option<String>,
}

impl std::fmt::Debug for LlmOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmOptions")
            .field("provider", &self.provider)
            .field("base_url", &self.base_url)
            .field("model", &self.model)
            .field("api_key_env", &self.api_key_env)
            .field("max_tokens", &self.max_tokens)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

impl LlmOptions {
    /// Defaults for `provider`.
    pub fn for_provider(provider: Provider) -> Self {
        match provider {
            Provider::Anthropic => Self {
                provider,
                base_url: "https://api.anthropic.com".into(),
                model: "claude-haiku-4-5".into(),
                api_key_env: "ANTHROPIC_API_KEY".into(),
                max_tokens: 512,
                api_key: None,
            },
            Provider::OpenAi => Self {
                provider,
                base_url: "https://api.openai.com/v1".into(),
                model: "gpt-4o-mini".into(),
                api_key_env: "OPENAI_API_KEY".into(),
                max_tokens: 512,
                api_key: None,
            },
        }
    }

    /// These options with the owners' `promptEndpoint` applied: each field it sets
    /// replaces this one (a provider switch starts from that provider's defaults).
    pub(crate) fn with_endpoint(self, endpoint: &crate::config::PromptEndpoint) -> Self {
        let provider = match endpoint.openai {
            Some(true) => Provider::OpenAi,
            Some(false) => Provider::Anthropic,
            None => self.provider,
        };
        let base = if provider == self.provider {
            self
        } else {
            Self {
                api_key: self.api_key,
                max_tokens: self.max_tokens,
                ..Self::for_provider(provider)
            }
        };
        Self {
            base_url: endpoint.base_url.clone().unwrap_or(base.base_url),
            model: endpoint.model.clone().unwrap_or(base.model),
            api_key_env: endpoint.api_key_env.clone().unwrap_or(base.api_key_env),
            ..base
        }
    }
}

/// The Anthropic Messages API with its defaults. No environment variable changes it: the
/// owners' `promptEndpoint` setting does (see [`LlmOptions::with_endpoint`]).
impl Default for LlmOptions {
    fn default() -> Self {
        Self::for_provider(Provider::Anthropic)
    }
}

/// Default timeout of a prompt hook.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

const SYSTEM: &str = "You evaluate a hook in an AI coding agent. Read the request and the hook input JSON. \
Answer with exactly one JSON object and nothing else: {\"ok\": true} when the condition is satisfied, or \
{\"ok\": false, \"reason\": \"<why, and what to do instead>\"} when it is not. On Stop events you may add \
\"impossible\": true when the work cannot be completed.";

/// Runs one `prompt` hook.
pub struct PromptExecutor {
    handler: PromptHandler,
    client: Client,
    options: LlmOptions,
}

impl PromptExecutor {
    /// An executor for one configured prompt.
    pub fn new(handler: PromptHandler, client: Client, options: LlmOptions) -> Self {
        Self {
            handler,
            client,
            options,
        }
    }
}

impl Executor for PromptExecutor {
    /// 30 s, whatever the event.
    fn default_timeout(&self, _event: &EventSpec) -> Duration {
        DEFAULT_TIMEOUT
    }

    fn execute<'a>(&'a self, call: HookCall) -> BoxFuture<'a, HookRun> {
        Box::pin(async move {
            match tokio::time::timeout(call.timeout, self.ask(&call)).await {
                Ok(Ok(verdict)) => effect(
                    &verdict,
                    call.event.prompt_effect,
                    self.handler.continue_on_block,
                ),
                Ok(Err(message)) => {
                    HookRun::non_blocking(format!("prompt hook {}: {message}", call.name))
                }
                Err(_) => HookRun::timed_out(call.timeout, "no answer from the model"),
            }
        })
    }
}

/// The model's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// The condition holds.
    pub ok: bool,
    /// Why not.
    pub reason: Option<String>,
    /// The work cannot be completed (Stop events).
    pub impossible: bool,
}

impl PromptExecutor {
    async fn ask(&self, call: &HookCall) -> Result<Verdict, String> {
        let key = match &self.options.api_key {
            Some(key) => key.clone(),
            None => std::env::var(&self.options.api_key_env).map_err(|_| {
                format!(
                    "environment variable {} (the API key) is not set",
                    self.options.api_key_env
                )
            })?,
        };
        let model = self.handler.model.as_deref().unwrap_or(&self.options.model);
        let prompt = render_prompt(&self.handler.prompt, call.input.json());
        let base = self.options.base_url.trim_end_matches('/');
        let request = match self.options.provider {
            Provider::Anthropic => self
                .client
                .post(format!("{base}/v1/messages"))
                .header("x-api-key", key)
                .header("anthropic-version", "2023-06-01")
                .json(&json!({
                    "model": model,
                    "max_tokens": self.options.max_tokens,
                    "system": SYSTEM,
                    "messages": [{"role": "user", "content": prompt}],
                })),
            Provider::OpenAi => self
                .client
                .post(format!("{base}/chat/completions"))
                .bearer_auth(key)
                .json(&json!({
                    "model": model,
                    "max_tokens": self.options.max_tokens,
                    "messages": [
                        {"role": "system", "content": SYSTEM},
                        {"role": "user", "content": prompt}
                    ],
                })),
        };
        let response = request
            .send()
            .await
            .map_err(|err| format!("request to the model failed: {}", err.without_url()))?;
        let status = response.status();
        let body: Value = response.json().await.map_err(|err| {
            format!("the model API answered HTTP {status} with a body that is not JSON: {err}")
        })?;
        if !status.is_success() {
            let message = body
                .pointer("/error/message")
                .and_then(Value::as_str)
                .unwrap_or("no error message");
            return Err(format!("the model API answered HTTP {status}: {message}"));
        }
        let text = match self.options.provider {
            Provider::Anthropic => body.get("content").and_then(Value::as_array).map(|blocks| {
                blocks
                    .iter()
                    .filter_map(|b| b.get("text").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join("")
            }),
            Provider::OpenAi => body
                .pointer("/choices/0/message/content")
                .and_then(Value::as_str)
                .map(str::to_string),
        }
        .ok_or("the model API response has no text")?;
        parse_verdict(&text)
    }
}

/// Replaces `$ARGUMENTS` with the input JSON (`\$` stays a literal `$`); appends the JSON
/// when the prompt has no `$ARGUMENTS`.
pub fn render_prompt(prompt: &str, input_json: &str) -> String {
    let mut out = String::with_capacity(prompt.len() + input_json.len());
    let mut used = false;
    let mut rest = prompt;
    while let Some(pos) = rest.find(['$', '\\']) {
        out.push_str(&rest[..pos]);
        let tail = &rest[pos..];
        if let Some(after) = tail.strip_prefix("\\$") {
            out.push('$');
            rest = after;
        } else if let Some(after) = tail.strip_prefix("$ARGUMENTS") {
            out.push_str(input_json);
            used = true;
            rest = after;
        } else {
            out.push_str(&tail[..1]);
            rest = &tail[1..];
        }
    }
    out.push_str(rest);
    if !used {
        out.push_str("\n\n");
        out.push_str(input_json);
    }
    out
}

/// Finds the one JSON object with a boolean `ok` in the model's text.
pub fn parse_verdict(text: &str) -> Result<Verdict, String> {
    for (start, _) in text.match_indices('{') {
        let mut objects = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
        if let Some(Ok(value)) = objects.next()
            && let Some(ok) = value.get("ok").and_then(Value::as_bool)
        {
            let reason = value
                .get("reason")
                .and_then(Value::as_str)
                .map(str::to_string);
            if !ok && reason.as_deref().is_none_or(str::is_empty) {
                return Err("the model answered ok:false without a reason".into());
            }
            return Ok(Verdict {
                ok,
                reason,
                impossible: value
                    .get("impossible")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
            });
        }
    }
    let preview = crate::text::shorten(text, 120);
    Err(format!(
        "the model did not answer {{\"ok\": …}} JSON: {preview:?}"
    ))
}

/// What a verdict does on `event` (reference section 3.5).
pub fn effect(verdict: &Verdict, effect: PromptEffect, continue_on_block: bool) -> HookRun {
    if verdict.ok {
        return HookRun::answer(HookAnswer::default());
    }
    let reason = verdict.reason.clone().unwrap_or_default();
    let block = HookAnswer {
        block: true,
        reason: Some(reason.clone()),
        ..HookAnswer::default()
    };
    let end_turn = |mut output: HookAnswer| {
        output.continue_ = Some(false);
        output.stop_reason = Some(reason.clone());
        output
    };
    let output = match effect {
        PromptEffect::BlockStop if verdict.impossible => HookAnswer {
            system_message: Some(format!(
                "prompt hook: the work cannot be completed: {reason}"
            )),
            ..HookAnswer::default()
        },
        PromptEffect::BlockStop | PromptEffect::Block => block,
        PromptEffect::Deny => {
            let deny = HookAnswer {
                permission_decision: Some(PermissionDecision::Deny),
                permission_decision_reason: Some(reason.clone()),
                ..block
            };
            if continue_on_block {
                deny
            } else {
                end_turn(deny)
            }
        }
        PromptEffect::EndTurnUnlessContinue if continue_on_block => block,
        PromptEffect::EndTurnUnlessContinue | PromptEffect::EndTurn => end_turn(block),
        PromptEffect::None => HookAnswer::default(),
    };
    HookRun::answer(output)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::HookStatus;

    #[test]
    fn prompt_rendering() {
        assert_eq!(render_prompt("check $ARGUMENTS now", "{}"), "check {} now");
        assert_eq!(
            render_prompt("costs \\$5: $ARGUMENTS", "{}"),
            "costs $5: {}"
        );
        assert_eq!(
            render_prompt("is it safe?", "{\"a\":1}"),
            "is it safe?\n\n{\"a\":1}"
        );
        assert_eq!(render_prompt("$HOME", "{}"), "$HOME\n\n{}");
    }

    #[test]
    fn verdict_parsing() {
        assert!(parse_verdict("{\"ok\": true}").unwrap().ok);
        let fenced = "Sure.\n```json\n{\"ok\": false, \"reason\": \"tests fail\"}\n```\nDone.";
        assert_eq!(
            parse_verdict(fenced).unwrap().reason.as_deref(),
            Some("tests fail")
        );
        assert!(parse_verdict("{\"x\": 1} then {\"ok\": true}").unwrap().ok);
        assert!(parse_verdict("yes").is_err());
        assert!(parse_verdict("{\"ok\": \"yes\"}").is_err());
        assert!(parse_verdict("{\"ok\": false}").is_err());
    }

    fn on(event: &str) -> PromptEffect {
        crate::event::EventSpec::for_name(event).prompt_effect
    }

    #[test]
    fn effects_per_event() {
        let no = Verdict {
            ok: false,
            reason: Some("r".into()),
            impossible: false,
        };
        let stop = effect(&no, on("Stop"), false);
        assert!(stop.output.block && stop.output.continue_.is_none());
        let pre = effect(&no, on("PreToolUse"), false);
        assert_eq!(
            pre.output.permission_decision,
            Some(PermissionDecision::Deny)
        );
        assert_eq!(pre.output.continue_, Some(false));
        assert_eq!(effect(&no, on("PreToolUse"), true).output.continue_, None);
        assert_eq!(
            effect(&no, on("PermissionRequest"), false).status,
            HookStatus::Success
        );
        assert!(!effect(&no, on("PermissionRequest"), false).output.blocks());
        let impossible = Verdict {
            impossible: true,
            ..no.clone()
        };
        assert!(!effect(&impossible, on("Stop"), false).output.block);
        assert_eq!(
            effect(&no, on("TeammateIdle"), false).output.continue_,
            Some(false)
        );
        assert_eq!(effect(&no, on("TeammateIdle"), true).output.continue_, None);
    }
}
