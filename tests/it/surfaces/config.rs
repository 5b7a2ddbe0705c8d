//! Configuration doors: duplicates, the dialect, settings files, trust reach, the trust
//! store and the audit log.

use super::*;

// ---- 1. duplicate removal keeps the most trusted copy ----

#[test]
fn a_repository_copying_the_owners_guard_does_not_cancel_it() {
    for owner in ["settings", "managed", "user"] {
        let test = TestEnv::new();
        let guard = guard(&test);
        let doc = json!({ "hooks": guard }).to_string();
        // The repository (untrusted) repeats the guard verbatim.
        test.write("project/.claude/settings.json", &doc);
        let mut extra: Vec<String> = Vec::new();
        match owner {
            "settings" => {
                let path = test.write("owner.json", &doc);
                extra.extend(["--settings".into(), path.display().to_string()]);
            }
            "managed" => {
                std::fs::create_dir_all(test.managed_path().parent().unwrap()).unwrap();
                std::fs::write(test.managed_path(), &doc).unwrap();
            }
            _ => {
                test.write("home/.claude/settings.json", &doc);
            }
        }
        let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
        let run = fire(&test, &extra, &rm_input(&test));
        assert!(blocked(&run), "{owner}: {}\n{}", run.stdout, run.stderr);
        let outcome = run.json();
        assert_eq!(outcome["hooks"].as_array().unwrap().len(), 1, "{owner}");
        assert_ne!(outcome["hooks"][0]["source"], json!("project"), "{owner}");
    }
}

#[test]
fn an_evva_repository_copying_the_users_guard_does_not_cancel_it() {
    let test = TestEnv::new();
    let doc = json!({ "hooks": guard(&test) }).to_string();
    test.write("home/.evva/settings.json", &doc);
    test.write("project/.evva/settings.json", &doc);
    let run = fire(&test, &["--dialect", "evva"], &rm_input(&test));
    assert!(blocked(&run), "{}\n{}", run.stdout, run.stderr);
    assert_eq!(run.json()["hooks"][0]["source"], json!("user"));
}

// ---- 2. a repository cannot choose the dialect ----

#[test]
fn an_untrusted_repositorys_hooks_toml_does_not_switch_the_dialect() {
    for file in [
        "project/.hygge/hooks.toml",
        "project/.agents/hooks.toml",
        // A parent folder of the project.
        ".hygge/hooks.toml",
    ] {
        for owner in ["managed", "settings"] {
            let test = TestEnv::new();
            let doc = json!({ "hooks": guard(&test) }).to_string();
            test.write(
                file,
                "[[hooks]]\nname = \"x\"\ncommand = \"true\"\nevents = [\"pre_tool\"]\n",
            );
            let mut extra: Vec<String> = vec!["--format".into(), "claude".into()];
            if owner == "managed" {
                std::fs::create_dir_all(test.managed_path().parent().unwrap()).unwrap();
                std::fs::write(test.managed_path(), &doc).unwrap();
            } else {
                let path = test.write("owner.json", &doc);
                extra.extend(["--settings".into(), path.display().to_string()]);
            }
            let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
            let run = fire(&test, &extra, &rm_input(&test));
            let answer = run.json();
            assert_eq!(
                answer["hookSpecificOutput"]["permissionDecision"],
                json!("deny"),
                "{file} / {owner}: the guard must deny\n{}\n{}",
                run.stdout,
                run.stderr
            );
            // The guard itself, not the block a switched dialect gives a lost guard.
            assert!(
                answer["hookSpecificOutput"]["permissionDecisionReason"]
                    .to_string()
                    .contains("guard: no"),
                "{file} / {owner}: {answer}"
            );
            assert_eq!(run.code, 0);
        }
    }
}

