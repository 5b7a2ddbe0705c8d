//! The owners' word: which layers' keys count (managed ▸ `--settings` ▸ user), workspace
//! trust and how far it reaches, the flags that switch hooks off, the Wasm grant bounds,
//! owners' guards a dialect cannot run, and de-duplication that keeps the most trusted
//! copy.

use serde_json::Value;

use super::grant_policy::WasmGrantPolicy;
use super::options::{LoadOptions, config_dir};
use super::source::Source;
use super::trust::{self, Trust, TrustedBy};
use super::{Diagnostic, DroppedHook, HookSpec, Layer, Severity};

/// The effective boolean of `key`, by precedence: managed > `--settings` > local >
/// project > user. Returns the value and the layer it came from.
pub(super) fn effective_flag(sources: &[Source], key: &str) -> Option<(bool, Layer)> {
    let rank = |layer: &Layer| match layer {
        Layer::Managed => 0,
        Layer::Settings => 1,
        Layer::Local => 2,
        Layer::Project => 3,
        _ => 4,
    };
    let mut found: Option<(usize, bool, Layer)> = None;
    for source in sources {
        let Some(value) = source.value.as_ref().and_then(|v| v.get(key)) else {
            continue;
        };
        let flag = value.as_bool().unwrap_or(true);
        let r = rank(&source.layer);
        if found.as_ref().is_none_or(|(best, _, _)| r < *best) {
            found = Some((r, flag, source.layer.clone()));
        }
    }
    found.map(|(_, flag, layer)| (flag, layer))
}

pub(super) fn merge_list<'a>(
    sources: impl Iterator<Item = &'a Source>,
    key: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<Vec<String>> {
    let mut merged: Option<Vec<String>> = None;
    for source in sources {
        let Some(value) = source.value.as_ref().and_then(|v| v.get(key)) else {
            continue;
        };
        let list = merged.get_or_insert_with(Vec::new);
        match value.as_array() {
            Some(items) => list.extend(items.iter().filter_map(Value::as_str).map(str::to_string)),
            None => diags.push(Diagnostic::new(
                Severity::Error,
                source.label.clone(),
                key.to_string(),
                "must be an array of strings; treated as empty",
            )),
        }
    }
    merged
}

