//! `hookhost new NAME --lang rust|ts|python`: writes a ready hook project — the smallest
//! hook, one build command, a fixture for `hookhost test`, a README — with the guest SDK
//! and the WIT package copied in, so it builds without a hookhost checkout.
//!
//! The templates live beside this file (`scaffold/`); the SDKs, the WIT package and the
//! pinned JS/Python tool versions are the repository's own files, embedded at compile
//! time, so a generated project always matches the hookhost that made it.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use serde_json::{Value, json};

/// Arguments of `hookhost new`.
#[derive(Debug, clap::Args)]
pub struct NewArgs {
    /// The project's name and folder: lowercase letters, digits, `-` and `_`, starting
    /// with a letter.
    name: String,
    /// The language the hook is written in.
    #[arg(long, value_enum)]
    lang: Lang,
    /// The folder to create the project in (default: the current directory).
    #[arg(long, value_name = "DIR", default_value = ".")]
    dir: PathBuf,
}

/// A guest language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Lang {
    /// Rust with the `hookhost-guest` crate (cargo, target wasm32-wasip2).
    Rust,
    /// TypeScript with `@hookhost/guest` (rolldown + componentize-js, from npm).
    #[value(alias = "typescript", alias = "js", alias = "javascript")]
    Ts,
    /// Python with `hookhost_guest` (componentize-py, from PyPI).
    #[value(alias = "py")]
    Python,
}

// The WIT package the Rust SDK targets: the newest folder's, which the build script
// (`host/build.rs`) finds — `NEWEST_WIT` and `NEWEST_WIT_FILES`; it is the host's
// newest, [`hookhost::WIT_VERSION`] (`wit_versions_match_the_sdks` checks they agree).
include!(concat!(env!("OUT_DIR"), "/newest_wit.rs"));
const WIT: &str = NEWEST_WIT;
const WIT_FILES: &[(&str, &str)] = NEWEST_WIT_FILES;
/// The WIT package the TypeScript and Python SDKs target. Their runtimes copy every
/// string into an object of their own, so 0.4.0's packed shell view gains them nothing
/// (0.5.0's file targets reach them as the input's `file_target` field).
const SCRIPT_WIT: &str = "0.3.0";
const SCRIPT_WIT_FILES: &[(&str, &str)] = &[
    ("types.wit", include_str!("../../wit/hooks@0.3.0/types.wit")),
    ("world.wit", include_str!("../../wit/hooks@0.3.0/world.wit")),
    ("shell.wit", include_str!("../../wit/hooks@0.3.0/shell.wit")),
];

/// The WIT version a language's SDK targets, and that package's files.
fn wit_package(lang: Lang) -> (&'static str, &'static [(&'static str, &'static str)]) {
    match lang {
        Lang::Rust => (WIT, WIT_FILES),
        Lang::Ts | Lang::Python => (SCRIPT_WIT, SCRIPT_WIT_FILES),
    }
}
const WIT_NEWEST: &str = include_str!("../../wit/newest_package.rs");

