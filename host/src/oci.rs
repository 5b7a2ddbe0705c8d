//! Wasm components from OCI registries: `oci://REGISTRY/REPO:TAG` or
//! `oci://REGISTRY/REPO@sha256:DIGEST` wherever a hook names its `component`.
//!
//! The artifact layout is the CNCF Wasm OCI artifact (what `wkg` pushes): a config of
//! type `application/vnd.wasm.config.v0+json` and one `application/wasm` layer. A
//! component's detached minisign signature travels as a second artifact tagged
//! `sha256-<component digest>.sig` in the same repository (one layer of type
//! [`SIGNATURE_LAYER`]). The registry protocol is `oci-client`'s; https only, except for
//! registries on loopback; credentials from the Docker config file.
//!
//! Pulled components live in a content-addressed store private to the user ([`Store`]):
//! a component is named by its own SHA-256 (the digest every pin and report uses), a
//! digest reference is resolved once and remembered for good, and a tag's last
//! resolution is remembered for when the registry cannot be reached.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::str::FromStr;

pub(crate) mod bounded;

use oci_client::client::{ClientConfig, ClientProtocol, Config, ImageLayer};
use oci_client::secrets::RegistryAuth;
use oci_client::{Client, Reference};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// How a component reference starts.
pub const SCHEME: &str = "oci://";
/// Media type of the component layer.
pub const WASM_LAYER: &str = "application/wasm";
/// Media type of the Wasm artifact's config.
pub const WASM_CONFIG: &str = "application/vnd.wasm.config.v0+json";
/// Media type of a signature artifact's one layer: a minisign signature file.
pub const SIGNATURE_LAYER: &str = "application/vnd.hookhost.minisign.signature.v1";
/// Media type of a signature artifact's config.
pub const SIGNATURE_CONFIG: &str = "application/vnd.hookhost.signature.config.v1+json";
/// The largest component hookhost fetches or loads, unless the embedder sets another
/// (`WasmOptions::max_component_bytes`).
pub const DEFAULT_MAX_COMPONENT_BYTES: u64 = 128 << 20;
/// Largest signature file accepted (defined beside the verifier).
pub use crate::signing::MAX_SIGNATURE_BYTES;

/// Why a component could not be fetched or published.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum OciError {
    /// Not a usable reference.
    #[error("{reference}: not an OCI reference ({message})")]
    Reference {
        /// The text given.
        reference: String,
        /// What is wrong.
        message: String,
    },
    /// The registry refused or could not be reached, and nothing usable is stored.
    #[error("{reference}: {message}")]
    Registry {
        /// The reference.
        reference: String,
        /// What the registry or the network said.
        message: String,
    },
    /// The artifact is not a Wasm component artifact.
    #[error("{reference}: no `application/wasm` layer in the artifact")]
    NoWasmLayer {
        /// The reference.
        reference: String,
    },
    /// The registry served bytes that are not the ones its manifest names.
    #[error(
        "{reference}: the registry served a component whose digest is {actual}, not the {expected} its manifest names; refused"
    )]
    Digest {
        /// The reference.
        reference: String,
        /// The manifest's digest.
        expected: String,
        /// What the bytes hash to.
        actual: String,
    },
    /// The component is over the size cap.
    #[error("{reference}: the component is {size} bytes, over the limit of {limit}")]
    TooLarge {
        /// The reference.
        reference: String,
        /// Its size.
        size: u64,
        /// The cap.
        limit: u64,
    },
    /// A tag moved to a version signed before the one last used from it.
    #[error(
        "{reference}: the tag now names a component signed at {signed} (unix time), before the {last} of the one last used from it ({previous}); refused as a rollback. To go back deliberately, pin that version's digest (oci://…@sha256:…)"
    )]
    Rollback {
        /// The reference.
        reference: String,
        /// When the component the tag names now was signed.
        signed: u64,
        /// When the one last used was signed.
        last: u64,
        /// The manifest digest last used.
        previous: String,
    },
    /// The local store failed.
    #[error("the OCI component store {path}: {message}")]
    Store {
        /// The store path.
        path: PathBuf,
        /// What failed.
        message: String,
    },
}

