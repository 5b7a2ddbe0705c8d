//! Builds every Wasm guest of the workspace for `wasm32-wasip2` (profile `guest`) and
//! copies the components into `OUT_DIR`, writing `guests.rs`: one path constant per
//! guest and the list of them all.
//!
//! The guests are found, not listed: every folder under `examples-guest/` and
//! `tests/guests/` with a `Cargo.toml`. A guest that no integration test uses (no
//! `guests::NAME` in `tests/it/`) fails the build.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A guest: its package name and the constant naming its component.
struct Guest {
    package: String,
    constant: String,
}

fn package_name(manifest: &Path) -> Option<String> {
    let text = std::fs::read_to_string(manifest).ok()?;
    let mut in_package = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_package = line == "[package]";
        } else if in_package
            && let Some(value) = line.strip_prefix("name")
            && let Some(value) = value.trim_start().strip_prefix('=')
        {
            return Some(value.trim().trim_matches('"').to_string());
        }
    }
    None
}

fn discover(root: &Path) -> Vec<Guest> {
    let mut guests = Vec::new();
    for folder in ["examples-guest", "tests/guests"] {
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join(folder))
            .unwrap_or_else(|err| panic!("cannot list {folder}: {err}"))
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|dir| dir.join("Cargo.toml").is_file())
            .collect();
        dirs.sort();
        for dir in dirs {
            let package = package_name(&dir.join("Cargo.toml"))
                .unwrap_or_else(|| panic!("{}: no [package] name", dir.display()));
            let constant = package.replace('-', "_").to_uppercase();
            guests.push(Guest { package, constant });
        }
    }
    guests
}

/// Every `guests::NAME` the integration tests mention.
fn tested_constants(tests: &Path) -> String {
    let mut text = String::new();
    for entry in std::fs::read_dir(tests).expect("list tests/it").flatten() {
        let path = entry.path();
        if path.is_dir() {
            // Test modules of their own folder (`wasm/wit.rs`).
            text.push_str(&tested_constants(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            text.push_str(&std::fs::read_to_string(&path).unwrap_or_default());
        }
    }
    text
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let root = manifest
        .parent()
        .expect("tests/ is inside the workspace")
        .to_path_buf();
    for dir in [
        "guest-sdk",
        "wit",
        "examples-guest",
        "tests/guests",
        "tests/it",
    ] {
        println!("cargo:rerun-if-changed={}", root.join(dir).display());
    }
    let guests = discover(&root);
    let tests = tested_constants(&root.join("tests/it"));
    let untested: Vec<&str> = guests
        .iter()
        .filter(|g| !tests.contains(&format!("guests::{}", g.constant)))
        .map(|g| g.package.as_str())
        .collect();
    assert!(
        untested.is_empty(),
        "guests without a test: {} (use `hookhost_tests::guests::<NAME>` in tests/it)",
        untested.join(", ")
    );
    // One cargo target folder for the guests, shared by every build of this package
    // (test, clippy, bench), so they compile once; the components are then copied.
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
    for guest in &guests {
        command.args(["-p", &guest.package]);
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
        "building the Wasm guests failed (is the target installed? `rustup target add wasm32-wasip2`; is every guest a workspace member?)"
    );
    let built = target_dir.join("wasm32-wasip2").join("guest");
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo"));
    let mut constants = String::new();
    let mut all = String::new();
    for guest in &guests {
        let file_name = format!("{}.wasm", guest.package.replace('-', "_"));
        let dest = out_dir.join(&file_name);
        std::fs::copy(built.join(&file_name), &dest)
            .unwrap_or_else(|err| panic!("missing guest {file_name}: {err}"));
        constants.push_str(&format!(
            "/// Path of the `{}` component.\npub const {}: &str = {:?};\n",
            guest.package,
            guest.constant,
            dest.display().to_string()
        ));
        all.push_str(&format!("    ({:?}, {}),\n", guest.package, guest.constant));
    }
    constants.push_str(&format!(
        "/// Every guest: package name and component path.\npub const ALL: &[(&str, &str)] = &[\n{all}];\n"
    ));
    std::fs::write(out_dir.join("guests.rs"), constants).expect("cannot write guests.rs");
}