const WORKSPACE_MANIFEST: &str = include_str!("scaffold/workspace/Cargo.toml.in");
/// The workspace's lock file: a new Rust project starts on the dependency versions this
/// hookhost was tested with (cargo drops the entries it does not use).
const WORKSPACE_LOCK: &str = include_str!("scaffold/workspace/Cargo.lock.in");
const RUST_SDK_MANIFEST: &str = include_str!("scaffold/sdk/rust/Cargo.toml.in");
const RUST_SDK: &[(&str, &str)] = &[
    ("build.rs", include_str!("scaffold/sdk/rust/build.rs")),
    ("README.md", include_str!("scaffold/sdk/rust/README.md")),
    ("src/lib.rs", include_str!("scaffold/sdk/rust/src/lib.rs")),
    (
        "src/answer.rs",
        include_str!("scaffold/sdk/rust/src/answer.rs"),
    ),
    (
        "src/facts.rs",
        include_str!("scaffold/sdk/rust/src/facts.rs"),
    ),
    (
        "src/files.rs",
        include_str!("scaffold/sdk/rust/src/files.rs"),
    ),
    (
        "src/input.rs",
        include_str!("scaffold/sdk/rust/src/input.rs"),
    ),
    (
        "src/shell.rs",
        include_str!("scaffold/sdk/rust/src/shell.rs"),
    ),
];
const JS_SDK: &[(&str, &str)] = &[
    ("index.js", include_str!("scaffold/sdk/js/index.js")),
    ("index.d.ts", include_str!("scaffold/sdk/js/index.d.ts")),
    ("package.json", include_str!("scaffold/sdk/js/package.json")),
    ("README.md", include_str!("scaffold/sdk/js/README.md")),
    (
        "build-errors.mjs",
        include_str!("scaffold/sdk/js/build-errors.mjs"),
    ),
];
const PYTHON_SDK: &[(&str, &str)] = &[
    (
        "hookhost_guest/__init__.py",
        include_str!("scaffold/sdk/python/hookhost_guest/__init__.py"),
    ),
    ("README.md", include_str!("scaffold/sdk/python/README.md")),
    (
        "build_errors.py",
        include_str!("scaffold/sdk/python/build_errors.py"),
    ),
];
/// The pinned tool versions the repository's own examples build with.
const JS_TOOLS: &str = include_str!("scaffold/toolchains/package.json");
const JS_TOOLS_LOCK: &str = include_str!("scaffold/toolchains/package-lock.json");
const PYTHON_TOOLS: &str = include_str!("scaffold/toolchains/requirements.txt");

const README: &str = include_str!("scaffold/README.md.in");
/// Keeps a component its unchanged inputs made (the componentizers are not reproducible).
const UNCHANGED: &str = include_str!("scaffold/unchanged.sh");
const FIXTURE: &str = include_str!("scaffold/fixture.json");

/// One file of a project: its path inside the project, contents, and whether it is a
/// program to run.
#[derive(Debug)]
struct File {
    path: String,
    contents: String,
    executable: bool,
}

impl File {
    fn new(path: impl Into<String>, contents: impl Into<String>) -> Self {
        File {
            path: path.into(),
            contents: contents.into(),
            executable: false,
        }
    }
}

/// Creates the project and prints what to do next.
pub fn run(args: NewArgs) -> anyhow::Result<ExitCode> {
    check_name(&args.name)?;
    let root = args.dir.join(&args.name);
    let files = project(&args.name, args.lang)?;
    write_project(&root, &files)?;
    let (build, component) = build_command(&args.name, args.lang);
    println!(
        "created {} ({} hook, WIT hookhost:hooks@{})\n\nnext:\n  cd {}\n  {}\n  hookhost test\n\nthe component: {component}",
        root.display(),
        language(args.lang),
        wit_package(args.lang).0,
        root.display(),
        build.replace('\n', "\n  "),
    );
    Ok(ExitCode::SUCCESS)
}

/// Names that would not work as a Cargo package, an npm package and a file name alike.
fn check_name(name: &str) -> anyhow::Result<()> {
    const RESERVED: &[&str] = &[
        "test",
        "std",
        "core",
        "alloc",
        "proc_macro",
        "proc-macro",
        "self",
        "super",
        "crate",
        "fn",
        "mod",
        "type",
        "impl",
        "struct",
        "enum",
        "trait",
        "use",
        "pub",
        "let",
        "match",
        "node_modules",
        "favicon.ico",
    ];
    let valid = name.len() <= 64
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
        && !name.ends_with(['-', '_']);
    if !valid {
        bail!(
            "invalid project name {name:?}: use up to 64 lowercase letters, digits, `-` and `_`, starting with a letter (e.g. `no-force-push`)"
        );
    }
    if RESERVED.contains(&name) {
        bail!("invalid project name {name:?}: it is reserved by Rust, Cargo or npm; pick another");
    }
    Ok(())
}

fn language(lang: Lang) -> &'static str {
    match lang {
        Lang::Rust => "Rust",
        Lang::Ts => "TypeScript",
        Lang::Python => "Python",
    }
}

/// The one build command and the component it writes, relative to the project.
fn build_command(name: &str, lang: Lang) -> (String, String) {
    match lang {
        Lang::Rust => (
            "cargo build --release".into(),
            format!(
                "target/wasm32-wasip2/release/{}.wasm",
                name.replace('-', "_")
            ),
        ),
        Lang::Ts => (
            "npm install && npm run build".into(),
            format!("{name}.wasm"),
        ),
        Lang::Python => ("./build.sh".into(), format!("{name}.wasm")),
    }
}