/// A parsed `oci://` reference.
#[derive(Debug, Clone)]
pub struct OciRef {
    text: String,
    pub(crate) reference: Reference,
}

impl OciRef {
    /// The manifest digest this reference resolves to now (a registry round trip).
    pub fn resolve(&self) -> Result<String, OciError> {
        resolve(self)
    }

    /// Publishes the component `file` as this reference, and its signature
    /// (`signature`, or `<file>.minisig` if it exists) as the tag `signature_tag` names (`sha256-<hex>.sig`).
    /// Returns what the reference now resolves to.
    pub fn push(&self, file: &Path, signature: Option<&Path>) -> Result<Resolved, OciError> {
        push(file, self, signature)
    }

    /// Whether `text` is an `oci://` reference.
    pub fn is_oci(text: &str) -> bool {
        text.starts_with(SCHEME)
    }

    /// Parses `oci://REGISTRY/REPO[:TAG][@sha256:DIGEST]` (the registry is required).
    pub fn parse(text: &str) -> Result<Self, OciError> {
        let bad = |message: &str| OciError::Reference {
            reference: text.to_string(),
            message: message.to_string(),
        };
        let rest = text
            .strip_prefix(SCHEME)
            .ok_or_else(|| bad("it does not start with oci://"))?;
        let registry = rest.split('/').next().unwrap_or("");
        if !rest.contains('/')
            || !(registry.contains('.') || registry.contains(':') || registry == "localhost")
        {
            return Err(bad("name the registry: oci://REGISTRY/REPOSITORY:TAG"));
        }
        let reference = Reference::from_str(rest).map_err(|e| bad(&e.to_string()))?;
        Ok(Self {
            text: text.to_string(),
            reference,
        })
    }

    /// The reference as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The registry host (and port).
    pub fn registry(&self) -> &str {
        self.reference.resolve_registry()
    }

    /// The manifest digest, for a digest reference.
    pub fn digest(&self) -> Option<&str> {
        self.reference.digest()
    }

    /// Whether the registry is on this machine (plain http allowed).
    pub fn is_loopback(&self) -> bool {
        let host = self
            .registry()
            .rsplit_once(':')
            .map_or(self.registry(), |(host, _)| host);
        let host = host.trim_start_matches('[').trim_end_matches(']');
        host == "localhost"
            || host
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback())
    }

    /// The same repository with tag `tag`.
    /// The same repository at `tag`.
    pub(crate) fn with_tag(&self, tag: &str) -> OciRef {
        let reference = Reference::with_tag(
            self.reference.registry().to_string(),
            self.reference.repository().to_string(),
            tag.to_string(),
        );
        OciRef {
            text: format!("{SCHEME}{}", reference.whole()),
            reference,
        }
    }

    /// The key of this reference in the store.
    fn key(&self) -> String {
        hex(&Sha256::digest(self.reference.whole().as_bytes()))
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `sha256:<hex>` of `bytes`.
pub fn sha256_digest(bytes: &[u8]) -> String {
    format!("sha256:{}", hex(&Sha256::digest(bytes)))
}

/// What a reference resolved to.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Resolved {
    /// The manifest's digest.
    pub manifest: String,
    /// The component's digest (`sha256:<hex>`, the SHA-256 of its bytes).
    pub component: String,
}

/// A component fetched into the store.
#[derive(Debug, Clone)]
pub struct Pulled {
    /// Its resolution.
    pub resolved: Resolved,
    /// The component file in the store.
    pub path: PathBuf,
    /// Why the registry was not asked (a tag's remembered resolution was used).
    pub offline: Option<String>,
}

impl Pulled {
    /// Where the component's signature is kept beside it (`<component>.minisig`).
    pub fn signature_path(&self) -> PathBuf {
        crate::signing::signature_path(&self.path)
    }
}