/// In an untrusted workspace the project and local files contribute their `hooks` only
/// (of which only Wasm hooks run): every other key — `disableAllHooks`,
/// `allowedHttpHookUrls`, … — is dropped, with a warning, so a cloned repository cannot
/// switch off or widen the user's policy.
pub(super) fn keep_only_hooks_of_untrusted(source: &mut Source, diags: &mut Vec<Diagnostic>) {
    let Some(Value::Object(map)) = &mut source.value else {
        return;
    };
    let ignored: Vec<String> = map.keys().filter(|k| *k != "hooks").cloned().collect();
    if ignored.is_empty() {
        return;
    }
    map.retain(|key, _| key == "hooks");
    diags.push(Diagnostic::new(
        Severity::Warning,
        source.label.clone(),
        String::new(),
        format!(
            "workspace is not trusted: settings {} ignored",
            ignored
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ));
}

/// Whether the project's settings are trusted, and why (`None`: untrusted).
pub(super) fn workspace_trust(options: &LoadOptions, sources: &[Source]) -> Option<TrustedBy> {
    let gate = owner_values(sources, "requireWorkspaceTrust", true)
        .into_iter()
        .find_map(|(_, value)| value.as_bool())
        .unwrap_or(true);
    if !gate {
        return Some(TrustedBy::GateOff);
    }
    match options.trust {
        Trust::Trusted => Some(TrustedBy::Caller),
        Trust::Untrusted => None,
        Trust::Discover => {
            let project = options.project_dir.as_deref()?;
            trust::lookup(
                project,
                options.home.as_deref(),
                config_dir(options).as_deref(),
            )
        }
    }
}

/// The owners' Wasm grant bounds, from managed, user and `--settings` layers.
pub(super) fn grant_policy(
    sources: &[Source],
    options: &LoadOptions,
    diags: &mut Vec<Diagnostic>,
) -> WasmGrantPolicy {
    let mut policy = WasmGrantPolicy {
        require_pinned: owner_values(sources, "requirePinnedWasm", true)
            .into_iter()
            .any(|(_, value)| value.as_bool() == Some(true)),
        ..WasmGrantPolicy::default()
    };
    let problem = |source: &Source, key: &str, message: String| {
        Diagnostic::new(
            Severity::Error,
            source.label.clone(),
            key.to_string(),
            message,
        )
    };
    for (source, value) in owner_values(sources, "wasmHookAllowedPaths", false) {
        for message in policy.add_paths(
            value,
            options.project_dir.as_deref(),
            options.home.as_deref(),
        ) {
            diags.push(problem(source, "wasmHookAllowedPaths", message));
        }
    }
    for (source, value) in owner_values(sources, "wasmHookAllowedEnvVars", false) {
        if let Some(message) = policy.add_env_vars(value) {
            diags.push(problem(source, "wasmHookAllowedEnvVars", message));
        }
    }
    policy
}

/// `key` in the owners' layers (managed, `--settings`, user: in that order of
/// precedence), or only in managed settings when `managed_only`.
pub(super) fn owner_values<'a>(
    sources: &'a [Source],
    key: &str,
    managed_only: bool,
) -> Vec<(&'a Source, &'a Value)> {
    let rank = |layer: &Layer| {
        let counts = if managed_only {
            *layer == Layer::Managed
        } else {
            layer.is_owner()
        };
        counts.then(|| layer.authority())
    };
    let mut found: Vec<(u8, &Source, &Value)> = sources
        .iter()
        .filter_map(|source| {
            let value = source.value.as_ref()?.get(key)?;
            Some((rank(&source.layer)?, source, value))
        })
        .collect();
    found.sort_by_key(|(rank, _, _)| *rank);
    found.into_iter().map(|(_, s, v)| (s, v)).collect()
}

/// The boolean `key` as the machine's owners set it: honoured only in managed, user and
/// `--settings` layers (precedence managed > `--settings` > user), so a repository
/// cannot switch a safeguard off.
pub(super) fn owner_flag(sources: &[Source], key: &str) -> Option<bool> {
    owner_values(sources, key, false)
        .into_iter()
        .find_map(|(_, value)| value.as_bool())
}

pub(super) fn apply_policy(
    sources: &[Source],
    hooks: &mut Vec<HookSpec>,
    dropped: &mut Vec<DroppedHook>,
    diags: &mut Vec<Diagnostic>,
) {
    // Which hooks stay: none, managed ones, or (a repository's switch) the owners'.
    #[derive(PartialEq)]
    enum Stay {
        Nothing,
        Managed,
        Owners,
    }
    let mut keep = |hooks: &mut Vec<HookSpec>, why: &str, stay: Stay| {
        hooks.retain(|hook| {
            let stays = match stay {
                Stay::Nothing => false,
                Stay::Managed => hook.layer == Layer::Managed,
                Stay::Owners => hook.layer.is_owner(),
            };
            if !stays {
                dropped.push(DroppedHook::new(hook, why.to_string()));
            }
            stays
        })
    };
    let note = |message: &str| {
        Diagnostic::new(
            Severity::Warning,
            "settings",
            String::new(),
            message.to_string(),
        )
    };
    if let Some((true, layer)) = effective_flag(sources, "disableAllHooks") {
        if layer == Layer::Managed {
            keep(
                hooks,
                "disabled: disableAllHooks in managed settings",
                Stay::Nothing,
            );
            diags.push(note(
                "disableAllHooks in managed settings: every hook is off",
            ));
        } else if layer.is_owner() {
            keep(
                hooks,
                "disabled: disableAllHooks (only managed hooks run)",
                Stay::Managed,
            );
            diags.push(note("disableAllHooks: only managed hooks run"));
        } else {
            // A repository, trusted or not, switches off its own hooks, never the guards
            // its owners configured.
            keep(
                hooks,
                "disabled: the project's disableAllHooks (the owners' hooks still run)",
                Stay::Owners,
            );
            diags.push(note(
                "disableAllHooks in the project's settings: its own hooks are off; the owners' hooks still run",
            ));
        }
        return;
    }
    let managed_only = sources
        .iter()
        .filter(|s| s.layer == Layer::Managed)
        .filter_map(|s| s.value.as_ref()?.get("allowManagedHooksOnly"))
        .any(|v| v.as_bool() != Some(false));
    if managed_only {
        keep(
            hooks,
            "disabled: allowManagedHooksOnly in managed settings",
            Stay::Managed,
        );
        diags.push(note("allowManagedHooksOnly: only managed hooks run"));
    }
}

