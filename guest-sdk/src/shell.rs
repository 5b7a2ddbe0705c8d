//! The host's reading of shell commands (the `shell` interface of `hookhost:hooks`): a
//! Bash call's `command` parsed once, natively, by a bash-compatible parser, so a policy
//! never tokenizes shell text itself.
//!
//! A [`Script`] lists every command bash would run from the text, nested ones included
//! (`$(…)`, `<(…)`, subshells, function bodies, `bash -c '…'`, `eval '…'`, here-strings
//! and here-documents fed to a shell, `echo '…' | sh`). Each [`Command`] knows its program
//! (past `sudo`, `env`, `timeout`, `xargs`, …), its arguments with quotes resolved, its
//! redirections, what feeds its stdin ([`Command::upstream`]) and what runs inside it
//! ([`Command::inside`]):
//!
//! ```no_run
//! use hookhost_guest::shell::Script;
//!
//! fn download_run_by_a_shell(script: &Script) -> bool {
//!     script.commands().any(|cmd| {
//!         cmd.runs_code()
//!             && cmd.upstream().chain(cmd.inside()).any(|c| c.is("curl") || c.is("wget"))
//!     })
//! }
//! ```
//!
//! Outside a component (native unit tests) there is no host to parse: [`bash_command`]
//! gives `None` and [`parse`] a partial, empty script.

use crate::bindings::hookhost::hooks::shell as wit;

pub use wit::{Joined, NodeKind, Via};

/// One word: quotes removed, escapes applied, expansions kept as written.
pub type Word = wit::Word;

/// One redirection (`2>&1`, `> out`, `<<< text`, …).
pub type Redirect = wit::Redirect;

/// Shells: programs that run a script (`-c TEXT`, a file, or their stdin).
pub const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "rbash", "fish",
];

/// A parsed script.
#[derive(Debug, Clone)]
pub struct Script(wit::Script);

/// The Bash call's `command`, parsed by the host; `None` when the event has none.
pub fn bash_command() -> Option<Script> {
    host::bash_command().map(Script)
}

/// Parses any text as a bash script (for commands found elsewhere than a Bash call).
pub fn parse(text: &str) -> Script {
    Script(host::parse(text))
}

#[cfg(target_arch = "wasm32")]
mod host {
    pub use crate::bindings::hookhost::hooks::shell::{bash_command, parse};
}

#[cfg(not(target_arch = "wasm32"))]
mod host {
    use super::wit;

    pub fn bash_command() -> Option<wit::Script> {
        None
    }

    pub fn parse(_text: &str) -> wit::Script {
        wit::Script {
            nodes: Vec::new(),
            pipelines: Vec::new(),
            partial: true,
            error: Some("no host to parse shell text outside a component".into()),
        }
    }
}

impl Script {
    /// Some text was not read (a syntax error, or too long or deep): do not treat the
    /// command as understood.
    pub fn partial(&self) -> bool {
        self.0.partial
    }

    /// Why the script is partial.
    pub fn error(&self) -> Option<&str> {
        self.0.error.as_deref()
    }

    /// Every simple command, nested ones included, in the order their text starts.
    pub fn commands(&self) -> impl Iterator<Item = Command<'_>> + '_ {
        (0..self.0.nodes.len() as u32)
            .map(|index| Command {
                script: self,
                index,
            })
            .filter(|c| c.node().kind == NodeKind::Simple)
    }

    /// Every node (compound commands too), in order.
    pub fn nodes(&self) -> impl Iterator<Item = Command<'_>> + '_ {
        (0..self.0.nodes.len() as u32).map(|index| Command {
            script: self,
            index,
        })
    }

    /// The record the host sent.
    pub fn raw(&self) -> &wit::Script {
        &self.0
    }

    fn parent(&self, index: u32) -> Option<u32> {
        let pipeline = self.0.nodes.get(index as usize)?.pipeline;
        self.0.pipelines.get(pipeline as usize)?.parent
    }

    fn ancestors(&self, index: u32) -> impl Iterator<Item = u32> + '_ {
        let mut next = self.parent(index);
        std::iter::from_fn(move || {
            let current = next?;
            next = self.parent(current);
            Some(current)
        })
    }

    fn is_within(&self, index: u32, ancestor: u32) -> bool {
        self.ancestors(index).any(|a| a == ancestor)
    }
}

/// One node of a [`Script`]; a simple command unless [`Command::kind`] says otherwise.
#[derive(Debug, Clone, Copy)]
pub struct Command<'s> {
    script: &'s Script,
    index: u32,
}