/// The private, content-addressed store of pulled components and their signatures.
#[derive(Debug, Clone)]
pub struct Store {
    root: PathBuf,
}

impl Store {
    /// Fetches `reference` into this store, verified, within `max_bytes` and
    /// `signing` (see the module's `pull` for what a tag and an unreachable registry do).
    pub fn pull(
        &self,
        reference: &OciRef,
        max_bytes: u64,
        signing: &crate::signing::SigningPolicy,
    ) -> Result<Pulled, OciError> {
        pull(self, reference, max_bytes, signing)
    }

    /// The default store: `oci` in hookhost's cache folder.
    pub fn default_dir() -> Option<PathBuf> {
        crate::paths::cache_dir().and_then(|dir| dir.parent().map(|p| p.join("oci")))
    }

    /// The store at `root`: its folders are created private (0700), and like the
    /// artifact cache each must be a real folder of this user that no one else may
    /// write (one another user could write would let them swap a component and its
    /// recorded digest together).
    pub fn open(root: &Path) -> Result<Self, OciError> {
        for dir in [root.to_path_buf(), root.join("blobs"), root.join("refs")] {
            crate::files::ensure_private_dir(&dir).map_err(|message| OciError::Store {
                path: dir.clone(),
                message,
            })?;
        }
        Ok(Self {
            root: root.to_path_buf(),
        })
    }

    /// The component file of `digest` (`sha256:<hex>`).
    pub fn component_path(&self, digest: &str) -> PathBuf {
        self.root
            .join("blobs")
            .join(format!("{}.wasm", digest.replace(':', "-")))
    }

    fn ref_path(&self, reference: &OciRef) -> PathBuf {
        self.root
            .join("refs")
            .join(format!("{}.json", reference.key()))
    }

    fn error(&self, message: impl ToString) -> OciError {
        OciError::Store {
            path: self.root.clone(),
            message: message.to_string(),
        }
    }

    /// Writes `bytes` under `path` (a private file, replaced whole).
    fn write(&self, path: &Path, bytes: &[u8]) -> Result<(), OciError> {
        let temp = path.with_extension(format!("tmp{}", std::process::id()));
        // Never through a link planted at the temporary name.
        let mut file = crate::platform::private_file(crate::platform::no_follow(
            std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true),
        ))
        .open(&temp)
        .map_err(|e| self.error(e))?;
        file.write_all(bytes).map_err(|e| self.error(e))?;
        file.sync_all().map_err(|e| self.error(e))?;
        std::fs::rename(&temp, path).map_err(|e| self.error(e))
    }

    /// The remembered resolution of `reference`, if its component is still stored.
    fn remembered(&self, reference: &OciRef) -> Option<Resolved> {
        let text = std::fs::read(self.ref_path(reference)).ok()?;
        let resolved: Resolved = serde_json::from_slice(&text).ok()?;
        self.component_path(&resolved.component)
            .is_file()
            .then_some(resolved)
    }

    fn remember(&self, reference: &OciRef, resolved: &Resolved) -> Result<(), OciError> {
        let text = serde_json::to_vec(resolved).map_err(|e| self.error(e))?;
        self.write(&self.ref_path(reference), &text)
    }
}

/// The registry client: https, except plain http for a registry on loopback.
pub(crate) fn client(reference: &OciRef) -> Client {
    let protocol = if reference.is_loopback() {
        ClientProtocol::HttpsExcept(vec![reference.registry().to_string()])
    } else {
        ClientProtocol::Https
    };
    Client::new(ClientConfig {
        protocol,
        ..Default::default()
    })
}

