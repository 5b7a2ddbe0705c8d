// Shared by the build scripts of `host/` and `guest-sdk/` (`include!`d): finds the
// newest WIT package, so its version is spelled only in its folder name.

/// The newest `hooks@X.Y.Z` folder: its version and absolute path.
fn newest(wit: &std::path::Path) -> (String, String) {
    let mut best: Option<(Vec<u64>, String, String)> = None;
    for entry in std::fs::read_dir(wit).expect("list wit/").flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(version) = name.strip_prefix("hooks@") else {
            continue;
        };
        let key: Vec<u64> = version.split('.').filter_map(|p| p.parse().ok()).collect();
        if best.as_ref().is_none_or(|(k, _, _)| key > *k) {
            let path = entry.path().canonicalize().expect("canonical wit path");
            best = Some((key, version.to_string(), path.display().to_string()));
        }
    }
    let (_, version, path) = best.expect("no wit/hooks@X.Y.Z package");
    (version, path)
}