/// Every file of a new project.
fn project(name: &str, lang: Lang) -> anyhow::Result<Vec<File>> {
    let (build, component) = build_command(name, lang);
    let (source, sdk_readme, prerequisites) = match lang {
        Lang::Rust => (
            "src/lib.rs",
            "sdk/rust/README.md",
            "Needs Rust with the WebAssembly target: `rustup target add wasm32-wasip2` (once).",
        ),
        Lang::Ts => (
            "hook.ts",
            "sdk/js/README.md",
            "Needs Node.js ≥ 18 with npm. `npm install` fetches the pinned build tools \
             (TypeScript, rolldown, componentize-js) once; `npm run build` type-checks \
             `hook.ts`, bundles it with the SDK and makes the component (no HTTP, no \
             fetch).",
        ),
        Lang::Python => (
            "app.py",
            "sdk/python/README.md",
            "Needs Python ≥ 3.10. The first build installs the pinned componentize-py into \
             `.venv`.",
        ),
    };
    let vars = [
        ("name", name.to_string()),
        ("crate", name.replace('-', "_")),
        ("wit", wit_package(lang).0.to_string()),
        ("version", env!("CARGO_PKG_VERSION").to_string()),
        ("language", language(lang).to_string()),
        ("build", build),
        ("component", component.clone()),
        ("fixture_component", format!("../{component}")),
        ("source", source.to_string()),
        ("sdk_readme", sdk_readme.to_string()),
        ("prerequisites", prerequisites.to_string()),
    ];
    let fill = |template: &str| fill(template, &vars);

    let mut files = vec![
        File::new("README.md", fill(README)),
        File::new("tests/hook.json", fill(FIXTURE)),
    ];
    // The WIT package: inside the Rust SDK (its build script reads `wit/`, as in the
    // repository and its published crate); beside the script SDKs.
    let wit_dir = match lang {
        Lang::Rust => "sdk/rust/wit",
        Lang::Ts | Lang::Python => "sdk/wit",
    };
    let (wit, wit_files) = wit_package(lang);
    files.extend(
        wit_files
            .iter()
            .map(|(file, text)| File::new(format!("{wit_dir}/hooks@{wit}/{file}"), *text)),
    );
    match lang {
        Lang::Rust => {
            files.push(File::new(
                "Cargo.toml",
                fill(include_str!("scaffold/rust/Cargo.toml.in")),
            ));
            files.push(File::new("Cargo.lock", WORKSPACE_LOCK));
            files.push(File::new(
                ".cargo/config.toml",
                include_str!("scaffold/rust/cargo-config.toml"),
            ));
            files.push(File::new(
                "src/lib.rs",
                fill(include_str!("scaffold/rust/src/lib.rs")),
            ));
            files.push(File::new(
                ".gitignore",
                include_str!("scaffold/rust/gitignore"),
            ));
            files.push(File::new("sdk/rust/Cargo.toml", rust_sdk_manifest()?));
            files.extend(
                RUST_SDK
                    .iter()
                    .map(|(path, text)| File::new(format!("sdk/rust/{path}"), *text)),
            );
            files.push(File::new(
                format!("{wit_dir}/newest_package.rs"),
                WIT_NEWEST,
            ));
        }
        Lang::Ts => {
            files.push(File::new("package.json", ts_manifest(name)?));
            files.push(File::new("package-lock.json", ts_lock(name)?));
            files.push(File::new(
                "hook.ts",
                fill(include_str!("scaffold/ts/hook.ts")),
            ));
            files.push(File::new(
                "tsconfig.json",
                include_str!("scaffold/ts/tsconfig.json"),
            ));
            files.push(File::new(
                ".gitignore",
                include_str!("scaffold/ts/gitignore"),
            ));
            files.extend(
                JS_SDK
                    .iter()
                    .map(|(path, text)| File::new(format!("sdk/js/{path}"), *text)),
            );
            files.push(File::new("sdk/unchanged.sh", UNCHANGED));
        }
        Lang::Python => {
            files.push(File::new(
                "app.py",
                fill(include_str!("scaffold/python/app.py")),
            ));
            files.push(File {
                executable: true,
                ..File::new("build.sh", fill(include_str!("scaffold/python/build.sh")))
            });
            files.push(File::new("requirements.txt", PYTHON_TOOLS));
            files.push(File::new(
                ".gitignore",
                include_str!("scaffold/python/gitignore"),
            ));
            files.extend(
                PYTHON_SDK
                    .iter()
                    .map(|(path, text)| File::new(format!("sdk/python/{path}"), *text)),
            );
            files.push(File::new("sdk/unchanged.sh", UNCHANGED));
        }
    }
    Ok(files)
}

