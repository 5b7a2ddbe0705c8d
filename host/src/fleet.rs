//! The fleet's policy: the owner's whole policy as one signed OCI artifact, pulled,
//! verified and activated on each machine as the owner's layer ([`document`],
//! [`artifact`], [`store`], [`pull`]). What each machine decided leaves through
//! [`crate::export`].
//!
//! The managed settings name the policy (`"policy": "oci://REGISTRY/REPO:TAG"`) and the
//! keys that sign it (`trustedSigners`); nothing else can — not a user file, not a
//! repository, not the environment. A machine runs the revision it activated last,
//! offline too, and re-checks its signature at every start; a revision signed before
//! the active one is refused as a rollback.

use std::path::{Path, PathBuf};

pub mod artifact;
pub mod document;
pub mod pull;
pub mod store;

/// Why a policy could not be built, published, pulled or activated.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum PolicyError {
    /// The owner's hook file cannot become a policy.
    #[error("{file}: {message}")]
    Build {
        /// The hook file or policy folder.
        file: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The registry refused or could not be reached.
    #[error("{reference}: {message}")]
    Registry {
        /// The reference.
        reference: String,
        /// What the registry or the network said.
        message: String,
    },
    /// The artifact is not a hookhost policy.
    #[error("{reference}: not a hookhost policy artifact ({message})")]
    NotPolicy {
        /// The reference.
        reference: String,
        /// What is wrong.
        message: String,
    },
    /// A blob is not the one the manifest names.
    #[error(
        "{reference}: the registry served a blob whose digest is {actual}, not the {expected} its manifest names; refused"
    )]
    Digest {
        /// The reference.
        reference: String,
        /// The manifest's digest.
        expected: String,
        /// What the bytes hash to.
        actual: String,
    },
    /// The artifact carries no signature.
    #[error("{reference}: the policy is not signed; refused")]
    Unsigned {
        /// The reference.
        reference: String,
    },
    /// The managed settings name no signer, so no policy can be verified.
    #[error(
        "{reference}: the managed settings name no `trustedSigners`; a policy is only activated when one of them signed it"
    )]
    NoSigners {
        /// The reference.
        reference: String,
    },
    /// The artifact failed verification (signature, pins).
    #[error("{reference}: refused: {message}")]
    Refused {
        /// The reference.
        reference: String,
        /// Why.
        message: String,
    },
    /// The reference now names a revision signed before the active one.
    #[error(
        "{reference}: now names {revision}, signed at {signed} (unix time), before the active {active} (signed at {active_signed}); refused as a rollback. To go back deliberately, sign the older policy again"
    )]
    Rollback {
        /// The reference.
        reference: String,
        /// The revision it names now.
        revision: String,
        /// When that was signed.
        signed: u64,
        /// The active revision.
        active: String,
        /// When the active one was signed.
        active_signed: u64,
    },
    /// The machine's policy store failed.
    #[error("the policy store {path}: {message}")]
    Store {
        /// The store path.
        path: PathBuf,
        /// What failed.
        message: String,
    },
}

/// Publishes the signed policy in `dir` (what `hookhost policy build` wrote and
/// `minisign -Sm dir/policy.json` signed) as `reference`; returns its revision.
pub fn publish(dir: &Path, reference: &crate::oci::OciRef) -> Result<String, PolicyError> {
    let bad = |message: String| PolicyError::Build {
        file: dir.to_path_buf(),
        message,
    };
    let document_path = dir.join(store::DOCUMENT_FILE);
    let document = crate::files::read_regular(&document_path, document::MAX_DOCUMENT_BYTES)
        .map_err(|e| bad(format!("{}: {e}", document_path.display())))?;
    let signature_path = crate::signing::signature_path(&document_path);
    let signature =
        crate::files::read_regular(&signature_path, crate::signing::MAX_SIGNATURE_BYTES as u64)
            .map_err(|e| {
                bad(format!(
                    "{}: {e}; sign the policy first: minisign -Sm {}",
                    signature_path.display(),
                    document_path.display()
                ))
            })?;
    let (_, pinned) = document::parse(&document).map_err(bad)?;
    let mut components = Vec::new();
    for (name, _) in pinned {
        let bytes =
            crate::files::read_regular(&dir.join(&name), crate::oci::DEFAULT_MAX_COMPONENT_BYTES)
                .map_err(|e| bad(format!("{name}: {e}")))?;
        components.push((name, bytes));
    }
    artifact::push(
        reference,
        artifact::Parts {
            document,
            signature,
            components,
        },
    )
}

/// Writes the policy of the owner's hook file `hooks_file` into `dir`: `policy.json` (to
/// sign) and the components it carries. Returns the document's path.
pub fn build_into(hooks_file: &Path, dir: &Path) -> Result<PathBuf, PolicyError> {
    let built = document::build(hooks_file)?;
    let bad = |e: std::io::Error| PolicyError::Build {
        file: dir.to_path_buf(),
        message: e.to_string(),
    };
    std::fs::create_dir_all(dir.join("components")).map_err(bad)?;
    let document_path = dir.join(store::DOCUMENT_FILE);
    crate::files::replace_private(&document_path, &built.document).map_err(bad)?;
    // An old signature is of other bytes.
    let _ = std::fs::remove_file(crate::signing::signature_path(&document_path));
    for (name, bytes) in &built.components {
        crate::files::replace_private(&dir.join(name), bytes).map_err(bad)?;
    }
    Ok(document_path)
}
