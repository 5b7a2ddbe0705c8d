//! Where a machine keeps its policy: `<config dir>/policy/` — the active revision's
//! folder (`revisions/<hex>/`: the document, its signature, the components it carries),
//! `active.json` naming it, and `status.json` (what the last pull did). Only the active
//! revision is kept: it is the last good one, which an offline start uses, and no older
//! signed revision lies about for anyone to point `active.json` at. Every file is private
//! to the user, read bounded and regular-file-only, and replaced whole, never through a
//! link.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::PolicyError;
use super::artifact::Parts;
use super::document::MAX_DOCUMENT_BYTES;

/// The document's file name in a revision's folder.
pub const DOCUMENT_FILE: &str = "policy.json";

/// What `active.json` records.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ActiveRecord {
    /// The reference it was pulled from.
    pub reference: String,
    /// Its revision (the manifest digest).
    pub revision: String,
    /// When its signer signed it (unix time): the floor a later pull may not go below.
    pub signed_at: u64,
    /// Who signed it (the trusted signer's name).
    pub signer: String,
    /// When it was activated (RFC 3339).
    pub activated_at: String,
}

/// What `status.json` records: the machine's side of a fleet's status view.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct PullStatus {
    /// The reference the managed settings name.
    pub reference: String,
    /// When a pull was last tried (RFC 3339).
    pub last_pull: Option<String>,
    /// When a pull last succeeded (the registry answered; activated or unchanged).
    pub last_successful_pull: Option<String>,
    /// The last pull's error, if it failed (the active revision stays).
    pub last_error: Option<String>,
}

/// The policy store of one machine (one user).
#[derive(Debug, Clone)]
pub struct PolicyStore {
    root: PathBuf,
}

/// The active revision, read and verified.
#[derive(Debug, Clone)]
pub struct Verified {
    /// What `active.json` says.
    pub record: ActiveRecord,
    /// The revision's folder (relative components resolve against it).
    pub dir: PathBuf,
    /// The document's settings.
    pub settings: serde_json::Value,
}

fn now() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

impl PolicyStore {
    /// The store below hookhost's configuration folder `config_dir`.
    pub fn in_config_dir(config_dir: &Path) -> Self {
        Self {
            root: config_dir.join("policy"),
        }
    }

    /// The store whose folder is `root` (what [`PolicyStore::root`] gave).
    pub fn at(root: &Path) -> Self {
        Self {
            root: root.to_path_buf(),
        }
    }

