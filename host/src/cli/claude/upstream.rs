//! What `claude status` says of the Claude Code it finds: its release against the one
//! hookhost's catalog follows, and the skills' and slash commands' `!` lines it would run
//! itself, outside the envelope.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long `claude --version` may take.
const VERSION_TIMEOUT: Duration = Duration::from_secs(10);

/// Largest skill or command file read for its `!` lines.
const MAX_SKILL_FILE: u64 = 256 * 1024;

/// The line naming the Claude Code release on PATH, and a problem when it is newer than
/// the catalog (its new events and fields may be unguarded).
pub(super) fn version_report() -> (String, Option<String>) {
    let catalog = hookhost::internals::CATALOG_VERSION;
    let Some(program) = on_path("claude") else {
        return (
            format!("Claude Code: no `claude` on PATH (hookhost's catalog follows {catalog})"),
            None,
        );
    };
    let Some(version) = version_of(&program) else {
        return (
            format!(
                "Claude Code: {} does not say its version (hookhost's catalog follows {catalog})",
                program.display()
            ),
            None,
        );
    };
    let line = format!(
        "Claude Code: {version} at {} (hookhost's catalog follows {catalog})",
        program.display()
    );
    let problem = newer(&version, catalog).then(|| {
        format!(
            "Claude Code {version} is newer than the {catalog} hookhost's catalog follows: events and fields it added are unknown to hookhost (a new way to run a command may be unguarded); upgrade hookhost"
        )
    });
    (line, problem)
}

/// `name` on PATH, as the shell would find it.
fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

/// The release `program --version` prints first (`2.1.332 (Claude Code)`), within
/// [`VERSION_TIMEOUT`]; the program is ended by its pid when it takes longer.
fn version_of(program: &Path) -> Option<String> {
    let mut child = Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let started = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if started.elapsed() < VERSION_TIMEOUT => {
                std::thread::sleep(Duration::from_millis(20))
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let mut text = String::new();
    use std::io::Read;
    child
        .stdout
        .take()?
        .take(4096)
        .read_to_string(&mut text)
        .ok()?;
    let version = text.split_whitespace().next()?;
    parts(version).map(|_| version.to_string())
}

/// The numeric parts of a release (`2.1.332` → `[2, 1, 332]`).
fn parts(version: &str) -> Option<Vec<u64>> {
    version.split('.').map(|part| part.parse().ok()).collect()
}

/// Whether release `found` is newer than `known`.
fn newer(found: &str, known: &str) -> bool {
    match (parts(found), parts(known)) {
        (Some(found), Some(known)) => found > known,
        _ => false,
    }
}

/// A skill or slash command with `!` lines, where Claude Code loads it from.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct SkillCommand {
    /// The `command_source` Claude Code gives its lines.
    pub(super) source: &'static str,
    /// Its name (`command_name`).
    pub(super) name: String,
    /// Its file.
    pub(super) file: PathBuf,
}

/// The skills and commands in the owner's and the project's `.claude` folders whose file
/// holds a `` !`…` `` line, sorted by file.
pub(super) fn skill_commands(home: &Path, project: &Path) -> Vec<SkillCommand> {
    let mut found = Vec::new();
    for (root, source) in [(home, "userSettings"), (project, "projectSettings")] {
        let claude = root.join(".claude");
        for (dir, is_skill) in [
            (claude.join("skills"), true),
            (claude.join("commands"), false),
        ] {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                let (file, name) = if is_skill {
                    (path.join("SKILL.md"), entry.file_name())
                } else if path.extension().is_some_and(|ext| ext == "md") {
                    let Some(stem) = path.file_stem() else {
                        continue;
                    };
                    (path.clone(), stem.to_os_string())
                } else {
                    continue;
                };
                let Ok(bytes) = hookhost::internals::read_regular(&file, MAX_SKILL_FILE) else {
                    continue;
                };
                if has_shell_line(&String::from_utf8_lossy(&bytes)) {
                    found.push(SkillCommand {
                        source,
                        name: name.to_string_lossy().into_owned(),
                        file,
                    });
                }
            }
        }
    }
    found.sort_by(|a, b| a.file.cmp(&b.file));
    found
}

/// What the envelope does with each skill's and command's `!` lines (Claude Code runs
/// them itself, so they cannot be enclosed): the lines to print; none without an envelope.
pub(super) fn skill_lines(engine: &hookhost::Engine, home: &Path, project: &Path) -> Vec<String> {
    if engine.envelope().is_none() {
        return Vec::new();
    }
    let found = skill_commands(home, project);
    if found.is_empty() {
        return vec![
            "Skill and command `!` lines: none found in ~/.claude or the project's .claude".into(),
        ];
    }
    let mut lines = vec![
        "Skill and command `!` lines (Claude Code runs them itself, outside the envelope; the guards judge each):".to_string(),
    ];
    for skill in found {
        let verdict = match engine.skill_command_refusal(Some(skill.source), &skill.name) {
            None => "run unenclosed",
            Some(_) => {
                "refused (the repository's; the owner can exempt it with envelope.unenclosedSkills)"
            }
        };
        lines.push(format!(
            "  {} `{}` ({}): {verdict}",
            skill.source,
            skill.name,
            skill.file.display()
        ));
    }
    lines.push("  a plugin's skills and commands run unenclosed too, judged by the guards".into());
    lines
}

/// Whether `text` holds a line Claude Code runs as a shell command (`` !`…` ``).
fn has_shell_line(text: &str) -> bool {
    text.contains("!`")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn releases_compare_by_their_numbers() {
        assert!(newer("2.1.333", "2.1.332"));
        assert!(newer("2.2.0", "2.1.332"));
        assert!(!newer("2.1.332", "2.1.332"));
        assert!(!newer("2.1.197", "2.1.332"));
        assert!(!newer("junk", "2.1.332"));
        assert_eq!(parts("2.1.40"), Some(vec![2, 1, 40]));
    }

    #[test]
    fn skills_and_commands_with_shell_lines_are_found_where_claude_code_loads_them() {
        let root = tempfile::tempdir().unwrap();
        let (home, project) = (root.path().join("home"), root.path().join("project"));
        let write = |path: PathBuf, text: &str| {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write(
            home.join(".claude/commands/commit.md"),
            "Status: !`git status`\n",
        );
        write(home.join(".claude/commands/plain.md"), "no shell here\n");
        write(
            project.join(".claude/skills/probe/SKILL.md"),
            "---\nname: probe\n---\n!`id`\n",
        );
        let found = skill_commands(&home, &project);
        let names: Vec<(&str, &str)> = found
            .iter()
            .map(|skill| (skill.source, skill.name.as_str()))
            .collect();
        assert_eq!(
            names,
            [("userSettings", "commit"), ("projectSettings", "probe")]
        );
    }
}
