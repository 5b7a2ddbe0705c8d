//! The policy as an OCI artifact: one manifest whose layers are the document, its
//! minisign signature and the components it carries (each titled with the name the
//! document gives it). Its revision is the manifest's digest.

use std::collections::BTreeMap;

use oci_client::client::{Config, ImageLayer};

use super::PolicyError;
use super::document::{MAX_COMPONENTS, MAX_DOCUMENT_BYTES};
use crate::oci::{OciRef, SIGNATURE_LAYER, bounded, sha256_digest};

/// Media type of the policy document layer.
pub const DOCUMENT_LAYER: &str = "application/vnd.hookhost.policy.v1+json";
/// Media type of the artifact's config (its `artifactType`).
pub const POLICY_CONFIG: &str = "application/vnd.hookhost.policy.config.v1+json";
/// The annotation naming a layer's file.
const TITLE: &str = "org.opencontainers.image.title";

/// A policy artifact's parts.
#[derive(Debug, Clone)]
pub struct Parts {
    /// The document (what is signed).
    pub document: Vec<u8>,
    /// Its minisign signature.
    pub signature: Vec<u8>,
    /// `(name, bytes)` of each carried component.
    pub components: Vec<(String, Vec<u8>)>,
}

/// What a pull found at a reference.
#[derive(Debug)]
pub enum Found {
    /// The reference still names `revision`, the one given as current.
    Unchanged,
    /// Another revision, fetched whole and checked against its manifest.
    Fetched {
        /// The manifest digest.
        revision: String,
        /// Its parts.
        parts: Parts,
    },
}

fn registry(reference: &OciRef, message: impl ToString) -> PolicyError {
    PolicyError::Registry {
        reference: reference.as_str().to_string(),
        message: message.to_string(),
    }
}

/// Publishes `parts` as `reference`; returns the revision (manifest digest).
pub fn push(reference: &OciRef, parts: Parts) -> Result<String, PolicyError> {
    let titled = |name: &str| Some(BTreeMap::from([(TITLE.to_string(), name.to_string())]));
    let mut layers = vec![
        ImageLayer::new(
            parts.document,
            DOCUMENT_LAYER.to_string(),
            titled("policy.json"),
        ),
        ImageLayer::new(
            parts.signature,
            SIGNATURE_LAYER.to_string(),
            titled("policy.json.minisig"),
        ),
    ];
    for (name, bytes) in parts.components {
        layers.push(ImageLayer::new(
            bytes,
            crate::oci::WASM_LAYER.to_string(),
            titled(&name),
        ));
    }
    let client = crate::oci::client(reference);
    let auth = crate::oci::auth(reference);
    crate::oci::block_on(async {
        let config = Config::new(b"{}".to_vec(), POLICY_CONFIG.to_string(), None);
        client
            .push(&reference.reference, &layers, config, &auth, None)
            .await
            .map_err(|e| registry(reference, e))?;
        client
            .fetch_manifest_digest(&reference.reference, &auth)
            .await
            .map_err(|e| registry(reference, e))
    })
}

/// Fetches the artifact `reference` names, unless it is still `current`: within
/// [`crate::oci::REGISTRY_DEADLINE`], every blob capped and checked against its digest.
pub fn fetch(reference: &OciRef, current: Option<&str>) -> Result<Found, PolicyError> {
    let work = async {
        tokio::time::timeout(
            crate::oci::REGISTRY_DEADLINE,
            fetch_within(reference, current),
        )
        .await
        .unwrap_or_else(|_| Err(registry(reference, crate::oci::past_deadline())))
    };
    crate::oci::block_on(work)
}

async fn fetch_within(reference: &OciRef, current: Option<&str>) -> Result<Found, PolicyError> {
    let client = crate::oci::client(reference);
    let auth = crate::oci::auth(reference);
    let (manifest, revision) = bounded::manifest(&client, reference, &auth)
        .await
        .map_err(|e| registry(reference, e))?;
    if current == Some(revision.as_str()) {
        return Ok(Found::Unchanged);
    }
    let not_policy = |message: String| PolicyError::NotPolicy {
        reference: reference.as_str().to_string(),
        message,
    };
    if manifest.config.media_type != POLICY_CONFIG {
        return Err(not_policy(format!(
            "its config is `{}`, not a hookhost policy",
            manifest.config.media_type
        )));
    }
    if manifest.layers.len() > MAX_COMPONENTS + 2 {
        return Err(not_policy(format!("{} layers", manifest.layers.len())));
    }
    let mut document = None;
    let mut signature = None;
    let mut components = Vec::new();
    for layer in &manifest.layers {
        let cap = match layer.media_type.as_str() {
            DOCUMENT_LAYER => MAX_DOCUMENT_BYTES,
            SIGNATURE_LAYER => crate::signing::MAX_SIGNATURE_BYTES as u64,
            crate::oci::WASM_LAYER => crate::oci::DEFAULT_MAX_COMPONENT_BYTES,
            other => return Err(not_policy(format!("a layer of type `{other}`"))),
        };
        if layer.size < 0 || layer.size as u64 > cap {
            return Err(not_policy(format!(
                "a `{}` layer of {} bytes, over the limit of {cap}",
                layer.media_type, layer.size
            )));
        }
        let bytes = bounded::blob(&client, reference, layer)
            .await
            .map_err(|err| match err {
                bounded::BlobError::Digest(actual) => PolicyError::Digest {
                    reference: reference.as_str().to_string(),
                    expected: layer.digest.clone(),
                    actual,
                },
                bounded::BlobError::Registry(message) => registry(reference, message),
            })?;
        let actual = sha256_digest(&bytes);
        if actual != layer.digest {
            return Err(PolicyError::Digest {
                reference: reference.as_str().to_string(),
                expected: layer.digest.clone(),
                actual,
            });
        }
        match layer.media_type.as_str() {
            DOCUMENT_LAYER => document = Some(bytes),
            SIGNATURE_LAYER => signature = Some(bytes),
            _ => {
                let name = layer
                    .annotations
                    .as_ref()
                    .and_then(|a| a.get(TITLE))
                    .cloned()
                    .ok_or_else(|| not_policy("a component layer without a title".into()))?;
                components.push((name, bytes));
            }
        }
    }
    Ok(Found::Fetched {
        revision,
        parts: Parts {
            document: document.ok_or_else(|| not_policy("no policy document layer".into()))?,
            signature: signature.ok_or_else(|| PolicyError::Unsigned {
                reference: reference.as_str().to_string(),
            })?,
            components,
        },
    })
}
