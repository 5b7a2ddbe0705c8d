//! The fleet's policy as the owner's layer: the managed settings' `policy` names an OCI
//! reference; the revision this machine activated (see [`crate::fleet`]) is read, its
//! signature checked against the managed settings' `trustedSigners`, and its settings
//! join the managed layer. A `policy` anywhere else is ignored (and said); a named policy
//! with no verified revision is a lost guard: every event is refused until one is
//! activated.

use super::owners::{owner_values, signing_policy};
use super::source::Source;
use super::{Diagnostic, Layer, LoadOptions, Severity};
use crate::fleet::store::PolicyStore;

/// The policy this configuration runs, as `status`, `explain` and the audit log name it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PolicyState {
    /// The reference the managed settings name.
    pub reference: String,
    /// The active revision (manifest digest), when one verified.
    pub revision: Option<String>,
    /// When it was activated (RFC 3339).
    pub activated_at: Option<String>,
    /// Why no revision is in force (then every event is refused).
    pub error: Option<String>,
    /// The machine's policy store (`<config dir>/policy`).
    pub store: std::path::PathBuf,
    /// Seconds between `serve`'s pulls (managed `policyInterval`, default 300, at least
    /// 10).
    pub interval: u64,
}

/// Default seconds between `serve`'s pulls of the policy.
pub const DEFAULT_POLICY_INTERVAL: u64 = 300;

/// Reads the policy the managed `sources` name into them (after the last managed file);
/// returns its state. A policy named but unusable is a lost guard among `diags`.
pub(super) fn read(
    options: &LoadOptions,
    sources: &mut Vec<Source>,
    diags: &mut Vec<Diagnostic>,
) -> Option<PolicyState> {
    for source in sources.iter().filter(|s| s.layer != Layer::Managed) {
        if source
            .value
            .as_ref()
            .is_some_and(|v| v.get("policy").is_some())
        {
            diags.push(Diagnostic::new(
                Severity::Warning,
                source.label.clone(),
                "policy",
                "`policy` counts only in managed settings; ignored",
            ));
        }
    }
    let (label, value) = owner_values(sources, "policy", true)
        .into_iter()
        .next()
        .map(|(source, value)| (source.label.clone(), value.clone()))?;
    let store = store_dir(options).unwrap_or_default();
    let mut state = PolicyState {
        reference: value.as_str().unwrap_or_default().to_string(),
        revision: None,
        activated_at: None,
        error: None,
        store: store.clone(),
        interval: owner_values(sources, "policyInterval", true)
            .into_iter()
            .find_map(|(_, value)| value.as_u64())
            .map_or(DEFAULT_POLICY_INTERVAL, |secs| secs.max(10)),
    };
    let mut lost = |state: &mut PolicyState, message: String| {
        diags.push(Diagnostic::lost_guard(
            label.clone(),
            "policy",
            format!("the owner's policy {}: {message}", state.reference),
        ));
        state.error = Some(message);
        Some(state.clone())
    };
    let reference = match value.as_str().map(crate::oci::OciRef::parse) {
        Some(Ok(reference)) => reference,
        Some(Err(err)) => return lost(&mut state, err.to_string()),
        None => return lost(&mut state, "`policy` must be an oci:// reference".into()),
    };
    if store.as_os_str().is_empty() {
        return lost(
            &mut state,
            "no configuration folder to keep the policy in (give --config-dir)".into(),
        );
    }
    let managed: Vec<Source> = sources
        .iter()
        .filter(|s| s.layer == Layer::Managed)
        .cloned()
        .collect();
    let signing = signing_policy(&managed, &mut Vec::new());
    let store = PolicyStore::at(&store);
    let verified = match store.verified(&signing) {
        Ok(verified) if verified.record.reference == reference.as_str() => verified,
        Ok(verified) => {
            return lost(
                &mut state,
                format!(
                    "the active revision was pulled from {}, not this reference (run `hookhost policy pull`)",
                    verified.record.reference
                ),
            );
        }
        Err(message) => return lost(&mut state, message),
    };
    state.revision = Some(verified.record.revision.clone());
    state.activated_at = Some(verified.record.activated_at.clone());
    let at = sources
        .iter()
        .rposition(|s| s.layer == Layer::Managed)
        .map_or(0, |i| i + 1);
    sources.insert(
        at,
        Source {
            layer: Layer::Managed,
            label: verified
                .dir
                .join(crate::fleet::store::DOCUMENT_FILE)
                .display()
                .to_string(),
            value: Some(verified.settings),
            base_dir: options.project_dir.clone(),
            toml: false,
        },
    );
    Some(state)
}

/// The policy store `options` read from (what self-protection keeps the agent out of).
pub(super) fn store_dir(options: &LoadOptions) -> Option<std::path::PathBuf> {
    super::options::config_dir(options)
        .map(|dir| PolicyStore::in_config_dir(&dir).root().to_path_buf())
}

/// What `hookhost policy pull` needs: the reference the managed settings name, their
/// signers and the machine's store. `Ok(None)` when they name no policy.
pub fn named(
    options: &LoadOptions,
) -> Result<
    Option<(
        crate::oci::OciRef,
        crate::signing::SigningPolicy,
        PolicyStore,
    )>,
    String,
> {
    let mut diags = Vec::new();
    let managed = super::source::managed_sources(options, &mut diags);
    let Some((source, value)) = owner_values(&managed, "policy", true).into_iter().next() else {
        return Ok(None);
    };
    let reference = value
        .as_str()
        .ok_or_else(|| format!("{}: `policy` must be an oci:// reference", source.label))
        .and_then(|text| {
            crate::oci::OciRef::parse(text).map_err(|e| format!("{}: {e}", source.label))
        })?;
    let signing = signing_policy(&managed, &mut diags);
    let store = store_dir(options)
        .map(|dir| PolicyStore::at(&dir))
        .ok_or("no configuration folder to keep the policy in (give --config-dir)")?;
    Ok(Some((reference, signing, store)))
}