#[test]
fn an_owners_guard_the_dialect_cannot_run_is_a_load_error_that_fails_closed() {
    let test = TestEnv::new();
    // The user's own hygge file decides the dialect; the managed guard is Claude-shaped.
    test.write(
        "home/.agents/hooks.toml",
        "[[hooks]]\nname = \"x\"\ncommand = \"true\"\nevents = [\"pre_tool\"]\n",
    );
    std::fs::create_dir_all(test.managed_path().parent().unwrap()).unwrap();
    std::fs::write(
        test.managed_path(),
        json!({ "hooks": guard(&test) }).to_string(),
    )
    .unwrap();
    let flags = config_flags(&test);
    let mut args: Vec<&str> = vec!["check"];
    args.extend(flags.iter().map(String::as_str));
    let check = hookhost(&test, &test.project, &args, "", &[]);
    assert_eq!(check.code, 1, "{}", check.stdout);
    hookhost_tests::assert_says(&check.stdout, "`PreToolUse` is not a hygge event");
    let input = json!({"event": "pre_tool", "session_id": "s", "tool_name": "Bash",
                       "tool_input": {"command": "ls"}});
    let run = fire(&test, &[], &input);
    assert!(blocked(&run), "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("cannot run a guard"), "{}", run.stdout);
}

// ---- 9. settings files are regular files, bounded ----

#[test]
fn a_fifo_or_dev_zero_as_settings_does_not_hang_or_exhaust_memory() {
    let test = TestEnv::new();
    let fifo = test.root.join("fifo.json");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
    let zero = test.root.join("zero.json");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    // The repository's own settings file is a FIFO too.
    std::fs::create_dir_all(test.project.join(".claude")).unwrap();
    nix::unistd::mkfifo(
        &test.project.join(".claude/settings.json"),
        nix::sys::stat::Mode::S_IRWXU,
    )
    .unwrap();
    let guard = guard_file(&test);
    let flags = config_flags(&test);
    let mut args: Vec<String> = vec!["fire".into()];
    args.extend(flags);
    for extra in [&fifo, &zero] {
        args.extend(["--settings".into(), extra.display().to_string()]);
    }
    args.extend(["--settings".into(), guard]);
    let run = hookhost_tests::run_cli(
        CLI,
        &args,
        rm_input(&test).to_string().as_bytes(),
        std::time::Duration::from_secs(20),
    )
    .expect("fire hung on a FIFO or /dev/zero");
    assert!(run.stderr.contains("not a regular file"), "{}", run.stderr);
    let outcome: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(outcome["permission_decision"], json!("deny"), "{outcome}");
}

// ---- 11. trust covers the trusted folder and below ----

#[test]
fn trusting_a_project_does_not_trust_a_hooks_toml_above_it() {
    let test = TestEnv::new();
    let marker = test.root.join("ran");
    let project = test.root.join("x/team/proj");
    std::fs::create_dir_all(&project).unwrap();
    test.write(
        "x/.hygge/hooks.toml",
        &format!(
            "[[hooks]]\nname = \"above\"\ncommand = \"touch {}\"\nevents = [\"pre_tool\"]\n",
            marker.display()
        ),
    );
    let home = test.home.display().to_string();
    let proj = project.display().to_string();
    let trusted = hookhost(
        &test,
        &test.root,
        &["trust", &proj, "--home", &home],
        "",
        &[],
    );
    assert_eq!(trusted.code, 0, "{}", trusted.stderr);
    let managed = managed_flag(&test);
    let input = json!({"event": "pre_tool", "session_id": "s", "tool_name": "Bash",
                       "tool_input": {"command": "ls"}});
    let args = [
        "fire",
        "--home",
        &home,
        "--project-dir",
        &proj,
        "--managed-settings",
        &managed,
        "--dialect",
        "hygge",
    ];
    let run = hookhost(&test, &project, &args, &input.to_string(), &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        !marker.exists(),
        "a hooks.toml above the trusted folder ran"
    );
    // Control: the same file runs once its own folder is trusted.
    let above = test.root.join("x").display().to_string();
    let trusted = hookhost(
        &test,
        &test.root,
        &["trust", &above, "--home", &home],
        "",
        &[],
    );
    assert_eq!(trusted.code, 0, "{}", trusted.stderr);
    let run = hookhost(&test, &project, &args, &input.to_string(), &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        marker.exists(),
        "control: the trusted hooks.toml did not run: {}{}",
        run.stdout,
        run.stderr
    );
}

// ---- 16 and policy: the trust store ----

#[test]
fn the_trust_store_is_private_and_refuses_to_trust_everything() {
    let test = TestEnv::new();
    let home = test.home.display().to_string();
    let project = test.project.display().to_string();
    let umask = |args: &str| {
        let command = format!("umask 002; exec {CLI} trust {args} --home {home}");
        let out = Command::new("sh")
            .args(["-c", &command])
            .env("HOME", &test.home)
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, stderr) = umask(&project);
    assert_eq!(code, 0, "{stderr}");
    let store = test.home.join(".config/hookhost/trusted.json");
    let mode = |path: &Path| {
        std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(path).unwrap().permissions())
            & 0o777
    };
    assert_eq!(mode(&store), 0o600);
    assert_eq!(mode(store.parent().unwrap()), 0o700);
    // `/` and the home folder are refused unless forced.
    for broad in ["/", home.as_str()] {
        let (code, stderr) = umask(broad);
        assert_eq!(code, 64, "{broad}: {stderr}");
        assert!(stderr.contains("refusing to trust"), "{stderr}");
    }
    let (code, stderr) = umask(&format!("{home} --force"));
    assert_eq!(code, 0, "{stderr}");
    // A store others can write is refused, with a clear error.
    std::fs::set_permissions(&store, std::os::unix::fs::PermissionsExt::from_mode(0o664)).unwrap();
    let listed = hookhost(
        &test,
        &test.root,
        &["trust", "--list", "--home", &home],
        "",
        &[],
    );
    assert_ne!(listed.code, 0);
    hookhost_tests::assert_says(&listed.stderr, "writable by others");
}

// ---- 17. the audit log ----

#[test]
fn the_audit_log_is_private_and_never_follows_a_planted_symlink() {
    let test = TestEnv::new();
    let guard = guard_file(&test);
    let log = test.root.join("audit.jsonl");
    let log_text = log.display().to_string();
    let run = fire(
        &test,
        &["--settings", &guard, "--audit-log", &log_text],
        &rm_input(&test),
    );
    assert!(blocked(&run));
    let mode =
        std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&log).unwrap().permissions());
    assert_eq!(mode & 0o777, 0o600);
    // A symlink planted at the log's path is not followed.
    let victim = test.write("victim.txt", "untouched");
    let planted = test.root.join("planted.jsonl");
    std::os::unix::fs::symlink(&victim, &planted).unwrap();
    let planted_text = planted.display().to_string();
    let run = fire(
        &test,
        &["--settings", &guard, "--audit-log", &planted_text],
        &rm_input(&test),
    );
    assert!(blocked(&run));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "untouched");
}
