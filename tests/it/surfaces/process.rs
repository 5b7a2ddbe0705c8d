//! The process's doors: the environment, and hookhost run as a hook command.

use super::*;

// ---- 5, 6. the environment cannot point hookhost at a repository ----

/// `fire` with no `--home`: HOME and the XDG variables decide, as on a real machine.
/// `fire` of the `rm` input over the owner's `settings` alone (no discovery, the test's
/// managed file), with `env` set.
fn fire_owner_only(test: &TestEnv, settings: &str, env: &[(&str, &str)]) -> Run {
    let managed = managed_flag(test);
    let args = [
        "fire",
        "--no-discover",
        "--settings",
        settings,
        "--managed-settings",
        &managed,
    ];
    hookhost(test, &test.project, &args, &rm_input(test).to_string(), env)
}

fn fire_from_env(test: &TestEnv, extra: &[&str], input: &Value, env: &[(&str, &str)]) -> Run {
    let project = test.project.display().to_string();
    let managed = managed_flag(test);
    let mut args = vec![
        "fire",
        "--project-dir",
        &project,
        "--managed-settings",
        &managed,
    ];
    args.extend(extra);
    hookhost(test, &test.project, &args, &input.to_string(), env)
}

#[test]
fn empty_or_relative_xdg_and_home_never_mean_the_current_folder() {
    let test = TestEnv::new();
    let component = hookhost_tests::guests::BASH_GUARD;
    let settings = test.write(
        "owner.json",
        &json!({"hooks": hooks("PreToolUse", Some("Bash"),
            vec![hookhost_tests::wasm(component, json!({"failClosed": true}))])})
        .to_string(),
    );
    let settings = settings.display().to_string();
    for env in [
        vec![
            ("XDG_CACHE_HOME", ""),
            ("XDG_CONFIG_HOME", ""),
            ("HOME", ""),
        ],
        vec![("XDG_CACHE_HOME", "cache"), ("XDG_CONFIG_HOME", "config")],
        vec![("XDG_CACHE_HOME", "."), ("XDG_CONFIG_HOME", ".")],
    ] {
        let before: Vec<_> = std::fs::read_dir(&test.project).unwrap().collect();
        let run = fire_from_env(&test, &["--settings", &settings], &rm_input(&test), &env);
        assert!(blocked(&run), "{env:?}: {}\n{}", run.stdout, run.stderr);
        let after: Vec<String> = std::fs::read_dir(&test.project)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            after.len(),
            before.len(),
            "{env:?}: hookhost wrote into the current folder: {after:?}"
        );
    }
}

/// The repository's hook (it touches the returned marker) and a private trust store at
/// `store` (below the test's root) naming the project itself.
fn plant_self_trust(test: &TestEnv, store: &str) -> std::path::PathBuf {
    let marker = marker_hook(test, "project/.claude/settings.json");
    trust_store(test, store);
    marker
}

/// A settings file at `file` (below the test's root) whose one hook touches the returned
/// marker.
fn marker_hook(test: &TestEnv, file: &str) -> std::path::PathBuf {
    let marker = test.root.join("ran");
    let touch = hookhost_tests::command(&format!("touch {}", marker.display()));
    let settings = json!({ "hooks": hooks("PreToolUse", None, vec![touch]) });
    test.write(file, &settings.to_string());
    marker
}

/// A private trust store at `store` (below the test's root) naming the project.
fn trust_store(test: &TestEnv, store: &str) {
    let trusted = json!({"trusted": [test.project.display().to_string()]}).to_string();
    let written = test.write(store, &trusted);
    let private = std::os::unix::fs::PermissionsExt::from_mode(0o600);
    std::fs::set_permissions(&written, private).unwrap();
}

#[test]
fn a_relative_xdg_config_home_cannot_make_a_repository_trust_itself() {
    let test = TestEnv::new();
    // The repository ships a trust store naming itself.
    let marker = plant_self_trust(&test, "project/config/hookhost/trusted.json");
    let run = fire_from_env(
        &test,
        &[],
        &rm_input(&test),
        &[("XDG_CONFIG_HOME", "config")],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!marker.exists(), "the repository trusted itself");
    // Control: the same store in the owner's configuration folder trusts the project.
    trust_store(&test, "home/.config/hookhost/trusted.json");
    let home = test.home.display().to_string();
    let run = fire_from_env(&test, &["--home", &home], &rm_input(&test), &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        marker.exists(),
        "control: the trusted project's hook did not run"
    );
}