/// Credentials for the registry from the account's Docker config file
/// (`<account home>/.docker/config.json`, read bounded and regular-file-only), else
/// anonymous. `$DOCKER_CONFIG` is never read: a repository's `env` setting reaches every
/// hook process, and a config of its choosing names the credential helper program.
pub(crate) fn auth(reference: &OciRef) -> RegistryAuth {
    let Some(file) = crate::paths::home().map(|home| home.join(".docker").join("config.json"))
    else {
        return RegistryAuth::Anonymous;
    };
    let Ok(bytes) = crate::files::read_regular(&file, crate::files::MAX_CONFIG_FILE) else {
        return RegistryAuth::Anonymous;
    };
    match docker_credential::get_credential_from_reader(&bytes[..], reference.registry()) {
        Ok(docker_credential::DockerCredential::UsernamePassword(user, password)) => {
            RegistryAuth::Basic(user, password)
        }
        _ => RegistryAuth::Anonymous,
    }
}

/// Runs `future` to completion on a runtime of its own (callers may be inside one).
pub(crate) fn block_on<F>(future: F) -> F::Output
where
    F: std::future::Future + Send,
    F::Output: Send,
{
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("a runtime for the registry client")
                    .block_on(future)
            })
            .join()
            .expect("the registry client thread")
    })
}

/// Fetches `reference` into `store` (component, and its signature if the registry has
/// one): a digest reference already stored is not fetched again; a tag is resolved now,
/// and when the registry cannot be reached its last resolution is used (said in
/// [`Pulled::offline`]).
///
/// With a signing policy, a tag that moved to a component signed before the one last
/// used from it is refused ([`OciError::Rollback`]): a registry or a repository owner
/// re-tagging an older, validly signed version that denies less is never accepted
/// silently.
fn pull(
    store: &Store,
    reference: &OciRef,
    max_bytes: u64,
    signing: &crate::signing::SigningPolicy,
) -> Result<Pulled, OciError> {
    if reference.digest().is_some()
        && let Some(resolved) = store.remembered(reference)
    {
        let path = store.component_path(&resolved.component);
        return Ok(Pulled {
            resolved,
            path,
            offline: None,
        });
    }
    let deadline = async {
        tokio::time::timeout(
            REGISTRY_DEADLINE,
            fetch(store, reference, max_bytes, signing),
        )
        .await
        .unwrap_or_else(|_| Err(registry_error(reference, past_deadline())))
    };
    match block_on(deadline) {
        Ok(pulled) => Ok(pulled),
        Err(err @ OciError::Registry { .. }) => match store.remembered(reference) {
            Some(resolved) => Ok(Pulled {
                path: store.component_path(&resolved.component),
                offline: Some(format!(
                    "registry not reached ({err}); using the last resolution {}",
                    resolved.manifest
                )),
                resolved,
            }),
            None => Err(err),
        },
        Err(err) => Err(err),
    }
}

/// The manifest digest `reference` resolves to now (a registry round trip).
fn resolve(reference: &OciRef) -> Result<String, OciError> {
    let client = client(reference);
    let auth = auth(reference);
    block_on(async {
        tokio::time::timeout(
            REGISTRY_DEADLINE,
            client.fetch_manifest_digest(&reference.reference, &auth),
        )
        .await
        .map_err(|_| registry_error(reference, past_deadline()))?
        .map_err(|e| registry_error(reference, e))
    })
}

/// The longest a registry may take to answer one pull or resolution, every step together:
/// below the shortest hook timeout an agent gives (10 s), so a registry that trickles
/// bytes cannot keep a guard from answering until the agent gives up on it and proceeds.
pub const REGISTRY_DEADLINE: std::time::Duration = std::time::Duration::from_secs(8);

pub(crate) fn past_deadline() -> String {
    format!(
        "no complete answer within {} s",
        REGISTRY_DEADLINE.as_secs()
    )
}

pub(crate) fn registry_error(reference: &OciRef, err: impl std::fmt::Display) -> OciError {
    OciError::Registry {
        reference: reference.as_str().to_string(),
        message: err.to_string(),
    }
}