    /// Its folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    fn error(&self, message: impl ToString) -> PolicyError {
        PolicyError::Store {
            path: self.root.clone(),
            message: message.to_string(),
        }
    }

    fn revision_dir(&self, revision: &str) -> PathBuf {
        self.root.join("revisions").join(revision.replace(':', "-"))
    }

    fn read_json<T: for<'de> Deserialize<'de>>(&self, name: &str) -> Option<T> {
        let bytes = crate::files::read_regular(&self.root.join(name), 64 << 10).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    /// What `active.json` says, if anything.
    pub fn active(&self) -> Option<ActiveRecord> {
        self.read_json("active.json")
    }

    /// What `status.json` says (empty when no pull was tried).
    pub fn status(&self) -> PullStatus {
        self.read_json("status.json").unwrap_or_default()
    }

    fn write_json(&self, name: &str, value: &impl Serialize) -> Result<(), PolicyError> {
        crate::files::ensure_private_dir(&self.root).map_err(|e| self.error(e))?;
        let bytes = serde_json::to_vec_pretty(value).map_err(|e| self.error(e))?;
        crate::files::replace_private(&self.root.join(name), &bytes).map_err(|e| self.error(e))
    }

    /// Records a pull of `reference`: `error` when it failed.
    pub fn record_pull(&self, reference: &str, error: Option<&PolicyError>) {
        let mut status = self.status();
        let time = now();
        if status.reference != reference {
            status = PullStatus::default();
        }
        status.reference = reference.to_string();
        status.last_pull = Some(time.clone());
        match error {
            Some(err) => status.last_error = Some(err.to_string()),
            None => {
                status.last_successful_pull = Some(time);
                status.last_error = None;
            }
        }
        if let Err(err) = self.write_json("status.json", &status) {
            tracing::warn!("cannot record the policy pull: {err}");
        }
    }

    /// Makes `parts` (already verified) the active revision: its folder written whole
    /// under a temporary name and renamed into place, then `active.json` replaced (the
    /// switch), then the previous revision's folder removed.
    pub fn activate(
        &self,
        reference: &str,
        revision: &str,
        parts: &Parts,
        signer: &str,
        signed_at: u64,
    ) -> Result<ActiveRecord, PolicyError> {
        let revisions = self.root.join("revisions");
        for dir in [&self.root, &revisions] {
            crate::files::ensure_private_dir(dir).map_err(|e| self.error(e))?;
        }
        let target = self.revision_dir(revision);
        let mut suffix = [0u8; 6];
        getrandom::fill(&mut suffix).map_err(|e| self.error(e))?;
        let suffix: String = suffix.iter().map(|b| format!("{b:02x}")).collect();
        let temp = revisions.join(format!(".incoming-{suffix}"));
        let written = self.write_revision(&temp, parts);
        if let Err(err) = written {
            let _ = std::fs::remove_dir_all(&temp);
            return Err(err);
        }
        if std::fs::symlink_metadata(&target).is_ok() {
            std::fs::remove_dir_all(&target).map_err(|e| self.error(e))?;
        }
        std::fs::rename(&temp, &target).map_err(|e| self.error(e))?;
        let record = ActiveRecord {
            reference: reference.to_string(),
            revision: revision.to_string(),
            signed_at,
            signer: signer.to_string(),
            activated_at: now(),
        };
        self.write_json("active.json", &record)?;
        // Only the active revision stays.
        if let Ok(entries) = std::fs::read_dir(&revisions) {
            for entry in entries.flatten() {
                if entry.path() != target {
                    let _ = std::fs::remove_dir_all(entry.path());
                }
            }
        }
        Ok(record)
    }

    fn write_revision(&self, dir: &Path, parts: &Parts) -> Result<(), PolicyError> {
        let components = dir.join("components");
        crate::files::ensure_private_dir(dir).map_err(|e| self.error(e))?;
        crate::files::ensure_private_dir(&components).map_err(|e| self.error(e))?;
        let write = |path: PathBuf, bytes: &[u8]| {
            crate::files::replace_private(&path, bytes).map_err(|e| self.error(e))
        };
        write(dir.join(DOCUMENT_FILE), &parts.document)?;
        write(
            crate::signing::signature_path(&dir.join(DOCUMENT_FILE)),
            &parts.signature,
        )?;
        for (name, bytes) in &parts.components {
            // Names were checked against the document's pins: `components/<hex>.wasm`.
            write(dir.join(name), bytes)?;
        }
        Ok(())
    }

    /// The active revision, its signature checked again against `signing`'s signers
    /// (the managed settings'): what every engine start reads. An error says why no
    /// revision can be used.
    pub fn verified(&self, signing: &crate::signing::SigningPolicy) -> Result<Verified, String> {
        let record = self.active().ok_or(
            "no revision has been activated on this machine yet (run `hookhost policy pull`)",
        )?;
        let dir = self.revision_dir(&record.revision);
        let document_path = dir.join(DOCUMENT_FILE);
        let document = crate::files::read_regular(&document_path, MAX_DOCUMENT_BYTES)
            .map_err(|e| format!("{}: {e}", document_path.display()))?;
        let signature = crate::files::read_regular(
            &crate::signing::signature_path(&document_path),
            crate::signing::MAX_SIGNATURE_BYTES as u64,
        )
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .ok_or_else(|| format!("{}: its signature is missing", document_path.display()))?;
        if signing.signed_by(&signature, &document).is_none() {
            return Err(format!(
                "{}: not signed by a trusted signer of the managed settings; refused",
                document_path.display()
            ));
        }
        let (settings, _) = super::document::parse(&document)?;
        Ok(Verified {
            record,
            dir,
            settings,
        })
    }
}
