//! `hookhost claude status`: what Claude Code will run per event — its own settings
//! files as it reads them, plus what hookhost runs behind its entry — and every problem
//! found, each with what to do about it. Exit 1 when there is a problem.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::Value;

use super::ScopeArgs;
use super::entries::{self, installed_command, is_ours};
use crate::cli::settings_file::read_settings;
use crate::cli::{CliResult, ConfigArgs};

/// Handler types Claude Code knows; any other makes it drop every hook of the file.
const CLAUDE_CODE_TYPES: &[&str] = &["command", "http", "prompt", "agent", "mcp_tool"];

/// One handler of a Claude Code settings file.
struct Entry {
    file: String,
    matcher: Option<String>,
    summary: String,
}

pub(super) fn run(args: &ScopeArgs) -> CliResult {
    let home = args.home()?;
    let project = args.project()?;
    let exe = super::super::command_line::hook_program()?;
    let files = settings_files(&home, &project);
    let mut problems: Vec<String> = Vec::new();
    let mut by_event: BTreeMap<String, Vec<Entry>> = BTreeMap::new();
    let mut wired: BTreeSet<String> = BTreeSet::new();
    let mut served = false;
    let (version, newer) = super::upstream::version_report();
    println!("{version}");
    problems.extend(newer);
    println!("Claude Code reads:");
    for (scope, file) in &files {
        let shown = file.display().to_string();
        let settings = match read_settings(file) {
            Ok(Some(settings)) => settings,
            Ok(None) => {
                println!("  {scope:<8} {shown} (absent)");
                continue;
            }
            Err(err) => {
                println!("  {scope:<8} {shown} (unreadable)");
                problems.push(format!("{err:#}: Claude Code ignores this file"));
                continue;
            }
        };
        println!("  {scope:<8} {shown}");
        wired.extend(wired_in(&settings));
        for (plugin, enabled) in settings
            .get("enabledPlugins")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            if plugin.starts_with("hookhost@") && enabled == &Value::Bool(true) {
                let commands = plugin_commands(&home, plugin);
                if commands.is_empty() {
                    problems.push(format!(
                        "{shown}: plugin {plugin} is enabled but Claude Code has no copy of it below {}",
                        home.join(".claude/plugins").display()
                    ));
                }
                for command in commands {
                    println!("           plugin {plugin}: runs `{command}`");
                    if command.starts_with("hookhost ") {
                        problems.push(format!(
                            "{shown}: plugin {plugin} runs `hookhost` from PATH, which a repository's `env` setting can point at a program of its own: write the plugin with `hookhost claude plugin --out DIR` (it names this binary's absolute path and the owner's folders), or use `hookhost claude install`"
                        ));
                    }
                }
            }
        }
        let Some(Value::Object(hooks)) = settings.get("hooks") else {
            continue;
        };
        let mut foreign = Vec::new();
        for (event, groups) in hooks {
            for (index, group) in groups.as_array().into_iter().flatten().enumerate() {
                let matcher = group.get("matcher").and_then(Value::as_str);
                let location = format!("{shown}: hooks.{event}[{index}]");
                if let Some(text) = matcher
                    && let Some(why) = hookhost::internals::never_fires_in_claude_code(event, text)
                {
                    problems.push(format!("{location}: matcher `{text}` never fires: {why}"));
                }
                for handler in group
                    .get("hooks")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    let kind = handler.get("type").and_then(Value::as_str).unwrap_or("?");
                    if !CLAUDE_CODE_TYPES.contains(&kind) {
                        foreign.push(format!("hooks.{event}[{index}] (`{kind}`)"));
                    }
                    if is_ours(handler) {
                        if kind == "http" && !served {
                            served = true;
                            println!(
                                "           note: {shown} calls `hookhost serve` over HTTP: a call without the right token is answered as a block where a failClosed hook guards the event, but Claude Code proceeds when serve cannot be reached; for a guard that must hold without serve, install the command wiring (no --serve)"
                            );
                        }
                        if entries::fails_closed(event)
                            && handler.get("onFailure").and_then(Value::as_str) != Some("block")
                        {
                            problems.push(format!(
                                "{location}: does not block when hookhost cannot answer (its binary missing, crashed or killed): Claude Code then runs the action unguarded; run `hookhost claude install`"
                            ));
                        }
                        if let Some((_, None)) = installed_command(handler) {
                            problems.push(format!(
                                "{location}: written by an earlier hookhost: it finds the owner's folders through $HOME and $XDG_*, which a repository's `env` setting can move; run `hookhost claude install`"
                            ));
                        }
                        if let Some((program, _)) = installed_command(handler)
                            && program != exe
                        {
                            let why = if std::path::Path::new(&program).is_file() {
                                format!("runs {program}, not this hookhost ({exe})")
                            } else {
                                format!("runs {program}, which does not exist")
                            };
                            problems.push(format!(
                                "{location}: stale hookhost entry: {why}; run `hookhost claude install`"
                            ));
                        }
                    }
                    problems.extend(drop_in_problem(handler, &location));
                    by_event.entry(event.clone()).or_default().push(Entry {
                        file: scope.to_string(),
                        matcher: matcher.map(str::to_string),
                        summary: describe(handler),
                    });
                }
            }
        }
        if !foreign.is_empty() {
            problems.push(format!(
                "{shown}: {} is no Claude Code hook type: Claude Code drops every hook in this file; move such hooks to ~/.config/hookhost/hooks.json or .hookhost/hooks.json",
                foreign.join(", ")
            ));
        }
    }
    // What hookhost runs behind its entry: its own files.
    let config = ConfigArgs::own(Some(project.clone())).with_home(home.clone());
    let behind = match config.engine() {
        Ok(engine) => {
            for diagnostic in engine.diagnostics() {
                problems.push(format!("hookhost: {diagnostic}"));
            }
            print_self_protection(&engine, &config);
            let (lines, problem) =
                crate::cli::envelope::status_lines(&engine, hookhost::Agent::Claude);
            for line in lines {
                println!("{line}");
            }
            problems.extend(problem);
            for line in super::upstream::skill_lines(&engine, &home, &project) {
                println!("{line}");
            }
            if let Ok(locations) = super::locations(home.clone(), &Default::default()) {
                println!(
                    "{}",
                    crate::cli::warm_unit::status_line(&home, &locations.pairs())
                );
            }
            engine.hooks()
        }
        Err(err) => {
            problems.push(format!("hookhost's own hook files: {err}"));
            Vec::new()
        }
    };
    let mut events: Vec<String> = by_event.keys().cloned().collect();
    events.extend(behind.iter().map(|hook| hook.event.clone()));
    events.sort();
    events.dedup();
    for event in &events {
        println!("{event}:");
        for entry in by_event.get(event).into_iter().flatten() {
            println!(
                "  claude code ({}) {:<12} {}",
                entry.file,
                entry.matcher.as_deref().unwrap_or("*"),
                entry.summary
            );
        }
        for hook in behind.iter().filter(|hook| &hook.event == event) {
            println!(
                "  hookhost ({}) {:<12} [{}] {} — {}",
                hook.source,
                hook.matcher.as_deref().unwrap_or("*"),
                hook.executor,
                hook.name,
                hook.file
            );
        }
        let has_own = behind.iter().any(|hook| &hook.event == event);
        if has_own && !unwired(std::slice::from_ref(event), &wired).is_empty() {
            let how = if entries::DEFAULT_EVENTS.contains(&event.as_str()) {
                "run `hookhost claude install`".to_string()
            } else {
                format!("run `hookhost claude install --event {event}`")
            };
            problems.push(format!(
                "{event}: hookhost has hooks for this event but no Claude Code settings file runs hookhost for it; {how}"
            ));
        }
    }
    if wired.is_empty() && behind.is_empty() {
        problems.push(
            "no Claude Code settings file runs hookhost: run `hookhost claude install`".into(),
        );
    }
    if problems.is_empty() {
        println!("no problems found");
        return Ok(ExitCode::SUCCESS);
    }
    println!("problems:");
    for problem in &problems {
        println!("  - {problem}");
    }
    Ok(ExitCode::FAILURE)
}

