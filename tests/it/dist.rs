//! Issue 56: hookhost as its users install it.
//!
//! Always: one version for the crate, the npm packages (the main package and each
//! platform's, named in `npm/targets.json`), the release workflow and `hookhost --version`.
//!
//! With the packed artifacts (`#[ignore]`d; CI's `dist` stage runs them with `--ignored`
//! after `npm/pack.mjs` and the static build, `HOOKHOST_DIST=DIR` naming where they are):
//! - the npm tarballs installed into a fresh prefix with no network, no npm cache and no
//!   Rust on `PATH`; the installed `hookhost` answers `--version`, installs into a fresh
//!   home, and the real Claude Code CLI is refused an attack and runs ordinary work;
//! - the static Linux binary alone in an empty root (no loader, no libc, no `/proc`),
//!   whose Wasm guard refuses a call;
//! - `cargo install hookhost` from the packaged crates, offline, in a fresh `CARGO_HOME`
//!   whose only registry is the vendored dependency set.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use hookhost_tests::{TESTS_DIR, TestEnv};
use serde_json::{Value, json};

use crate::claude_code::{Mock, run_claude};

const CLI: &str = env!("CARGO_BIN_EXE_hookhost");

/// `PATH` without Rust: the system's folders (Node is `/usr/bin/node`).
const NO_RUST_PATH: &str = "/usr/bin:/bin";

fn repo() -> PathBuf {
    PathBuf::from(TESTS_DIR).join("..")
}

