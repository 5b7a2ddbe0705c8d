//! Finds the newest WIT package under `wit/` (folders named `hooks@X.Y.Z`; in the
//! repository a link to the workspace's `wit/`, in a packaged crate a copy) and writes
//! the path and version the guest bindings use, so the version is spelled only in the
//! folder name.

fn main() {
    let wit = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("wit");
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

include!("wit/newest_package.rs");
