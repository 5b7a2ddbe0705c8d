//! Dialect conformance: each folder `tests/dialects/<dialect>/<case>/` is one example
//! from that hook system's spec, run through the real `hookhost fire` exactly as a user of
//! that system would: their configuration files, in their own format and places, unchanged
//! (the dialect is detected unless the case passes `--dialect`).
//!
//! A case folder holds `case.json` and a file tree (`home/…`, `project/…`, …) copied to a
//! fresh temporary root. `case.json`:
//!
//! ```json
//! { "spec": "the sentence of the spec this checks",
//!   "args": ["--dialect", "agent-sdk"],          // optional, for every command
//!   "env": {"EVVA_HOME": "{{root}}/evva-home"},  // optional
//!   "project": "project/src",                    // optional, default "project"
//!   "list": ["dialect: hygge (detected from"],   // optional: `hookhost list` prints these, in order
//!   "fires": [{"event": "pre_tool", "input": {…}, "expect": {…},   // event optional
//!              "absent": ["marker"], "files": {"seen.json": "text"}}] }
//! ```
//!
//! `expect` is a subset of the `HookOutcome`: every key given must match (objects
//! recursively, arrays element by element with the same length). `absent` lists files a
//! hook must not have created (a hook the chain stopped); `files` gives text a file must
//! contain after the fire. `{{root}}` and `{{guest:NAME}}` are expanded in every file and
//! in `input`, `expect` and `files`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use hookhost_tests::{TESTS_DIR, guests};
use serde_json::Value;

fn guest_path(name: &str) -> &'static str {
    match name {
        "bash-guard" => guests::BASH_GUARD,
        "context-inject" => guests::CONTEXT_INJECT,
        other => panic!("unknown guest `{other}` in a dialect case"),
    }
}

fn expand(text: &str, root: &Path) -> String {
    let mut out = String::new();
    let mut rest = text.replace("{{root}}", &root.display().to_string());
    while let Some(start) = rest.find("{{guest:") {
        out.push_str(&rest[..start]);
        let after = &rest[start + "{{guest:".len()..];
        let end = after.find("}}").expect("unclosed {{guest:…}}");
        out.push_str(guest_path(&after[..end]));
        rest = after[end + 2..].to_string();
    }
    out.push_str(&rest);
    out
}

/// Copies `from` into `to`, expanding placeholders, skipping `case.json`.
fn copy_tree(from: &Path, to: &Path, root: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        if source.is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_tree(&source, &target, root);
        } else if entry.file_name() != "case.json" {
            let text = std::fs::read_to_string(&source).unwrap();
            std::fs::write(&target, expand(&text, root)).unwrap();
        }
    }
}

/// Whether `actual` holds everything `expected` says.
fn subset(expected: &Value, actual: &Value, path: &str, problems: &mut Vec<String>) {
    match (expected, actual) {
        (Value::Object(want), Value::Object(have)) => {
            for (key, value) in want {
                let here = format!("{path}.{key}");
                match have.get(key) {
                    Some(found) => subset(value, found, &here, problems),
                    None if value.is_null() => {}
                    None => problems.push(format!("{here}: missing, expected {value}")),
                }
            }
        }
        (Value::Array(want), Value::Array(have)) if want.len() == have.len() => {
            for (index, (w, h)) in want.iter().zip(have).enumerate() {
                subset(w, h, &format!("{path}[{index}]"), problems);
            }
        }
        (want, have) if want != have => {
            problems.push(format!("{path}: expected {want}, found {have}"))
        }
        _ => {}
    }
}

struct Case {
    dir: PathBuf,
    spec: Value,
    root: tempfile::TempDir,
}

impl Case {
    fn hookhost(&self, args: &[String]) -> Command {
        let root = self.root.path();
        let project = root.join(self.spec["project"].as_str().unwrap_or("project"));
        std::fs::create_dir_all(&project).unwrap();
        let mut command = Command::new(env!("CARGO_BIN_EXE_hookhost"));
        command
            .args(args)
            .arg("--home")
            .arg(root.join("home"))
            .arg("--project-dir")
            .arg(&project)
            .arg("--managed-settings")
            .arg(root.join("no-managed-settings.json"))
            .arg("--trust-workspace")
            .env("HOME", root.join("home"))
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("EVVA_HOME")
            .current_dir(&project);
        for arg in self.spec["args"].as_array().into_iter().flatten() {
            command.arg(expand(arg.as_str().unwrap(), root));
        }
        for (name, value) in self.spec["env"].as_object().into_iter().flatten() {
            command.env(name, expand(value.as_str().unwrap(), root));
        }
        command
    }