/// Replaces every `{{key}}` of `template`.
fn fill(template: &str, vars: &[(&str, String)]) -> String {
    vars.iter()
        .fold(template.to_string(), |text, (key, value)| {
            text.replace(&format!("{{{{{key}}}}}"), value)
        })
}

/// The SDK's manifest with every `workspace = true` resolved against the workspace's.
fn rust_sdk_manifest() -> anyhow::Result<String> {
    let workspace: toml::Table =
        toml::from_str(WORKSPACE_MANIFEST).context("parse the embedded workspace manifest")?;
    let sdk: toml::Table =
        toml::from_str(RUST_SDK_MANIFEST).context("parse the embedded SDK manifest")?;
    let shared = |section: &str| workspace.get("workspace").and_then(|w| w.get(section));
    let package_field = |key: &str| -> anyhow::Result<String> {
        let value = match sdk["package"].get(key) {
            Some(toml::Value::String(s)) => Some(s.clone()),
            Some(_) => shared("package")
                .and_then(|p| p.get(key))
                .and_then(|v| v.as_str())
                .map(str::to_string),
            None => None,
        };
        value.with_context(|| format!("guest-sdk/Cargo.toml has no package.{key}"))
    };
    let mut text = format!(
        "[package]\nname = {:?}\ndescription = {:?}\nversion = {:?}\nedition = {:?}\nlicense = {:?}\n\n[dependencies]\n",
        package_field("name")?,
        package_field("description")?,
        package_field("version")?,
        package_field("edition")?,
        package_field("license")?,
    );
    let deps = sdk
        .get("dependencies")
        .and_then(|d| d.as_table())
        .context("guest-sdk/Cargo.toml has no [dependencies]")?;
    for (dep, spec) in deps {
        let spec = if spec.get("workspace").and_then(|w| w.as_bool()) == Some(true) {
            shared("dependencies")
                .and_then(|d| d.get(dep))
                .with_context(|| format!("workspace.dependencies.{dep} is missing"))?
        } else {
            spec
        };
        text.push_str(&format!("{dep} = {}\n", inline_toml(spec)?));
    }
    Ok(text)
}

/// A dependency spec (a version string or a table of strings, lists and booleans) as
/// TOML source.
fn inline_toml(value: &toml::Value) -> anyhow::Result<String> {
    Ok(match value {
        toml::Value::String(s) => format!("{s:?}"),
        toml::Value::Boolean(b) => b.to_string(),
        toml::Value::Array(items) => format!(
            "[{}]",
            items
                .iter()
                .map(inline_toml)
                .collect::<anyhow::Result<Vec<_>>>()?
                .join(", ")
        ),
        toml::Value::Table(table) => format!(
            "{{ {} }}",
            table
                .iter()
                .map(|(k, v)| Ok(format!("{k} = {}", inline_toml(v)?)))
                .collect::<anyhow::Result<Vec<_>>>()?
                .join(", ")
        ),
        other => bail!("unexpected value {other:?} in a dependency spec"),
    })
}

