//! Admission: what each hook may do, decided once, when its executor is built (at load
//! for configured hooks, at registration for session hooks), from one definition of the
//! owners ([`crate::Layer::is_owner`]) and their policy.
//!
//! A hook is run, skipped (an untrusted workspace's unsandboxed hook: reported `skipped`
//! on every call) or refused (a Wasm grant, environment variable or missing pin the
//! owners' bounds do not allow; an HTTP URL outside `allowedHttpHookUrls`): a refused hook
//! is a load error and fails every call, blocking when it is `failClosed`. Nothing later
//! in the pipeline re-decides.

use std::path::PathBuf;
use std::sync::Arc;

use crate::config::{Handler, HookSpec, HttpPolicy, WasmGrantPolicy};

/// What a hook may do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Admission {
    /// It runs, with what admission already parsed and checked for it.
    Run(Permit),
    /// It never runs; every call reports `skipped` with this reason.
    Skip(String),
    /// The owners' policy refuses it: a load error, and every call fails (a block when
    /// `failClosed`) with this reason.
    Refuse(String),
}

/// What admission hands the executor of a hook it lets run, parsed once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Permit {
    /// Nothing beyond the hook's own entry.
    Entry,
    /// An HTTP hook's URL, parsed and allowed by `allowedHttpHookUrls`.
    Url(reqwest::Url),
}

/// The owners' policy, as admission reads it.
#[derive(Debug, Clone, Default)]
pub(crate) struct AdmissionPolicy {
    /// Wasm grant bounds and pinning.
    pub grants: WasmGrantPolicy,
    /// `allowedHttpHookUrls`, `httpHookAllowedEnvVars`.
    pub http: Arc<HttpPolicy>,
    /// The project directory (`${CLAUDE_PROJECT_DIR}` in grant bounds).
    pub project: Option<PathBuf>,
}

/// The reason every skipped hook of an untrusted workspace reports.
pub const UNTRUSTED: &str = "workspace is not trusted: its command, http and prompt hooks do not run (trust it with `hookhost trust DIR` or `hookhost fire --trust-workspace`)";

/// Decides what `spec` may do under `policy`.
pub(crate) fn admit(spec: &HookSpec, policy: &AdmissionPolicy) -> Admission {
    let sandboxed = matches!(spec.handler, Handler::Wasm(_));
    if !spec.trusted && !sandboxed {
        return Admission::Skip(UNTRUSTED.into());
    }
    let refusal = match &spec.handler {
        // A registry reference makes hookhost contact the host it names at load: an
        // untrusted repository may not choose where this machine connects (loopback
        // services included).
        Handler::Wasm(wasm)
            if !spec.trusted && crate::oci::OciRef::is_oci(&wasm.component.to_string_lossy()) =>
        {
            Some(format!(
                "{}: an untrusted workspace's hook may not name a registry component (its registry would be contacted at load); trust the workspace or use a local file",
                wasm.component.display()
            ))
        }
        Handler::Wasm(_) => policy.grants.refusal(spec, policy.project.as_deref()),
        Handler::Http(http) => {
            return match policy.http.checked_url(&http.url) {
                Ok(url) => Admission::Run(Permit::Url(url)),
                Err(reason) => Admission::Refuse(reason),
            };
        }
        _ => None,
    };
    match refusal {
        Some(reason) => Admission::Refuse(reason),
        None => Admission::Run(Permit::Entry),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Layer;

    fn spec(handler: serde_json::Value, layer: Layer, trusted: bool) -> HookSpec {
        let mut spec = crate::config::settings::test_spec(handler);
        spec.layer = layer;
        spec.trusted = trusted;
        spec
    }

    #[test]
    fn an_untrusted_workspace_names_no_registry() {
        let policy = AdmissionPolicy::default();
        let wasm = serde_json::json!({"type": "wasm", "component": "oci://127.0.0.1:8080/x:1"});
        assert!(matches!(
            admit(&spec(wasm.clone(), Layer::Project, false), &policy),
            Admission::Refuse(reason) if reason.contains("untrusted workspace")
        ));
        assert!(matches!(
            admit(&spec(wasm, Layer::Project, true), &policy),
            Admission::Run(Permit::Entry)
        ));
    }

    #[test]
    fn one_decision_per_hook() {
        let policy = AdmissionPolicy {
            http: Arc::new(HttpPolicy {
                allowed_urls: Some(vec!["https://policy.internal/*".into()]),
                allowed_env_vars: None,
            }),
            ..AdmissionPolicy::default()
        };
        let command = serde_json::json!({"type": "command", "command": "true"});
        assert_eq!(
            admit(&spec(command.clone(), Layer::Project, false), &policy),
            Admission::Skip(UNTRUSTED.into())
        );
        assert_eq!(
            admit(&spec(command, Layer::Project, true), &policy),
            Admission::Run(Permit::Entry)
        );
        let allowed = serde_json::json!({"type": "http", "url": "https://policy.internal/check"});
        assert_eq!(
            admit(&spec(allowed, Layer::User, true), &policy),
            Admission::Run(Permit::Url(
                reqwest::Url::parse("https://policy.internal/check").unwrap()
            ))
        );
        let other = serde_json::json!({"type": "http", "url": "https://elsewhere.example/x"});
        assert!(matches!(
            admit(&spec(other, Layer::User, true), &policy),
            Admission::Refuse(reason) if reason.contains("allowedHttpHookUrls")
        ));
        // Sandboxed hooks of an untrusted workspace run, bounded.
        let wasm = serde_json::json!({"type": "wasm", "component": "/x.wasm",
                                      "allowedPaths": [{"path": "/etc", "write": false}]});
        assert!(matches!(
            admit(&spec(wasm, Layer::Project, false), &policy),
            Admission::Refuse(reason) if reason.contains("grant `/etc`")
        ));
    }
}
