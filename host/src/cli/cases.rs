//! `hookhost test [PATH] [--bless]`: one case format and one runner for hook authors'
//! fixtures and for hookhost's own scenario and dialect-conformance suites.
//!
//! A case is a JSON file — a fixture file, or the `case.json` of a case folder whose other
//! files (`home/…`, `project/…`) are copied into a fresh root — holding one case or a list:
//!
//! ```json
//! { "name": "denies rm -rf",                       // default: the file or folder name
//!   "spec": "the sentence of the spec this checks", // a note, not read
//!   "component": "../guard.wasm", "config": {}, "hook": {"fuel": 1000},  // one Wasm hook
//!                                                  // (a file, or a builtin: "builtin:secrets")…
//!   "settings": "settings.json",                   // …or a settings file (or inline object)
//!   "args": ["--dialect", "agent-sdk", "--evva-home", "{{root}}/evva"], "env": {"A": "1"},
//!   "project": "project",                          // the project folder below the root
//!   "list": ["dialect: hygge (detected from"],     // `hookhost list` prints these, in order
//!   "fires": [{"event": "PreToolUse", "input": {…}, "expect": {…},
//!              "absent": ["marker"], "files": {"seen.json": "text"}}] }
//! ```
//!
//! `event`, `input` and `expect` at the top are the one fire of a fixture. Each fire runs
//! the real `hookhost fire` (this binary) with the root's `home/` as the home, the project
//! folder trusted, and no managed settings; `expect` is read as [`expect::check`] says;
//! `absent` lists files a hook must not have created; `files` text a file must contain.
//! `{{root}}` and every `--var NAME=VALUE` (`{{NAME}}`) are expanded in the copied files,
//! `input`, `expect`, `files`, `args` and `env`. `--bless` rewrites each fire's `expect`
//! from the outcome (review the diff).

mod expect;

use std::path::{Path, PathBuf};
use std::process::{ExitCode, Stdio};

use anyhow::{Context, bail};
use serde_json::{Map, Value, json};

/// Arguments of `hookhost test`.
#[derive(Debug, clap::Args)]
pub struct TestArgs {
    /// A hook project (cases in its `tests/`), a folder of cases, a case folder (with a
    /// `case.json`), or one case file.
    #[arg(default_value = ".")]
    path: PathBuf,
    /// Folder for compiled components, shared by every case (default: `test-wasm` beside
    /// the user's artifact cache, which the cases' key never touches).
    #[arg(long)]
    cache_dir: Option<PathBuf>,
    /// hookhost's configuration folder; its `test-cache.key` (made when missing; never
    /// the owner's `cache.key`) is every case's artifact key, so a component compiles
    /// once for all cases and runs (default: the user's).
    #[arg(long, value_name = "DIR")]
    config_dir: Option<PathBuf>,
    /// `NAME=VALUE`: `{{NAME}}` in a case becomes VALUE; repeatable.
    #[arg(long = "var", value_name = "NAME=VALUE")]
    vars: Vec<String>,
    /// Rewrite each fire's `expect` from the outcome instead of checking it.
    #[arg(long)]
    bless: bool,
}