async fn fetch(
    store: &Store,
    reference: &OciRef,
    max_bytes: u64,
    signing: &crate::signing::SigningPolicy,
) -> Result<Pulled, OciError> {
    let client = client(reference);
    let auth = auth(reference);
    let previous = match reference.digest() {
        None => store.remembered(reference),
        Some(_) => None,
    };
    let (manifest, manifest_digest) = bounded::manifest(&client, reference, &auth).await?;
    let layer = manifest
        .layers
        .iter()
        .find(|layer| layer.media_type == WASM_LAYER)
        .ok_or_else(|| OciError::NoWasmLayer {
            reference: reference.as_str().to_string(),
        })?;
    let too_large = |size: u64| OciError::TooLarge {
        reference: reference.as_str().to_string(),
        size,
        limit: max_bytes,
    };
    if layer.size < 0 || layer.size as u64 > max_bytes {
        return Err(too_large(layer.size.max(0) as u64));
    }
    let path = store.component_path(&layer.digest);
    if !path.is_file() {
        // Streamed and held to the size the manifest declared (itself within the
        // component cap).
        let bytes = bounded::blob(&client, reference, layer)
            .await
            .map_err(|err| match err {
                bounded::BlobError::Digest(actual) => OciError::Digest {
                    reference: reference.as_str().to_string(),
                    expected: layer.digest.clone(),
                    actual,
                },
                bounded::BlobError::Registry(message) => registry_error(reference, message),
            })?;
        let actual = sha256_digest(&bytes);
        if actual != layer.digest {
            return Err(OciError::Digest {
                reference: reference.as_str().to_string(),
                expected: layer.digest.clone(),
                actual,
            });
        }
        store.write(&path, &bytes)?;
    }
    fetch_signature(&client, &auth, store, reference, &layer.digest, &path).await;
    if let Some(previous) = &previous
        && previous.component != layer.digest
    {
        refuse_older(store, reference, previous, &path, max_bytes, signing)?;
    }
    let resolved = Resolved {
        manifest: manifest_digest,
        component: layer.digest.clone(),
    };
    store.remember(reference, &resolved)?;
    Ok(Pulled {
        resolved,
        path,
        offline: None,
    })
}

/// The tag a component's signature artifact has.
pub fn signature_tag(component_digest: &str) -> String {
    format!("{}.sig", component_digest.replace(':', "-"))
}

/// Fetches the signature artifact of `digest`, if the registry has one, beside the
/// component (`<component>.minisig`). A missing signature is not an error here: the
/// signing policy decides.
async fn fetch_signature(
    client: &Client,
    auth: &RegistryAuth,
    store: &Store,
    reference: &OciRef,
    digest: &str,
    component: &Path,
) {
    let signature = crate::signing::signature_path(component);
    let tagged = reference.with_tag(&signature_tag(digest));
    let Ok((manifest, _)) = bounded::manifest(client, &tagged, auth).await else {
        return;
    };
    let Some(layer) = manifest.layers.iter().find(|l| {
        l.media_type == SIGNATURE_LAYER && l.size >= 0 && (l.size as usize) <= MAX_SIGNATURE_BYTES
    }) else {
        return;
    };
    let Ok(stream) = client.pull_blob_stream(&tagged.reference, layer).await else {
        return;
    };
    if let Ok(bytes) = bounded::read_capped(stream.stream, MAX_SIGNATURE_BYTES).await
        && sha256_digest(&bytes) == layer.digest
    {
        let _ = store.write(&signature, &bytes);
    }
}

/// Refuses the component at `component`, which the tag `reference` names now, when a
/// trusted signer signed it before the component of `previous`, the tag's last
/// resolution. Nothing is refused without a signing policy, or when either carries no
/// trusted signature with a time (the signing policy then decides on loading).
fn refuse_older(
    store: &Store,
    reference: &OciRef,
    previous: &Resolved,
    component: &Path,
    max_bytes: u64,
    signing: &crate::signing::SigningPolicy,
) -> Result<(), OciError> {
    if !signing.active() {
        return Ok(());
    }
    let signed_at = |path: &Path| {
        let bytes = crate::files::read_regular(path, max_bytes).ok()?;
        signing.signed_at(path, &bytes)
    };
    let last_path = store.component_path(&previous.component);
    match (signed_at(component), signed_at(&last_path)) {
        (Some(signed), Some(last)) if signed < last => Err(OciError::Rollback {
            reference: reference.as_str().to_string(),
            signed,
            last,
            previous: previous.manifest.clone(),
        }),
        _ => Ok(()),
    }
}

