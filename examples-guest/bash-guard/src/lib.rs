//! `bash-guard`: denies destructive shell commands before they run.
//!
//! It reads the command through the host's shell view, so it sees every command bash
//! would run: in any part of a chain (`&&`, `||`, `;`, newlines, `&`), of a pipeline, in
//! `$(…)`, `<(…)`, subshells and function bodies, and in scripts handed to another shell
//! (`bash -c '…'`, `eval`, here-strings, `echo '…' | sh`). Refused: recursive force
//! deletes of `/`, `~`, `$HOME` or the project root; `git reset --hard`; force pushes to a
//! protected branch (config `protectedBranches`, default `main` and `master`); a download
//! whose output reaches a shell (`curl … | sh`, `sh <(curl …)`, `bash -c "$(curl …)"`);
//! and reading `.env` files. Each reason tells the model what to do instead. A command the
//! host cannot fully read is refused (fail closed).

use hookhost_guest::shell::{Command, Script};
use hookhost_guest::{Answer, Hook, PreToolUse, config, export_hook};

/// The hook.
pub struct BashGuard;

impl Hook for BashGuard {
    fn pre_tool_use(call: PreToolUse) -> Result<Answer, String> {
        let Some(script) = call.shell() else {
            return Ok(Answer::none());
        };
        let protected = {
            let configured = config::get_list("protectedBranches");
            if configured.is_empty() {
                vec!["main".to_string(), "master".to_string()]
            } else {
                configured
            }
        };
        Ok(match verdict(&script, call.cwd(), &protected) {
            Some(reason) => Answer::deny(reason),
            None => Answer::none(),
        })
    }
}

export_hook!(BashGuard);

/// The reason to refuse `script`, if any; `project` is the project root (the session cwd).
pub fn verdict(script: &Script, project: &str, protected: &[String]) -> Option<String> {
    if script.partial() {
        return Some(format!(
            "bash-guard could not read this command ({}); rewrite it in plain shell syntax",
            script.error().unwrap_or("partial parse")
        ));
    }
    script.commands().find_map(|cmd| {
        let args: Vec<String> = cmd.args().into_iter().map(str::to_string).collect();
        download_into_shell(&cmd)
            .or_else(|| env_file(&cmd))
            .or_else(|| match cmd.name() {
                "rm" => rm(&args, project),
                "git" => git(&args, protected),
                _ => None,
            })
    })
}

fn download_into_shell(cmd: &Command) -> Option<String> {
    let fetches = |c: Command| matches!(c.name(), "curl" | "wget" | "fetch" | "aria2c");
    (cmd.runs_code() && cmd.upstream().chain(cmd.inside()).any(fetches)).then(|| {
        "running a download as code runs unreviewed code; download the script to a file, read it, then run it explicitly".to_string()
    })
}

fn env_file(cmd: &Command) -> Option<String> {
    let secret = |word: &str| {
        let name = word.rsplit('/').next().unwrap_or(word);
        name == ".env" || (name.starts_with(".env.") && !name.ends_with(".example"))
    };
    cmd.operands().into_iter().find(|w| secret(w)).map(|file| {
        format!("`{file}` holds secrets; read `.env.example` for the variable names instead")
    })
}

fn rm(args: &[String], project: &str) -> Option<String> {
    let mut recursive = false;
    let mut force = false;
    let mut targets = Vec::new();
    let mut options_done = false;
    for arg in args {
        if !options_done && arg == "--" {
            options_done = true;
        } else if !options_done && arg.starts_with("--") {
            recursive |= arg == "--recursive";
            force |= arg == "--force";
        } else if !options_done && arg.starts_with('-') && arg.len() > 1 {
            recursive |= arg.contains('r') || arg.contains('R');
            force |= arg.contains('f');
        } else {
            targets.push(arg.as_str());
        }
    }
    if !(recursive && force) {
        return None;
    }
    let project = project.trim_end_matches('/');
    let dangerous = targets.iter().find(|target| {
        let t = target.trim_end_matches('/');
        let t = t.strip_suffix("/*").unwrap_or(t);
        matches!(t, "" | "/" | "~" | "$HOME" | "${HOME}" | "." | ".." | "*")
            || (!project.is_empty() && t == project)
    })?;
    Some(format!(
        "`rm -rf {dangerous}` would delete the filesystem root, the home directory or the whole project; remove the specific files or directories you mean, by path inside the project"
    ))
}

fn git(args: &[String], protected: &[String]) -> Option<String> {
    let sub = args.iter().position(|a| !a.starts_with('-'))?;
    let rest = &args[sub + 1..];
    match args[sub].as_str() {
        "reset" if rest.iter().any(|a| a == "--hard") => Some(
            "`git reset --hard` discards uncommitted work; use `git stash` to set changes aside, or `git restore <path>` for specific files".into(),
        ),
        "push" => {
            let force = rest.iter().any(|a| {
                a == "--force" || a == "--force-with-lease" || a.starts_with("--force-with-lease=")
                    || (a.starts_with('-') && !a.starts_with("--") && a.contains('f'))
            });
            let refspecs: Vec<&str> = rest.iter().filter(|a| !a.starts_with('-')).skip(1).map(String::as_str).collect();
            let plus_protected = refspecs.iter().any(|r| r.starts_with('+') && targets_protected(&r[1..], protected));
            let hits_protected = refspecs.is_empty() || refspecs.iter().any(|r| targets_protected(r, protected));
            ((force && hits_protected) || plus_protected).then(|| {
                format!(
                    "force pushes to {} rewrite shared history; push to a feature branch and open a pull request instead",
                    protected.join("/")
                )
            })
        }
        _ => None,
    }
}

fn targets_protected(refspec: &str, protected: &[String]) -> bool {
    let target = refspec.rsplit(':').next().unwrap_or(refspec);
    let target = target.strip_prefix("refs/heads/").unwrap_or(target);
    protected.iter().any(|p| p == target)
}
