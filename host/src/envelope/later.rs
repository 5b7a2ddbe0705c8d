//! What the user or another program later runs or loads outside the envelope, with the
//! user's full rights — the envelope's boundary, as data (`../shared/reference/runs-later.md`
//! is the fact base). The rule: the project's files that `git status` and `git diff` show
//! are the agent's work, reviewed like any edit; what they never show is held —
//! the git dir's files that run programs, the agents' project folders (made, empty, before
//! the first command, so that nothing created later escapes the mounts), the folders on
//! the user's `PATH`, the agents' logins — and the tool caches whose content later builds
//! run without checking it again are written through a copy-on-write layer of the
//! project's, never into the user's own copy. `.git/config` itself stays writable (ordinary
//! git writes it) and is checked when the command ends ([`super::git_config`]).

/// Project folders an agent or git loads code from, held read-only whole; made when
/// missing, before the command.
pub(crate) const PROJECT_FOLDERS: &[(&str, &str)] = &[
    (
        ".claude",
        "Claude Code's project folder: settings, hooks, skills, agents, commands, workflows (the next session runs them)",
    ),
    (
        ".codex",
        "Codex's project folder: config and hooks (the next session runs them)",
    ),
    (
        ".gemini",
        "Gemini CLI's project folder: settings, hooks, .env (the next session runs them)",
    ),
    (
        ".cursor",
        "Cursor's project folder: hooks and MCP servers (the next session runs them)",
    ),
    (
        ".opencode",
        "OpenCode's project folder: plugins load at its next start",
    ),
    (
        ".factory",
        "Factory droid's project folder: settings and hooks (the next session runs them)",
    ),
    (
        ".github/hooks",
        "Copilot CLI's hooks (the next session runs them)",
    ),
    (
        ".git/hooks",
        "the project's git hooks (they run at the next commit, checkout, push)",
    ),
];

/// Project files an agent or git loads code from, held read-only where they exist (a
/// file the command creates where none was is removed when it ends); `.git/` ones are
/// made, empty, when missing.
pub(crate) const PROJECT_FILES: &[(&str, &str)] = &[
    (
        ".mcp.json",
        "Claude Code's MCP servers (their commands run at the next session)",
    ),
    (
        "opencode.json",
        "OpenCode's config (its plugins are installed and loaded at its next start)",
    ),
    (
        "opencode.jsonc",
        "OpenCode's config (its plugins are installed and loaded at its next start)",
    ),
    (
        ".git/info/attributes",
        "git's attributes no review shows (they pick the filter, diff and merge programs)",
    ),
];

/// Project places editors and build tools load code from that no review shows when they
/// are ignored (and rarely change in ordinary work when they are not): held read-only
/// where they exist, not made.
pub(crate) const PROJECT_LOADERS: &[(&str, &str)] = &[
    (
        ".vscode",
        "VS Code's workspace folder: tasks that run when the folder opens, launch configurations",
    ),
    (
        ".idea",
        "a JetBrains IDE's project folder: run configurations",
    ),
    (
        ".devcontainer",
        "the dev container's configuration (`initializeCommand` runs on the host)",
    ),
    (
        ".envrc",
        "direnv's file (it runs at the next prompt in the folder)",
    ),
    (
        ".cargo/config.toml",
        "cargo's project config (a linker, runner or wrapper it runs at the next build)",
    ),
    (
        ".cargo/config",
        "cargo's project config (a linker, runner or wrapper it runs at the next build)",
    ),
];

/// Folders below the home on the user's `PATH` in most setups: held read-only (a `git`
/// planted there runs at the user's next `git status`). The command's own `PATH` entries
/// inside a writable root are held too.
pub(crate) const HOME_BINS: &[&str] = &[
    ".local/bin",
    ".cargo/bin",
    ".deno/bin",
    ".bun/bin",
    "go/bin",
    ".npm-global/bin",
    ".yarn/bin",
    ".volta/bin",
    "bin",
];

/// The package managers' and build tools' caches below the home: writable inside (a
/// build that cannot fill its cache fails), but through a layer of the project's own —
/// extracted crate sources, npx packages, pre-commit environments, jars and modules are
/// run later without being checked again, so the user's copy is never written.
pub(crate) const TOOL_CACHES: &[&str] = &[
    ".cache",
    ".npm",
    ".cargo/registry",
    ".cargo/git",
    ".gradle/caches",
    ".gradle/wrapper",
    ".m2/repository",
    "go/pkg/mod",
    ".yarn/berry/cache",
    ".pnpm-store",
    ".local/share/pnpm",
    ".bun/install/cache",
    ".deno",
];

/// The agents' own logins below the home: withheld from commands (not from a whole
/// session, whose agent needs its own).
pub(crate) const AGENT_LOGINS: &[(&str, &str)] = &[
    (".claude/.credentials.json", "Claude Code's login"),
    (".codex/auth.json", "Codex's login"),
    (".gemini/oauth_creds.json", "Gemini CLI's login"),
    (".gemini/google_accounts.json", "Gemini CLI's accounts"),
    (".copilot/config.json", "Copilot CLI's login"),
    (".config/github-copilot/apps.json", "GitHub Copilot's login"),
    (
        ".config/github-copilot/hosts.json",
        "GitHub Copilot's login",
    ),
    (".factory/auth.json", "Factory droid's login"),
    (
        ".local/share/opencode/auth.json",
        "OpenCode's provider keys",
    ),
];

/// The most `PATH` entries of the command's held.
#[cfg(unix)]
pub(crate) const MAX_PATH_ENTRIES: usize = 64;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_folder_is_both_a_cache_and_a_path_folder_of_its_own() {
        // A cache holding a PATH folder (`.deno/bin`) is layered: the user's copy is
        // never written; the PATH folder is held inside it besides.
        for bin in HOME_BINS {
            assert!(!TOOL_CACHES.contains(bin), "{bin}");
        }
        for (folder, why) in PROJECT_FOLDERS
            .iter()
            .chain(PROJECT_FILES)
            .chain(PROJECT_LOADERS)
        {
            assert!(!folder.starts_with('/') && !why.is_empty());
        }
    }
}
