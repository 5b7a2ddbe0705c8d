//! `hookhost hook --agent NAME`: the command an agent's installed hook runs. It reads the
//! agent's input, normalises it to hookhost's events and tools ([`hookhost::Agent`]), runs
//! the hooks of hookhost's own files (the same `~/.config/hookhost/hooks.json` for every
//! agent) and answers in the agent's own form — always in-band, with exit 0: the agents
//! disagree on what a failing hook means (Copilot blocks on a non-zero exit, Codex and
//! Gemini run the tool), so a failure hookhost cannot run past is an explicit deny when a
//! `failClosed` hook guards the event, else an explicit allow, and the answer comes before
//! the agent's own timeout.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Args;
use hookhost::{Agent, AgentCall, AgentReply};
use serde_json::Value;

use super::{ConfigArgs, OwnerFolders};

/// `hookhost hook`.
#[derive(Debug, Clone, Args)]
pub struct AgentHookArgs {
    /// The agent whose hook this is: claude, copilot, codex, gemini, cursor, opencode,
    /// factory.
    #[arg(long, value_parser = parse_agent)]
    agent: Agent,
    /// The agent's name for the event, where its input carries none (Copilot's
    /// camelCase events).
    #[arg(long)]
    event: Option<String>,
    /// Answer within this many seconds whatever the hooks do: below the agent's own
    /// timeout, so that its failure rule never decides.
    #[arg(long, default_value_t = 50)]
    deadline: u64,
    /// The owner's home (default: the account's home from the password database).
    #[arg(long, value_name = "DIR")]
    home: Option<PathBuf>,
    #[command(flatten)]
    folders: OwnerFolders,
    /// Ask a running `hookhost serve` at this base URL (its `/v1/agent/NAME` route) instead
    /// of running the hooks here, sending the token in the owner's `serve-token` file; a
    /// serve that cannot be reached is answered as a deny.
    #[arg(long, value_name = "URL")]
    serve: Option<String>,
}

pub(super) fn parse_agent(name: &str) -> Result<Agent, String> {
    Agent::parse(name).ok_or_else(|| {
        let names: Vec<&str> = Agent::ALL.iter().map(|agent| agent.name()).collect();
        format!("unknown agent `{name}` (one of: {})", names.join(", "))
    })
}

/// Runs the hook and writes the agent's answer.
pub async fn run(args: AgentHookArgs) -> ExitCode {
    let agent = args.agent;
    let event = args.event.clone().unwrap_or_default();
    let reply = if super::started_by_hookhost() {
        // The hookhost that started this process already runs the hooks.
        AgentReply::default()
    } else {
        let deadline = Duration::from_secs(args.deadline.max(1));
        match tokio::time::timeout(deadline, answer(args)).await {
            Ok(reply) => reply,
            Err(_) => AgentReply::failure(
                agent,
                &event,
                true,
                &format!("hookhost did not answer within {}s", deadline.as_secs()),
            ),
        }
    };
    write(&reply)
}

/// The agent's answer to the input on stdin: handed to the session's broker or to
/// `--serve` as it came, else read once ([`AgentCall`]) and answered by the owner's
/// engine for the project the call names.
async fn answer(args: AgentHookArgs) -> AgentReply {
    let agent = args.agent;
    let given_event = args.event.clone().unwrap_or_default();
    let bytes = match super::read_input(None) {
        Ok(bytes) => bytes,
        Err(err) => return AgentReply::failure(agent, &given_event, true, &format!("{err:#}")),
    };
    let mut config = ConfigArgs::own(None);
    config.home = args.home.clone();
    config.folders = args.folders.clone();
    if let Some(socket) = session_broker(&config) {
        return served(&args, Served::Broker(socket), bytes).await;
    }
    if let Some(url) = args.serve.clone() {
        return served(&args, Served::Url(url), bytes).await;
    }
    let limits = hookhost::RequestLimits::new(super::FIRE_MAX_INPUT, false);
    let call = AgentCall::read(agent, args.event.as_deref(), Ok(&bytes), &limits);
    config.project_dir = call.project();
    let engine = match config.one_shot_engine(true) {
        Ok(engine) => engine,
        Err(err) => return call.unanswered(&format!("hookhost cannot start: {err}")),
    };
    let reply = engine.answer_agent(&call, &limits).await;
    engine.close().await;
    reply
}