impl<'s> Command<'s> {
    fn node(&self) -> &'s wit::Node {
        &self.script.0.nodes[self.index as usize]
    }

    fn at(&self, index: u32) -> Command<'s> {
        Command {
            script: self.script,
            index,
        }
    }

    /// What the node is.
    pub fn kind(&self) -> NodeKind {
        self.node().kind
    }

    /// The program it finally runs, as written (`/usr/bin/curl`), past wrappers such as
    /// `sudo` and `env`; empty for an assignment alone or a compound command.
    pub fn program(&self) -> &'s str {
        self.program_word().map_or("", |w| w.text.as_str())
    }

    /// The program's last path component (`curl`).
    pub fn name(&self) -> &'s str {
        let program = self.program();
        program.rsplit('/').next().unwrap_or(program)
    }

    /// The program is `name` (by its last path component).
    pub fn is(&self, name: &str) -> bool {
        self.name() == name
    }

    /// The program's name holds an expansion (`$SHELL`, `$(which sh)`): it could be
    /// anything.
    pub fn name_is_dynamic(&self) -> bool {
        self.program_word().is_some_and(|w| w.dynamic)
    }

    fn program_word(&self) -> Option<&'s Word> {
        let node = self.node();
        node.words.get(node.program? as usize)
    }

    /// The arguments after the program.
    pub fn args(&self) -> Vec<&'s str> {
        self.arg_words().iter().map(|w| w.text.as_str()).collect()
    }

    /// The words after the program, without copying (what [`Command::args`] collects).
    pub fn arg_words(&self) -> &'s [Word] {
        let node = self.node();
        let from = node.program.map_or(node.words.len(), |p| p as usize + 1);
        &node.words[from.min(node.words.len())..]
    }

    /// Every word, wrappers included (`sudo`, `-u`, `root`, `rm`, …).
    pub fn words(&self) -> &'s [Word] {
        &self.node().words
    }

    /// `NAME=value` words before the command.
    pub fn assignments(&self) -> &'s [Word] {
        &self.node().assignments
    }

    /// Its redirections.
    pub fn redirects(&self) -> &'s [Redirect] {
        &self.node().redirects
    }

    /// Every file it may name: its arguments and its redirection targets.
    pub fn operands(&self) -> Vec<&'s str> {
        self.operand_words().map(|w| w.text.as_str()).collect()
    }

    /// The words of [`Command::operands`], without collecting them.
    pub fn operand_words(&self) -> impl Iterator<Item = &'s Word> + 's {
        let redirects = self.redirects();
        self.arg_words()
            .iter()
            .chain(redirects.iter().map(|r| &r.target))
    }

    /// Its text.
    pub fn text(&self) -> &'s str {
        &self.node().text
    }

    /// How its pipeline is held (top level, a substitution, `bash -c`, …).
    pub fn via(&self) -> Via {
        self.script.0.pipelines[self.node().pipeline as usize].via
    }

    /// It runs code given to it: a shell, `eval`, `source` or `.`, or a program whose
    /// name is an expansion.
    pub fn runs_code(&self) -> bool {
        SHELLS.contains(&self.name())
            || matches!(self.name(), "eval" | "source" | ".")
            || self.name_is_dynamic()
    }

    /// The nodes that hold this one, nearest first (a subshell, a command whose `$(…)`
    /// this is, the `bash` whose `-c` script this is, …).
    pub fn ancestors(&self) -> impl Iterator<Item = Command<'s>> + 's {
        let this = *self;
        this.script.ancestors(this.index).map(move |a| this.at(a))
    }

    /// Every simple command nested inside this node (its substitutions, the script it
    /// is given, a compound command's body).
    pub fn inside(&self) -> impl Iterator<Item = Command<'s>> + 's {
        let this = *self;
        this.script
            .commands()
            .filter(move |c| this.script.is_within(c.index, this.index))
    }

    /// Every simple command whose output may reach this command's stdin: the commands
    /// before it in its pipeline and in the pipelines of the nodes holding it, with
    /// everything nested inside those.
    pub fn upstream(&self) -> impl Iterator<Item = Command<'s>> + 's {
        let this = *self;
        let script = this.script;
        let mut feeders: Vec<u32> = Vec::new();
        for holder in std::iter::once(this.index).chain(script.ancestors(this.index)) {
            let pipeline = &script.0.pipelines[script.0.nodes[holder as usize].pipeline as usize];
            feeders.extend(pipeline.nodes.iter().take_while(|n| **n != holder));
        }
        script.commands().filter(move |c| {
            feeders
                .iter()
                .any(|f| c.index == *f || script.is_within(c.index, *f))
        })
    }
}