fn json_file(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The workspace's version (`[workspace.package]`).
fn cargo_version() -> String {
    let text = std::fs::read_to_string(repo().join("Cargo.toml")).unwrap();
    let section = text.split("[workspace.package]").nth(1).unwrap();
    let line = section
        .lines()
        .find(|line| line.starts_with("version"))
        .unwrap();
    line.split('"').nth(1).unwrap().to_string()
}

#[test]
fn one_version_for_the_crate_the_npm_packages_the_workflow_and_the_binary() {
    let version = cargo_version();
    let main = json_file(&repo().join("npm/hookhost/package.json"));
    assert_eq!(main["version"], json!(version), "npm/hookhost/package.json");
    let targets = json_file(&repo().join("npm/targets.json"));
    let platforms: Vec<&Value> = targets["platforms"].as_array().unwrap().iter().collect();
    let named: Vec<String> = main["optionalDependencies"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    let listed: Vec<String> = platforms
        .iter()
        .map(|row| format!("@hookhost/{}", row["platform"].as_str().unwrap()))
        .collect();
    assert_eq!(
        named, listed,
        "optionalDependencies against npm/targets.json"
    );
    for (package, wanted) in main["optionalDependencies"].as_object().unwrap() {
        assert_eq!(wanted, &json!(version), "{package}");
    }
    // The release workflow builds every target the packages name.
    let workflow = std::fs::read_to_string(repo().join(".github/workflows/release.yml")).unwrap();
    for row in &platforms {
        let target = row["target"].as_str().unwrap();
        assert!(
            workflow.contains(&format!("target: {target}")),
            "the release workflow does not build {target}"
        );
    }
    // The binary says the same version.
    let out = Command::new(CLI).arg("--version").output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("hookhost {version}")
    );
}

/// Where CI's `dist` stage put the packed artifacts.
fn dist_dir() -> PathBuf {
    let dir = std::env::var_os("HOOKHOST_DIST")
        .map(PathBuf::from)
        .expect("HOOKHOST_DIST names the folder of the packed artifacts (see .ci/run, stage dist)");
    std::path::absolute(dir).unwrap()
}

/// `program ARGS` with only `env` (and `PATH` without Rust) in its environment.
fn bare(program: &Path, args: &[&str], env: &[(&str, &Path)], dir: &Path) -> Output {
    let out = Command::new(program)
        .args(args)
        .env_clear()
        .env("PATH", NO_RUST_PATH)
        .envs(env.iter().map(|(key, value)| (*key, value.as_os_str())))
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{} {args:?}: {}{}",
        program.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

#[test]
#[ignore = "needs the packed npm tarballs: CI's dist stage (HOOKHOST_DIST)"]
fn npm_tarballs_install_offline_without_rust_and_guard_the_real_claude_code() {
    let dist = dist_dir();
    let version = cargo_version();
    let main = dist.join(format!("hookhost-{version}.tgz"));
    let platform = dist.join(format!("hookhost-linux-x64-{version}.tgz"));
    assert!(main.is_file() && platform.is_file(), "{}", dist.display());
    let test = TestEnv::new();
    let prefix = test.root.join("prefix");
    let cache = test.root.join("npm-cache");
    // No network (the registry is a closed port), an empty cache, no Rust on PATH.
    let npm_env: [(&str, &Path); 4] = [
        ("HOME", &test.home),
        ("npm_config_cache", &cache),
        ("npm_config_registry", Path::new("http://127.0.0.1:9/")),
        ("npm_config_prefix", &prefix),
    ];
    bare(
        Path::new("/usr/bin/npm"),
        &[
            "install",
            "--global",
            "--offline",
            "--no-audit",
            "--no-fund",
            main.to_str().unwrap(),
            platform.to_str().unwrap(),
        ],
        &npm_env,
        &test.root,
    );
    let hookhost = prefix.join("bin/hookhost");
    let out = bare(&hookhost, &["--version"], &[], &test.root);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("hookhost {version}")
    );
    // The quick start's second command, into a fresh home.
    let home = test.home.to_str().unwrap();
    let out = bare(
        &hookhost,
        &[
            "claude",
            "install",
            "--guards",
            "recommended",
            "--home",
            home,
        ],
        &[],
        &test.project,
    );
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(said.contains("builtin:bash-guard"), "{said}");
    // The hook command names the platform package's binary by its absolute path.
    let settings = json_file(&test.home.join(".claude/settings.json"));
    let command = settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_string();
    let binary = prefix.join("lib/node_modules/@hookhost/linux-x64/bin/hookhost-hook");
    assert!(command.starts_with(binary.to_str().unwrap()), "{command}");
    // The real Claude Code CLI, guarded by it.
    std::fs::write(test.project.join(".env"), "API_KEY=sk-live-do-not-read\n").unwrap();
    let calls = json!([
        {"name": "Bash", "input": {"command": "cat .env", "description": "read"}},
        {"name": "Bash", "input": {"command": "rm -rf ~", "description": "clean"}},
        {"name": "Bash", "input": {"command": "echo ran > ran.txt", "description": "ok"}}
    ]);
    let mock = Mock::start(&test, &calls.to_string());
    let out = run_claude(&test, &mock, &[("PATH", NO_RUST_PATH)]);
    mock.assert_denied("holds secrets", &out);
    mock.assert_denied("would delete", &out);
    assert!(
        test.project.join("ran.txt").exists(),
        "the ordinary command did not run"
    );
    let requests = std::fs::read_to_string(&mock.log).unwrap();
    assert!(
        !requests.contains("sk-live-do-not-read"),
        "the model saw .env"
    );
}

#[test]
#[ignore = "needs the static Linux binary: CI's dist stage (HOOKHOST_DIST)"]
fn the_static_binary_runs_alone_in_an_empty_root_and_its_wasm_guard_refuses() {
    let dist = dist_dir();
    let binary = dist.join("linux-x64/hookhost");
    // No interpreter: not a dynamic executable.
    let bytes = std::fs::read(&binary).unwrap();
    assert_eq!(&bytes[..4], b"\x7fELF");
    assert!(
        !has_interpreter(&bytes),
        "{} names a dynamic loader",
        binary.display()
    );
    // A root holding the binary, an owner's hook file and nothing else.
    let test = TestEnv::new();
    let root = test.root.join("root");
    for dir in ["bin", "home/.config/hookhost", "project", "tmp"] {
        std::fs::create_dir_all(root.join(dir)).unwrap();
    }
    std::fs::copy(&binary, root.join("bin/hookhost")).unwrap();
    std::fs::write(
        root.join("home/.config/hookhost/hooks.json"),
        json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "wasm", "component": "builtin:bash-guard"}]}]}})
        .to_string(),
    )
    .unwrap();
    let input = json!({"session_id": "s", "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "rm -rf ~"}, "cwd": "/project"});
    // `chroot` needs root (CI runs as root); an unprivileged user namespace elsewhere.
    let mut command = Command::new("unshare");
    if !nix_is_root() {
        command.arg("--map-root-user");
    }
    command
        .args(["--mount", "--fork", "/usr/sbin/chroot"])
        .arg(&root)
        .args([
            "/bin/hookhost",
            "fire",
            "PreToolUse",
            "--own-files",
            "--home",
            "/home",
            "--project-dir",
            "/project",
        ])
        .env_clear();
    let out = hookhost_tests::run_with_stdin(&mut command, input.to_string().as_bytes());
    let outcome: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| {
        panic!(
            "no outcome: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    assert_eq!(outcome["permission_decision"], "deny", "{outcome}");
    assert!(
        outcome["block_reason"]
            .as_str()
            .unwrap_or("")
            .contains("would delete"),
        "{outcome}"
    );
}

#[test]
#[ignore = "needs the packed npm tarballs: CI's dist stage (HOOKHOST_DIST)"]
fn each_platform_package_built_here_holds_its_three_binaries_for_its_system() {
    let dist = dist_dir();
    let version = cargo_version();
    let test = TestEnv::new();
    // (platform, file suffix, what the binaries must be: an ELF machine, or PE).
    for (platform, suffix, machine) in [
        ("linux-x64", "", Some(62u16)),
        ("linux-arm64", "", Some(183)),
        ("win32-x64", ".exe", None),
    ] {
        let tarball = dist.join(format!("hookhost-{platform}-{version}.tgz"));
        let unpacked = test.root.join(platform);
        std::fs::create_dir_all(&unpacked).unwrap();
        let status = Command::new("tar")
            .arg("-xzf")
            .arg(&tarball)
            .arg("-C")
            .arg(&unpacked)
            .status()
            .unwrap();
        assert!(status.success(), "{}", tarball.display());
        let package = unpacked.join("package");
        let manifest = json_file(&package.join("package.json"));
        assert_eq!(manifest["name"], json!(format!("@hookhost/{platform}")));
        assert_eq!(manifest["version"], json!(version));
        let (os, cpu) = platform.split_once('-').unwrap();
        assert_eq!(manifest["os"], json!([os]), "{platform}");
        assert_eq!(manifest["cpu"], json!([cpu]), "{platform}");
        assert!(
            manifest.get("scripts").is_none(),
            "{platform}: no install script"
        );
        for binary in ["hookhost", "hookhost-hook", "hookhost-envelope"] {
            let file = package.join("bin").join(format!("{binary}{suffix}"));
            let bytes = std::fs::read(&file).unwrap_or_else(|_| panic!("{}", file.display()));
            match machine {
                Some(machine) => {
                    assert_eq!(&bytes[..4], b"\x7fELF", "{}", file.display());
                    let found = u16::from_le_bytes([bytes[18], bytes[19]]);
                    assert_eq!(found, machine, "{}", file.display());
                    assert!(
                        !has_interpreter(&bytes),
                        "{} is dynamically linked",
                        file.display()
                    );
                }
                None => assert_eq!(&bytes[..2], b"MZ", "{}", file.display()),
            }
        }
    }
}

/// Whether a 64-bit little-endian ELF file has a `PT_INTERP` program header (names the
/// loader of a dynamically linked program).
fn has_interpreter(elf: &[u8]) -> bool {
    let word = |at: usize| u64::from_le_bytes(elf[at..at + 8].try_into().unwrap()) as usize;
    let half = |at: usize| u16::from_le_bytes([elf[at], elf[at + 1]]) as usize;
    let (table, size, count) = (word(0x20), half(0x36), half(0x38));
    (0..count).any(|index| {
        let entry = table + index * size;
        u32::from_le_bytes(elf[entry..entry + 4].try_into().unwrap()) == 3
    })
}

fn nix_is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .any(|line| line.starts_with("Uid:") && line.split_whitespace().nth(1) == Some("0"))
}

#[test]
#[ignore = "needs the packaged crates and the vendored dependencies: CI's dist stage (HOOKHOST_DIST)"]
fn cargo_install_from_the_packaged_crate_offline_in_a_fresh_cargo_home() {
    let dist = dist_dir();
    let vendor = dist.join("vendor");
    let packaged = vendor.join(format!("hookhost-{}", cargo_version()));
    assert!(packaged.is_dir(), "{}", packaged.display());
    let test = TestEnv::new();
    let cargo_home = test.root.join("cargo-home");
    std::fs::create_dir_all(&cargo_home).unwrap();
    std::fs::write(
        cargo_home.join("config.toml"),
        format!(
            "[source.crates-io]\nreplace-with = \"vendored\"\n\n[source.vendored]\ndirectory = \"{}\"\n\n[net]\noffline = true\n",
            vendor.display()
        ),
    )
    .unwrap();
    let root = test.root.join("installed");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut install = Command::new(cargo);
    install
        .args(["install", "hookhost", "--locked", "--debug", "--root"])
        .arg(&root)
        .env("CARGO_HOME", &cargo_home)
        .env("CARGO_TARGET_DIR", dist.join("install-target"))
        .current_dir(&test.root);
    if let Some(rustup) = std::env::var_os("RUSTUP_HOME") {
        install.env("RUSTUP_HOME", rustup);
    }
    let out = install.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new(root.join("bin/hookhost"))
        .arg("--version")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("hookhost {}", cargo_version())
    );
    for binary in ["hookhost-hook", "hookhost-envelope"] {
        assert!(root.join("bin").join(binary).is_file(), "{binary}");
    }
}
