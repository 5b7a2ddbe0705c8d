//! The artifact cache: capped, never fooled by a forged or swapped artifact, a shared or
//! symlinked folder, or a component file rewritten under a remembered digest.

use super::*;

// ---- the artifact cache ----------------------------------------------------------------

fn cache_engine(env: &TestEnv, component: &str, cache: &Path) -> Engine {
    let settings = env.one_hook("PreToolUse", wasm(component, json!({})));
    let mut options = env.engine_options();
    options.wasm.cache_dir = Some(cache.to_path_buf());
    Engine::load(&env.load_options(&[settings], &[]), options).unwrap()
}

/// An engine for `component` caching in `cache`, fired once, and the artifact it stored.
async fn compiled(env: &TestEnv, component: &str, cache: &Path) -> (Engine, std::path::PathBuf) {
    let engine = cache_engine(env, component, cache);
    fire(&engine, env).await;
    let artifact = artifacts(cache).pop().unwrap();
    (engine, artifact)
}

fn artifacts(cache: &Path) -> Vec<std::path::PathBuf> {
    let mut found: Vec<_> = std::fs::read_dir(cache)
        .map(|dir| {
            dir.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "cwasm"))
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

#[tokio::test]
async fn the_cache_stays_under_its_cap_least_recently_used_first() {
    let env = TestEnv::new();
    let cache = env.root.join("capped-cache");
    let engine_with_cap = |component: &str, cap: u64| {
        let settings = env.one_hook("PreToolUse", wasm(component, json!({})));
        let mut options = env.engine_options();
        options.wasm.cache_dir = Some(cache.clone());
        options.wasm.cache_max_bytes = cap;
        Engine::load(&env.load_options(&[settings], &[]), options).unwrap()
    };
    let first = engine_with_cap(guests::BASH_GUARD, 1);
    fire(&first, &env).await;
    let after_first = artifacts(&cache);
    assert_eq!(after_first.len(), 1);
    // A cap smaller than one artifact keeps only the one just stored.
    let second = engine_with_cap(guests::PATH_GUARD, 1);
    fire(&second, &env).await;
    let after_second = artifacts(&cache);
    assert_eq!(after_second.len(), 1, "{after_second:?}");
    assert_ne!(after_second, after_first, "the older artifact went");
    // A roomy cap keeps both.
    let third = engine_with_cap(guests::BASH_GUARD, 1 << 40);
    fire(&third, &env).await;
    assert_eq!(artifacts(&cache).len(), 2);
    // `hookhost cache` lists, prunes to a cap and clears.
    let cli = |args: &[&str]| {
        let mut command = std::process::Command::new(CLI);
        command
            .arg("cache")
            .args(args)
            .arg("--cache-dir")
            .arg(&cache);
        command.arg("--home").arg(&env.home);
        command.arg("--managed-settings").arg(env.managed_path());
        hookhost_tests::ran(&mut command).assert_ok().stdout.clone()
    };
    let listed = cli(&[]);
    assert!(listed.contains("2 artifacts"), "{listed}");
    let pruned = cli(&["--prune", "--max-mb", "0"]);
    assert!(pruned.contains("removed 2 artifacts"), "{pruned}");
    assert!(artifacts(&cache).is_empty());
    fire(&third, &env).await;
    assert!(
        cli(&["--clear"]).contains("removed 0 artifacts"),
        "already in memory: nothing stored again"
    );
}

#[tokio::test]
async fn a_forged_artifact_is_never_run() {
    let env = TestEnv::new();
    let cache = env.root.join("cache");
    // Compile an allow-everything component and the bash guard into the cache.
    let (_allow, allow_artifact) = compiled(&env, guests::CONTEXT_INJECT, &cache).await;
    let guard = cache_engine(&env, guests::BASH_GUARD, &cache);
    let outcome = guard.execute("PreToolUse", env.bash("rm -rf /")).await;
    hookhost_tests::assert_decision(&outcome, "deny");
    let guard_artifact = artifacts(&cache)
        .into_iter()
        .find(|p| *p != allow_artifact)
        .unwrap();
    // The attacker swaps the guard's artifact for the allow component's.
    std::fs::copy(&allow_artifact, &guard_artifact).unwrap();
    let guard = cache_engine(&env, guests::BASH_GUARD, &cache);
    let outcome = guard.execute("PreToolUse", env.bash("rm -rf /")).await;
    hookhost_tests::assert_decision(&outcome, "deny");
    let stats = guard.inventory().wasm.unwrap().cache;
    assert_eq!((stats.disk_hits, stats.rejected, stats.compiled), (0, 1, 1));
    // Recompiled and rewritten: the next engine loads it from disk again.
    let guard = cache_engine(&env, guests::BASH_GUARD, &cache);
    guard.execute("PreToolUse", env.bash("ls")).await;
    assert_eq!(guard.inventory().wasm.unwrap().cache.disk_hits, 1);
}

#[tokio::test]
async fn a_shared_cache_folder_is_refused_and_left_alone() {
    use std::os::unix::fs::PermissionsExt;
    let env = TestEnv::new();
    let cache = env.root.join("shared-cache");
    std::fs::create_dir(&cache).unwrap();
    std::fs::set_permissions(&cache, std::fs::Permissions::from_mode(0o777)).unwrap();
    let engine = cache_engine(&env, guests::BASH_GUARD, &cache);
    fire(&engine, &env).await;
    let mode = std::fs::metadata(&cache).unwrap().permissions().mode() & 0o777;
    assert_eq!(
        mode, 0o777,
        "hookhost must not chmod a folder it does not own"
    );
    assert!(
        artifacts(&cache).is_empty(),
        "nothing may be written to a shared folder"
    );
}

#[tokio::test]
async fn a_planted_symlink_in_the_cache_is_not_followed() {
    let env = TestEnv::new();
    let cache = env.root.join("cache");
    let (_engine, artifact) = compiled(&env, guests::BASH_GUARD, &cache).await;
    std::fs::remove_file(&artifact).unwrap();
    let victim = env.write("victim.txt", "precious");
    // At the artifact's name, and at the temporary name a pid-based scheme would use.
    std::os::unix::fs::symlink(&victim, &artifact).unwrap();
    let name = artifact.file_name().unwrap().to_string_lossy();
    let predictable = cache.join(format!(".{name}.{}.tmp", std::process::id()));
    std::os::unix::fs::symlink(&victim, &predictable).unwrap();
    let engine = cache_engine(&env, guests::BASH_GUARD, &cache);
    let outcome = engine.execute("PreToolUse", env.bash("rm -rf /")).await;
    hookhost_tests::assert_decision(&outcome, "deny");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    assert!(
        !std::fs::symlink_metadata(&artifact)
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[tokio::test]
async fn grants_may_not_reach_the_cache_or_hookhosts_configuration() {
    let env = TestEnv::new();
    let options = env.engine_options();
    let cache = options.wasm.cache_dir.clone().unwrap();
    let config = options.wasm.config_dir.clone().unwrap();
    std::fs::create_dir_all(&cache).unwrap();
    std::fs::create_dir_all(&config).unwrap();
    for (grant, what) in [
        (&env.root, "the Wasm artifact cache"),
        (&cache, "the Wasm artifact cache"),
        (&config, "hookhost's configuration folder"),
    ] {
        let engine = one_hook(
            &env,
            guest(
                "allow",
                json!({"allowedPaths": [{"path": grant.display().to_string(), "write": true}]}),
            ),
        );
        hookhost_tests::assert_says(errors(&engine), &format!("overlaps {what}"));
        let outcome = fire(&engine, &env).await;
        assert_eq!(outcome.hooks[0].status, HookStatus::NonBlockingError);
    }
}

#[tokio::test]
async fn a_flipped_byte_anywhere_in_an_artifact_is_refused() {
    let env = TestEnv::new();
    let cache = env.root.join("cache");
    let (_, artifact) = compiled(&env, guests::BASH_GUARD, &cache).await;
    let stored = std::fs::read(&artifact).unwrap();
    // The first byte (ELF header), one in the middle (code or data) and the last (the MAC
    // trailer): each is caught, the component recompiled and stored again.
    for at in [0, stored.len() / 2, stored.len() - 1] {
        let mut tampered = stored.clone();
        tampered[at] ^= 0x40;
        std::fs::write(&artifact, &tampered).unwrap();
        let engine = cache_engine(&env, guests::BASH_GUARD, &cache);
        let outcome = engine.execute("PreToolUse", env.bash("rm -rf /")).await;
        assert_eq!(
            hookhost_tests::decision(&outcome),
            Some("deny"),
            "byte {at}: {outcome:?}"
        );
        let stats = engine.inventory().wasm.unwrap().cache;
        assert_eq!(
            (stats.disk_hits, stats.rejected, stats.compiled),
            (0, 1, 1),
            "byte {at}"
        );
    }
    // What was stored last loads from disk (trailer and all).
    let engine = cache_engine(&env, guests::BASH_GUARD, &cache);
    fire(&engine, &env).await;
    assert_eq!(engine.inventory().wasm.unwrap().cache.disk_hits, 1);
}

#[tokio::test]
async fn a_component_rewritten_under_a_remembered_digest_is_hashed_again() {
    let env = TestEnv::new();
    let cache = env.root.join("cache");
    let component = env.root.join("guard.wasm");
    std::fs::copy(guests::BASH_GUARD, &component).unwrap();
    let pin = hookhost_tests::sha256_of(&component);
    // A digest is remembered only for a file that has not changed for a while.
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let pinned = || {
        let settings = env.hook_file(
            "settings.json",
            "PreToolUse",
            vec![wasm(
                component.to_str().unwrap(),
                json!({"sha256": pin, "failClosed": true}),
            )],
        );
        let mut options = env.engine_options();
        options.wasm.cache_dir = Some(cache.clone());
        Engine::load(&env.load_options(&[settings], &[]), options).unwrap()
    };
    let first = pinned();
    fire(&first, &env).await;
    let memos = || {
        std::fs::read_dir(&cache)
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .path()
                    .extension()
                    .is_some_and(|x| x == "digest")
            })
            .count()
    };
    assert_eq!(memos(), 1, "the settled file's digest is remembered");
    let second = pinned();
    fire(&second, &env).await;
    assert_eq!(second.inventory().wasm.unwrap().cache.disk_hits, 1);

    // The attacker rewrites the file with an allow-everything component and sets its
    // modification time back: the status-change time still moves, the memo no longer
    // holds, the file is hashed and the pin refuses it (fail closed: a block).
    let original = std::fs::metadata(&component).unwrap().modified().unwrap();
    std::fs::copy(guests::CONTEXT_INJECT, &component).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&component)
        .unwrap()
        .set_modified(original)
        .unwrap();
    let third = pinned();
    let outcome = third.execute("PreToolUse", env.bash("ls")).await;
    assert!(outcome.should_block, "{outcome:?}");
    assert!(
        hook_error(&outcome, 0).contains(&pin),
        "the pin is named: {}",
        hook_error(&outcome, 0)
    );
}

#[test]
fn processes_loading_one_artifact_at_once_all_use_it() {
    use std::os::unix::fs::MetadataExt;
    let env = TestEnv::new();
    let settings = env.one_hook("PreToolUse", wasm(guests::BASH_GUARD, json!({})));
    let args = cli_args(&env, &settings, &["fire", "PreToolUse"]);
    let input = env.bash("rm -rf /").to_string();
    let fire = move || run_cli(CLI, &args, input.as_bytes(), Duration::from_secs(60)).unwrap();
    assert_eq!(fire().code, 0);
    let artifact = artifacts(&env.root.join("cli-cache")).pop().unwrap();
    let inode = std::fs::metadata(&artifact).unwrap().ino();
    // Each load stamps the artifact as used (its times change); a load running meanwhile
    // must still take it, not count it replaced, recompile and store it again.
    for _ in 0..3 {
        let runs: Vec<_> = (0..8).map(|_| std::thread::spawn(fire.clone())).collect();
        for run in runs {
            let run = run.join().unwrap();
            assert!(run.stdout.contains("\"deny\""), "{}", run.stdout);
        }
    }
    assert_eq!(
        std::fs::metadata(&artifact).unwrap().ino(),
        inode,
        "the artifact was never rewritten"
    );
}