/// Runs every case under `args.path`.
pub async fn run(args: TestArgs) -> anyhow::Result<ExitCode> {
    let files = case_files(&args.path)?;
    if files.is_empty() {
        bail!(
            "no cases (*.json, */case.json) found in {}",
            args.path.display()
        );
    }
    let mut vars = Vec::new();
    for var in &args.vars {
        let (name, value) = var
            .split_once('=')
            .with_context(|| format!("--var {var}: not NAME=VALUE"))?;
        vars.push((format!("{{{{{name}}}}}"), value.to_string()));
    }
    let cache = args.cache_dir.clone().or_else(|| {
        hookhost::internals::cache_dir()
            .and_then(|dir| dir.parent().map(|parent| parent.join("test-wasm")))
    });
    let runner = Runner {
        exe: std::env::current_exe().context("cannot find hookhost's own path")?,
        vars,
        cache,
        key: match &args.config_dir {
            Some(dir) => Some(std::path::absolute(dir).context("--config-dir")?),
            None => hookhost::internals::config_dir(),
        }
        .map(|dir| dir.join("test-cache.key")),
        bless: args.bless,
    };
    let (mut passed, mut failed) = (0, 0);
    for file in &files {
        match runner.file(file).await {
            Ok((ok, bad)) => {
                passed += ok;
                failed += bad;
            }
            Err(err) => {
                println!("FAIL {}: {err:#}", file.display());
                failed += 1;
            }
        }
    }
    let verb = if args.bless { "blessed" } else { "passed" };
    println!("{passed} {verb}, {failed} failed");
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The case files under `path`: a file itself; a folder with `case.json` that file; else
/// a hook project's `tests/`, or the folder: its `*.json` files, then its subfolders'
/// cases, sorted.
fn case_files(path: &Path) -> anyhow::Result<Vec<PathBuf>> {
    if path.is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    if path.join("case.json").is_file() {
        return Ok(vec![path.join("case.json")]);
    }
    let dir = if path.join("tests").is_dir() {
        path.join("tests")
    } else {
        path.to_path_buf()
    };
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
        .with_context(|| format!("cannot list {}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    let mut files: Vec<PathBuf> = entries
        .iter()
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "json"))
        .cloned()
        .collect();
    for sub in entries.iter().filter(|p| p.is_dir()) {
        if sub.join("case.json").is_file() {
            files.push(sub.join("case.json"));
        } else if !is_tree_folder(sub) {
            files.extend(case_files(sub)?);
        }
    }
    Ok(files)
}

/// Folders a case tree holds, never cases themselves.
fn is_tree_folder(dir: &Path) -> bool {
    dir.file_name()
        .is_some_and(|name| name.to_string_lossy().starts_with('.'))
}

/// `text` as it reads inside a JSON string (escapes, no quotes).
fn json_text(text: &str) -> String {
    let quoted = Value::String(text.to_string()).to_string();
    quoted[1..quoted.len() - 1].to_string()
}

struct Runner {
    exe: PathBuf,
    vars: Vec<(String, String)>,
    cache: Option<PathBuf>,
    /// The cases' artifact key (`test-cache.key` in the runner's configuration folder):
    /// it goes to every case's home, so that a component compiled for one case loads
    /// from the cache in the next. Never the owner's key: a case's command hook may read
    /// its home, and with the owner's key it could forge what the owner's hookhost runs.
    key: Option<PathBuf>,
    bless: bool,
}

/// One case, its fresh root, and where it came from.
struct Case<'a> {
    spec: &'a Value,
    /// The case file's folder: relative paths resolve against it.
    base: PathBuf,
    root: tempfile::TempDir,
    /// A settings file given by the case (or made for its component).
    settings: Option<PathBuf>,
}

impl Runner {
    fn expand(&self, text: &str, root: &Path) -> String {
        let mut text = text.replace("{{root}}", &root.display().to_string());
        for (name, value) in &self.vars {
            text = text.replace(name, value);
        }
        text
    }

    /// `value` with the root and every `--var` value written as their placeholders again
    /// (what `--bless` writes back).
    fn unexpand(&self, value: &Value, root: &Path) -> anyhow::Result<Value> {
        let mut text = value.to_string();
        for (name, var) in &self.vars {
            text = text.replace(&json_text(var), &json_text(name));
        }
        for dir in [root.canonicalize().ok(), Some(root.to_path_buf())]
            .into_iter()
            .flatten()
        {
            text = text.replace(&json_text(&dir.display().to_string()), "{{root}}");
        }
        serde_json::from_str(&text).context("a blessed value did not read back")
    }

    /// Gives the case's home the cases' artifact key (see [`Runner::key`]); a failure
    /// only costs time: the case's processes compile what they run.
    fn share_key(&self, root: &Path) {
        let Some(key) = &self.key else { return };
        let home = hookhost::internals::config_dir_in(&root.join("home"));
        if let Err(err) = hookhost::internals::share_cache_key(key, &home) {
            eprintln!(
                "warning: cannot share the artifact key with a case ({err}): its components compile again"
            );
        }
    }

