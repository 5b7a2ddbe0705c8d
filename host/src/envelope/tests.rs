use std::path::Path;

use super::*;

/// An envelope for `project` and `home` with the default rules and hookhost's keys.
pub(super) fn sample(project: &Path, home: &Path) -> Envelope {
    let mut config = crate::config::LoadedConfig::empty();
    config.project_dir = Some(project.to_path_buf());
    config.home = Some(home.to_path_buf());
    config.envelope.enabled = true;
    config.envelope.scope_abstract_sockets = true;
    let keys = home.join(".config/hookhost");
    derive(
        &config,
        vec![
            (keys.clone(), "hookhost's configuration folder".into()),
            (project.join(".git/hooks"), "the project's git hooks".into()),
        ],
        vec![(keys.join("cache.key"), "the artifact key".into())],
        &home.join("state/envelope"),
    )
}

#[test]
fn the_rules_as_data() {
    let envelope = sample(Path::new("/p"), Path::new("/h"));
    let paths = |places: &[Place]| -> Vec<String> {
        places
            .iter()
            .map(|p| p.path.display().to_string())
            .collect()
    };
    assert_eq!(
        paths(&envelope.writable),
        ["/p", "/tmp", "/var/tmp", "/dev/shm"]
    );
    let read_only = paths(&envelope.read_only);
    for expected in [
        "/h/.config/hookhost",
        "/p/.git/hooks",
        "/h/.bashrc",
        "/h/.zshrc",
    ] {
        assert!(
            read_only.iter().any(|p| p == expected),
            "{expected}: {read_only:?}"
        );
    }
    assert_eq!(
        paths(&envelope.unreadable),
        ["/h/.config/hookhost/cache.key"]
    );
    assert_eq!(envelope.network, Network::Any);
    assert!(envelope.scope_abstract_sockets && !envelope.scope_signals);
    assert_eq!(envelope.needed_abi(), 6);
    assert_eq!(envelope.withheld, Path::new("/h/state/envelope/withheld"));
}

#[test]
fn the_digest_names_the_content() {
    let a = sample(Path::new("/p"), Path::new("/h"));
    let mut b = a.clone();
    assert_eq!(a.digest(), b.digest());
    b.network = Network::None;
    assert_ne!(a.digest(), b.digest());
    assert_eq!(a.digest().len(), 64);
    assert_eq!(
        a.file_in(Path::new("/s")),
        Path::new("/s").join(format!("{}.json", a.digest()))
    );
}

#[test]
fn the_owners_builtins_and_additions_shape_it() {
    let project = Path::new("/p");
    let mut config = crate::config::LoadedConfig::empty();
    config.project_dir = Some(project.to_path_buf());
    config.envelope.read_only = vec!["deploy".into()];
    config.envelope.writable = vec!["/opt/build".into()];
    config.envelope.network = Network::Ports {
        connect: vec![443],
        bind: vec![],
    };
    config.envelope.scope_abstract_sockets = false;
    for (component, config_value, layer) in [
        (
            "builtin:protected-paths",
            serde_json::json!({"paths": ["infra/prod.yml"]}),
            crate::config::Layer::User,
        ),
        (
            "builtin:secrets",
            serde_json::json!({"allow": [".env.test"]}),
            crate::config::Layer::User,
        ),
        // A repository's entry of the same builtin adds nothing.
        (
            "builtin:secrets",
            serde_json::json!({"allow": [".env"]}),
            crate::config::Layer::Project,
        ),
    ] {
        let mut wasm = crate::config::WasmHandler::new(component);
        wasm.config = config_value;
        let mut spec = crate::engine::session_hooks::test_spec(
            "PreToolUse",
            None,
            crate::config::Handler::Wasm(wasm),
        )
        .unwrap();
        spec.layer = layer;
        config.hooks.push(spec);
    }
    let envelope = derive(&config, Vec::new(), Vec::new(), Path::new("/s"));
    let read_only: Vec<&Path> = envelope
        .read_only
        .iter()
        .map(|p| p.path.as_path())
        .collect();
    assert!(read_only.contains(&Path::new("/p/deploy")));
    assert!(read_only.contains(&Path::new("/p/infra/prod.yml")));
    assert!(
        envelope
            .writable
            .iter()
            .any(|p| p.path == Path::new("/opt/build"))
    );
    assert_eq!(envelope.secret_allow, [".env.test"]);
    assert_eq!(envelope.needed_abi(), 4);
}

#[test]
fn show_prints_it_whole() {
    let text = sample(Path::new("/p"), Path::new("/h")).to_string();
    for part in [
        "mode: enforce",
        "/p  (the project)",
        "/p/.git/hooks",
        "cache.key",
        "network: any",
        "needs: Landlock ABI 6",
    ] {
        assert!(text.contains(part), "{part}\n{text}");
    }
}
