//! `hookhost:hooks@0.3.0`: 0.2.0 plus the `shell` interface, the host's one parse of
//! shell command text. Its `types` are 0.2.0's (the interface is unchanged, so the
//! bindings share one set of records and one answer conversion).

use std::sync::Arc;

use super::super::host::HostState;
use super::v0_2;
use crate::shell::{self as view, ShellView};

wasmtime::component::bindgen!({
    path: "wit/hooks@0.3.0",
    world: "hook",
    // Host functions may trap the guest (the `input` fetch budget).
    imports: { default: trappable },
    exports: { default: async },
    with: { "hookhost:hooks/types": super::v0_2::hookhost::hooks::types },
});

use self::hookhost::hooks::shell as wit;

/// How many times one call may ask the host to parse text.
const MAX_PARSES: usize = 64;

host_and_input_as_v0_2!(self::hookhost::hooks);
shell_enums!(self::hookhost::hooks::shell, Shell);

impl wit::Host for HostState {
    fn bash_command(&mut self) -> wasmtime::Result<Option<wit::Script>> {
        Ok(bash_command_view(self)?.map(|view| script(&view)))
    }

    fn parse(&mut self, text: String) -> wasmtime::Result<wit::Script> {
        Ok(script(&parse_view(self, &text)?))
    }
}

/// The view of the Bash call's `command` with the script files it runs (parsed once per
/// call, from the memo of recent commands), charged to `state`'s fetch budget; none when
/// the event has none.
pub(super) fn bash_command_view(state: &mut HostState) -> wasmtime::Result<Option<Arc<ShellView>>> {
    let input = state.input.clone();
    let Some(command) = input.command() else {
        return Ok(None);
    };
    let parsed = match &state.shell_view {
        Some(parsed) => parsed.clone(),
        None => {
            charge_parse(state, 0)?;
            let parsed = state.hook.views.view_in(command, input.cwd.as_deref());
            state.shell_view = Some(parsed.clone());
            parsed
        }
    };
    state.charge(view_size(&parsed))?;
    Ok(Some(parsed))
}

/// The view of `text`, counted against [`MAX_PARSES`] and charged to `state`'s fetch
/// budget.
pub(super) fn parse_view(state: &mut HostState, text: &str) -> wasmtime::Result<ShellView> {
    charge_parse(state, text.len())?;
    let parsed = view::parse(text);
    state.charge(view_size(&parsed))?;
    Ok(parsed)
}

fn charge_parse(state: &mut HostState, text_bytes: usize) -> wasmtime::Result<()> {
    state.parses += 1;
    if state.parses > MAX_PARSES {
        return Err(wasmtime::Error::msg(format!(
            "shell parse limit exceeded: more than {MAX_PARSES} parses in one call"
        )));
    }
    state.charge(text_bytes)
}

/// Bytes a view carries into the guest (what the fetch budget counts): its text, and
/// at least the size of every record and list entry in either layout (0.3.0's strings
/// and lists, 0.4.0's packed lists; a redirection's record is 28 bytes in both).
pub(super) fn view_size(view: &ShellView) -> usize {
    let word = |w: &view::Word| w.text.len() + v0_2::LIST_ENTRY_OVERHEAD;
    view.nodes
        .iter()
        .map(|n| {
            n.text.len()
                + n.words.iter().map(word).sum::<usize>()
                + n.assignments.iter().map(word).sum::<usize>()
                + n.redirects
                    .iter()
                    .map(|r| r.op.len() + word(&r.target) + v0_2::LIST_ENTRY_OVERHEAD)
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
                kind: node_kind(n.kind),
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
                joined: joined(p.joined),
                background: p.background,
                negated: p.negated,
                parent: p.parent,
                via: via(p.via),
            })
            .collect(),
        partial: view.partial,
        error: view.error.clone(),
    }
}
