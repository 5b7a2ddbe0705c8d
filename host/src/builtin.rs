//! The guards that come with hookhost: reviewed Wasm components built from
//! `examples-guest/` and carried inside the binary (`host/builtin/*.wasm`), named in any
//! hook file as `"component": "builtin:NAME"`. They load like any component — the same
//! sandbox, digest (shown by `list`, `check`, `explain` and the audit log, pinnable with
//! `sha256`) and artifact cache — need no Wasm toolchain, and are `failClosed` unless the
//! entry says otherwise. They are part of the binary the owner installed, so a signing
//! policy (`requireSignedWasm`) accepts them as it accepts the binary.

/// How a hook file names a builtin: `builtin:NAME`.
pub const PREFIX: &str = "builtin:";

/// One guard that comes with hookhost.
#[derive(Debug)]
#[non_exhaustive]
pub struct Builtin {
    /// Its name (`bash-guard`).
    pub name: &'static str,
    /// The event it guards.
    pub event: &'static str,
    /// The tools it judges (a matcher).
    pub matcher: &'static str,
    /// What it refuses, in one line.
    pub summary: &'static str,
    /// Whether `--guards recommended` switches it on: its defaults guard something
    /// (`protected-paths` guards only the paths an owner configures).
    pub recommended: bool,
    /// How it runs.
    pub runs: Runs,
}

/// How a builtin runs.
#[derive(Debug)]
#[non_exhaustive]
pub enum Runs {
    /// A Wasm component carried in the binary, named `builtin:NAME`.
    Component {
        /// The component.
        bytes: &'static [u8],
        /// Its configuration before the entry's own `config` (whose keys win), as JSON.
        preset: &'static str,
        /// Configuration keys whose relative paths name places in the project: resolved
        /// against the project, never the event's working folder.
        project_paths: &'static [&'static str],
    },
    /// A command hook running `hookhost SUBCOMMAND` with the owner's arguments (the checks
    /// before a commit: running the owner's checks needs the machine, not a sandbox).
    Command {
        /// hookhost's subcommand.
        subcommand: &'static str,
        /// The hook's timeout, seconds.
        timeout: u64,
    },
}

/// The places `system-dirs` keeps every tool and command from writing.
const SYSTEM_DIRS: &str = r#"{"label": "a system directory", "paths": ["/etc", "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/boot", "/sys", "/proc", "/System", "/Library", "/private/etc", "/private/var/db", "C:\\Windows", "C:\\Program Files", "C:\\Program Files (x86)", "C:\\ProgramData"]}"#;

static BUILTINS: &[Builtin] = &[
    Builtin {
        name: "bash-guard",
        event: "PreToolUse",
        matcher: "Bash",
        summary: "recursive deletes of the root, the home or the project (however named), a download run as code, `git reset --hard`, force pushes to protected branches (config `protectedBranches`), reading `.env` files, git aliases that hide the command",
        recommended: true,
        runs: Runs::Component {
            bytes: include_bytes!("../builtin/bash-guard.wasm"),
            preset: "{}",
            project_paths: &[],
        },
    },
    Builtin {
        name: "secrets",
        event: "PreToolUse",
        matcher: "Write|Edit|MultiEdit|NotebookEdit|Read|Grep|Glob|LS|Bash",
        summary: "secret files read by file tools or commands (`.env`, SSH keys, cloud and registry credentials; config `allow`), and cloud keys, private key blocks and API tokens written into files (redacted in the reason)",
        recommended: true,
        runs: Runs::Component {
            bytes: include_bytes!("../builtin/secrets.wasm"),
            preset: "{}",
            project_paths: &[],
        },
    },
    Builtin {
        name: "git-safety",
        event: "PreToolUse",
        matcher: "Bash",
        summary: "skipping the repository's hooks (`--no-verify`, `commit -n`, `core.hooksPath`), `git clean -fdx`, `git reset --hard`, force pushes to protected branches, git aliases that hide the command",
        recommended: true,
        runs: Runs::Component {
            bytes: include_bytes!("../builtin/bash-guard.wasm"),
            preset: r#"{"checks": ["git", "git-hooks", "git-clean"]}"#,
            project_paths: &[],
        },
    },
    Builtin {
        name: "protected-paths",
        event: "PreToolUse",
        matcher: "Write|Edit|MultiEdit|NotebookEdit|Bash",
        summary: "any write under the configured `paths` (file tools on the resolved target; commands: redirections, `tee`, `sed -i`, `cp`/`mv`/`rm`/`ln`/`chmod`, …)",
        recommended: false,
        runs: Runs::Component {
            bytes: include_bytes!("../builtin/write-guard.wasm"),
            preset: r#"{"label": "a protected path"}"#,
            project_paths: &["paths"],
        },
    },
    Builtin {
        name: "system-dirs",
        event: "PreToolUse",
        matcher: "Write|Edit|MultiEdit|NotebookEdit|Bash",
        summary: "any write under the system's own folders: `/etc`, `/usr`, `/bin`, `/sbin`, `/lib`, `/boot`, `/System`, `/Library`, `C:\\Windows`, `C:\\Program Files`, …",
        recommended: true,
        runs: Runs::Component {
            bytes: include_bytes!("../builtin/write-guard.wasm"),
            preset: SYSTEM_DIRS,
            project_paths: &["paths"],
        },
    },
    Builtin {
        name: "checks-before-commit",
        event: "PreToolUse",
        matcher: "Bash",
        summary: "a `git commit` or `git push` (wherever bash would run one) while one of the owner's checks fails (`--checks CMD`); the reason carries the tail of its output",
        recommended: false,
        // Below Claude Code's default of 600 s for the entry that runs hookhost.
        runs: Runs::Command {
            subcommand: "checks-before-commit",
            timeout: 540,
        },
    },
];