/// The TypeScript project's `package.json`: the build script and the pinned tools.
fn ts_manifest(name: &str) -> anyhow::Result<String> {
    let tools: Value = serde_json::from_str(JS_TOOLS).context("parse the pinned JS tools")?;
    let externals = format!(
        "--external hookhost:hooks/input@{SCRIPT_WIT} --external hookhost:hooks/host@{SCRIPT_WIT} --external hookhost:hooks/shell@{SCRIPT_WIT}"
    );
    // What the component is made from: the bundle (the SDK is in it), the WIT package and
    // the tools' lock.
    let inputs = "dist/hook.js sdk/wit package-lock.json";
    let manifest = json!({
        "name": name,
        "version": "0.1.0",
        "private": true,
        "type": "module",
        "description": format!("{name}: a hookhost hook in TypeScript, built into a WebAssembly component"),
        "scripts": {
            "build": format!(
                "tsc -p . && rolldown hook.ts --file dist/hook.js --format esm --sourcemap {externals} --logLevel warn \
                 && (sh sdk/unchanged.sh check {name}.wasm {inputs} && echo '{name}.wasm is up to date' \
                 || (node sdk/js/build-errors.mjs -- componentize-js dist/hook.js --wit sdk/wit/hooks@{SCRIPT_WIT} \
                 --world-name hook --disable http fetch-event --out {name}.wasm \
                 && sh sdk/unchanged.sh record {name}.wasm {inputs}))"
            ),
            "test": "hookhost test",
        },
        "devDependencies": tools["devDependencies"].clone(),
    });
    Ok(serde_json::to_string_pretty(&manifest)? + "\n")
}

/// The TypeScript project's `package-lock.json`: the repository's tested tool tree under
/// the project's name, so `npm install` resolves the same versions.
fn ts_lock(name: &str) -> anyhow::Result<String> {
    let mut lock: Value =
        serde_json::from_str(JS_TOOLS_LOCK).context("parse the pinned JS tools' lock file")?;
    lock["name"] = name.into();
    lock["version"] = "0.1.0".into();
    let root = &mut lock["packages"][""];
    root["name"] = name.into();
    root["version"] = "0.1.0".into();
    Ok(serde_json::to_string_pretty(&lock)? + "\n")
}

