//! `hookhost checks-before-commit --run CMD …`: the builtin command hook that runs the
//! owner's checks before the agent commits or pushes. It reads a `PreToolUse` input (Claude
//! Code's form, as hookhost hands every command hook), finds a `git commit` or `git push`
//! anywhere bash would run one (through the host's shell view: chains, `bash -c`,
//! wrappers such as `sudo` or `env`), and runs each check with `sh -c` in the event's
//! working directory, in order. A failing check refuses the call (exit 2, its reason on
//! stderr: the check, its exit status and the last lines of its output); anything else
//! passes. The hook's own `timeout` bounds the checks: the command executor ends the whole
//! process group. `hookhost claude install --checks CMD` writes the entry.
//!
//! The checks run the project's code (`make check` runs the Makefile the agent may have
//! edited): under the owner's envelope they run inside it, like the agent's own commands
//! (the engine names its file in [`hookhost::envelope::ENVELOPE_VAR`]); an envelope that
//! cannot be applied fails the check, so the commit is refused, never checked outside.

use std::io::Read;
use std::path::PathBuf;
use std::process::{ExitCode, Stdio};

use clap::Args;
use serde_json::Value;

use super::{CliError, CliResult};

/// The last lines of a failing check's output the reason carries.
const TAIL_LINES: usize = 20;

/// The most of a check's output kept (its end; the rest is read and dropped).
const KEEP_OUTPUT: usize = 64 << 10;

/// `hookhost checks-before-commit`.
#[derive(Debug, Clone, Args)]
pub struct ChecksArgs {
    /// A check to run before a commit or push, as a `sh -c` command line; repeatable,
    /// run in order, the first failure refuses.
    #[arg(long = "run", value_name = "CMD", required = true)]
    run: Vec<String>,
    /// Also before these git subcommands (default: commit and push).
    #[arg(long = "before", value_name = "SUBCOMMAND", default_values_t = [String::from("commit"), String::from("push")])]
    before: Vec<String>,
}

