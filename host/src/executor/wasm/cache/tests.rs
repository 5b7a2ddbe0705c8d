use super::*;

#[test]
#[cfg(unix)]
fn a_shared_folder_is_refused_not_chmodded() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let shared = dir.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();
    let err = ensure_private_dir(&shared).unwrap_err();
    assert!(err.contains("writable by group or others"), "{err}");
    let mode = std::fs::metadata(&shared).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o777, "the folder's mode must be left alone");
}

#[test]
fn the_key_is_created_once_and_reused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cache.key");
    let first = load_or_create_key(&path).unwrap();
    let second = load_or_create_key(&path).unwrap();
    assert_eq!(first, second);
    let meta = std::fs::metadata(&path).unwrap();
    assert!(
        !platform::others_may_access(&meta),
        "{}",
        platform::mode_text(&meta)
    );
}

#[test]
fn another_processs_use_stamp_is_no_replacement_but_a_rename_is() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.cwasm");
    std::fs::write(&path, b"artifact").unwrap();
    let file = std::fs::File::open(&path).unwrap();
    let id = platform::file_id(&file).unwrap();
    // Another process loading the same artifact stamps it as used.
    lru::touch(&std::fs::File::options().write(true).open(&path).unwrap());
    assert!(still_names(&path, id, 8));
    // A writer renames a new file over it.
    let other = dir.path().join("b.tmp");
    std::fs::write(&other, b"artifact").unwrap();
    std::fs::rename(&other, &path).unwrap();
    assert!(!still_names(&path, id, 8));
}

#[test]
fn an_artifact_read_into_memory_loads_and_its_mac_still_decides() {
    // The empty component: magic, component version, component layer.
    const EMPTY_COMPONENT: &[u8] = b"\0asm\x0d\x00\x01\x00";
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::new(&wasmtime::Config::new()).unwrap();
    let disk = DiskCache::open(
        dir.path().join("cache"),
        &dir.path().join("config"),
        u64::MAX,
    )
    .unwrap();
    let artifact = engine.precompile_component(EMPTY_COMPONENT).unwrap();
    disk.write("digest-key", &artifact).unwrap();
    let path = dir.path().join("cache").join("digest-key.cwasm");
    let len = std::fs::metadata(&path).unwrap().len();
    let open = || open_private_file(&path).unwrap().unwrap();
    disk.read_into_memory(&engine, "digest-key", &open(), len)
        .unwrap();
    // The MAC binds the name and every byte, on this path as on the mapped one.
    let err = disk
        .read_into_memory(&engine, "other-key", &open(), len)
        .unwrap_err();
    assert!(err.contains("MAC does not verify"), "{err}");
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[artifact.len() / 2] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    let err = disk
        .read_into_memory(&engine, "digest-key", &open(), len)
        .unwrap_err();
    assert!(err.contains("MAC does not verify"), "{err}");
}

#[test]
fn exclusive_temp_files_do_not_follow_symlinks() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _file) = create_exclusive(dir.path(), "x").unwrap();
    assert!(
        path.file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with(".x.")
    );
    assert_ne!(create_exclusive(dir.path(), "x").unwrap().0, path);
}

#[test]
fn a_shared_key_verifies_in_the_other_folder_and_never_replaces_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let (from, to) = (
        dir.path().join("runner/test.key"),
        dir.path().join("case/.config"),
    );
    share_key(&from, &to).unwrap();
    let owner = load_or_create_key(&from).unwrap();
    assert_eq!(load_or_create_key(&to.join(KEY_FILE)).unwrap(), owner);
    // A folder with a key of its own keeps it.
    let other = dir.path().join("other");
    std::fs::create_dir(&other).unwrap();
    let own = load_or_create_key(&other.join(KEY_FILE)).unwrap();
    share_key(&from, &other).unwrap();
    assert_eq!(load_or_create_key(&other.join(KEY_FILE)).unwrap(), own);
    assert_ne!(own, owner);
}

#[test]
#[cfg(unix)]
fn a_key_is_never_shared_through_a_link() {
    let dir = tempfile::tempdir().unwrap();
    let (from, to) = (dir.path().join("runner/test.key"), dir.path().join("case"));
    std::fs::create_dir(&to).unwrap();
    let elsewhere = dir.path().join("elsewhere.key");
    std::os::unix::fs::symlink(&elsewhere, to.join(KEY_FILE)).unwrap();
    let err = share_key(&from, &to).unwrap_err();
    assert!(err.contains("cache.key"), "{err}");
    assert!(!elsewhere.exists(), "the key was written through the link");
}