/// Writes the files into a fresh folder beside `root`, then renames it into place: a
/// failure leaves nothing half-made, and an existing project is never overwritten.
fn write_project(root: &Path, files: &[File]) -> anyhow::Result<()> {
    if root.exists() && std::fs::read_dir(root).map_or(true, |mut d| d.next().is_some()) {
        bail!(
            "{} already exists; choose another name or --dir",
            root.display()
        );
    }
    let parent = root
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent)
        .with_context(|| format!("cannot create {}", parent.display()))?;
    let mut staging = tempfile::Builder::new();
    staging.prefix(".hookhost-new-");
    // The project folder's permissions as `mkdir` would make it (not tempfile's private
    // ones).
    if let Some(permissions) = hookhost::internals::platform::plain_folder_permissions() {
        staging.permissions(permissions);
    }
    let staging = staging
        .tempdir_in(parent)
        .with_context(|| format!("cannot create a folder in {}", parent.display()))?;
    for file in files {
        let path = staging.path().join(&file.path);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        std::fs::write(&path, &file.contents)
            .with_context(|| format!("cannot write {}", path.display()))?;
        if file.executable {
            hookhost::internals::platform::make_executable(&path)
                .with_context(|| format!("cannot make {} executable", path.display()))?;
        }
    }
    let staged = staging.keep();
    if let Err(err) = std::fs::rename(&staged, root) {
        let _ = std::fs::remove_dir_all(&staged);
        return Err(err).with_context(|| format!("cannot create {}", root.display()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file<'a>(files: &'a [File], path: &str) -> &'a str {
        &files
            .iter()
            .find(|f| f.path == path)
            .unwrap_or_else(|| panic!("no {path}"))
            .contents
    }

    #[test]
    fn wit_versions_match_the_sdks() {
        assert_eq!(WIT, hookhost::WIT_VERSION);
        assert!(WIT_FILES.len() >= 3, "{WIT_FILES:?}");
        for (version, files) in [(WIT, WIT_FILES), (SCRIPT_WIT, SCRIPT_WIT_FILES)] {
            for (name, text) in files {
                assert!(
                    text.starts_with(&format!("package hookhost:hooks@{version};")),
                    "{version}/{name}"
                );
            }
        }
        assert!(
            JS_SDK[0]
                .1
                .contains(&format!("'hookhost:hooks/input@{SCRIPT_WIT}'"))
        );
        assert!(hookhost::WIT_VERSIONS.contains(&SCRIPT_WIT));
    }

    #[test]
    fn names_are_checked() {
        for good in ["my-hook", "guard2", "no_force_push", "a"] {
            check_name(good).unwrap();
        }
        for bad in [
            "", "My-Hook", "2fast", "-x", "x-", "a b", "../x", "x/y", "test", "self", "é",
        ] {
            let err = check_name(bad).unwrap_err().to_string();
            assert!(err.contains("invalid project name"), "{bad}: {err}");
        }
        check_name(&"a".repeat(64)).unwrap();
        check_name(&"a".repeat(65)).unwrap_err();
    }

    #[test]
    fn templates_are_filled() {
        for lang in [Lang::Rust, Lang::Ts, Lang::Python] {
            for file in project("my-hook", lang).unwrap() {
                if file.path.starts_with("sdk/") {
                    continue;
                }
                assert!(
                    !file.contents.contains("{{"),
                    "{lang:?} {}: unfilled placeholder",
                    file.path
                );
            }
        }
    }

    #[test]
    fn rust_sdk_manifest_resolves_the_workspace() {
        let text = rust_sdk_manifest().unwrap();
        let manifest: toml::Table = toml::from_str(&text).unwrap();
        assert_eq!(manifest["package"]["name"].as_str(), Some("hookhost-guest"));
        assert_eq!(manifest["package"]["edition"].as_str(), Some("2024"));
        let workspace: toml::Table = toml::from_str(WORKSPACE_MANIFEST).unwrap();
        assert_eq!(
            manifest["dependencies"]["wit-bindgen"],
            workspace["workspace"]["dependencies"]["wit-bindgen"]
        );
        assert!(!text.contains("workspace"), "{text}");
    }

    #[test]
    fn fixtures_point_at_the_built_component() {
        let rust = project("my-hook", Lang::Rust).unwrap();
        assert!(
            file(&rust, "tests/hook.json")
                .contains("\"../target/wasm32-wasip2/release/my_hook.wasm\"")
        );
        let ts = project("my-hook", Lang::Ts).unwrap();
        assert!(file(&ts, "tests/hook.json").contains("\"../my-hook.wasm\""));
        let manifest: Value = serde_json::from_str(file(&ts, "package.json")).unwrap();
        let build = manifest["scripts"]["build"].as_str().unwrap();
        assert!(build.contains("--out my-hook.wasm"), "{build}");
        assert_eq!(
            manifest["devDependencies"]["@bytecodealliance/componentize-js"],
            serde_json::from_str::<Value>(JS_TOOLS).unwrap()["devDependencies"]["@bytecodealliance/componentize-js"]
        );
        let lock: Value = serde_json::from_str(file(&ts, "package-lock.json")).unwrap();
        assert_eq!(lock["name"], "my-hook");
        assert_eq!(lock["packages"][""]["name"], "my-hook");
        assert_eq!(
            lock["packages"][""]["devDependencies"],
            manifest["devDependencies"]
        );
        let py = project("my-hook", Lang::Python).unwrap();
        assert!(file(&py, "build.sh").contains("--output my-hook.wasm"));
        assert!(py.iter().any(|f| f.path == "build.sh" && f.executable));
    }

    #[test]
    fn an_existing_project_is_not_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("p");
        let files = project("p", Lang::Python).unwrap();
        write_project(&root, &files).unwrap();
        std::fs::write(root.join("app.py"), "mine").unwrap();
        let err = write_project(&root, &files).unwrap_err().to_string();
        assert!(err.contains("already exists"), "{err}");
        assert_eq!(
            std::fs::read_to_string(root.join("app.py")).unwrap(),
            "mine"
        );
        // Nothing left behind from the refused attempt.
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec!["p"]);
        // The folder gets the permissions `mkdir` gives, not a temporary folder's 0700.
        let reference = dir.path().join("reference");
        std::fs::create_dir(&reference).unwrap();
        let permissions = |path: &Path| std::fs::metadata(path).unwrap().permissions();
        assert_eq!(permissions(&root), permissions(&reference));
        std::fs::remove_dir(&reference).unwrap();
        // An empty folder of that name is filled.
        let empty = dir.path().join("q");
        std::fs::create_dir(&empty).unwrap();
        write_project(&empty, &project("q", Lang::Ts).unwrap()).unwrap();
        assert!(empty.join("hook.ts").is_file());
    }
}
