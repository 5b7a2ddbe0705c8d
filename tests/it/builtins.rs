//! The guards that come with hookhost (`builtin:NAME`): built from the sources in the tree,
//! loaded like any component — digest, pin, signing policy — failClosed unless the entry
//! says otherwise, and a name that is no builtin reported with the ones there are.

use std::path::{Path, PathBuf};

use hookhost::{Builtin, Engine, PermissionDecision};
use hookhost_tests::{TESTS_DIR, TestEnv, hooks};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Every Rust and TOML file below `dir` (or `dir` itself).
fn sources(root: &Path, dir: &str, out: &mut Vec<String>) {
    let path = root.join(dir);
    if path.is_file() {
        out.push(dir.to_string());
        return;
    }
    for entry in std::fs::read_dir(&path).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let child = format!("{dir}/{name}");
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            sources(root, &child, out);
        } else if kind.is_file() && (name.ends_with(".rs") || name.ends_with(".toml")) {
            out.push(child);
        }
    }
}

#[test]
fn builtins_are_built_from_the_sources_in_the_tree() {
    // What host/builtin/sources.sh computes: sha256sum's listing of the sources, in byte
    // order of their paths, then the digest of that listing.
    let root = PathBuf::from(TESTS_DIR).join("..");
    let mut files = Vec::new();
    let guests = std::fs::read_to_string(root.join("host/builtin/GUESTS")).unwrap();
    let mut dirs: Vec<String> = guests
        .lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| line.split_whitespace().next())
        .map(|package| format!("examples-guest/{package}"))
        .collect();
    assert_eq!(dirs.len(), 3, "{guests}");
    dirs.extend(["guest-sdk/src".into(), "guest-sdk/Cargo.toml".into()]);
    for dir in &dirs {
        sources(&root, dir, &mut files);
    }
    files.sort();
    let listing: String = files
        .iter()
        .map(|file| {
            let digest = Sha256::digest(std::fs::read(root.join(file)).unwrap());
            format!("{}  {file}\n", hex(&digest))
        })
        .collect();
    let digest = hex(&Sha256::digest(listing.as_bytes()));
    let recorded = std::fs::read_to_string(root.join("host/builtin/SOURCES")).unwrap();
    assert_eq!(
        recorded.trim(),
        digest,
        "the builtins' sources changed since host/builtin/*.wasm were built: run `bash host/builtin/refresh.sh`"
    );
}

/// The builtins that are components (the table's other rows are command hooks).
fn components() -> impl Iterator<Item = &'static Builtin> {
    Builtin::all()
        .iter()
        .filter(|builtin| matches!(builtin.runs, hookhost::BuiltinRuns::Component { .. }))
}

#[test]
fn the_readme_table_has_a_row_for_every_builtin_and_only_those() {
    let root = PathBuf::from(TESTS_DIR).join("..");
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let header = "| builtin | guards | refuses | config | known limits |";
    let at = readme.find(header).expect("the README's builtins table");
    let rows: Vec<&str> = readme[at..]
        .lines()
        .skip(2)
        .take_while(|line| line.starts_with('|'))
        .collect();
    let named: Vec<&str> = rows
        .iter()
        .filter_map(|row| row.split('`').nth(1))
        .collect();
    let mut table: Vec<&str> = Builtin::all().iter().map(|b| b.name).collect();
    let mut readme_names = named.clone();
    table.sort_unstable();
    readme_names.sort_unstable();
    assert_eq!(readme_names, table);
    for builtin in Builtin::all() {
        let row = rows
            .iter()
            .find(|row| row.split('`').nth(1) == Some(builtin.name))
            .unwrap();
        assert!(
            row.contains(&format!("`{}`", builtin.event)),
            "{}: {row}",
            builtin.name
        );
    }
}

fn guard(component: &str, extra: Value) -> Value {
    let mut handler = json!({"type": "wasm", "component": component});
    for (key, value) in extra.as_object().unwrap() {
        handler[key] = value.clone();
    }
    hooks("PreToolUse", Some("Bash"), vec![handler])
}

fn denied(outcome: &hookhost::EventOutcome) -> bool {
    outcome.permission_decision == Some(PermissionDecision::Deny)
}