/// Drops identical handlers configured in several settings files. Of equal hooks the
/// copy from the layer of strongest authority stays (a trusted copy before an untrusted
/// one), in its own place: a repository that repeats an owner's guard verbatim cannot
/// replace it with a copy that is then skipped as untrusted. Plugin hooks are never
/// merged with each other or with settings hooks.
pub(super) fn dedup(hooks: Vec<HookSpec>, dropped: &mut Vec<DroppedHook>) -> Vec<HookSpec> {
    use std::collections::HashMap;
    let key = |hook: &HookSpec| {
        let owner = match &hook.layer {
            Layer::Plugin(name) => format!("plugin:{name}"),
            _ => "settings".to_string(),
        };
        format!(
            "{owner}\u{1}{}\u{1}{:?}\u{1}{:?}\u{1}{:?}\u{1}{:?}",
            hook.event,
            hook.matcher_text,
            hook.condition.as_ref().map(|c| c.as_str().to_string()),
            hook.handler,
            hook.sequential
        )
    };
    let rank = |hook: &HookSpec| (hook.layer.authority(), !hook.trusted);
    // The index of the copy that stays, per key.
    let mut keep: HashMap<String, usize> = HashMap::new();
    let keys: Vec<String> = hooks.iter().map(key).collect();
    for (index, hook) in hooks.iter().enumerate() {
        keep.entry(keys[index].clone())
            .and_modify(|kept| {
                if rank(hook) < rank(&hooks[*kept]) {
                    *kept = index;
                }
            })
            .or_insert(index);
    }
    let kept_at: Vec<(String, String)> = hooks
        .iter()
        .map(|hook| (hook.file.clone(), hook.location.clone()))
        .collect();
    hooks
        .into_iter()
        .enumerate()
        .filter(|(index, hook)| {
            let kept = keep[&keys[*index]];
            if kept != *index {
                let (file, location) = &kept_at[kept];
                dropped.push(DroppedHook::new(
                    hook,
                    format!(
                        "duplicate: the identical hook at {file}: {location} is the copy that runs (identical handlers run once; the strongest authority's copy is kept)"
                    ),
                ));
            }
            kept == *index
        })
        .map(|(_, hook)| hook)
        .collect()
}

/// The owners' signing policy: `trustedSigners` (`[{"name", "publicKey"}]`, every owner
/// layer's entries together) and `requireSignedWasm` (on when any owner layer sets it:
/// one owner requiring signatures is not undone by another's silence).
pub(super) fn signing_policy(
    sources: &[Source],
    diags: &mut Vec<Diagnostic>,
) -> crate::signing::SigningPolicy {
    let mut policy = crate::signing::SigningPolicy {
        require: owner_values(sources, "requireSignedWasm", false)
            .iter()
            .any(|(_, value)| value.as_bool() == Some(true)),
        ..Default::default()
    };
    for (source, value) in owner_values(sources, "trustedSigners", false) {
        let mut warn = |location: String, message: String| {
            diags.push(Diagnostic::new(
                Severity::Error,
                source.label.clone(),
                location,
                message,
            ))
        };
        let Some(entries) = value.as_array() else {
            warn(
                "trustedSigners".into(),
                "`trustedSigners` is not a list".into(),
            );
            continue;
        };
        for (index, entry) in entries.iter().enumerate() {
            let field = |name: &str| entry.get(name).and_then(Value::as_str);
            match (field("name"), field("publicKey")) {
                (Some(name), Some(key)) => match crate::signing::TrustedSigner::new(name, key) {
                    Ok(signer) => policy.signers.push(signer),
                    Err(message) => warn(format!("trustedSigners[{index}]"), message),
                },
                _ => warn(
                    format!("trustedSigners[{index}]"),
                    "a signer needs `name` and `publicKey` (a minisign public key); skipped".into(),
                ),
            }
        }
    }
    policy
}

