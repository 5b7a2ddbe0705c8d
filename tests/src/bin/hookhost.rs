//! The `hookhost` CLI, built inside the test package so the integration tests can run
//! it as a real process (`CARGO_BIN_EXE_hookhost-under-test`).

fn main() -> std::process::ExitCode {
    hookhost::cli::main()
}
