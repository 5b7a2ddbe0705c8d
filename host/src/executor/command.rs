//! The `command` executor: the only place hookhost spawns processes.
//!
//! Each hook runs in its own process group. The input JSON goes to stdin; stdout and
//! stderr are read concurrently and capped (the rest is drained and dropped, so a hook
//! printing gigabytes neither blocks nor exhausts memory). When the hook exits, times
//! out, or the call is abandoned, the whole group is killed: no orphans. A first stdout
//! line of `{"async": true}` detaches the hook into the background.
//!
//! The exit-code matrix (reference 2.3) lives in [`interpret`], a pure function.

use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, Command};
use tokio::sync::oneshot;

use super::{AsyncNotice, BoxFuture, Executor, HookCall};
use crate::config::{CommandHandler, Shell};
use crate::dialect::AnswerForm;
use crate::dialect::Event;
use crate::event::{Exit2, Fields};
use crate::outcome::HookRun;
use crate::output::{HookAnswer, PermissionDecision};
use crate::platform::{self, ProcessTree};
use crate::protocol::{async_timeout, is_async_marker, looks_like_json, parse_answer};

/// Bytes kept from each of stdout and stderr.
pub const OUTPUT_CAP: usize = 1024 * 1024;

/// Time allowed for the pipes to close once the hook's process group is gone.
const PIPE_GRACE: Duration = Duration::from_millis(500);

/// Runs `command` hooks.
pub struct CommandExecutor {
    handler: CommandHandler,
    /// Variables the hook's configuration adds (plugin variables).
    env: Vec<(String, String)>,
}

impl CommandExecutor {
    /// An executor for one configured command; `env` is added to every process's
    /// environment (plugin variables such as `CLAUDE_PLUGIN_ROOT`).
    pub fn new(handler: CommandHandler, env: Vec<(String, String)>) -> Self {
        Self { handler, env }
    }

    /// The process environment for `call`: the Claude Code variables, then the hook's.
    fn environment(&self, call: &HookCall) -> Vec<(String, String)> {
        let mut env = vec![
            ("CLAUDECODE".to_string(), "1".to_string()),
            ("HOOKHOST".to_string(), "1".to_string()),
        ];
        if let Some(project) = call.project_dir.as_deref() {
            env.push(("CLAUDE_PROJECT_DIR".into(), project.display().to_string()));
        }
        if !call.input.session.is_empty() {
            env.push((
                "CLAUDE_CODE_SESSION_ID".into(),
                call.input.session.to_string(),
            ));
        }
        env.extend(self.env.iter().cloned());
        env
    }

    fn command(&self, call: &HookCall) -> Command {
        let mut command = match &self.handler.args {
            Some(args) => {
                let mut c = Command::new(&self.handler.command);
                c.args(args);
                c
            }
            None => {
                // `sh`/`bash` where there is one (on Windows, Git Bash, as Claude Code
                // does), else PowerShell; `shell: powershell` always PowerShell.
                let posix = match self.handler.shell {
                    Shell::Sh => platform::posix_shell(false),
                    Shell::Bash => platform::posix_shell(true),
                    Shell::PowerShell => None,
                };
                match posix {
                    Some(shell) => {
                        let mut c = Command::new(shell);
                        c.arg("-c").arg(&self.handler.command);
                        c
                    }
                    None => {
                        let mut c = Command::new(powershell());
                        c.args(["-NoProfile", "-NonInteractive", "-Command"])
                            .arg(&self.handler.command);
                        c
                    }
                }
            }
        };
        // The engine's project directory, never the input's `cwd`: a request field must
        // not choose which `./hooks/check.sh` runs (a caller naming another folder would
        // run its script instead of the project's). Without a project, hookhost's own.
        let cwd = call.project_dir.as_deref();
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .env_remove(crate::envelope::ENVELOPE_VAR)
            .envs(self.environment(call));
        platform::own_process_group(&mut command);
        if let Some(cwd) = cwd.filter(|dir| dir.is_dir()) {
            command.current_dir(cwd);
        }
        command
    }
}

impl Executor for CommandExecutor {
    fn execute<'a>(&'a self, call: HookCall) -> BoxFuture<'a, HookRun> {
        Box::pin(self.run(call))
    }
}

/// The PowerShell executable: `pwsh` (PowerShell 7) when it is on `PATH`, else the
/// Windows PowerShell name `powershell` (a missing shell is reported when the hook runs).
fn powershell() -> &'static str {
    static FOUND: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();
    FOUND.get_or_init(|| {
        // `pwsh.exe` on Windows: a file on `PATH` is looked for by its whole name.
        let on_path = |name: &str| {
            let file = format!("{name}{}", std::env::consts::EXE_SUFFIX);
            std::env::var_os("PATH").is_some_and(|path| {
                std::env::split_paths(&path).any(|dir| dir.join(&file).is_file())
            })
        };
        if on_path("pwsh") {
            "pwsh"
        } else {
            "powershell"
        }
    })
}

