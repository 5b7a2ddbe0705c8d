//! What `load` is asked to read: [`LoadOptions`], and where hookhost's own folders are
//! for them.

use std::path::PathBuf;

use super::trust::Trust;
use crate::dialect::{DialectId, Layering};

/// Where to find configuration.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct LoadOptions {
    /// Home directory: `~/.claude/settings.json` is read when set.
    pub home: Option<PathBuf>,
    /// Project directory: `.claude/settings.json` and `.claude/settings.local.json`.
    pub project_dir: Option<PathBuf>,
    /// Managed settings file (default `/etc/claude-code/managed-settings.json`); a
    /// `managed-settings.d/` beside it is merged alphabetically after it.
    pub managed_path: Option<PathBuf>,
    /// Explicit `--settings` files, or inline JSON objects.
    pub settings: Vec<String>,
    /// Plugin bundle directories.
    pub plugins: Vec<PathBuf>,
    /// How user and project hooks combine; `None`: the dialect's own
    /// [`Dialect::layering`].
    pub layering: Option<Layering>,
    /// Whether the project's own settings may run unsandboxed hooks.
    pub trust: Trust,
    /// hookhost's configuration folder (trust store); default `<home>/.config/hookhost`.
    pub config_dir: Option<PathBuf>,
    /// The hook system the files are written for; `None`: detected from the files found
    /// (see [`detect`]).
    pub dialect: Option<DialectId>,
    /// evva's `evvaHome` (its user settings folder); default `<home>/.evva`.
    pub evva_home: Option<PathBuf>,
    /// `$XDG_CONFIG_HOME` (hygge reads `<it>/hygge/hooks.toml`); default `<home>/.config`.
    pub xdg_config_home: Option<PathBuf>,
    /// Which files are read: the dialect's own (the default), or hookhost's own hook
    /// files — what hookhost reads behind a host that runs its own files itself.
    pub files: FileSet,
    /// Extra `${NAME}` expansions for hook entries, from the host's environment (e.g.
    /// `CLAUDE_PLUGIN_ROOT` when Claude Code runs hookhost from a plugin).
    pub vars: Vec<(String, String)>,
}

/// Which configuration files a load reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum FileSet {
    /// The dialect's files (`~/.claude/settings.json`, `.claude/settings*.json`, …) and
    /// the host's managed settings file.
    #[default]
    Dialect,
    /// hookhost's own hook files, which Claude Code never reads (same schema as
    /// `settings.json`): managed `/etc/hookhost/hooks.json`, user
    /// `$XDG_CONFIG_HOME/hookhost/hooks.json`, project `.hookhost/hooks.json`, local
    /// `.hookhost/hooks.local.json`. The dialect is Claude Code's.
    Own,
}

/// hookhost's own managed hook file (see [`FileSet::Own`]): `/etc/hookhost/hooks.json`;
/// macOS `/Library/Application Support/hookhost/hooks.json`; Windows
/// `C:\ProgramData\hookhost\hooks.json`.
pub const OWN_MANAGED_PATH: &str = crate::platform::OWN_MANAGED_HOOKS;

impl LoadOptions {
    /// The managed file read: `managed_path`, else the default of the file set.
    pub fn managed_file(&self) -> PathBuf {
        self.managed_path
            .clone()
            .unwrap_or_else(|| match self.files {
                FileSet::Dialect => PathBuf::from(DEFAULT_MANAGED_PATH),
                FileSet::Own => PathBuf::from(OWN_MANAGED_PATH),
            })
    }
}

/// Where Claude Code keeps managed settings on this system:
/// `/etc/claude-code/managed-settings.json` (Linux, WSL); macOS
/// `/Library/Application Support/ClaudeCode/managed-settings.json`; Windows
/// `C:\ProgramData\ClaudeCode\managed-settings.json`.
pub const DEFAULT_MANAGED_PATH: &str = crate::platform::CLAUDE_MANAGED_SETTINGS;

pub(super) fn config_dir(options: &LoadOptions) -> Option<PathBuf> {
    options.config_dir.clone().or_else(|| {
        options
            .home
            .as_ref()
            .map(|home| home.join(".config").join("hookhost"))
    })
}