/// The owners' `promptEndpoint` (managed ▸ `--settings` ▸ user; never a repository's, and
/// never the environment): which API prompt hooks call, which model answers by default,
/// and which environment variable holds the key — so a repository can neither send the
/// owner's prompt guard, and the key with it, to an endpoint of its choosing, nor make
/// hookhost send another secret as the key.
pub(super) fn prompt_endpoint(
    sources: &[Source],
    diags: &mut Vec<Diagnostic>,
) -> Option<super::PromptEndpoint> {
    let (source, value) = owner_values(sources, "promptEndpoint", false)
        .into_iter()
        .next()?;
    let mut warn = |field: &str, message: String| {
        diags.push(Diagnostic::new(
            Severity::Error,
            source.label.clone(),
            format!("promptEndpoint.{field}"),
            message,
        ))
    };
    let Some(object) = value.as_object() else {
        warn("", "`promptEndpoint` is not an object; ignored".into());
        return None;
    };
    let text = |name: &str| object.get(name).and_then(Value::as_str).map(str::to_string);
    let mut endpoint = super::PromptEndpoint::default();
    match text("provider").as_deref() {
        None => {}
        Some("anthropic") => endpoint.openai = Some(false),
        Some("openai") => endpoint.openai = Some(true),
        Some(other) => warn(
            "provider",
            format!("`{other}` is neither `anthropic` nor `openai`; ignored"),
        ),
    }
    if let Some(url) = text("baseUrl") {
        if url.starts_with("https://") || url.starts_with("http://") {
            endpoint.base_url = Some(url);
        } else {
            warn("baseUrl", format!("`{url}` is no http(s) URL; ignored"));
        }
    }
    endpoint.model = text("model").filter(|model| !model.is_empty());
    if let Some(name) = text("apiKeyEnv") {
        let plain =
            !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if plain {
            endpoint.api_key_env = Some(name);
        } else {
            warn(
                "apiKeyEnv",
                format!("`{name}` is no environment variable name; ignored"),
            );
        }
    }
    Some(endpoint)
}

/// The owners' `selfProtection` (managed ▸ `--settings` ▸ user; a repository's is
/// ignored): `false` turns it off; an object may set `enabled`, add `paths` to the
/// protected set and take `allow` paths out of it.
pub(super) fn self_protection(
    sources: &[Source],
    diags: &mut Vec<Diagnostic>,
) -> super::SelfProtectionSettings {
    let mut settings = super::SelfProtectionSettings {
        enabled: true,
        ..Default::default()
    };
    let Some((source, value)) = owner_values(sources, "selfProtection", false)
        .into_iter()
        .next()
    else {
        return settings;
    };
    let mut warn = |field: &str, message: &str| {
        diags.push(Diagnostic::new(
            Severity::Error,
            source.label.clone(),
            format!("selfProtection{field}"),
            message.to_string(),
        ))
    };
    match value {
        Value::Bool(enabled) => settings.enabled = *enabled,
        Value::Object(object) => {
            if let Some(enabled) = object.get("enabled") {
                match enabled.as_bool() {
                    Some(enabled) => settings.enabled = enabled,
                    None => warn(".enabled", "not a boolean; self-protection stays on"),
                }
            }
            for (key, list) in [
                ("paths", &mut settings.paths),
                ("allow", &mut settings.allow),
            ] {
                for (index, entry) in object
                    .get(key)
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .enumerate()
                {
                    match entry.as_str().map(std::path::PathBuf::from) {
                        Some(path) if path.is_absolute() => list.push(path),
                        _ => warn(&format!(".{key}[{index}]"), "not an absolute path; skipped"),
                    }
                }
            }
        }
        _ => warn(
            "",
            "neither a boolean nor an object; self-protection stays on",
        ),
    }
    settings
}
