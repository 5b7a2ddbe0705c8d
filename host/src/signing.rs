//! Who signed a component: detached minisign (Ed25519) signatures checked against the
//! owners' `trustedSigners`, and `requireSignedWasm`.
//!
//! A component's signature is the minisign file beside it, `<component>.minisig` (what
//! `minisign -Sm component.wasm` writes); a component pulled from a registry gets the
//! signature the registry holds for its digest, stored the same way. Only the owners'
//! settings (managed and user) name signers or require signatures: a repository can
//! neither add a key nor turn the requirement off.

use std::path::{Path, PathBuf};

use minisign_verify::{PublicKey, Signature};

/// Largest signature file accepted (a minisign signature is a few hundred bytes).
pub const MAX_SIGNATURE_BYTES: usize = 64 << 10;

/// One trusted signer.
#[derive(Clone)]
pub struct TrustedSigner {
    /// The name reports give.
    pub name: String,
    key: PublicKey,
}

impl std::fmt::Debug for TrustedSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TrustedSigner")
            .field("name", &self.name)
            .finish()
    }
}

impl TrustedSigner {
    /// A signer from its name and its minisign public key (the base64 line of the
    /// `.pub` file, `RW…`).
    pub fn new(name: &str, public_key: &str) -> Result<Self, String> {
        let key = PublicKey::from_base64(public_key.trim())
            .map_err(|e| format!("signer `{name}`: not a minisign public key ({e})"))?;
        Ok(Self {
            name: name.to_string(),
            key,
        })
    }
}

/// The owners' signing policy.
#[derive(Debug, Clone, Default)]
pub struct SigningPolicy {
    /// Keys whose signatures count.
    pub signers: Vec<TrustedSigner>,
    /// A component without a good signature by a trusted signer does not load.
    pub require: bool,
}

/// Why a component's signature does not count.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SignatureError {
    /// No signature, and signatures are required.
    #[error("{component}: no signature ({signature} is missing) and `requireSignedWasm` is on")]
    Missing {
        /// The component.
        component: String,
        /// Where its signature was looked for.
        signature: String,
    },
    /// A signature no trusted signer made (or one that does not match the bytes).
    #[error(
        "{component}: its signature {signature} is not a valid signature by any of the trusted signers ({signers}); refused"
    )]
    Untrusted {
        /// The component.
        component: String,
        /// The signature file.
        signature: String,
        /// The trusted signers' names.
        signers: String,
    },
}

/// Where the signature of `component` is looked for.
pub fn signature_path(component: &Path) -> PathBuf {
    let mut name = component.as_os_str().to_owned();
    name.push(".minisig");
    PathBuf::from(name)
}

impl SigningPolicy {
    /// Whether any check applies (signers named or signatures required).
    pub fn active(&self) -> bool {
        self.require || !self.signers.is_empty()
    }

