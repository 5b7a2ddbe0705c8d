//! Finds the newest WIT package under `../wit/` (folders named `hooks@X.Y.Z`) and writes
//! the path and version the guest bindings use, so the version is spelled only in the
//! folder name.

fn main() {
    let wit = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../wit");
    println!("cargo:rerun-if-changed={}", wit.display());
    let (version, path) = newest(&wit);
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo"));
    let code = format!(
        "wit_bindgen::generate!({{\n    path: {path:?},\n    world: \"hook\",\n    pub_export_macro: true,\n    export_macro_name: \"__export_hook_world\",\n    default_bindings_module: \"hookhost_guest::bindings\",\n}});\n"
    );
    std::fs::write(out.join("wit_bindings.rs"), code).expect("write wit_bindings.rs");
    std::fs::write(out.join("wit_version.rs"), format!("{version:?}"))
        .expect("write wit_version.rs");
}

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
