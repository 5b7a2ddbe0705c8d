//! Compiles the example guests and the test guests for `wasm32-wasip2` (profile
//! `guest`) into `target/guests`, and writes `guests.rs` with one path constant per
//! component.

use std::path::{Path, PathBuf};
use std::process::Command;

const GUESTS: &[&str] = &[
    "bash-guard",
    "secret-scan",
    "path-guard",
    "context-inject",
    "test-guest",
    "socket-guest",
];

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let root = manifest
        .parent()
        .expect("tests/ is inside the workspace")
        .to_path_buf();
    for dir in ["guest-sdk", "wit", "examples-guest", "tests/guests"] {
        println!("cargo:rerun-if-changed={}", root.join(dir).display());
    }
    let target_dir = root.join("target").join("guests");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .current_dir(&root)
        .args([
            "build",
            "--profile",
            "guest",
            "--target",
            "wasm32-wasip2",
            "--target-dir",
        ])
        .arg(&target_dir);
    for guest in GUESTS {
        command.args(["-p", guest]);
    }
    for var in [
        "CARGO_TARGET_DIR",
        "CARGO_ENCODED_RUSTFLAGS",
        "RUSTFLAGS",
        "CARGO_BUILD_RUSTFLAGS",
        "CARGO_MAKEFLAGS",
        "RUSTC_WORKSPACE_WRAPPER",
    ] {
        command.env_remove(var);
    }
    let status = command
        .status()
        .expect("cannot run cargo to build the Wasm guests");
    assert!(
        status.success(),
        "building the Wasm guests failed (is the target installed? `rustup target add wasm32-wasip2`)"
    );
    let out_dir = target_dir.join("wasm32-wasip2").join("guest");
    let mut constants = String::new();
    for guest in GUESTS {
        let file = out_dir.join(format!("{}.wasm", guest.replace('-', "_")));
        assert!(
            Path::new(&file).is_file(),
            "missing guest {}",
            file.display()
        );
        constants.push_str(&format!(
            "/// Path of the `{guest}` component.\npub const {}: &str = {:?};\n",
            guest.replace('-', "_").to_uppercase(),
            file.display().to_string()
        ));
    }
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo")).join("guests.rs");
    std::fs::write(out, constants).expect("cannot write guests.rs");
}
