//! `hookhost-hook`: the agents' installed hook command, small. It takes the arguments of
//! `hookhost claude hook …` or `hookhost hook --agent NAME …` and sends the call to the
//! owner's warm engine (`hookhost serve --warm`, see [`hookhost::warm`]) when one runs
//! and is the owner's own; otherwise — no engine, another one, any failure — the
//! `hookhost` binary beside it answers, one-shot, with the same arguments and input. A
//! warm engine that is gone costs the call speed, never its guard.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

/// Largest hook input sent to the warm engine (the one-shot path has its own limit).
#[cfg(target_os = "linux")]
const MAX_INPUT: u64 = 16 << 20;

/// How long the warm engine may take before the one-shot path answers instead: above
/// the agents' own hook timeouts (Claude Code's longest is 600 s), so that a slow hook
/// (a test suite before a commit) is not run a second time while the agent still waits.
#[cfg(target_os = "linux")]
const WARM_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(610);

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let Some(full) = full_binary() else {
        eprintln!("hookhost-hook: the hookhost binary is not beside this one");
        return ExitCode::from(1);
    };
    // The warm engine is asked on Linux, where its server can be told apart (see
    // `hookhost::warm::connect`); elsewhere every call is one-shot.
    #[cfg(target_os = "linux")]
    if let Some(call) = Call::of(&args)
        && call.for_the_warm_engine()
    {
        return match call.warm(&full) {
            Warm::Answered(answer) => write(&answer),
            Warm::NotAsked => one_shot(&full, &args, None),
            Warm::Failed(input) => one_shot(&full, &args, Some(&input)),
        };
    }
    one_shot(&full, &args, None)
}

/// The `hookhost` binary beside this one.
fn full_binary() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let full = exe.with_file_name(format!("hookhost{}", std::env::consts::EXE_SUFFIX));
    full.is_file().then_some(full)
}

/// A hook call as the arguments give it.
#[cfg(target_os = "linux")]
struct Call {
    /// The agent (`claude` for `claude hook`).
    agent: String,
    /// The agent's name for the event, when given.
    event: Option<String>,
    /// The owner's folders, as given.
    locations: Vec<(&'static str, String)>,
}

/// What became of asking the warm engine.
#[cfg(target_os = "linux")]
enum Warm {
    /// It answered.
    Answered(hookhost::warm::Answer),
    /// It was not asked (none runs, or not the owner's): stdin is untouched.
    NotAsked,
    /// It was asked and failed: the input read, for the one-shot path.
    Failed(Vec<u8>),
}

#[cfg(target_os = "linux")]
impl Call {
    /// The call `args` make, when they are a hook call this client knows.
    fn of(args: &[OsString]) -> Option<Call> {
        let args: Vec<&str> = args.iter().map(|arg| arg.to_str()).collect::<Option<_>>()?;
        let (mut agent, mut rest) = match args.as_slice() {
            ["claude", "hook", rest @ ..] => (Some("claude".to_string()), rest),
            ["hook", rest @ ..] => (None, rest),
            _ => return None,
        };
        let mut call = Call {
            agent: String::new(),
            event: None,
            locations: Vec::new(),
        };
        while let [flag, value, tail @ ..] = rest {
            match *flag {
                "--agent" if agent.is_none() => agent = Some((*value).to_string()),
                "--event" => call.event = Some((*value).to_string()),
                "--deadline" => {}
                flag => {
                    let known = hookhost::warm::LOCATION_FLAGS
                        .iter()
                        .find(|known| **known == flag)?;
                    call.locations.push((known, (*value).to_string()));
                }
            }
            rest = tail;
        }
        if !rest.is_empty() {
            return None;
        }
        call.agent = agent?;
        Some(call)
    }

    /// Whether the warm engine answers this call as the one-shot path would. Not for a
    /// hook process a hookhost started (its command hooks get `HOOKHOST=1`): the
    /// one-shot path decides from the process tree whether the outer engine already runs
    /// the hooks, and the warm engine must not be asked by its own hooks. Not for a
    /// Claude Code plugin's call (`CLAUDE_PLUGIN_ROOT`, which the one-shot path checks
    /// and expands per call). The variables only ever send a call the one-shot way,
    /// which judges it in full: one set by a repository costs speed, never the guard.
    fn for_the_warm_engine(&self) -> bool {
        let plugin = self.agent == "claude" && std::env::var_os("CLAUDE_PLUGIN_ROOT").is_some();
        !plugin && std::env::var_os("HOOKHOST").is_none()
    }