/// Runs the checks when the input is a commit or push.
pub fn run(args: &ChecksArgs) -> CliResult {
    let mut bytes = Vec::new();
    std::io::stdin()
        .take(super::FIRE_MAX_INPUT as u64)
        .read_to_end(&mut bytes)
        .map_err(|err| CliError::Usage(anyhow::anyhow!("cannot read the input: {err}")))?;
    let input: Value = serde_json::from_slice(&bytes)
        .map_err(|err| CliError::Usage(anyhow::anyhow!("the input is not JSON: {err}")))?;
    let Some(command) = input["tool_input"]["command"].as_str() else {
        return Ok(ExitCode::SUCCESS);
    };
    let cwd = input["cwd"]
        .as_str()
        .map(PathBuf::from)
        .filter(|cwd| cwd.is_absolute() && cwd.is_dir())
        .unwrap_or_else(|| std::env::current_dir().unwrap_or_default());
    let Some(sub) = git_subcommand(command, &cwd, &args.before) else {
        return Ok(ExitCode::SUCCESS);
    };
    for check in &args.run {
        if let Some(failure) = run_check(check, &cwd) {
            super::write_stderr(&format!(
                "the checks before `git {sub}` failed: `{check}` {failure}; fix what it reports, then {sub} again\n"
            ));
            return Ok(ExitCode::from(2));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The first git subcommand of `before` that `command` runs, anywhere bash would run it.
fn git_subcommand<'b>(
    command: &str,
    cwd: &std::path::Path,
    before: &'b [String],
) -> Option<&'b str> {
    let view = hookhost::internals::shell::parse_in(command, cwd);
    view.nodes.iter().find_map(|node| {
        let program = node.program? as usize;
        let words: Vec<&str> = node.words.iter().map(|w| w.text.as_str()).collect();
        let name = words.get(program)?.rsplit('/').next()?;
        if name != "git" {
            return None;
        }
        // Past git's own options (the table every reader of a command line shares).
        let sub = hookhost::internals::shell::facts::git_subcommand(
            words[program + 1..].iter().copied(),
        )?;
        let dynamic = node.words.get(program + 1).is_some_and(|w| w.dynamic);
        before
            .iter()
            .find(|wanted| wanted.as_str() == sub || dynamic)
            .map(String::as_str)
    })
}

/// Runs one check; why it failed, if it did. Its output (stderr joined to stdout) is read
/// as it comes, keeping only the last [`KEEP_OUTPUT`] bytes: a check that prints without
/// end costs no memory.
fn run_check(check: &str, cwd: &std::path::Path) -> Option<String> {
    let script = format!("exec 2>&1\n{check}");
    let mut command = std::process::Command::new("sh");
    match std::env::var_os(hookhost::envelope::ENVELOPE_VAR) {
        Some(file) => {
            let launcher = match std::env::current_exe() {
                Ok(launcher) => launcher,
                Err(err) => {
                    return Some(format!(
                        "could not start inside the owner's envelope (this binary cannot be found: {err})"
                    ));
                }
            };
            // The launcher's own notes (a refusal) join the check's output.
            command
                .arg("-c")
                .arg("exec 2>&1; exec \"$0\" envelope run --envelope \"$1\" -- \"$2\"")
                .arg(launcher)
                .arg(file)
                .arg(&script);
        }
        None => {
            command.arg("-c").arg(&script);
        }
    }
    let child = command
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(child) => child,
        Err(err) => return Some(format!("could not start ({err})")),
    };
    let mut kept: Vec<u8> = Vec::new();
    if let Some(mut stdout) = child.stdout.take() {
        let mut chunk = [0u8; 8192];
        while let Ok(read) = stdout.read(&mut chunk) {
            if read == 0 {
                break;
            }
            kept.extend_from_slice(&chunk[..read]);
            if kept.len() > 2 * KEEP_OUTPUT {
                kept.drain(..kept.len() - KEEP_OUTPUT);
            }
        }
    }
    let status = match child.wait() {
        Ok(status) => status,
        Err(err) => return Some(format!("could not be waited for ({err})")),
    };
    if status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&kept[kept.len().saturating_sub(KEEP_OUTPUT)..]);
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let tail = lines[lines.len().saturating_sub(TAIL_LINES)..].join("\n");
    let status = status
        .code()
        .map_or("was killed".to_string(), |code| format!("exited {code}"));
    Some(if tail.is_empty() {
        status
    } else {
        format!("{status}:\n{tail}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_commit_or_push_is_found_wherever_bash_would_run_it() {
        let before = vec!["commit".to_string(), "push".to_string()];
        let cwd = std::env::temp_dir();
        for (command, found) in [
            ("git commit -m x", Some("commit")),
            ("cargo fmt && git -C repo commit -am x", Some("commit")),
            (
                "git --config-env core.hooksPath=H commit -m x",
                Some("commit"),
            ),
            ("bash -c 'git push origin main'", Some("push")),
            ("sudo env A=1 /usr/bin/git push", Some("push")),
            ("git $SUB", Some("commit")),
            ("git status && git log", None),
            ("echo 'git commit'", None),
        ] {
            assert_eq!(git_subcommand(command, &cwd, &before), found, "{command}");
        }
    }

    #[test]
    fn a_failing_check_says_how_with_the_tail_of_its_output() {
        let cwd = std::env::temp_dir();
        assert_eq!(run_check("true", &cwd), None);
        let why = run_check("echo one; echo two >&2; exit 3", &cwd).unwrap();
        assert!(
            why.starts_with("exited 3") && why.contains("one") && why.contains("two"),
            "{why}"
        );
        // Megabytes of output: only the end is kept, and it says what failed.
        let why = run_check(
            "yes filler | head -c 8000000; echo; echo the-end; exit 1",
            &cwd,
        )
        .unwrap();
        assert!(
            why.ends_with("the-end") && why.len() < KEEP_OUTPUT,
            "{}",
            why.len()
        );
    }
}