    fn expand_value(&self, value: &Value, root: &Path) -> anyhow::Result<Value> {
        if value.is_null() {
            return Ok(Value::Null);
        }
        serde_json::from_str(&self.expand(&value.to_string(), root))
            .context("a placeholder's value broke the JSON")
    }

    /// Runs (or blesses) every case of `file`: how many passed and failed.
    async fn file(&self, file: &Path) -> anyhow::Result<(usize, usize)> {
        let text = std::fs::read_to_string(file).context("cannot read")?;
        let mut value: Value = serde_json::from_str(&text).context("not JSON")?;
        let folder_case = file.file_name().is_some_and(|n| n == "case.json");
        let stem = if folder_case {
            file.parent().and_then(Path::file_name)
        } else {
            file.file_stem()
        }
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
        let many = value.is_array();
        let cases: Vec<&mut Value> = match &mut value {
            Value::Array(items) => items.iter_mut().collect(),
            other => vec![other],
        };
        let base = file
            .parent()
            .and_then(|dir| dir.canonicalize().ok())
            .unwrap_or_default();
        let (mut passed, mut failed) = (0, 0);
        for (index, case) in cases.into_iter().enumerate() {
            let name = match case["name"].as_str() {
                Some(name) => name.to_string(),
                None if many => format!("{stem}[{index}]"),
                None => stem.clone(),
            };
            let result = self.case(case, &base, folder_case).await;
            match result {
                Ok(problems) if problems.is_empty() => {
                    println!("ok   {name}");
                    passed += 1;
                }
                Ok(problems) => {
                    println!("FAIL {name}: {}", problems.join("\n  "));
                    failed += 1;
                }
                Err(err) => {
                    println!("FAIL {name}: {err:#}");
                    failed += 1;
                }
            }
        }
        if self.bless {
            std::fs::write(file, serde_json::to_string_pretty(&value)? + "\n")
                .with_context(|| format!("cannot write {}", file.display()))?;
        }
        Ok((passed, failed))
    }

    /// Runs one case; with `--bless`, rewrites its `expect`s in place.
    async fn case(
        &self,
        spec: &mut Value,
        base: &Path,
        copy_tree: bool,
    ) -> anyhow::Result<Vec<String>> {
        let Some(object) = spec.as_object() else {
            bail!("a case must be a JSON object");
        };
        const KNOWN: &[&str] = &[
            "name",
            "spec",
            "component",
            "config",
            "hook",
            "settings",
            "args",
            "env",
            "project",
            "list",
            "fires",
            "event",
            "input",
            "expect",
        ];
        if let Some(unknown) = object.keys().find(|key| !KNOWN.contains(&key.as_str())) {
            bail!("unknown field `{unknown}` (known: {})", KNOWN.join(", "));
        }
        let root = tempfile::tempdir().context("cannot create a scratch folder")?;
        if copy_tree {
            self.copy_tree(base, root.path(), root.path())?;
        }
        self.share_key(root.path());
        let mut case = Case {
            spec: &*spec,
            base: base.to_path_buf(),
            root,
            settings: None,
        };
        case.settings = self.settings(&case)?;
        let mut problems = self.list(&case)?;
        let fires_key = if case.spec.get("fires").is_some() {
            "fires"
        } else {
            ""
        };
        let fires: Vec<Value> = if fires_key.is_empty() {
            let Some(event) = case.spec.get("event") else {
                bail!("give `fires`, or `event` (with `input` and `expect`)");
            };
            vec![
                json!({"event": event, "input": case.spec["input"], "expect": case.spec["expect"]}),
            ]
        } else {
            case.spec["fires"]
                .as_array()
                .context("`fires` must be an array")?
                .clone()
        };
        let mut blessed = Vec::new();
        for (index, fire) in fires.iter().enumerate() {
            let (outcome, stderr) = self.fire(&case, fire).await?;
            let outcome = expect::comparable(outcome);
            if self.bless {
                let expect = expect::bless(&fire["expect"], &outcome);
                blessed.push(self.unexpand(&expect, case.root.path())?);
                continue;
            }
            let root = case.root.path();
            let mut found = expect::check(&self.expand_value(&fire["expect"], root)?, &outcome);
            for file in fire["absent"].as_array().into_iter().flatten() {
                let path = root.join(file.as_str().unwrap_or_default());
                if path.exists() {
                    found.push(format!(
                        "{} exists: a hook ran that must not",
                        path.display()
                    ));
                }
            }
            for (file, text) in fire["files"].as_object().into_iter().flatten() {
                let content = std::fs::read_to_string(root.join(file)).unwrap_or_default();
                let text = self.expand(text.as_str().unwrap_or_default(), root);
                if !content.contains(&text) {
                    found.push(format!("{file} lacks {text:?}: {content:?}"));
                }
            }
            if !found.is_empty() {
                let event = fire["event"].as_str().unwrap_or("(from the input)");
                let which = if fires_key.is_empty() {
                    String::new()
                } else {
                    format!("fire {index} ({event}): ")
                };
                problems.push(format!(
                    "{which}{}\n    outcome: {outcome}{}",
                    found.join("\n    "),
                    if stderr.trim().is_empty() {
                        String::new()
                    } else {
                        format!("\n    stderr: {}", stderr.trim())
                    }
                ));
            }
        }
        drop(case);
        if self.bless {
            match fires_key {
                "" => spec["expect"] = blessed.pop().unwrap_or(Value::Null),
                _ => {
                    if let Some(fires) = spec["fires"].as_array_mut() {
                        for (fire, expect) in fires.iter_mut().zip(blessed) {
                            fire["expect"] = expect;
                        }
                    }
                }
            }
        }
        Ok(problems)
    }