    /// Asks the owner's warm engine, when one runs.
    fn warm(&self, full: &Path) -> Warm {
        use std::io::Read;
        {
            let Some(state) = self.state_dir() else {
                return Warm::NotAsked;
            };
            let locations: Vec<(&str, &str)> = self
                .locations
                .iter()
                .map(|(flag, value)| (*flag, value.as_str()))
                .collect();
            let args = hookhost::warm::serve_args(&locations);
            let socket = hookhost::warm::socket_in(&state);
            let Ok(stream) = hookhost::warm::connect(&socket, full, &args) else {
                return Warm::NotAsked;
            };
            let mut input = Vec::new();
            if std::io::stdin()
                .take(MAX_INPUT + 1)
                .read_to_end(&mut input)
                .is_err()
                || input.len() as u64 > MAX_INPUT
            {
                return Warm::Failed(input);
            }
            match hookhost::warm::ask(
                stream,
                &self.agent,
                self.event.as_deref(),
                &input,
                WARM_TIMEOUT,
            ) {
                Ok(answer) => Warm::Answered(answer),
                Err(_) => Warm::Failed(input),
            }
        }
    }

    /// hookhost's state folder: `--state-dir`, else below `--home`, else below the
    /// account's home (never an environment variable).
    fn state_dir(&self) -> Option<PathBuf> {
        let given = |flag: &str| {
            self.locations
                .iter()
                .find(|(known, _)| *known == flag)
                .map(|(_, value)| PathBuf::from(value))
        };
        given("--state-dir")
            .or_else(|| given("--home").map(|home| hookhost::internals::state_dir_in(&home)))
            .or_else(|| {
                hookhost::internals::home().map(|home| hookhost::internals::state_dir_in(&home))
            })
    }
}

/// The `hookhost` binary answers with the same arguments; `input`, when this process
/// already read its stdin, is handed to it.
fn one_shot(full: &Path, args: &[OsString], input: Option<&[u8]>) -> ExitCode {
    let mut command = Command::new(full);
    command.args(args);
    let Some(input) = input else {
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            let err = command.exec();
            eprintln!("hookhost-hook: cannot run {}: {err}", full.display());
            return ExitCode::from(1);
        }
        #[cfg(not(unix))]
        return status_of(command.status(), full);
    };
    let child = command.stdin(Stdio::piped()).spawn();
    let mut child = match child {
        Ok(child) => child,
        Err(err) => {
            eprintln!("hookhost-hook: cannot run {}: {err}", full.display());
            return ExitCode::from(1);
        }
    };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(input);
    }
    status_of(child.wait(), full)
}

/// This process's exit status for the one-shot child's.
fn status_of(status: std::io::Result<std::process::ExitStatus>, full: &Path) -> ExitCode {
    match status {
        Ok(status) => ExitCode::from(
            status
                .code()
                .and_then(|code| u8::try_from(code).ok())
                .unwrap_or(1),
        ),
        Err(err) => {
            eprintln!("hookhost-hook: cannot run {}: {err}", full.display());
            ExitCode::from(1)
        }
    }
}

/// Writes the warm engine's answer as the one-shot path would.
#[cfg(target_os = "linux")]
fn write(answer: &hookhost::warm::Answer) -> ExitCode {
    let mut err = std::io::stderr().lock();
    if let Some(line) = &answer.stderr {
        let _ = writeln!(err, "{line}");
    }
    let mut out = std::io::stdout().lock();
    if !answer.stdout.is_empty() {
        let _ = writeln!(out, "{}", answer.stdout);
    }
    let _ = out.flush();
    ExitCode::from(u8::try_from(answer.exit_code).unwrap_or(1))
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    fn call(args: &[&str]) -> Option<Call> {
        let args: Vec<OsString> = args.iter().map(OsString::from).collect();
        Call::of(&args)
    }

    #[test]
    fn knows_the_installed_commands_and_leaves_the_rest_to_hookhost() {
        let claude = call(&["claude", "hook", "--home", "/h", "--state-dir", "/h/s"]).unwrap();
        assert_eq!(claude.agent, "claude");
        assert_eq!(
            claude.locations,
            [
                ("--home", "/h".to_string()),
                ("--state-dir", "/h/s".to_string())
            ]
        );
        let codex = call(&[
            "hook",
            "--agent",
            "codex",
            "--event",
            "PreToolUse",
            "--home",
            "/h",
        ])
        .unwrap();
        assert_eq!(
            (codex.agent.as_str(), codex.event.as_deref()),
            ("codex", Some("PreToolUse"))
        );
        for other in [
            &["fire", "PreToolUse"][..],
            &["hook", "--home", "/h"],
            &["hook", "--agent", "codex", "--serve", "http://x"],
            &["claude", "hook", "--settings", "/x.json"],
            &["claude", "hook", "--home"],
        ] {
            assert!(call(other).is_none(), "{other:?}");
        }
    }
}
