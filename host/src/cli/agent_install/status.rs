//! `hookhost status [--agent NAME]`: for each agent (the one named, else every agent whose
//! folder is in the home), which of its files hold hookhost's wiring, the command the
//! agent will run, and every problem that leaves the agent unguarded — not installed, a
//! binary that is gone, Codex entries it will skip as untrusted, a Cursor file it will
//! drop for an event name it does not know. Exit 1 when there is a problem.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use hookhost::Agent;
use serde_json::Value;

use super::layout::{Found, Layout};
use super::{
    AgentScope, agent_file, codex_config, codex_trust, home_of, opencode, project_of, read_text,
};
use crate::cli::claude::{self as claude, entries};
use crate::cli::settings_file::read_settings;
use crate::cli::{CliError, CliResult};

/// `hookhost status`.
#[derive(Debug, Clone, Args)]
pub struct StatusArgs {
    /// The agent (default: every agent whose folder is in the home).
    #[arg(long, value_parser = crate::cli::agent_hook::parse_agent)]
    agent: Option<Agent>,
    /// Project directory (default: the current directory).
    #[arg(long, value_name = "DIR")]
    project_dir: Option<PathBuf>,
    /// Home directory (default: the account's home from the password database).
    #[arg(long, value_name = "DIR")]
    home: Option<PathBuf>,
}