/// What a finished process left behind.
struct Finished {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

struct Running {
    child: Child,
    tree: ProcessTree,
    stdout: tokio::task::JoinHandle<Vec<u8>>,
    stderr: tokio::task::JoinHandle<Vec<u8>>,
}

impl Running {
    /// Waits for exit (or `timeout`), kills the group, collects the output.
    async fn finish(mut self, timeout: Duration) -> Result<Finished, Duration> {
        let status = tokio::time::timeout(timeout, self.child.wait()).await;
        self.tree.kill();
        let status = match status {
            Ok(status) => status.ok(),
            Err(_) => {
                let _ = self.child.wait().await;
                self.stdout.abort();
                self.stderr.abort();
                return Err(timeout);
            }
        };
        let collect = |task: tokio::task::JoinHandle<Vec<u8>>| async move {
            let abort = task.abort_handle();
            match tokio::time::timeout(PIPE_GRACE, task).await {
                Ok(Ok(bytes)) => String::from_utf8_lossy(&bytes).into_owned(),
                _ => {
                    abort.abort();
                    String::new()
                }
            }
        };
        let (stdout, stderr) = tokio::join!(collect(self.stdout), collect(self.stderr));
        Ok(Finished {
            code: status.and_then(|s| s.code()),
            stdout,
            stderr,
        })
    }
}

/// Reads `reader` to the end, keeping the first [`OUTPUT_CAP`] bytes. The first line is
/// sent on `first_line` as soon as it is complete.
async fn read_capped(
    mut reader: impl AsyncRead + Unpin,
    mut first_line: Option<oneshot::Sender<String>>,
) -> Vec<u8> {
    let mut kept = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match reader.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let room = OUTPUT_CAP.saturating_sub(kept.len());
        kept.extend_from_slice(&buf[..n.min(room)]);
        if let Some(pos) = kept.iter().position(|&b| b == b'\n')
            && let Some(tx) = first_line.take()
        {
            let _ = tx.send(String::from_utf8_lossy(&kept[..pos]).into_owned());
        }
    }
    if let Some(tx) = first_line.take() {
        let _ = tx.send(String::from_utf8_lossy(&kept).into_owned());
    }
    kept
}

impl CommandExecutor {
    async fn run(&self, call: HookCall) -> HookRun {
        let mut child = match self.command(&call).spawn() {
            Ok(child) => child,
            Err(err) => {
                return HookRun::non_blocking(format!(
                    "cannot start `{}`: {err}",
                    self.handler.command
                ));
            }
        };
        let tree = ProcessTree::adopt(&child);
        if let Some(mut stdin) = child.stdin.take() {
            let input = call.input.json().clone();
            tokio::spawn(async move {
                // A hook that never reads stdin is fine: ignore EPIPE.
                let _ = stdin.write_all(input.as_bytes()).await;
                let _ = stdin.shutdown().await;
            });
        }
        let (line_tx, line_rx) = oneshot::channel();
        let stdout = tokio::spawn(read_capped(
            child.stdout.take().expect("stdout is piped"),
            Some(line_tx),
        ));
        let stderr = tokio::spawn(read_capped(
            child.stderr.take().expect("stderr is piped"),
            None,
        ));
        let running = Running {
            child,
            tree,
            stdout,
            stderr,
        };
        let mut finish = Box::pin(running.finish(call.timeout));
        let mut line_rx = Some(line_rx);
        loop {
            tokio::select! {
                finished = &mut finish => return conclude(&call, finished),
                line = async { line_rx.as_mut().expect("present while selected").await }, if line_rx.is_some() => {
                    line_rx = None;
                    if line.as_deref().is_ok_and(is_async_marker) {
                        // The hook detached itself: it goes on in the background (for at
                        // most its `asyncTimeout`, when it gives one) and reports through
                        // a notice.
                        let limit = line.as_deref().ok().and_then(async_timeout);
                        let background = call.background.clone();
                        background.spawn(async move {
                            let finished = match limit {
                                Some(limit) => tokio::time::timeout(limit, finish)
                                    .await
                                    .unwrap_or(Err(limit)),
                                None => finish.await,
                            };
                            let result = conclude(&call, finished);
                            call.background.notify(notice(&call, false, result));
                        });
                        return HookRun::answer(HookAnswer::default());
                    }
                }
            }
        }
    }
}