    /// Copies the case folder `from` into `to`, expanding placeholders, `case.json` aside.
    fn copy_tree(&self, from: &Path, to: &Path, root: &Path) -> anyhow::Result<()> {
        for entry in
            std::fs::read_dir(from).with_context(|| format!("cannot list {}", from.display()))?
        {
            let entry = entry?;
            let (source, target) = (entry.path(), to.join(entry.file_name()));
            if source.is_dir() {
                std::fs::create_dir_all(&target)?;
                self.copy_tree(&source, &target, root)?;
            } else if entry.file_name() != "case.json" {
                let text = std::fs::read_to_string(&source)
                    .with_context(|| format!("cannot read {}", source.display()))?;
                std::fs::write(&target, self.expand(&text, root))?;
            }
        }
        Ok(())
    }

    /// The settings file the case names or implies (its component as one Wasm hook).
    fn settings(&self, case: &Case<'_>) -> anyhow::Result<Option<PathBuf>> {
        let spec = case.spec;
        let root = case.root.path();
        match (spec.get("component"), spec.get("settings")) {
            (None, None) => Ok(None),
            (Some(component), None) => {
                let component = component.as_str().context("`component` must be a path")?;
                let event = spec["event"]
                    .as_str()
                    .or(spec["fires"][0]["event"].as_str())
                    .context("a `component` case needs an `event`")?;
                let component = self.expand(component, root);
                // A builtin is named, not found beside the case.
                let component = if hookhost::Builtin::is_builtin(&component) {
                    PathBuf::from(component)
                } else {
                    case.base.join(component)
                };
                let mut hook = json!({"type": "wasm", "component": component,
                    "config": spec["config"]});
                if let (Some(hook), Some(extra)) = (hook.as_object_mut(), spec["hook"].as_object())
                {
                    hook.extend(extra.clone());
                }
                let path = root.join("case-settings.json");
                let settings = json!({"hooks": {event: [{"hooks": [hook]}]}});
                std::fs::write(&path, settings.to_string()).context("cannot write settings")?;
                Ok(Some(path))
            }
            (None, Some(Value::Object(inline))) => {
                let path = root.join("case-settings.json");
                let text = self.expand(&Value::Object(inline.clone()).to_string(), root);
                std::fs::write(&path, text).context("cannot write settings")?;
                Ok(Some(path))
            }
            (None, Some(Value::String(file))) => {
                let source = case.base.join(file);
                let text = std::fs::read_to_string(&source)
                    .with_context(|| format!("settings {}", source.display()))?;
                let path = root.join("case-settings.json");
                std::fs::write(&path, self.expand(&text, root))?;
                Ok(Some(path))
            }
            (None, Some(_)) => bail!("`settings` must be a path or an object"),
            (Some(_), Some(_)) => bail!("give one of `component` and `settings`"),
        }
    }