/// Publishes the component `file` as `reference`, and its signature (`signature`, or
/// `<file>.minisig` if it exists) as the tag `signature_tag` names (`sha256-<hex>.sig`). Returns what the
/// reference now resolves to.
fn push(file: &Path, reference: &OciRef, signature: Option<&Path>) -> Result<Resolved, OciError> {
    let read = |path: &Path| {
        std::fs::read(path).map_err(|e| OciError::Reference {
            reference: reference.as_str().to_string(),
            message: format!("cannot read {}: {e}", path.display()),
        })
    };
    let bytes = read(file)?;
    let component = sha256_digest(&bytes);
    let default_signature = crate::signing::signature_path(file);
    let signature = match signature {
        Some(path) => Some(read(path)?),
        None if default_signature.is_file() => Some(read(&default_signature)?),
        None => None,
    };
    let client = client(reference);
    let auth = auth(reference);
    block_on(async {
        let layers = [ImageLayer::new(bytes, WASM_LAYER.to_string(), None)];
        let config = Config::new(b"{}".to_vec(), WASM_CONFIG.to_string(), None);
        client
            .push(&reference.reference, &layers, config, &auth, None)
            .await
            .map_err(|e| registry_error(reference, e))?;
        if let Some(signature) = signature {
            let tagged = reference.with_tag(&signature_tag(&component));
            let layers = [ImageLayer::new(
                signature,
                SIGNATURE_LAYER.to_string(),
                None,
            )];
            let config = Config::new(b"{}".to_vec(), SIGNATURE_CONFIG.to_string(), None);
            client
                .push(&tagged.reference, &layers, config, &auth, None)
                .await
                .map_err(|e| registry_error(reference, e))?;
        }
        let manifest = client
            .fetch_manifest_digest(&reference.reference, &auth)
            .await
            .map_err(|e| registry_error(reference, e))?;
        Ok(Resolved {
            manifest,
            component,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_name_their_registry() {
        let tag = OciRef::parse("oci://127.0.0.1:5000/policies/guard:1.0").unwrap();
        assert_eq!(tag.registry(), "127.0.0.1:5000");
        assert!(tag.is_loopback() && tag.digest().is_none());
        let digest = format!("oci://ghcr.io/acme/guard@sha256:{}", "a".repeat(64));
        let digest = OciRef::parse(&digest).unwrap();
        assert!(!digest.is_loopback());
        assert_eq!(
            digest.digest(),
            Some(format!("sha256:{}", "a".repeat(64)).as_str())
        );
        for bad in [
            "oci://guard:1.0",
            "oci://",
            "guard.wasm",
            "oci://ghcr.io/UPPER:x",
        ] {
            assert!(OciRef::parse(bad).is_err(), "{bad}");
        }
        assert!(
            OciRef::parse("oci://localhost:5000/g:1")
                .unwrap()
                .is_loopback()
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_store_others_may_write_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("oci");
        Store::open(&root).unwrap();
        let mode = std::fs::metadata(&root).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        std::fs::set_permissions(root.join("blobs"), std::fs::Permissions::from_mode(0o777))
            .unwrap();
        let err = Store::open(&root).unwrap_err().to_string();
        assert!(err.contains("writable by group or others"), "{err}");
    }

    #[test]
    fn signatures_are_tagged_by_component_digest() {
        assert_eq!(signature_tag("sha256:ab"), "sha256-ab.sig");
    }
}