fn conclude(call: &HookCall, finished: Result<Finished, Duration>) -> HookRun {
    match finished {
        Ok(done) => interpret(done.code, &done.stdout, &done.stderr, &call.event),
        Err(limit) => HookRun::timed_out(limit, "process group killed"),
    }
}

/// Applies the reference's exit-code matrix to a finished command.
pub fn interpret(code: Option<i32>, stdout: &str, stderr: &str, event: &Event) -> HookRun {
    if event.dialect().answer == AnswerForm::HyggeAction {
        return interpret_action(code, stdout, stderr, event);
    }
    let spec = event.spec();
    let parsed = looks_like_json(stdout).then(|| {
        serde_json::from_str::<serde_json::Value>(stdout.trim())
            .map_err(|err| err.to_string())
            .and_then(|value| parse_answer(&value, event).map_err(|err| err.to_string()))
    });
    let stderr_text = stderr.trim();
    match code {
        Some(0) => match parsed {
            Some(Ok(output)) => HookRun::answer(output),
            Some(Err(err)) => HookRun::non_blocking(format!("invalid JSON output: {err}")),
            None => {
                let text = stdout.trim();
                let mut output = HookAnswer::default();
                if !text.is_empty() {
                    if spec.plain_text_context {
                        output.additional_context = Some(text.to_string());
                    }
                    if spec.honours(Fields::CUSTOM_INSTRUCTIONS) {
                        output.custom_instructions = Some(text.to_string());
                    }
                    if spec.honours(Fields::WORKTREE_PATH) {
                        output.worktree_path = last_line(text);
                    }
                }
                HookRun::answer(output)
            }
        },
        Some(2) if spec.exit2 == Exit2::Blocks => {
            let mut output = match parsed {
                Some(Ok(output)) => output,
                _ => HookAnswer::default(),
            };
            let reason = output
                .reason
                .clone()
                .filter(|r| !r.is_empty())
                .or_else(|| (!stderr_text.is_empty()).then(|| stderr_text.to_string()))
                .unwrap_or_else(|| "blocked by hook (exit code 2)".to_string());
            output.block = true;
            output.reason = Some(reason.clone());
            if spec.honours(Fields::PERMISSION_DECISION) {
                // Exit 2 wins over any JSON allow.
                output.permission_decision = Some(PermissionDecision::Deny);
                output.permission_decision_reason = Some(reason);
            }
            HookRun::answer(output)
        }
        Some(2) if spec.exit2 == Exit2::Ignored => HookRun::answer(HookAnswer::default()),
        Some(2) => HookRun::non_blocking(first_line("exit code 2", stderr_text)),
        other => {
            if spec.failure_blocks {
                return HookRun::block(first_line(&exit_text(other), stderr_text));
            }
            match parsed {
                Some(Ok(output)) => HookRun::answer(output),
                _ => HookRun::non_blocking(first_line(
                    &format!("failed with non-blocking status code: {}", exit_text(other)),
                    stderr_text,
                )),
            }
        }
    }
}

/// The last non-empty line of `text` with ANSI escape sequences removed (WorktreeCreate's
/// path).
fn last_line(text: &str) -> Option<String> {
    let line = text.lines().rev().find(|line| !line.trim().is_empty())?;
    let mut clean = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // CSI: ESC [ … final byte in @..~; other escapes: one more character.
            if chars.next() == Some('[') {
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            continue;
        }
        clean.push(c);
    }
    let clean = clean.trim();
    (!clean.is_empty()).then(|| clean.to_string())
}

/// hygge's exit rule: 0 reads the action (nothing = allow; unreadable output falls open
/// as a non-blocking error), any other exit denies with stderr, truncated to the
/// dialect's cap, as the reason (reported as an error where the event cannot be denied).
fn interpret_action(code: Option<i32>, stdout: &str, stderr: &str, event: &Event) -> HookRun {
    let text = stdout.trim();
    if code == Some(0) {
        if text.is_empty() {
            return HookRun::answer(HookAnswer::default());
        }
        return match serde_json::from_str::<serde_json::Value>(text) {
            Ok(value) => match parse_answer(&value, event) {
                Ok(output) => HookRun::answer(output),
                Err(err) => HookRun::non_blocking(format!("invalid action: {err}")),
            },
            Err(err) => HookRun::non_blocking(format!("invalid action output: {err}")),
        };
    }
    if !event.can_block {
        return HookRun::non_blocking(first_line(&exit_text(code), stderr.trim()));
    }
    let cap = event.dialect().deny_reason_cap;
    let reason = stderr.trim();
    let reason = if reason.is_empty() {
        format!("denied by hook ({})", exit_text(code))
    } else {
        crate::text::truncate(reason, cap).to_string()
    };
    HookRun::block(reason)
}

