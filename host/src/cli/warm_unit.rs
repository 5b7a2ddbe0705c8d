//! `install --warm`: a per-user service that keeps the owner's warm engine running
//! (`hookhost serve --warm` with the folders the installed hook commands name) — a
//! `systemd --user` unit on Linux, a launchd agent on macOS — written, enabled where the
//! service manager answers, and taken away again by `uninstall`. The agent stopping it
//! costs speed only: the hook commands fall back to the one-shot path, and the service
//! manager starts it again.

use std::path::{Path, PathBuf};

use anyhow::Context;

/// The unit's name (systemd) and the agent's label (launchd).
pub(crate) const NAME: &str = "hookhost-serve";
/// launchd's label.
const LABEL: &str = "dev.hookhost.serve";
/// The line that marks a unit file as hookhost's (uninstall removes only such files).
const MARK: &str = "hookhost install --warm";
/// What a unit file's line naming a folder install created starts with (uninstall
/// removes those folders again when they are empty).
const CREATED: &str = "created by install: ";

/// Where the service file lies for `home`.
pub(crate) fn file(home: &Path) -> PathBuf {
    if cfg!(target_os = "macos") {
        home.join("Library/LaunchAgents")
            .join(format!("{LABEL}.plist"))
    } else {
        home.join(".config/systemd/user")
            .join(format!("{NAME}.service"))
    }
}

/// The `systemd --user` unit running `argv`.
pub(crate) fn systemd_unit(argv: &[String]) -> String {
    let line = super::command_line::line(argv);
    format!(
        "# Written by `{MARK}`; `hookhost uninstall` removes it.\n\
         [Unit]\n\
         Description=hookhost warm engine: the agents' hook calls answered without starting an engine\n\
         \n\
         [Service]\n\
         Type=simple\n\
         ExecStart={line}\n\
         Restart=always\n\
         RestartSec=1\n\
         \n\
         [Install]\n\
         WantedBy=default.target\n"
    )
}

/// The launchd agent running `argv`.
pub(crate) fn launchd_plist(argv: &[String]) -> String {
    let escape = |text: &str| {
        text.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    let args: String = argv
        .iter()
        .map(|arg| format!("    <string>{}</string>\n", escape(arg)))
        .collect();
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n\
         <!-- Written by `{MARK}`; `hookhost uninstall` removes it. -->\n\
         <plist version=\"1.0\">\n\
         <dict>\n\
         \x20 <key>Label</key>\n\
         \x20 <string>{LABEL}</string>\n\
         \x20 <key>ProgramArguments</key>\n\
         \x20 <array>\n\
         {args}\
         \x20 </array>\n\
         \x20 <key>RunAtLoad</key>\n\
         \x20 <true/>\n\
         \x20 <key>KeepAlive</key>\n\
         \x20 <true/>\n\
         </dict>\n\
         </plist>\n"
    )
}