    /// The trusted signer whose signature beside `component` matches `bytes` (the
    /// component's contents); `Ok(None)` when there is none and none is required.
    pub fn check(&self, component: &Path, bytes: &[u8]) -> Result<Option<String>, SignatureError> {
        let path = signature_path(component);
        let Some(text) = read_signature(&path) else {
            return if self.require {
                Err(SignatureError::Missing {
                    component: component.display().to_string(),
                    signature: path.display().to_string(),
                })
            } else {
                Ok(None)
            };
        };
        match self.trusted(&text, bytes) {
            Some((signer, _)) => Ok(Some(signer.to_string())),
            None if self.require => Err(SignatureError::Untrusted {
                component: component.display().to_string(),
                signature: path.display().to_string(),
                signers: self
                    .signers
                    .iter()
                    .map(|s| s.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            }),
            None => Ok(None),
        }
    }

    /// When a trusted signer signed `bytes`, the component at `component`: the
    /// `timestamp:` of the signature's trusted comment (which the signature covers;
    /// `minisign -S` writes one). `None` when no trusted signer's signature is beside it
    /// or it carries no time.
    pub fn signed_at(&self, component: &Path, bytes: &[u8]) -> Option<u64> {
        let text = read_signature(&signature_path(component))?;
        let (_, signature) = self.trusted(&text, bytes)?;
        timestamp(&signature)
    }

    /// The trusted signer whose minisign signature `text` is of `bytes`, and when it
    /// signed them (its trusted comment's `timestamp:`, when it has one).
    pub fn signed_by(&self, text: &str, bytes: &[u8]) -> Option<(String, Option<u64>)> {
        let (signer, signature) = self.trusted(text, bytes)?;
        Some((signer.to_string(), timestamp(&signature)))
    }

    /// The trusted signer whose signature `text` is of `bytes`, and the signature.
    fn trusted(&self, text: &str, bytes: &[u8]) -> Option<(&str, Signature)> {
        let signature = Signature::decode(text).ok()?;
        let signer = self
            .signers
            .iter()
            .find(|signer| signer.key.verify(bytes, &signature, false).is_ok())?;
        Some((signer.name.as_str(), signature))
    }
}

/// The `timestamp:` of a signature's trusted comment (which the signature covers).
fn timestamp(signature: &Signature) -> Option<u64> {
    signature
        .trusted_comment()
        .split_whitespace()
        .find_map(|field| field.strip_prefix("timestamp:")?.parse().ok())
}

/// The signature file at `path`: a regular file within [`MAX_SIGNATURE_BYTES`].
fn read_signature(path: &Path) -> Option<String> {
    let bytes = crate::files::read_regular(path, MAX_SIGNATURE_BYTES as u64).ok()?;
    String::from_utf8(bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    // A minisign public key (Ed25519), as the second line of a `.pub` file.
    const KEY: &str = "RWQf49y7n4+4GS0VaCFcdYORVtUKHVQjMRQkna8YWqOpvPMg/6px1ShK";

    #[test]
    fn a_malformed_key_is_refused_by_name() {
        let err = TrustedSigner::new("team", "not a key").unwrap_err();
        assert!(err.contains("signer `team`"), "{err}");
        assert_eq!(TrustedSigner::new("team", KEY).unwrap().name, "team");
    }

    #[test]
    fn missing_and_foreign_signatures_count_only_when_required() {
        let dir = tempfile::tempdir().unwrap();
        let component = dir.path().join("guard.wasm");
        std::fs::write(&component, b"\0asm").unwrap();
        let mut policy = SigningPolicy {
            signers: vec![TrustedSigner::new("team", KEY).unwrap()],
            require: false,
        };
        assert_eq!(policy.check(&component, b"\0asm"), Ok(None));
        policy.require = true;
        assert!(matches!(
            policy.check(&component, b"\0asm"),
            Err(SignatureError::Missing { .. })
        ));
        std::fs::write(
            signature_path(&component),
            "untrusted comment: x\nnot a signature\n",
        )
        .unwrap();
        assert!(matches!(
            policy.check(&component, b"\0asm"),
            Err(SignatureError::Untrusted { .. })
        ));
        policy.require = false;
        assert_eq!(policy.check(&component, b"\0asm"), Ok(None));
    }

    /// The verifier itself, with committed fixtures (no `minisign` needed): a valid
    /// signature by the trusted key, the same file signed by another key, and the
    /// trusted signature over bytes changed by one bit.
    #[test]
    fn valid_foreign_and_tampered_signatures() {
        const BYTES: &[u8] = include_bytes!("signing/fixtures/guard.wasm");
        let team = include_str!("signing/fixtures/team.pub");
        let key = team.lines().nth(1).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let component = dir.path().join("guard.wasm");
        std::fs::write(&component, BYTES).unwrap();
        let policy = SigningPolicy {
            signers: vec![TrustedSigner::new("team", key).unwrap()],
            require: true,
        };
        let valid = include_str!("signing/fixtures/guard.wasm.minisig");
        std::fs::write(signature_path(&component), valid).unwrap();
        assert_eq!(policy.check(&component, BYTES), Ok(Some("team".into())));
        assert_eq!(policy.signed_at(&component, BYTES), Some(1_700_000_000));
        let mut tampered = BYTES.to_vec();
        tampered[7] ^= 1;
        assert!(matches!(
            policy.check(&component, &tampered),
            Err(SignatureError::Untrusted { .. })
        ));
        assert_eq!(policy.signed_at(&component, &tampered), None);
        let foreign = include_str!("signing/fixtures/foreign.minisig");
        std::fs::write(signature_path(&component), foreign).unwrap();
        assert!(matches!(
            policy.check(&component, BYTES),
            Err(SignatureError::Untrusted { .. })
        ));
    }
}
