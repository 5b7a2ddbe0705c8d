//! The `hookhost` binary: the command line over the library (`fire`, `check`, `list`).

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