    fn run(&self) -> Vec<String> {
        let mut problems = Vec::new();
        let root = self.root.path();
        if let Some(lines) = self.spec["list"].as_array() {
            let out = self.hookhost(&["list".into()]).output().unwrap();
            let text = String::from_utf8_lossy(&out.stdout);
            // In this order.
            let mut rest: &str = &text;
            for line in lines {
                let line = expand(line.as_str().unwrap(), root);
                match rest.find(&line) {
                    Some(at) => rest = &rest[at + line.len()..],
                    None => problems.push(format!(
                        "`hookhost list` lacks {line:?} (after the lines before it):\n{text}"
                    )),
                }
            }
        }
        for (index, fire) in self.spec["fires"].as_array().unwrap().iter().enumerate() {
            // No event: `hookhost fire` reads it from the input's event field.
            let event = fire["event"].as_str().unwrap_or("");
            let mut args = vec!["fire".to_string()];
            if !event.is_empty() {
                args.push(event.into());
            }
            let mut child = self
                .hookhost(&args)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let input = expand(&fire["input"].to_string(), root);
            {
                use std::io::Write;
                let mut stdin = child.stdin.take().unwrap();
                stdin.write_all(input.as_bytes()).unwrap();
            }
            let out = child.wait_with_output().unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout);
            let Ok(outcome) = serde_json::from_str::<Value>(&stdout) else {
                problems.push(format!(
                    "fire {index}: no outcome (exit {:?}): {stdout}\n{}",
                    out.status.code(),
                    String::from_utf8_lossy(&out.stderr)
                ));
                continue;
            };
            let mut found = Vec::new();
            let expect: Value = serde_json::from_str(&expand(&fire["expect"].to_string(), root))
                .expect("expect is JSON");
            subset(&expect, &outcome, "outcome", &mut found);
            for file in fire["absent"].as_array().into_iter().flatten() {
                let path = root.join(file.as_str().unwrap());
                if path.exists() {
                    found.push(format!(
                        "{} exists: a hook ran that must not",
                        path.display()
                    ));
                }
            }
            for (file, text) in fire["files"].as_object().into_iter().flatten() {
                let content = std::fs::read_to_string(root.join(file)).unwrap_or_default();
                let text = expand(text.as_str().unwrap(), root);
                if !content.contains(&text) {
                    found.push(format!("{file} lacks {text:?}: {content:?}"));
                }
            }
            if !found.is_empty() {
                problems.push(format!(
                    "fire {index} ({event}):\n  {}\n  outcome: {}\n  stderr: {}",
                    found.join("\n  "),
                    outcome,
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
        problems
            .into_iter()
            .map(|p| format!("{}: {p}", self.dir.display()))
            .collect()
    }
}

fn cases(dialect: &str) -> Vec<Case> {
    let root = PathBuf::from(TESTS_DIR).join("dialects").join(dialect);
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|err| panic!("{}: {err}", root.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("case.json").is_file())
        .collect();
    dirs.sort();
    assert!(!dirs.is_empty(), "no cases in {}", root.display());
    dirs.into_iter()
        .map(|dir| {
            let text = std::fs::read_to_string(dir.join("case.json")).unwrap();
            let spec: Value = serde_json::from_str(&text)
                .unwrap_or_else(|err| panic!("{}: {err}", dir.display()));
            let root = tempfile::tempdir().unwrap();
            copy_tree(&dir, root.path(), root.path());
            Case { dir, spec, root }
        })
        .collect()
}

fn conform(dialect: &str) {
    let problems: Vec<String> = cases(dialect).iter().flat_map(Case::run).collect();
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn claude() {
    conform("claude");
}

#[test]
fn gen_engine() {
    conform("gen");
}

#[test]
fn hygge() {
    conform("hygge");
}

#[test]
fn evva() {
    conform("evva");
}

#[test]
fn agent_sdk() {
    conform("agent-sdk");
}