/// Inside `hookhost envelope session`, the session's broker, which answers instead of
/// this process (it can neither write hookhost's state nor read its keys there).
fn session_broker(config: &ConfigArgs) -> Option<PathBuf> {
    config
        .envelope_dir()
        .and_then(|dir| hookhost::envelope::session::broker_socket(&dir))
}

/// Claude Code's hook (`hookhost claude hook`) inside an envelope session: the broker's
/// answer to `bytes` in Claude Code's form; `None` outside a session.
pub(super) async fn claude_in_session(
    home: Option<PathBuf>,
    folders: OwnerFolders,
    bytes: &[u8],
) -> Option<AgentReply> {
    let mut config = ConfigArgs::own(None);
    config.home = home.clone();
    config.folders = folders.clone();
    let socket = session_broker(&config)?;
    let args = AgentHookArgs {
        agent: Agent::Claude,
        event: None,
        deadline: 50,
        home,
        folders,
        serve: None,
    };
    Some(served(&args, Served::Broker(socket), bytes.to_vec()).await)
}

/// Which `hookhost serve` answers instead of this process.
enum Served {
    /// The one at this base URL (`--serve`).
    Url(String),
    /// The broker of the envelope session this process runs in, at this socket.
    Broker(PathBuf),
}

/// The answer of the `hookhost serve` `target` to the input `bytes`. The bearer token is
/// the owner's `serve-token` (where there is one; a session's broker, on a socket only
/// the session sees, takes none); no proxy is used whatever the environment says (an
/// agent's environment could name one that answers "allow"). A serve that cannot be
/// reached, or answers anything but a reply, is a deny: hookhost cannot tell then which
/// hooks guard the event.
async fn served(args: &AgentHookArgs, target: Served, bytes: Vec<u8>) -> AgentReply {
    let agent = args.agent;
    let given_event = args.event.clone().unwrap_or_default();
    let (url, socket) = match target {
        Served::Url(url) => (url, None),
        Served::Broker(socket) => ("http://hookhost-session".to_string(), Some(socket)),
    };
    let fail = |why: String| {
        let whom = match &socket {
            Some(socket) => format!(
                "the envelope session's hookhost broker ({})",
                socket.display()
            ),
            None => format!("hookhost serve at {url}"),
        };
        AgentReply::failure(agent, &given_event, true, &format!("{whom}: {why}"))
    };
    let token_file = match (&args.folders.config_dir, &args.home) {
        _ if socket.is_some() => None,
        (Some(dir), _) => Some(dir.join("serve-token")),
        (None, home) => super::config_dir(home.clone()).map(|dir| dir.join("serve-token")),
    };
    let token = match token_file {
        Some(path) if path.exists() => match super::serve::read_token(&path) {
            Ok(token) => Some(String::from_utf8_lossy(&token).into_owned()),
            Err(err) => return fail(format!("{err:#}")),
        },
        _ => None,
    };
    let builder = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(args.deadline.max(1)));
    #[cfg(unix)]
    let builder = match &socket {
        Some(socket) => builder.unix_socket(socket.as_path()),
        None => builder,
    };
    let client = match builder.build() {
        Ok(client) => client,
        Err(err) => return fail(err.to_string()),
    };
    let mut request = client
        .post(format!(
            "{}/v1/agent/{}",
            url.trim_end_matches('/'),
            agent.name()
        ))
        .header("content-type", "application/json")
        .body(bytes);
    if let Some(event) = &args.event {
        request = request.query(&[("event", event)]);
    }
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = match request.send().await {
        Ok(response) => response,
        Err(err) => return fail(format!("unreachable ({err})")),
    };
    let status = response.status();
    let body: Value = match response.json().await {
        Ok(body) if status.is_success() => body,
        Ok(body) => return fail(format!("{status}: {}", body["error"])),
        Err(err) => return fail(format!("{status}: {err}")),
    };
    let mut reply = AgentReply::default();
    reply.stdout = body["stdout"].as_str().unwrap_or_default().to_string();
    reply.stderr = body["stderr"].as_str().map(String::from);
    reply.exit_code = body["exitCode"]
        .as_i64()
        .and_then(|code| i32::try_from(code).ok())
        .unwrap_or(0);
    reply
}

pub(super) fn write(reply: &AgentReply) -> ExitCode {
    if let Some(line) = &reply.stderr {
        super::write_stderr(&format!("{line}\n"));
    }
    if !reply.stdout.is_empty() {
        super::write_stdout(&format!("{}\n", reply.stdout));
    }
    ExitCode::from(u8::try_from(reply.exit_code).unwrap_or(1))
}
