//! The `hookhost` binary; everything lives in [`hookhost::cli`].

fn main() -> std::process::ExitCode {
    hookhost::cli::main()
}