    /// `hookhost ARGS` for a case: its root's home, its project trusted, no managed
    /// settings, its settings file, args and env.
    fn command(&self, case: &Case<'_>, args: &[&str]) -> anyhow::Result<tokio::process::Command> {
        let root = case.root.path();
        let project = root.join(case.spec["project"].as_str().unwrap_or("project"));
        std::fs::create_dir_all(&project)?;
        let mut command = tokio::process::Command::new(&self.exe);
        command
            .args(args)
            .arg("--home")
            .arg(root.join("home"))
            .arg("--project-dir")
            .arg(&project)
            .arg("--managed-settings")
            .arg(root.join("no-managed-settings.json"))
            .arg("--trust-workspace")
            .current_dir(&project)
            .kill_on_drop(true);
        if let Some(cache) = &self.cache {
            command.arg("--cache-dir").arg(cache);
        }
        if let Some(settings) = &case.settings {
            command.arg("--settings").arg(settings);
        }
        for arg in case.spec["args"].as_array().into_iter().flatten() {
            command.arg(self.expand(arg.as_str().context("`args` are strings")?, root));
        }
        for (name, value) in case.spec["env"].as_object().into_iter().flatten() {
            command.env(
                name,
                self.expand(value.as_str().context("`env` values are strings")?, root),
            );
        }
        Ok(command)
    }

    /// Checks the lines `hookhost list` must print, in order.
    fn list(&self, case: &Case<'_>) -> anyhow::Result<Vec<String>> {
        let Some(lines) = case.spec["list"].as_array() else {
            return Ok(Vec::new());
        };
        let out = self.command(case, &["list"])?.as_std_mut().output()?;
        let text = String::from_utf8_lossy(&out.stdout);
        let mut rest: &str = &text;
        let mut problems = Vec::new();
        for line in lines {
            let line = self.expand(line.as_str().unwrap_or_default(), case.root.path());
            match rest.find(&line) {
                Some(at) => rest = &rest[at + line.len()..],
                None => problems.push(format!(
                    "`hookhost list` lacks {line:?} (after the lines before it):\n{text}"
                )),
            }
        }
        Ok(problems)
    }

    /// One `hookhost fire`: the outcome and what it wrote on stderr.
    async fn fire(&self, case: &Case<'_>, fire: &Value) -> anyhow::Result<(Value, String)> {
        use tokio::io::AsyncWriteExt;
        let root = case.root.path();
        let mut args = vec!["fire"];
        if let Some(event) = fire["event"].as_str() {
            args.push(event);
        }
        let input = match self.expand_value(&fire["input"], root)? {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            _ => bail!("`input` must be a JSON object"),
        };
        let mut child = self
            .command(case, &args)?
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .context("cannot run hookhost fire")?;
        let mut stdin = child.stdin.take().context("no stdin")?;
        stdin
            .write_all(Value::Object(input).to_string().as_bytes())
            .await?;
        drop(stdin);
        // A first compile of a big component takes seconds: say so instead of going quiet.
        let waiting = child.wait_with_output();
        tokio::pin!(waiting);
        let out = tokio::select! {
            out = &mut waiting => out?,
            () = tokio::time::sleep(std::time::Duration::from_secs(3)) => {
                eprintln!(
                    "  … still running {} (a component compiles once, then loads from the cache)",
                    fire["event"].as_str().unwrap_or("the event")
                );
                waiting.await?
            }
        };
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let outcome = serde_json::from_str(&stdout).with_context(|| {
            format!(
                "no outcome (exit {:?}): {stdout}{stderr}",
                out.status.code()
            )
        })?;
        Ok((outcome, stderr))
    }
}