/// Writes the service for the warm engine `argv` below `home` and asks the service
/// manager to start it; returns what to tell the user.
pub(crate) fn install(home: &Path, argv: &[String]) -> anyhow::Result<String> {
    let file = file(home);
    let text = if cfg!(target_os = "macos") {
        launchd_plist(argv)
    } else {
        systemd_unit(argv)
    };
    let existing = std::fs::read_to_string(&file).ok();
    if let Some(existing) = &existing
        && !existing.contains(MARK)
    {
        anyhow::bail!(
            "{} exists and is not hookhost's; not changed",
            file.display()
        );
    }
    // The folders made for it are named in it, so that uninstall takes them away too.
    let mut created: Vec<PathBuf> = existing.as_deref().map(created_folders).unwrap_or_default();
    let mut missing: Vec<&Path> = file
        .ancestors()
        .skip(1)
        .take_while(|dir| !dir.exists())
        .collect();
    missing.reverse();
    for dir in missing {
        std::fs::create_dir(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        created.push(dir.to_path_buf());
    }
    let comment = if cfg!(target_os = "macos") {
        ("<!-- ", " -->")
    } else {
        ("# ", "")
    };
    let mut text = text;
    for dir in &created {
        let line = format!("{}{CREATED}{}{}\n", comment.0, dir.display(), comment.1);
        text = match text.find('\n') {
            Some(at) if !cfg!(target_os = "macos") => {
                format!("{}{line}{}", &text[..=at], &text[at + 1..])
            }
            _ => text + &line,
        };
    }
    hookhost::internals::replace_private(&file, text.as_bytes())
        .with_context(|| format!("cannot write {}", file.display()))?;
    let started = if !is_accounts(home) {
        Err(format!(
            "{} is not this account's home, whose services the service manager runs",
            home.display()
        ))
    } else if cfg!(target_os = "macos") {
        run("launchctl", &["load", "-w", &file.display().to_string()])
    } else {
        run("systemctl", &["--user", "daemon-reload"]).and_then(|()| {
            run(
                "systemctl",
                &["--user", "enable", "--now", &format!("{NAME}.service")],
            )
        })
    };
    Ok(match started {
        Ok(()) => format!(
            "warm engine: {} written and started; the hook commands ask it, and answer one-shot when it is not running",
            file.display()
        ),
        Err(why) => format!(
            "warm engine: {} written, but the service manager did not start it ({why}); start it with `{}`, or run `{}` yourself — until then every hook call starts an engine of its own",
            file.display(),
            if cfg!(target_os = "macos") {
                format!("launchctl load -w {}", file.display())
            } else {
                format!("systemctl --user enable --now {NAME}.service")
            },
            super::command_line::line(argv)
        ),
    })
}

/// Stops and removes hookhost's service below `home`, when there is one; what was done.
pub(crate) fn uninstall(home: &Path) -> Option<String> {
    let file = file(home);
    let text = std::fs::read_to_string(&file).ok()?;
    if !text.contains(MARK) {
        return Some(format!(
            "{} is not hookhost's; left as it is",
            file.display()
        ));
    }
    let _ = if !is_accounts(home) {
        Ok(())
    } else if cfg!(target_os = "macos") {
        run("launchctl", &["unload", "-w", &file.display().to_string()])
    } else {
        run(
            "systemctl",
            &["--user", "disable", "--now", &format!("{NAME}.service")],
        )
    };
    let removed = std::fs::remove_file(&file).is_ok();
    if removed {
        // The folders install made for it, deepest first, where they are empty now.
        let mut created = created_folders(&text);
        created.sort_by_key(|dir| std::cmp::Reverse(dir.components().count()));
        for dir in created {
            let _ = std::fs::remove_dir(dir);
        }
    }
    if is_accounts(home) && !cfg!(target_os = "macos") {
        let _ = run("systemctl", &["--user", "daemon-reload"]);
    }
    Some(if removed {
        format!("warm engine: {} stopped and removed", file.display())
    } else {
        format!("warm engine: cannot remove {}", file.display())
    })
}

/// What `status` says of the owner's warm engine for the folders `pairs` (the location
/// flags and their folders, as the installed commands name them) below `home`.
pub(crate) fn status_line(home: &Path, pairs: &[(&str, &str)]) -> String {
    let service = file(home);
    let service = if service.is_file() {
        format!(" (service: {})", service.display())
    } else {
        " (no service: `install --warm` keeps one running)".to_string()
    };
    let state = pairs
        .iter()
        .find(|(flag, _)| *flag == "--state-dir")
        .map(|(_, dir)| PathBuf::from(dir));
    let (Some(state), Ok(exe)) = (state, super::command_line::own_exe()) else {
        return format!("warm engine: unknown{service}");
    };
    let socket = hookhost::warm::socket_in(&state);
    #[cfg(target_os = "linux")]
    {
        let args = hookhost::warm::serve_args(pairs);
        match hookhost::warm::connect(&socket, Path::new(&exe), &args) {
            Ok(_) => format!(
                "warm engine: running at {} — the hook commands answer through it{service}",
                socket.display()
            ),
            Err(why @ hookhost::warm::Unavailable::NotOurs { .. }) => {
                format!("warm engine: NOT USED — {why}; the hook commands answer one-shot{service}")
            }
            Err(_) => format!(
                "warm engine: not running — every hook call starts an engine of its own{service}"
            ),
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (socket, exe);
        format!(
            "warm engine: not used on this system — every hook call starts an engine of its own{service}"
        )
    }
}

/// Whether `home` is this account's own home: only its services are the service
/// manager's to start and stop (a `--home` elsewhere gets the file alone).
fn is_accounts(home: &Path) -> bool {
    hookhost::internals::home()
        .is_some_and(|own| std::fs::canonicalize(own).ok() == std::fs::canonicalize(home).ok())
}

/// The folders a unit file `text` says install created for it.
fn created_folders(text: &str) -> Vec<PathBuf> {
    text.lines()
        .filter_map(|line| line.split_once(CREATED))
        .map(|(_, rest)| PathBuf::from(rest.trim_end_matches(" -->").trim_end()))
        .filter(|dir| dir.is_absolute())
        .collect()
}

/// Runs the service manager's `program` with `args`; why it failed, if it did.
fn run(program: &str, args: &[&str]) -> Result<(), String> {
    let out = std::process::Command::new(program)
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|err| format!("`{program}`: {err}"))?;
    if out.status.success() {
        return Ok(());
    }
    let said = String::from_utf8_lossy(&out.stderr);
    Err(format!(
        "`{program} {}`: {}",
        args.join(" "),
        said.lines().next().unwrap_or("failed")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv() -> Vec<String> {
        [
            "/opt/hook host/hookhost",
            "serve",
            "--warm",
            "--home",
            "/home/u",
        ]
        .iter()
        .map(|word| word.to_string())
        .collect()
    }

    #[test]
    fn the_systemd_unit_runs_the_warm_engine_and_restarts_it() {
        let unit = systemd_unit(&argv());
        assert!(unit.starts_with("# Written by `hookhost install --warm`"));
        assert!(
            unit.contains("\nExecStart='/opt/hook host/hookhost' serve --warm --home /home/u\n"),
            "{unit}"
        );
        assert!(unit.contains("\nRestart=always\n"));
        assert!(unit.contains("\nWantedBy=default.target\n"));
    }

    #[test]
    fn the_launchd_agent_runs_the_same_arguments_word_by_word() {
        let plist = launchd_plist(&argv());
        assert!(plist.contains("<string>dev.hookhost.serve</string>"));
        assert!(
            plist.contains(
                "    <string>/opt/hook host/hookhost</string>\n    <string>serve</string>\n    <string>--warm</string>\n"
            ),
            "{plist}"
        );
        assert!(plist.contains("<key>KeepAlive</key>\n  <true/>"));
        let odd = launchd_plist(&["/a&b/<x>".to_string()]);
        assert!(odd.contains("<string>/a&amp;b/&lt;x&gt;</string>"));
    }

    #[test]
    fn only_hookhosts_own_unit_is_replaced_or_removed() {
        let dir = tempfile::tempdir().unwrap();
        let file = file(dir.path());
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, "[Unit]\nDescription=mine\n").unwrap();
        assert!(install(dir.path(), &argv()).is_err());
        assert!(uninstall(dir.path()).unwrap().contains("not hookhost's"));
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            "[Unit]\nDescription=mine\n"
        );
        std::fs::remove_file(&file).unwrap();
        assert!(uninstall(dir.path()).is_none());
    }

    #[test]
    fn uninstall_takes_away_the_folders_install_made_for_the_unit() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path();
        std::fs::create_dir_all(home.join(".config")).unwrap();
        // The service manager may be missing here: the file is written all the same.
        install(home, &argv()).unwrap();
        let file = file(home);
        assert!(file.is_file());
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains(MARK), "{text}");
        // A second install keeps naming them.
        install(home, &argv()).unwrap();
        assert!(uninstall(home).unwrap().contains("removed"));
        let mut left: Vec<String> = walk(home);
        left.sort();
        assert_eq!(left, [".config"], "install's folders are left");
    }

    fn walk(dir: &Path) -> Vec<String> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            out.push(path.strip_prefix(dir).unwrap().display().to_string());
            if path.is_dir() {
                for inner in walk(&path) {
                    out.push(format!(
                        "{}/{inner}",
                        path.file_name().unwrap().to_string_lossy()
                    ));
                }
            }
        }
        out
    }
}
