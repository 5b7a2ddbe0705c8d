//! What `load` is asked to read: [`LoadOptions`], and where hookhost's own folders are
//! for them.

use std::path::PathBuf;

use super::trust::Trust;
use crate::dialect::{DialectId, Layering};

/// Where to find configuration.
#[derive(Debug, Clone, Default)]
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
}

/// The default managed settings location on Linux.
pub const DEFAULT_MANAGED_PATH: &str = "/etc/claude-code/managed-settings.json";

pub(super) fn config_dir(options: &LoadOptions) -> Option<PathBuf> {
    options.config_dir.clone().or_else(|| {
        options
            .home
            .as_ref()
            .map(|home| home.join(".config").join("hookhost"))
    })
}