impl Builtin {
    /// Every builtin.
    pub fn all() -> &'static [Builtin] {
        BUILTINS
    }

    /// The builtin component a reference (`builtin:NAME`) names.
    pub fn find(reference: &str) -> Option<&'static Builtin> {
        let name = reference.strip_prefix(PREFIX)?;
        Builtin::named(name).filter(|builtin| builtin.component().is_some())
    }

    /// The builtin called `name`, of any kind.
    pub fn named(name: &str) -> Option<&'static Builtin> {
        BUILTINS.iter().find(|builtin| builtin.name == name)
    }

    /// Its component's bytes, preset and project paths; `None` for a command.
    pub(crate) fn component(
        &self,
    ) -> Option<(&'static [u8], &'static str, &'static [&'static str])> {
        match self.runs {
            Runs::Component {
                bytes,
                preset,
                project_paths,
            } => Some((bytes, preset, project_paths)),
            Runs::Command { .. } => None,
        }
    }

    /// Whether a component reference names a builtin (known or not).
    pub fn is_builtin(reference: &str) -> bool {
        reference.starts_with(PREFIX)
    }

    /// The reference that names it in a hook file.
    pub fn reference(&self) -> String {
        format!("{PREFIX}{}", self.name)
    }

    /// `configured` (an entry's `config`) over the builtin's own configuration, its
    /// project paths made absolute against `project`.
    pub(crate) fn config(
        &self,
        configured: serde_json::Value,
        project: Option<&std::path::Path>,
    ) -> serde_json::Value {
        let (_, preset, project_paths) = self.component().unwrap_or_default();
        let mut config: serde_json::Map<String, serde_json::Value> =
            serde_json::from_str(preset).unwrap_or_default();
        if let serde_json::Value::Object(own) = configured {
            config.extend(own);
        }
        for key in project_paths {
            let (Some(project), Some(serde_json::Value::Array(paths))) =
                (project, config.get_mut(*key))
            else {
                continue;
            };
            for path in paths.iter_mut() {
                if let Some(text) = path.as_str()
                    && std::path::Path::new(text).is_relative()
                    && !text.starts_with(['~', '$'])
                {
                    *path = serde_json::Value::String(project.join(text).display().to_string());
                }
            }
        }
        serde_json::Value::Object(config)
    }

    /// The names of every builtin component, for a message.
    pub(crate) fn names() -> String {
        BUILTINS
            .iter()
            .filter(|builtin| builtin.component().is_some())
            .map(|builtin| builtin.name)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_builtin_is_a_component_found_by_its_reference() {
        for builtin in Builtin::all().iter().filter(|b| b.component().is_some()) {
            // A component's preamble: magic, then the component layer.
            let (bytes, _, _) = builtin.component().unwrap();
            assert_eq!(&bytes[..4], b"\0asm", "{}", builtin.name);
            assert_eq!(
                Builtin::find(&builtin.reference()).map(|b| b.name),
                Some(builtin.name)
            );
        }
        assert!(Builtin::find("builtin:nope").is_none());
        // A command row is in the table, never a component reference.
        assert!(Builtin::named("checks-before-commit").is_some());
        assert!(Builtin::find("builtin:checks-before-commit").is_none());
        assert!(!Builtin::names().contains("checks-before-commit"));
        let system = Builtin::find("builtin:system-dirs").unwrap();
        let config = system.config(serde_json::json!({"label": "mine"}), None);
        // A protected path written relative names a place in the project, wherever the
        // agent's working folder is.
        let protected = Builtin::find("builtin:protected-paths").unwrap();
        let config_in = protected.config(
            serde_json::json!({"paths": ["deploy/prod.yml", "/etc", "~/x"]}),
            Some(std::path::Path::new("/p")),
        );
        assert_eq!(
            config_in["paths"],
            serde_json::json!(["/p/deploy/prod.yml", "/etc", "~/x"])
        );
        assert_eq!(config["label"], "mine");
        assert!(
            config["paths"]
                .as_array()
                .unwrap()
                .iter()
                .any(|p| p == "/etc")
        );
        assert!(
            config["paths"]
                .as_array()
                .unwrap()
                .iter()
                .any(|p| p == "C:\\Windows")
        );
        assert!(Builtin::is_builtin("builtin:nope"));
        assert!(!Builtin::is_builtin("./builtin:x.wasm"));
    }
}