/// `hookhost status`.
pub(in crate::cli) fn status(args: &StatusArgs) -> CliResult {
    let home = home_of(args.home.as_deref()).map_err(CliError::Usage)?;
    let project = project_of(args.project_dir.as_deref()).map_err(CliError::Usage)?;
    let agents: Vec<Agent> = match args.agent {
        Some(agent) => vec![agent],
        None => Agent::ALL
            .iter()
            .copied()
            .filter(|agent| home.join(agent.home_folder()).is_dir())
            .collect(),
    };
    if agents.is_empty() {
        println!(
            "no agent found in {} (none of ~/.claude, ~/.copilot, ~/.codex, ~/.gemini, ~/.cursor, ~/.config/opencode, ~/.factory)",
            home.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let mut problems = 0;
    for agent in agents {
        if agent == Agent::Claude {
            println!("== claude");
            let scope = claude::ScopeArgs::new(
                claude::Scope::User,
                Some(project.clone()),
                Some(home.clone()),
            );
            if claude::status_as(scope)? != ExitCode::SUCCESS {
                problems += 1;
            }
            continue;
        }
        let found = report(agent, &home, &project);
        for problem in &found {
            println!("  problem: {problem}");
        }
        problems += found.len();
    }
    Ok(if problems == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Prints one agent's files and what they run; its problems.
fn report(agent: Agent, home: &Path, project: &Path) -> Vec<String> {
    println!("== {}", agent.name());
    let mut problems = Vec::new();
    let mut installed = false;
    let mut wired = BTreeSet::new();
    for scope in [AgentScope::User, AgentScope::Project] {
        let file = agent_file(agent, scope, home, project);
        let shown = file.display();
        let commands = match wiring(agent, &file, home, &mut problems) {
            Ok(Some(commands)) => commands,
            Ok(None) => {
                println!("  {:<8} {shown} (absent)", scope_name(scope));
                continue;
            }
            Err(why) => {
                println!("  {:<8} {shown} (unreadable)", scope_name(scope));
                problems.push(format!("{why:#}"));
                continue;
            }
        };
        if commands.is_empty() {
            println!("  {:<8} {shown} (no hookhost entry)", scope_name(scope));
            continue;
        }
        installed = true;
        let events: Vec<&str> = commands.iter().map(|found| found.event.as_str()).collect();
        wired.extend(events.iter().map(|event| event.to_string()));
        println!(
            "  {:<8} {shown}: hookhost for {}",
            scope_name(scope),
            events.join(", ")
        );
        println!("           runs {}", commands[0].command);
        for found in &commands {
            if let Some(words) = entries::words(&found.command)
                && let Some(exe) = words.first()
                && !Path::new(exe).is_file()
            {
                problems.push(format!(
                    "{shown}: the {} entry runs {exe}, which is not there: run `hookhost install --agent {}` again",
                    found.event,
                    agent.name()
                ));
                break;
            }
        }
        if scope == AgentScope::Project
            && let Some(note) = agent.project_note()
        {
            println!("           ({note})");
        }
    }
    if !installed {
        problems.push(format!(
            "hookhost is not installed for {0}: run `hookhost install --agent {0}`",
            agent.name()
        ));
    }
    let owner =
        crate::cli::ConfigArgs::own(Some(project.to_path_buf())).with_home(home.to_path_buf());
    if let Ok(engine) = owner.engine() {
        let (lines, problem) = crate::cli::envelope::status_lines(&engine, agent);
        for line in lines {
            println!("  {line}");
        }
        if let Some(policy) = engine.policy() {
            match (&policy.revision, &policy.error) {
                (Some(revision), _) => {
                    println!("  fleet policy {} at {revision}", policy.reference)
                }
                (None, error) => problems.push(format!(
                    "the fleet policy {} is not in force ({}): every call is refused until `hookhost policy pull` activates it",
                    policy.reference,
                    error.as_deref().unwrap_or("no revision")
                )),
            }
        }
        if let Ok(locations) =
            crate::cli::claude::locations(home.to_path_buf(), &Default::default())
        {
            println!(
                "  {}",
                crate::cli::warm_unit::status_line(home, &locations.pairs())
            );
        }
        problems.extend(problem);
        if installed {
            problems.extend(unwired_problem(agent, &engine.watched_events(), &wired));
        }
        if engine.envelope().is_some() && !agent.rewrites_commands() {
            problems.push(format!(
                "the envelope is on and hookhost cannot rewrite {}'s shell commands: they are refused",
                agent.name()
            ));
        }
    }
    problems
}

/// The problem of an agent whose files run hookhost for some events but not for every
/// event the owner's hooks watch (`watched`, hookhost's names); `wired` in the agent's.
fn unwired_problem(
    agent: Agent,
    watched: &BTreeSet<String>,
    wired: &BTreeSet<String>,
) -> Option<String> {
    let unwired: Vec<&str> = Layout::of(agent)
        .map(|layout| layout.events())
        .unwrap_or_default()
        .into_iter()
        .filter(|event| watched.contains(agent.hookhost_event(event)))
        .filter(|event| !wired.contains(*event))
        .collect();
    (!unwired.is_empty()).then(|| {
        format!(
            "hookhost has hooks for {} but no file of {} runs hookhost for it: run `hookhost install --agent {}`",
            unwired.join(", "),
            agent.name(),
            agent.name()
        )
    })
}

/// The events one agent's files (both scopes) run hookhost for, in the agent's names.
fn wired_events(agent: Agent, home: &Path, project: &Path) -> BTreeSet<String> {
    [AgentScope::User, AgentScope::Project]
        .into_iter()
        .filter_map(|scope| {
            let file = agent_file(agent, scope, home, project);
            wiring(agent, &file, home, &mut Vec::new()).ok().flatten()
        })
        .flatten()
        .map(|found| found.event)
        .collect()
}

/// For `hookhost check`: every agent (Claude Code included) that runs hookhost for some
/// events but not for every one the owner's hooks in `engine` watch, one line each.
pub(in crate::cli) fn unwired(
    engine: &hookhost::Engine,
    home: &Path,
    project: &Path,
) -> Vec<String> {
    let watched = engine.watched_events();
    let mut lines = Vec::new();
    for &agent in Agent::ALL {
        if agent == Agent::Claude {
            let wired = claude::wired_events(home, project);
            let missing = claude::unwired(&watched, &wired);
            if !wired.is_empty() && !missing.is_empty() {
                lines.push(format!(
                    "claude: hookhost has hooks for {} but no Claude Code settings file runs hookhost for it: run `hookhost claude install`",
                    missing.join(", ")
                ));
            }
            continue;
        }
        let wired = wired_events(agent, home, project);
        if !wired.is_empty() {
            lines.extend(unwired_problem(agent, &watched, &wired));
        }
    }
    lines
}

fn scope_name(scope: AgentScope) -> &'static str {
    match scope {
        AgentScope::User => "user",
        AgentScope::Project => "project",
    }
}

/// hookhost's entries in one of the agent's files (`None`: no file), adding what the
/// agent will make of them to `problems`.
fn wiring(
    agent: Agent,
    file: &Path,
    home: &Path,
    problems: &mut Vec<String>,
) -> anyhow::Result<Option<Vec<Found>>> {
    let Some(layout) = Layout::of(agent) else {
        // OpenCode's plugin file.
        let text = read_text(file).map_err(|err| anyhow::anyhow!("{err}"))?;
        return Ok(text.map(|text| {
            opencode::command_of(&text)
                .map(|command| Found {
                    event: "tool.execute.before".into(),
                    index: 0,
                    matcher: None,
                    command,
                    timeout: None,
                })
                .into_iter()
                .collect()
        }));
    };
    let Some(settings) = read_settings(file)? else {
        return Ok(None);
    };
    let found = layout.find(&settings, agent);
    match agent {
        Agent::Codex if !found.is_empty() => {
            let config = codex_config(home);
            let text = read_text(&config)
                .map_err(|err| anyhow::anyhow!("{err}"))?
                .unwrap_or_default();
            let doc = codex_trust::parse(&config, &text)?;
            problems.extend(codex_trust::problems(&doc, file, &found));
        }
        _ => {}
    }
    let known = agent.install().known_events;
    if !known.is_empty()
        && let Some(Value::Object(hooks)) = settings.get("hooks")
    {
        for event in hooks
            .keys()
            .filter(|event| !known.contains(&event.as_str()))
        {
            problems.push(format!(
                "{}: {} drops the whole file for the event name `{event}`, which it does not know",
                file.display(),
                agent.name()
            ));
        }
    }
    Ok(Some(found))
}
