//! `hookhost:hooks@0.3.0`: 0.2.0 plus the `shell` interface, the host's one parse of
//! shell command text. Its `types` are 0.2.0's (the interface is unchanged, so the
//! bindings share one set of records and one answer conversion).

use serde_json::Value;

use super::super::host::HostState;
use super::v0_2;
use crate::hook_input::field;
use crate::shell::{self as view, ShellView};

wasmtime::component::bindgen!({
    path: "../wit/hooks@0.3.0",
    world: "hook",
    // Host functions may trap the guest (the `input` fetch budget).
    imports: { default: trappable },
    exports: { default: async },
    with: { "hookhost:hooks/types": super::v0_2::hookhost::hooks::types },
});

use self::hookhost::hooks::shell as wit;

/// How many times one call may ask the host to parse text.
const MAX_PARSES: usize = 64;

impl self::hookhost::hooks::host::Host for HostState {
    fn log(
        &mut self,
        level: self::hookhost::hooks::host::Level,
        message: String,
    ) -> wasmtime::Result<()> {
        use self::hookhost::hooks::host::Level as L;
        let level = match level {
            L::Trace => v0_2::Level::Trace,
            L::Debug => v0_2::Level::Debug,
            L::Info => v0_2::Level::Info,
            L::Warn => v0_2::Level::Warn,
            L::Error => v0_2::Level::Error,
        };
        v0_2::HostImports::log(self, level, message)
    }

    fn config(&mut self, key: String) -> wasmtime::Result<Option<String>> {
        v0_2::HostImports::config(self, key)
    }

    fn config_json(&mut self) -> wasmtime::Result<String> {
        v0_2::HostImports::config_json(self)
    }
}

impl self::hookhost::hooks::input::Host for HostState {
    fn raw(&mut self) -> wasmtime::Result<String> {
        v0_2::InputImports::raw(self)
    }

    fn tool_input(&mut self) -> wasmtime::Result<Option<String>> {
        v0_2::InputImports::tool_input(self)
    }

    fn field(&mut self, name: String) -> wasmtime::Result<Option<String>> {
        v0_2::InputImports::field(self, name)
    }
}

impl wit::Host for HostState {
    fn bash_command(&mut self) -> wasmtime::Result<Option<wit::Script>> {
        let input = self.input.clone();
        let Some(command) = bash_command(&input.value) else {
            return Ok(None);
        };
        let parsed = match &self.shell_view {
            Some(parsed) => parsed.clone(),
            None => {
                self.charge_parse(0)?;
                let parsed = self.hook.views.view(command);
                self.shell_view = Some(parsed.clone());
                parsed
            }
        };
        self.charge(view_size(&parsed))?;
        Ok(Some(script(&parsed)))
    }

    fn parse(&mut self, text: String) -> wasmtime::Result<wit::Script> {
        self.charge_parse(text.len())?;
        let parsed = view::parse(&text);
        self.charge(view_size(&parsed))?;
        Ok(script(&parsed))
    }
}

impl HostState {
    fn charge_parse(&mut self, text_bytes: usize) -> wasmtime::Result<()> {
        self.parses += 1;
        if self.parses > MAX_PARSES {
            return Err(wasmtime::Error::msg(format!(
                "shell parse limit exceeded: more than {MAX_PARSES} parses in one call"
            )));
        }
        self.charge(text_bytes)
    }
}

/// The text the `bash-command` function parses: the tool input's `command` string.
pub(crate) fn bash_command(input: &Value) -> Option<&str> {
    field(field(input, "tool_input")?, "command")?.as_str()
}

/// Bytes of text a view carries into the guest (what the fetch budget counts).
fn view_size(view: &ShellView) -> usize {
    let word = |w: &view::Word| w.text.len() + v0_2::LIST_ENTRY_OVERHEAD;
    view.nodes
        .iter()
        .map(|n| {
            n.text.len()
                + n.words.iter().map(word).sum::<usize>()
                + n.assignments.iter().map(word).sum::<usize>()
                + n.redirects
                    .iter()
                    .map(|r| r.op.len() + word(&r.target))
                    .sum::<usize>()
                + 4 * v0_2::LIST_ENTRY_OVERHEAD
        })
        .sum::<usize>()
        + view
            .pipelines
            .iter()
            .map(|p| 4 * p.nodes.len() + 2 * v0_2::LIST_ENTRY_OVERHEAD)
            .sum::<usize>()
        + view.error.as_ref().map_or(0, String::len)
}

fn word(w: &view::Word) -> wit::Word {
    wit::Word {
        text: w.text.clone(),
        dynamic: w.dynamic,
    }
}

fn script(view: &ShellView) -> wit::Script {
    wit::Script {
        nodes: view
            .nodes
            .iter()
            .map(|n| wit::Node {
                kind: match n.kind {
                    view::NodeKind::Simple => wit::NodeKind::Simple,
                    view::NodeKind::Subshell => wit::NodeKind::Subshell,
                    view::NodeKind::Group => wit::NodeKind::Group,
                    view::NodeKind::If => wit::NodeKind::IfClause,
                    view::NodeKind::Loop => wit::NodeKind::Loop,
                    view::NodeKind::Case => wit::NodeKind::CaseClause,
                    view::NodeKind::Function => wit::NodeKind::Function,
                    view::NodeKind::Arithmetic => wit::NodeKind::Arithmetic,
                    view::NodeKind::Test => wit::NodeKind::Test,
                    view::NodeKind::Coprocess => wit::NodeKind::Coprocess,
                },
                words: n.words.iter().map(word).collect(),
                assignments: n.assignments.iter().map(word).collect(),
                redirects: n
                    .redirects
                    .iter()
                    .map(|r| wit::Redirect {
                        fd: r.fd,
                        op: r.op.clone(),
                        target: word(&r.target),
                    })
                    .collect(),
                program: n.program,
                pipeline: n.pipeline,
                text: n.text.clone(),
            })
            .collect(),
        pipelines: view
            .pipelines
            .iter()
            .map(|p| wit::Pipeline {
                nodes: p.nodes.clone(),
                joined: match p.joined {
                    view::Joined::First => wit::Joined::First,
                    view::Joined::Then => wit::Joined::Then,
                    view::Joined::And => wit::Joined::And,
                    view::Joined::Or => wit::Joined::Or,
                },
                background: p.background,
                negated: p.negated,
                parent: p.parent,
                via: match p.via {
                    view::Via::Top => wit::Via::Top,
                    view::Via::Body => wit::Via::Body,
                    view::Via::FunctionBody => wit::Via::FunctionBody,
                    view::Via::CommandSubstitution => wit::Via::CommandSubstitution,
                    view::Via::ProcessSubstitution => wit::Via::ProcessSubstitution,
                    view::Via::Shell => wit::Via::Shell,
                    view::Via::Eval => wit::Via::Eval,
                },
            })
            .collect(),
        partial: view.partial,
        error: view.error.clone(),
    }
}
