//! Which files decide the hooks each agent hookhost answers for runs — its hook files and
//! trust records — for self-protection to keep the agents' own tool calls away from: an
//! agent that rewrites its hook file removes the guard. (The agents' contracts are in
//! [`crate::agent`]; this leaf is apart so that loading can read it.)

use std::path::{Path, PathBuf};

/// Per agent: the files (or folders) below the home, and below a project. Only hidden
/// ones in a project: a visible name (OpenCode's `opencode.json`) would make every
/// `rm -rf ./*` a write of a guard file.
const HOOK_FILES: &[(&str, &[&str], &[&str])] = &[
    (
        "claude",
        &[".claude/settings.json"],
        &[".claude/settings.json"],
    ),
    (
        "copilot",
        &[
            ".copilot/hooks",
            ".copilot/settings.json",
            ".copilot/config.json",
        ],
        &[".github/hooks"],
    ),
    (
        "codex",
        &[".codex/hooks.json", ".codex/config.toml"],
        &[".codex/hooks.json", ".codex/config.toml"],
    ),
    (
        "gemini",
        &[".gemini/settings.json"],
        &[".gemini/settings.json"],
    ),
    ("cursor", &[".cursor/hooks.json"], &[".cursor/hooks.json"]),
    (
        "opencode",
        &[".config/opencode/plugin", ".config/opencode/plugins"],
        &[".opencode/plugin", ".opencode/plugins"],
    ),
    (
        "factory",
        &[".factory/settings.json"],
        &[".factory/settings.json", ".factory/settings.local.json"],
    ),
];

/// Every agent's hook files and trust records below `home` and `project`.
pub(crate) fn hook_files(home: Option<&Path>, project: Option<&Path>) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for (_, user, in_project) in HOOK_FILES {
        if let Some(home) = home {
            files.extend(user.iter().map(|file| home.join(file)));
        }
        if let Some(project) = project {
            files.extend(in_project.iter().map(|file| project.join(file)));
        }
    }
    files
}