#[test]
fn a_relative_evva_home_cannot_make_a_repository_the_user_layer() {
    let test = TestEnv::new();
    let marker = marker_hook(&test, "project/evva-user/settings.json");
    let run = fire_from_env(
        &test,
        &["--dialect", "evva"],
        &rm_input(&test),
        &[("EVVA_HOME", "evva-user")],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!marker.exists(), "the repository's file ran as the user's");
    // Control: the same file in the owner's evva folder runs as the user's.
    let settings = std::fs::read_to_string(test.project.join("evva-user/settings.json")).unwrap();
    test.write("home/.evva/settings.json", &settings);
    let home = test.home.display().to_string();
    let run = fire_from_env(
        &test,
        &["--dialect", "evva", "--home", &home],
        &rm_input(&test),
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(marker.exists(), "control: the user's evva file did not run");
}

// ---- the CLI as a hook command: its own problems never read as a block ----

#[test]
fn a_bad_flag_never_exits_2() {
    let test = TestEnv::new();
    for args in [
        &["fire", "--bogus"][..],
        &["fire", "--format", "claude", "--oops"][..],
        &["fire", "--format", "nonsense"][..],
        &["no-such-command"][..],
    ] {
        let run = hookhost(&test, &test.project, args, "{}", &[]);
        assert_eq!(run.code, 64, "{args:?}: {}", run.stderr);
    }
    let help = hookhost(&test, &test.project, &["fire", "--help"], "", &[]);
    assert_eq!(help.code, 0, "{}", help.stderr);
}

#[test]
fn hookhost_run_as_its_own_hook_does_not_recurse() {
    let test = TestEnv::new();
    let counter = test.root.join("runs");
    let settings = test.root.join("owner.json");
    let managed = managed_flag(&test);
    let again = format!(
        "{CLI} fire --format claude --no-discover --settings {} --managed-settings {managed}",
        settings.display()
    );
    std::fs::write(
        &settings,
        json!({"hooks": hooks("PreToolUse", None, vec![
            json!({"type": "command", "command": format!("cat >/dev/null; echo run >> {}", counter.display())}),
            json!({"type": "command", "command": again, "timeout": 10}),
        ])})
        .to_string(),
    )
    .unwrap();
    let settings_text = settings.display().to_string();
    let run = fire_owner_only(&test, &settings_text, &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let runs = std::fs::read_to_string(&counter).unwrap_or_default();
    assert_eq!(
        runs.lines().count(),
        1,
        "the hooks ran again inside their own hook"
    );
    let outcome = run.json();
    assert_eq!(outcome["hooks"][1]["status"], json!("success"), "{outcome}");
}

#[test]
fn hookhost_in_the_environment_does_not_switch_the_guards_off() {
    // A project's Claude Code settings can set environment variables for every hook
    // process (`"env": {...}`): a variable must not be what tells hookhost it is nested.
    let test = TestEnv::new();
    let settings = guard_file(&test);
    let run = fire_owner_only(&test, &settings, &[("HOOKHOST", "1")]);
    assert!(blocked(&run), "{}\n{}", run.stdout, run.stderr);
}

#[test]
fn an_absolute_config_or_state_folder_inside_the_repository_is_not_the_owners() {
    let test = TestEnv::new();
    let marker = plant_self_trust(&test, "project/cfg/hookhost/trusted.json");
    let inside = test.project.join("cfg").display().to_string();
    let run = fire_from_env(
        &test,
        &[],
        &rm_input(&test),
        &[("XDG_CONFIG_HOME", inside.as_str())],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(!marker.exists(), "the repository trusted itself");

    // A `once` guard the repository marks as already run in a planted session store.
    let once_marker = test.root.join("once-ran");
    let settings = test.hook_file(
        "owner.json",
        "PreToolUse",
        vec![json!({"type": "command", "once": true,
                        "command": format!("cat >/dev/null; touch {}", once_marker.display())})],
    );
    let state = test.project.join("state").display().to_string();
    let settings = settings.display().to_string();
    let args = ["--settings", settings.as_str(), "--session-id", "s-planted"];
    // The store the repository points at: one fire records the hook there ...
    let first = fire_from_env(
        &test,
        &args,
        &rm_input(&test),
        &[("XDG_STATE_HOME", state.as_str())],
    );
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(once_marker.exists());
    assert!(
        !test.project.join("state/hookhost").exists(),
        "session state was written into the repository"
    );

    // The artifact key and compiled artifacts (a repository shipping both would run its
    // native code in place of a pinned component).
    let wasm_settings = test.write(
        "wasm-owner.json",
        &json!({"hooks": hooks("PreToolUse", Some("Bash"),
            vec![hookhost_tests::wasm(hookhost_tests::guests::BASH_GUARD, json!({"failClosed": true}))])})
        .to_string(),
    );
    let wasm_settings = wasm_settings.display().to_string();
    let cache = test.project.join("cache").display().to_string();
    let run = fire_from_env(
        &test,
        &["--settings", wasm_settings.as_str()],
        &rm_input(&test),
        &[
            ("XDG_CACHE_HOME", cache.as_str()),
            ("XDG_CONFIG_HOME", inside.as_str()),
        ],
    );
    assert!(blocked(&run), "{}\n{}", run.stdout, run.stderr);
    assert!(
        !test.project.join("cache/hookhost").exists(),
        "artifacts in the repository"
    );
    assert!(
        !test.project.join("cfg/hookhost/cache.key").exists(),
        "the artifact key in the repository"
    );
}