/// Claude Code's settings files, by scope, as it reads them.
fn settings_files(home: &Path, project: &Path) -> [(&'static str, PathBuf); 4] {
    [
        (
            "managed",
            PathBuf::from(hookhost::internals::DEFAULT_MANAGED_PATH),
        ),
        ("user", home.join(".claude/settings.json")),
        ("project", project.join(".claude/settings.json")),
        ("local", project.join(".claude/settings.local.json")),
    ]
}

/// The events one Claude Code settings file runs hookhost for: its own entries, and
/// every default event where it enables hookhost's plugin.
fn wired_in(settings: &serde_json::Map<String, Value>) -> BTreeSet<String> {
    let mut wired = BTreeSet::new();
    let plugin_on = settings
        .get("enabledPlugins")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .any(|(plugin, enabled)| plugin.starts_with("hookhost@") && enabled == &Value::Bool(true));
    if plugin_on {
        wired.extend(
            entries::DEFAULT_EVENTS
                .iter()
                .map(|event| event.to_string()),
        );
    }
    if let Some(Value::Object(hooks)) = settings.get("hooks") {
        for (event, groups) in hooks {
            let ours = groups
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|group| group.get("hooks").and_then(Value::as_array))
                .flatten()
                .any(is_ours);
            if ours {
                wired.insert(event.clone());
            }
        }
    }
    wired
}

/// Of the events hookhost's own hooks watch (`watched`), the ones Claude Code fires but
/// no settings file of it runs hookhost for (`wired`): the one rule `claude status` and
/// `hookhost check` judge Claude Code's wiring by.
pub(in crate::cli) fn unwired<'a>(
    watched: impl IntoIterator<Item = &'a String>,
    wired: &BTreeSet<String>,
) -> Vec<&'a str> {
    watched
        .into_iter()
        .filter(|event| {
            hookhost::internals::Dialect::claude()
                .lookup(event)
                .is_some()
        })
        .filter(|event| !wired.contains(*event))
        .map(String::as_str)
        .collect()
}

