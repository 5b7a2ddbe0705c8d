//! The `hookhost` binary: the command line over the library (`fire`, `check`, `list`).

mod cli;

fn main() -> std::process::ExitCode {
    // Inside the owner's envelope this binary covers the real git: the judge's client.
    #[cfg(target_os = "linux")]
    if let Some(code) = as_git() {
        return code;
    }
    cli::main()
}

/// The judge's client, when this process was started as `git` (or the envelope's keeper,
/// started as [`hookhost::envelope::keeper::KEEPER_NAME`]).
#[cfg(target_os = "linux")]
fn as_git() -> Option<std::process::ExitCode> {
    let mut args = std::env::args();
    let argv0 = args.next()?;
    if hookhost::envelope::keeper::started_as_keeper(&argv0) {
        let args: Vec<String> = args.collect();
        let code = hookhost::envelope::keeper::keeper_main(&args);
        return Some(std::process::ExitCode::from(
            u8::try_from(code).unwrap_or(u8::MAX),
        ));
    }
    if !hookhost::envelope::judge::started_as_judged(&argv0) {
        return None;
    }
    let code = hookhost::envelope::judge::client_main(&argv0, args.collect());
    Some(std::process::ExitCode::from(
        u8::try_from(code).unwrap_or(u8::MAX),
    ))
}
