//! Finds the newest WIT package under `wit/` (in the repository a link to the workspace's
//! `wit/`, in a packaged crate a copy) and writes the list of its files for `hookhost new`
//! to copy into a Rust project, so the scaffold names no version: the version is spelled
//! only in the folder's name (and in the executor's own table, `executor/wasm/wit.rs`).

use std::fmt::Write as _;

fn main() {
    let wit = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("wit");
    println!("cargo:rerun-if-changed={}", wit.display());
    let (version, path) = newest(&wit);
    let mut files: Vec<String> = std::fs::read_dir(&path)
        .expect("list the newest WIT package")
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".wit"))
        .collect();
    files.sort();
    let mut code = format!(
        "/// The newest WIT package's version (its folder's name).\npub(crate) const NEWEST_WIT: &str = {version:?};\n/// Its files, by name.\npub(crate) const NEWEST_WIT_FILES: &[(&str, &str)] = &[\n"
    );
    for name in &files {
        let file = std::path::Path::new(&path).join(name);
        println!("cargo:rerun-if-changed={}", file.display());
        writeln!(
            code,
            "    ({name:?}, include_str!({:?})),",
            file.display().to_string()
        )
        .expect("write to a string");
    }
    code.push_str("];\n");
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").expect("set by cargo"));
    std::fs::write(out.join("newest_wit.rs"), code).expect("write newest_wit.rs");
}

include!("wit/newest_package.rs");
