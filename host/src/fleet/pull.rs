//! A pull: what the managed settings' `policy` reference names now, verified — signed by
//! a trusted signer of the managed settings, no older than the active revision, every
//! carried component the one the document pins — and activated; or refused, the active
//! revision kept, and why recorded for `status`.

use sha2::{Digest, Sha256};

use super::PolicyError;
use super::artifact::{Found, Parts, fetch};
use super::store::{ActiveRecord, PolicyStore};
use crate::oci::OciRef;
use crate::signing::SigningPolicy;

/// What a pull did.
#[derive(Debug, Clone)]
pub enum PullOutcome {
    /// The reference still names the active revision.
    Unchanged(ActiveRecord),
    /// A new revision is active.
    Activated(ActiveRecord),
}

/// Pulls `reference` into `store`, checked against the managed settings' `signing`.
pub fn pull(
    reference: &OciRef,
    store: &PolicyStore,
    signing: &SigningPolicy,
) -> Result<PullOutcome, PolicyError> {
    let outcome = pull_checked(reference, store, signing);
    store.record_pull(reference.as_str(), outcome.as_ref().err());
    outcome
}

fn pull_checked(
    reference: &OciRef,
    store: &PolicyStore,
    signing: &SigningPolicy,
) -> Result<PullOutcome, PolicyError> {
    if signing.signers.is_empty() {
        return Err(PolicyError::NoSigners {
            reference: reference.as_str().to_string(),
        });
    }
    let active = store.active();
    let current = active
        .as_ref()
        .filter(|record| record.reference == reference.as_str())
        .map(|record| record.revision.as_str());
    let (revision, parts) = match fetch(reference, current)? {
        Found::Unchanged => {
            return Ok(PullOutcome::Unchanged(
                active.expect("an unchanged revision is the active one"),
            ));
        }
        Found::Fetched { revision, parts } => (revision, parts),
    };
    let (signer, signed_at) = check(reference, &parts, signing)?;
    if let Some(active) = &active
        && signed_at < active.signed_at
    {
        return Err(PolicyError::Rollback {
            reference: reference.as_str().to_string(),
            revision,
            signed: signed_at,
            active: active.revision.clone(),
            active_signed: active.signed_at,
        });
    }
    let record = store.activate(reference.as_str(), &revision, &parts, &signer, signed_at)?;
    Ok(PullOutcome::Activated(record))
}

/// The signer and signing time of `parts`, whose components must be exactly the ones its
/// document pins.
fn check(
    reference: &OciRef,
    parts: &Parts,
    signing: &SigningPolicy,
) -> Result<(String, u64), PolicyError> {
    let refused = |message: String| PolicyError::Refused {
        reference: reference.as_str().to_string(),
        message,
    };
    let text = std::str::from_utf8(&parts.signature)
        .map_err(|_| refused("its signature is not a minisign signature".into()))?;
    let (signer, signed_at) = signing.signed_by(text, &parts.document).ok_or_else(|| {
        refused(format!(
            "its document is not signed by a trusted signer of the managed settings ({})",
            signing
                .signers
                .iter()
                .map(|s| s.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })?;
    let signed_at = signed_at.ok_or_else(|| {
        refused("its signature carries no signing time (`timestamp:` in the trusted comment, as `minisign -S` writes)".into())
    })?;
    let (_, pinned) = super::document::parse(&parts.document).map_err(refused)?;
    for (name, bytes) in &parts.components {
        let hex: String = Sha256::digest(bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        if !pinned
            .iter()
            .any(|(pin, digest)| pin == name && *digest == hex)
        {
            return Err(refused(format!(
                "the component `{name}` it carries is not one its document pins (its digest is sha256:{hex})"
            )));
        }
    }
    for (name, _) in &pinned {
        if !parts.components.iter().any(|(carried, _)| carried == name) {
            return Err(refused(format!(
                "its document pins `{name}`, which it does not carry"
            )));
        }
    }
    Ok((signer, signed_at))
}