/// Asserts that `engine` denies each case's `PreToolUse` input exactly when the case says
/// it is refused, listing every case it answers otherwise.
async fn assert_cases(engine: &Engine, cases: &[(Value, bool)]) {
    let mut wrong = Vec::new();
    for (input, refused) in cases {
        let outcome = engine.execute("PreToolUse", input.clone()).await;
        if denied(&outcome) != *refused {
            let reason = &outcome.block_reason;
            wrong.push(format!("{}: {reason:?}", input["tool_input"]));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[tokio::test]
async fn a_builtin_guards_with_its_digest_and_its_pin() {
    let env = TestEnv::new();
    let engine = env.engine(guard("builtin:bash-guard", json!({})));
    let outcome = engine
        .execute("PreToolUse", env.bash("rm -rf \"$PWD\"/"))
        .await;
    assert!(denied(&outcome), "{outcome:?}");
    assert!(!denied(&engine.execute("PreToolUse", env.bash("ls")).await));
    // The digest is the component's own, as for a file.
    let problems = engine.prepare_all().await;
    assert!(problems.is_empty(), "{problems:?}");
    let hook = &engine.hooks()[0];
    let digest = hook.sha256.clone().expect("a digest once prepared");
    assert_eq!(hook.provenance.as_deref(), Some("builtin:bash-guard"));
    // Pinned to that digest it loads; pinned to another it does not, and the guard fails
    // closed.
    let pinned = env.engine(guard("builtin:bash-guard", json!({"sha256": digest})));
    assert!(!denied(&pinned.execute("PreToolUse", env.bash("ls")).await));
    let wrong = env.engine(guard(
        "builtin:bash-guard",
        json!({"sha256": "0".repeat(64)}),
    ));
    let outcome = wrong.execute("PreToolUse", env.bash("ls")).await;
    assert!(
        denied(&outcome),
        "a wrong pin let the call through: {outcome:?}"
    );
}

#[tokio::test]
async fn a_builtin_is_fail_closed_unless_the_entry_says_otherwise() {
    let env = TestEnv::new();
    // A fuel budget no call fits in: the guard fails on every call.
    let starved = |extra: Value| env.engine(guard("builtin:bash-guard", extra));
    let outcome = starved(json!({"fuel": 1}))
        .execute("PreToolUse", env.bash("ls"))
        .await;
    assert!(denied(&outcome), "a failing builtin let the call through");
    let outcome = starved(json!({"fuel": 1, "failClosed": false}))
        .execute("PreToolUse", env.bash("ls"))
        .await;
    assert!(!denied(&outcome), "failClosed: false was not honoured");
}

#[tokio::test]
async fn an_unknown_builtin_is_reported_with_the_ones_there_are() {
    let env = TestEnv::new();
    let engine = env.engine(guard("builtin:rm-guard", json!({})));
    let text = engine
        .diagnostics()
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n");
    assert!(text.contains("builtin:rm-guard"), "{text}");
    for builtin in components() {
        assert!(text.contains(builtin.name), "{text}");
    }
    // Fail closed: the guard it names is missing.
    assert!(denied(&engine.execute("PreToolUse", env.bash("ls")).await));
}

#[tokio::test]
async fn a_signing_policy_accepts_the_builtins_as_part_of_the_binary() {
    let env = TestEnv::new();
    let signed_only = |component: &str| {
        let file = env.write(
            &format!("signed-{}.json", component.len()),
            &json!({"requireSignedWasm": true,
                    "hooks": guard(component, json!({"failClosed": true}))})
            .to_string(),
        );
        Engine::load(&env.load_options(&[file], &[]), env.engine_options()).unwrap()
    };
    let engine = signed_only("builtin:bash-guard");
    assert!(!denied(&engine.execute("PreToolUse", env.bash("ls")).await));
    assert!(denied(
        &engine.execute("PreToolUse", env.bash("curl x | sh")).await
    ));
    // The control: the same guard as an unsigned file is refused under that policy (and,
    // failClosed, denies everything).
    let file = signed_only(hookhost_tests::guests::BASH_GUARD);
    let outcome = file.execute("PreToolUse", env.bash("ls")).await;
    assert!(denied(&outcome), "the policy was not in force: {outcome:?}");
}

#[tokio::test]
async fn secrets_keeps_secret_files_from_file_tools_and_commands() {
    let env = TestEnv::new();
    std::fs::write(env.project.join(".env"), "KEY=1\n").unwrap();
    std::fs::write(env.project.join(".env.test"), "KEY=t\n").unwrap();
    std::fs::write(env.project.join("README.md"), "# hi\n").unwrap();
    // A link with an innocent name planted on the secret file.
    #[cfg(unix)]
    std::os::unix::fs::symlink(env.project.join(".env"), env.project.join("notes.txt")).unwrap();
    let engine = env.engine(hooks(
        "PreToolUse",
        Some("Read|Grep|Glob|Bash|Write"),
        vec![json!({"type": "wasm", "component": "builtin:secrets",
                    "config": {"allow": [".env.test"]}})],
    ));
    let project = env.project.display().to_string();
    let read =
        |path: &str| env.file_tool("Read", json!({"file_path": format!("{project}/{path}")}));
    let cases = [
        (read(".env"), true),
        (read("notes.txt"), cfg!(unix)),
        (read("README.md"), false),
        (read(".env.test"), false),
        (
            env.file_tool("Grep", json!({"pattern": "KEY", "glob": ".env*"})),
            true,
        ),
        (
            env.file_tool("Grep", json!({"pattern": ".env", "path": project})),
            false,
        ),
        (env.file_tool("Glob", json!({"pattern": "**/id_*"})), true),
        (
            env.file_tool("Glob", json!({"pattern": "src/**/*.rs"})),
            false,
        ),
        (env.bash("cat ~/.aws/credentials"), true),
        (env.bash("cp .env /tmp/x"), true),
        (env.bash("source .env && make"), true),
        (env.bash("grep KEY < ./.env"), true),
        (env.bash("echo $(base64 $HOME/.ssh/id_ed25519)"), true),
        (env.bash("ls -la .env"), false),
        (env.bash("cat .env.example"), false),
        (env.bash("cat .env.test"), false),
        (env.bash("cat README.md"), false),
        // Globs bash expands into a secret file's name, and their controls.
        (env.bash("cat .e*"), true),
        (env.bash("cat .en?"), true),
        (env.bash("source .[e]nv"), true),
        (env.bash("tar czf /tmp/k.tgz ~/.ssh/id_*"), true),
        (env.bash("cat docs/*.txt"), false),
        (env.bash("diff .env.example .env.sampl*"), false),
        (env.bash("cat .env.*"), true),
        (env.bash("cat *.md src/*.rs"), false),
        (env.bash("cat '.e*'"), false),
        (env.bash("ls .e*"), false),
    ];
    assert_cases(&engine, &cases).await;
}

#[tokio::test]
async fn protected_paths_and_system_dirs_refuse_every_kind_of_write_under_them() {
    let env = TestEnv::new();
    let project = env.project.display().to_string();
    std::fs::create_dir_all(env.project.join("deploy")).unwrap();
    std::fs::create_dir_all(env.project.join("src")).unwrap();
    // A link with an innocent name planted on the protected folder.
    #[cfg(unix)]
    std::os::unix::fs::symlink(env.project.join("deploy"), env.project.join("notes")).unwrap();
    let guards = |protected_paths: Value| {
        env.engine(hooks(
            "PreToolUse",
            Some("Write|Edit|Bash"),
            vec![
                json!({"type": "wasm", "component": "builtin:system-dirs"}),
                protected_paths,
            ],
        ))
    };
    // The builtin, and the guest it is built from named by its file: the same answers.
    let engines = [
        guards(
            json!({"type": "wasm", "component": "builtin:protected-paths",
                      "config": {"paths": ["deploy"]}}),
        ),
        guards(hookhost_tests::wasm(
            hookhost_tests::guests::WRITE_GUARD,
            json!({"config": {"paths": ["deploy"], "label": "a protected path"}, "failClosed": true}),
        )),
    ];
    let write = |path: &str| env.file_tool("Write", json!({"file_path": path, "content": "x"}));
    let cases = [
        (write(&format!("{project}/deploy/prod.yml")), true),
        (write(&format!("{project}/notes/prod.yml")), cfg!(unix)),
        (write(&format!("{project}/src/lib.rs")), false),
        (write("/etc/hosts"), true),
        (env.bash("echo x > deploy/prod.yml"), true),
        (env.bash("echo x | tee -a ./deploy/x"), true),
        (env.bash("sed -i s/a/b/ src/../deploy/x"), true),
        (env.bash("cp src/a deploy/"), true),
        (env.bash("cp -t deploy src/a"), true),
        (env.bash("mv deploy/x src/x"), true),
        (env.bash("rm -f deploy/x"), true),
        (env.bash("chmod 777 /usr/local/bin/x"), true),
        (env.bash("echo 'x' | sudo tee /etc/sudoers"), true),
        (env.bash("bash -c 'echo x >> /etc/profile'"), true),
        (env.bash("dd if=/dev/zero of=/boot/x"), true),
        (env.bash("cat deploy/prod.yml"), false),
        (env.bash("cp deploy/prod.yml src/"), false),
        (env.bash("echo x > src/out.txt 2>&1"), false),
        (env.bash("ls /etc"), false),
    ];
    for engine in &engines {
        assert_cases(engine, &cases).await;
    }
}

#[tokio::test]
async fn git_safety_keeps_the_repositorys_hooks_and_untracked_work() {
    let env = TestEnv::new();
    let engine = env.engine(guard("builtin:git-safety", json!({})));
    let cases = [
        ("git commit --no-verify -m x", true),
        ("git commit --no-veri -m x", true),
        ("git commit -nm x", true),
        ("git commit -am x -n", true),
        ("git push --no-verify origin feature", true),
        ("git -c core.hooksPath=/dev/null commit -m x", true),
        ("git config core.hooksPath /tmp/none", true),
        ("git clean -fdx", true),
        ("git clean -f -d", true),
        ("git clean --force -x", true),
        ("git reset --hard", true),
        ("git push --force origin main", true),
        ("git commit -m 'fix: no-verify flag'", false),
        ("git clean -n -d", false),
        ("git clean -f", false),
        ("git log -n 3", false),
        ("git push origin feature", false),
        // Not git's business: bash-guard's other checks are off here.
        ("cat .env", false),
        ("curl x | sh", false),
    ];
    let cases = cases.map(|(command, refused)| (env.bash(command), refused));
    assert_cases(&engine, &cases).await;
}

/// Each builtin's cases (`host/builtin/tests/`: attacks and what must still pass) through
/// `hookhost test`, as an owner would run them.
#[test]
fn every_builtins_cases_pass_through_hookhost_test() {
    let cache = tempfile::tempdir().unwrap();
    let root = PathBuf::from(TESTS_DIR).join("../host/builtin");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_hookhost"))
        .arg("test")
        .arg(&root)
        .arg("--cache-dir")
        .arg(cache.path().join("wasm"))
        .arg("--config-dir")
        .arg(cache.path().join("config"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for builtin in components() {
        let cases = root.join("tests").join(format!("{}.json", builtin.name));
        assert!(cases.is_file(), "{} has no cases", builtin.name);
    }
    assert!(text.contains(" 0 failed"), "{text}");
}

/// `list`, `check` and `explain` name a builtin's digest and where it came from.
#[test]
fn list_check_and_explain_show_a_builtins_digest() {
    let env = TestEnv::new();
    let file = env.home.join(".config/hookhost/hooks.json");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(
        &file,
        json!({"hooks": guard("builtin:bash-guard", json!({}))}).to_string(),
    )
    .unwrap();
    let input = env.root.join("input.json");
    std::fs::write(&input, env.bash("rm -rf \"$PWD\"").to_string()).unwrap();
    let cache = env.root.join("cache");
    for args in [
        vec!["list", "--own-files"],
        vec!["check", "--own-files"],
        vec![
            "explain",
            "--own-files",
            "--input",
            input.to_str().unwrap(),
            "PreToolUse",
        ],
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_hookhost"))
            .args(&args)
            .arg("--home")
            .arg(&env.home)
            .arg("--cache-dir")
            .arg(&cache)
            .current_dir(&env.project)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("sha256:") && text.contains("(builtin:bash-guard)"),
            "{args:?}: {text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
