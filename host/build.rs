//! Finds the newest WIT package under `../wit/` (folders named `hooks@X.Y.Z`) and writes
//! the path and version the host bindings use, so the version is spelled only in the
//! folder name.

fn main() {
    let wit = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../wit");
    println!("cargo:rerun-if-changed={}", wit.display());
    let (version, path) = newest(&wit);
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo"));
    let code = format!(
        "wasmtime::component::bindgen!({{\n    path: {path:?},\n    world: \"hook\",\n    exports: {{ default: async }},\n}});\n\n/// The WIT package version these bindings implement.\npub const WIT_VERSION: &str = {version:?};\n"
    );
    std::fs::write(out.join("wit_bindings.rs"), code).expect("write wit_bindings.rs");
}

include!("../wit/newest_package.rs");