fn exit_text(code: Option<i32>) -> String {
    match code {
        Some(code) => format!("exit code {code}"),
        None => "killed by a signal".to_string(),
    }
}

fn first_line(prefix: &str, stderr: &str) -> String {
    match stderr.lines().next() {
        Some(line) if !line.is_empty() => format!("{prefix}: {line}"),
        _ => prefix.to_string(),
    }
}

/// Builds the notice for a detached or async command.
pub fn notice(call: &HookCall, rewake: bool, result: HookRun) -> AsyncNotice {
    AsyncNotice::from_result(&call.name, call.event.name(), rewake, result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::HookStatus;

    fn run(code: Option<i32>, stdout: &str, stderr: &str, event: &str) -> HookRun {
        interpret(code, stdout, stderr, &Event::new(event))
    }

    #[test]
    fn exit_code_matrix() {
        let allow =
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}"#;
        type Row<'a> = (&'a str, Option<i32>, &'a str, &'a str, &'a str, HookStatus);
        let cases: &[Row] = &[
            (
                "exit0_empty",
                Some(0),
                "",
                "",
                "PreToolUse",
                HookStatus::Success,
            ),
            (
                "exit0_json_allow",
                Some(0),
                allow,
                "",
                "PreToolUse",
                HookStatus::Success,
            ),
            (
                "exit0_bad_schema",
                Some(0),
                r#"{"continue":"x"}"#,
                "",
                "Stop",
                HookStatus::NonBlockingError,
            ),
            (
                "exit0_broken_json_is_text",
                Some(0),
                "{oops",
                "",
                "Stop",
                HookStatus::Success,
            ),
            (
                "exit2_blocks",
                Some(2),
                "",
                "nope",
                "PreToolUse",
                HookStatus::Blocking,
            ),
            (
                "exit2_beats_json_allow",
                Some(2),
                allow,
                "nope",
                "PreToolUse",
                HookStatus::Blocking,
            ),
            (
                "exit2_bad_json_still_blocks",
                Some(2),
                "{bad}",
                "nope",
                "Stop",
                HookStatus::Blocking,
            ),
            (
                "exit2_unblockable",
                Some(2),
                "",
                "x",
                "Notification",
                HookStatus::NonBlockingError,
            ),
            (
                "exit2_permission_request_ignored",
                Some(2),
                "",
                "x",
                "PermissionRequest",
                HookStatus::Success,
            ),
            (
                "exit1_plain",
                Some(1),
                "text",
                "boom",
                "PreToolUse",
                HookStatus::NonBlockingError,
            ),
            (
                "exit1_json_decides",
                Some(1),
                r#"{"decision":"block","reason":"r"}"#,
                "",
                "Stop",
                HookStatus::Blocking,
            ),
            (
                "exit1_json_allow",
                Some(1),
                allow,
                "",
                "PreToolUse",
                HookStatus::Success,
            ),
            (
                "signal",
                None,
                "",
                "",
                "PreToolUse",
                HookStatus::NonBlockingError,
            ),
            (
                "worktree_nonzero_fails",
                Some(1),
                "",
                "no",
                "WorktreeCreate",
                HookStatus::Blocking,
            ),
        ];
        for (name, code, stdout, stderr, event, status) in cases {
            assert_eq!(
                run(*code, stdout, stderr, event).status,
                *status,
                "case {name}"
            );
        }
    }

    #[test]
    fn exit2_reason_and_decision() {
        let result = run(Some(2), "", "  dangerous\nmore", "PreToolUse");
        assert_eq!(result.output.reason.as_deref(), Some("dangerous\nmore"));
        assert_eq!(
            result.output.permission_decision,
            Some(PermissionDecision::Deny)
        );
        let json = r#"{"decision":"block","reason":"from json"}"#;
        assert_eq!(
            run(Some(2), json, "stderr", "Stop")
                .output
                .reason
                .as_deref(),
            Some("from json")
        );
    }

    #[test]
    fn plain_text_becomes_context_only_where_documented() {
        let start = run(Some(0), "hello\n", "", "SessionStart");
        assert_eq!(start.output.additional_context.as_deref(), Some("hello"));
        let pre = run(Some(0), "hello\n", "", "PreToolUse");
        assert_eq!(pre.output.additional_context, None);
    }

    #[test]
    fn non_blocking_error_names_first_stderr_line() {
        let result = run(Some(1), "", "first\nsecond", "Stop");
        assert_eq!(
            result.error.as_deref(),
            Some("failed with non-blocking status code: exit code 1: first")
        );
    }
}