/// The events Claude Code's settings files (every scope) run hookhost for.
pub(in crate::cli) fn wired_events(home: &Path, project: &Path) -> BTreeSet<String> {
    settings_files(home, project)
        .iter()
        .filter_map(|(_, file)| read_settings(file).ok().flatten())
        .flat_map(|settings| wired_in(&settings))
        .collect()
}

/// How far self-protection reaches: over guard files the agent's user can write it holds
/// against the tool calls it recognises; root-owned managed files hold against code too.
fn print_self_protection(engine: &hookhost::Engine, config: &ConfigArgs) {
    if !engine.self_protection_on() {
        println!("self-protection: off (an owner's `selfProtection: false`)");
        return;
    }
    println!(
        "self-protection: on — the agent's tool calls may not change hookhost's files or the hook settings files"
    );
    let managed = std::path::Path::new(hookhost::internals::OWN_MANAGED_PATH);
    let locked = |path: &std::path::Path| {
        std::fs::metadata(path).is_ok_and(|meta| {
            hookhost::internals::platform::made_by_superuser(&meta)
                && !hookhost::internals::platform::others_may_write(&meta)
                && !hookhost::internals::platform::is_superuser()
        })
    };
    if locked(managed) {
        println!(
            "  {}: root-owned, not writable by this user: holds against code too",
            managed.display()
        );
    }
    if let Some(user) = config.config_folder().map(|dir| dir.join("hooks.json"))
        && user.exists()
    {
        println!(
            "  {}: writable by the agent's user: holds against the tool calls it recognises (file tools, and Bash commands that name the path), not against code that computes the path; for that, put guards in root-owned managed files (SECURITY.md, \"Threat model\")",
            user.display()
        );
    }
}

/// One line for a handler.
fn describe(handler: &Value) -> String {
    let kind = handler.get("type").and_then(Value::as_str).unwrap_or("?");
    let what = ["command", "url", "prompt", "component", "server"]
        .iter()
        .find_map(|key| handler.get(*key).and_then(Value::as_str))
        .unwrap_or("");
    format!("[{kind}] {}", crate::cli::one_line(what, 100))
}

/// What is wrong with an old `hookhost fire` drop-in in a file Claude Code reads.
fn drop_in_problem(handler: &Value, location: &str) -> Option<String> {
    let command = handler.get("command")?.as_str()?;
    let words: Vec<&str> = command.split_whitespace().collect();
    let fire = words.windows(2).position(|pair| {
        pair[1] == "fire"
            && std::path::Path::new(pair[0].trim_matches('\''))
                .file_name()
                .is_some_and(|name| name == "hookhost")
    })?;
    let rest = &words[fire + 2..];
    let claude_format = rest.windows(2).any(|pair| pair == ["--format", "claude"])
        || rest.contains(&"--format=claude");
    Some(if claude_format {
        format!(
            "{location}: `hookhost fire` reads Claude Code's own files, so every other hook there runs twice and this entry would run itself again; use `hookhost claude install` (its `hookhost claude hook` reads only hookhost's files)"
        )
    } else {
        format!(
            "{location}: `hookhost fire` without `--format claude` fails open: Claude Code ignores its answer; use `hookhost claude install`"
        )
    })
}

/// The distinct hook commands of the installed copies of `plugin` (`name@marketplace`)
/// below `~/.claude/plugins/` (Claude Code's plugin cache): each copy's
/// `hooks/hooks.json`, read bounded, at most a few levels deep.
fn plugin_commands(home: &std::path::Path, plugin: &str) -> Vec<String> {
    let name = plugin.split('@').next().unwrap_or(plugin);
    let mut found = std::collections::BTreeSet::new();
    let mut folders = vec![(home.join(".claude").join("plugins"), 0)];
    while let Some((dir, depth)) = folders.pop() {
        let Ok(read) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in read.flatten().take(256) {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() && depth < 5 {
                folders.push((path.clone(), depth + 1));
            }
            let is_hooks = path.ends_with("hooks/hooks.json")
                && path.components().any(|c| c.as_os_str() == name);
            if !(kind.is_file() && is_hooks) {
                continue;
            }
            let Ok(Some(file)) = read_settings(&path) else {
                continue;
            };
            for handler in file
                .get("hooks")
                .and_then(Value::as_object)
                .into_iter()
                .flat_map(|events| events.values())
                .filter_map(Value::as_array)
                .flatten()
                .filter_map(|group| group.get("hooks").and_then(Value::as_array))
                .flatten()
            {
                if let Some(command) = handler.get("command").and_then(Value::as_str) {
                    found.insert(command.to_string());
                }
            }
        }
    }
    found.into_iter().collect()
}
