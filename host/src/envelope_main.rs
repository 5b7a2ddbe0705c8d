//! `hookhost-envelope`: the envelope's launcher as a binary of its own — what `hookhost
//! envelope run` does, without the engine, the Wasm runtime or the argument parser linked
//! in, because every shell command the agent runs starts it. Installed beside `hookhost`,
//! which names it in the commands it rewrites when it is there.
//!
//! Arguments as `hookhost envelope run` takes them (the leading `envelope run` optional):
//! `--envelope FILE [--cwd-fd N] -- COMMAND`, or for a whole session (`hookhost envelope
//! session` starts it) `--envelope FILE --session-broker DIR [--session-writable DIR]… -- PROGRAM ARGS…`. Anything
//! else refuses (exit 126): a launcher that cannot tell what to apply runs nothing.

use std::process::ExitCode;

use hookhost::envelope::launch::{Launch, REFUSED, run};

fn main() -> ExitCode {
    // Inside the owner's envelope this binary covers the real git (the judge's client)
    // and keeps the project's PID namespace (the keeper).
    #[cfg(target_os = "linux")]
    {
        let mut args = std::env::args();
        let argv0 = args.next().unwrap_or_default();
        if hookhost::envelope::keeper::started_as_keeper(&argv0) {
            let args: Vec<String> = args.collect();
            let code = hookhost::envelope::keeper::keeper_main(&args);
            return ExitCode::from(u8::try_from(code).unwrap_or(u8::MAX));
        }
        if hookhost::envelope::judge::started_as_judged(&argv0) {
            let code = hookhost::envelope::judge::client_main(&argv0, args.collect());
            return ExitCode::from(u8::try_from(code).unwrap_or(u8::MAX));
        }
    }
    let code = match launch_of(std::env::args().skip(1)) {
        Ok(launch) => run(&launch),
        Err(why) => {
            eprintln!("hookhost envelope: the command was not run: {why}");
            REFUSED
        }
    };
    ExitCode::from(u8::try_from(code).unwrap_or(u8::MAX))
}

/// The launch the arguments ask for.
fn launch_of(args: impl Iterator<Item = String>) -> Result<Launch, String> {
    let mut args = args.peekable();
    if args.peek().map(String::as_str) == Some("envelope") {
        args.next();
        if args.next().as_deref() != Some("run") {
            return Err(
                "usage: hookhost-envelope --envelope FILE [--cwd-fd N | --session-broker DIR] -- COMMAND"
                    .into(),
            );
        }
    }
    let (mut envelope, mut cwd_fd, mut broker) = (None, None, None);
    let mut writable = Vec::new();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--envelope" => envelope = args.next(),
            "--cwd-fd" => {
                cwd_fd = Some(
                    args.next()
                        .and_then(|fd| fd.parse::<i32>().ok())
                        .ok_or("--cwd-fd takes a descriptor number")?,
                )
            }
            "--session-writable" => writable.push(
                args.next()
                    .ok_or("--session-writable takes a folder")?
                    .into(),
            ),
            "--session-broker" => {
                broker = Some(args.next().ok_or("--session-broker takes a folder")?)
            }
            "--" => break,
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    let envelope = envelope.ok_or("--envelope FILE is required")?;
    let command: Vec<String> = args.collect();
    if command.is_empty() {
        return Err("no command after `--`".into());
    }
    let mut launch = Launch::new(envelope.into(), command.join(" "));
    launch.cwd_fd = cwd_fd;
    if broker.is_none() && !writable.is_empty() {
        return Err("--session-writable is for a session (--session-broker)".into());
    }
    launch.session = broker.map(|broker| (broker.into(), command));
    launch.session_writable = writable;
    Ok(launch)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Launch, String> {
        launch_of(args.iter().map(|a| a.to_string()))
    }

    #[test]
    fn takes_hookhosts_own_form_and_refuses_anything_else() {
        let launch = parse(&[
            "envelope",
            "run",
            "--envelope",
            "/s/e.json",
            "--cwd-fd",
            "3",
            "--",
            "ls -la",
        ])
        .unwrap();
        assert_eq!(launch.envelope, std::path::Path::new("/s/e.json"));
        assert_eq!(launch.cwd_fd, Some(3));
        assert_eq!(launch.command, "ls -la");
        assert!(parse(&["--envelope", "/e.json", "--", "true"]).is_ok());
        let session = parse(&[
            "--envelope",
            "/e.json",
            "--session-broker",
            "/s/broker-1",
            "--",
            "agent",
            "--flag",
        ])
        .unwrap();
        assert_eq!(
            session.session,
            Some((
                std::path::PathBuf::from("/s/broker-1"),
                vec!["agent".to_string(), "--flag".to_string()]
            ))
        );
        for bad in [
            &["--", "true"][..],
            &["--envelope", "/e.json"],
            &["--envelope", "/e.json", "--unconfined", "--", "true"],
            &["envelope", "show"],
            &["--envelope", "/e.json", "--cwd-fd", "x", "--", "true"],
            &["--envelope", "/e.json", "--session-broker"],
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
    }
}
