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
//! The host hands the script over packed (`hookhost:hooks@0.4.0`): one string holding
//! all its text and a few flat lists. Everything here reads it in place — a [`Word`] or
//! [`Redirect`] borrows from the [`Script`] — so reading a command allocates nothing
//! unless a method says it collects ([`Command::args`], [`Command::operands`]).
//!
//! Outside a component (native unit tests) there is no host to parse: [`bash_command`]
//! gives `None` and [`parse`] a partial, empty script.

use crate::bindings::hookhost::hooks::shell as wit;

pub use wit::{Joined, NodeKind, Via};

/// Shells: programs that run a script (`-c TEXT`, a file, or their stdin).
pub const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "rbash", "fish",
];

/// One word: quotes removed, escapes applied, expansions kept as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Word<'s> {
    /// Its text.
    pub text: &'s str,
    /// It holds an expansion (`$X`, `~`, `$(…)`, a glob): bash may turn it into
    /// something else.
    pub dynamic: bool,
}

/// One redirection (`2>&1`, `> out`, `<<< text`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Redirect<'s> {
    /// The descriptor before the operator (`2` in `2>&1`).
    pub fd: Option<u32>,
    /// `<`, `>`, `>>`, `<>`, `>|`, `<&`, `>&`, `&>`, `&>>`, `<<`, `<<-` or `<<<`.
    pub op: &'s str,
    /// The file, descriptor, here-string or here-document text.
    pub target: Word<'s>,
}

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
            text: String::new(),
            words: Vec::new(),
            redirects: Vec::new(),
            nodes: Vec::new(),
            pipelines: Vec::new(),
            members: Vec::new(),
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
        self.nodes().filter(|c| c.kind() == NodeKind::Simple)
    }

    /// Every node (compound commands too), in order.
    pub fn nodes(&self) -> impl Iterator<Item = Command<'_>> + '_ {
        (0..self.0.nodes.len() as u32).map(|index| Command {
            script: self,
            index,
        })
    }

    /// The packed record the host sent.
    pub fn raw(&self) -> &wit::Script {
        &self.0
    }

    /// The text `span` names (empty if the host sent a span outside the text, which it
    /// does not).
    fn text(&self, span: wit::Span) -> &str {
        self.0
            .text
            .get(span.start as usize..span.end as usize)
            .unwrap_or("")
    }

    fn word(&self, word: &wit::Word) -> Word<'_> {
        Word {
            text: self.text(word.text),
            dynamic: word.dynamic,
        }
    }

    fn words(&self, range: wit::Range) -> Words<'_> {
        Words {
            script: self,
            items: slice(&self.0.words, range).iter(),
        }
    }

    /// The nodes of pipeline `index`, in order.
    fn members(&self, index: u32) -> &[u32] {
        self.0
            .pipelines
            .get(index as usize)
            .map_or(&[], |p| slice(&self.0.members, p.nodes))
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

/// The items of `list` that `range` names (none if it lies outside).
fn slice<T>(list: &[T], range: wit::Range) -> &[T] {
    list.get(range.start as usize..range.end as usize)
        .unwrap_or(&[])
}

/// Words of one node, read in place.
#[derive(Debug, Clone)]
pub struct Words<'s> {
    script: &'s Script,
    items: std::slice::Iter<'s, wit::Word>,
}

impl<'s> Iterator for Words<'s> {
    type Item = Word<'s>;

    fn next(&mut self) -> Option<Word<'s>> {
        self.items.next().map(|w| self.script.word(w))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.items.size_hint()
    }

    fn nth(&mut self, n: usize) -> Option<Word<'s>> {
        self.items.nth(n).map(|w| self.script.word(w))
    }
}

impl DoubleEndedIterator for Words<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.items.next_back().map(|w| self.script.word(w))
    }
}

impl ExactSizeIterator for Words<'_> {}

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
        self.program_word().map_or("", |w| w.text)
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

    fn program_word(&self) -> Option<Word<'s>> {
        let program = self.node().program?;
        self.words().nth(program as usize)
    }

    /// The arguments after the program, collected (see [`Command::arg_words`]).
    pub fn args(&self) -> Vec<&'s str> {
        self.arg_words().map(|w| w.text).collect()
    }

    /// The words after the program, read in place.
    pub fn arg_words(&self) -> Words<'s> {
        let node = self.node();
        let mut words = self.words();
        let skip = node.program.map_or(words.len(), |p| p as usize + 1);
        if skip > 0 {
            words.nth(skip - 1);
        }
        words
    }

    /// Every word, wrappers included (`sudo`, `-u`, `root`, `rm`, …).
    pub fn words(&self) -> Words<'s> {
        self.script.words(self.node().words)
    }

    /// `NAME=value` words before the command.
    pub fn assignments(&self) -> Words<'s> {
        self.script.words(self.node().assignments)
    }

    /// Its redirections.
    pub fn redirects(
        &self,
    ) -> impl DoubleEndedIterator<Item = Redirect<'s>> + ExactSizeIterator + 's {
        let script = self.script;
        slice(&script.0.redirects, self.node().redirects)
            .iter()
            .map(move |r| Redirect {
                fd: r.fd,
                op: script.text(r.op),
                target: script.word(&r.target),
            })
    }

    /// Every file it may name: its arguments and its redirection targets, collected
    /// (see [`Command::operand_words`]).
    pub fn operands(&self) -> Vec<&'s str> {
        self.operand_words().map(|w| w.text).collect()
    }

    /// The words of [`Command::operands`], read in place.
    pub fn operand_words(&self) -> impl Iterator<Item = Word<'s>> + 's {
        self.arg_words().chain(self.redirects().map(|r| r.target))
    }

    /// Its text.
    pub fn text(&self) -> &'s str {
        self.script.text(self.node().text)
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

    /// It runs what arrives on its stdin as code: a shell given no script (neither `-c`
    /// nor a script file, or `-s`, or the file `-`), `source`/`.` of standard input, or a
    /// program whose name is an expansion. A shell that runs `-c TEXT` or a file reads
    /// its stdin as data (`curl … | sh -c 'cat > page.html'`).
    pub fn runs_stdin_as_code(&self) -> bool {
        const STDIN: &[&str] = &["-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"];
        if self.name_is_dynamic() {
            return true;
        }
        let mut words = self.arg_words();
        if matches!(self.name(), "source" | ".") {
            return words.next().is_some_and(|w| STDIN.contains(&w.text));
        }
        if !SHELLS.contains(&self.name()) {
            return false;
        }
        let (mut script, mut from_stdin) = (false, false);
        while let Some(word) = words.next() {
            let text = word.text;
            if text == "--" {
                script |= words.next().is_some_and(|w| !STDIN.contains(&w.text));
                break;
            }
            if let Some(cluster) = text
                .strip_prefix('-')
                .filter(|c| !c.is_empty() && !c.starts_with('-'))
            {
                script |= cluster.contains('c');
                from_stdin |= cluster.contains('s');
                // `-o OPTION` takes the next word.
                if cluster.ends_with('o') {
                    words.next();
                }
                continue;
            }
            if text.starts_with('+') {
                if text.ends_with('o') {
                    words.next();
                }
                continue;
            }
            if text.starts_with("--") {
                continue;
            }
            // The first operand is the script file (`-` is stdin).
            script |= !STDIN.contains(&text);
            break;
        }
        from_stdin || !script || word_is_dynamic_script(self)
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
            let pipeline = script.0.nodes[holder as usize].pipeline;
            feeders.extend(
                script
                    .members(pipeline)
                    .iter()
                    .take_while(|n| **n != holder),
            );
        }
        script.commands().filter(move |c| {
            feeders
                .iter()
                .any(|f| c.index == *f || script.is_within(c.index, *f))
        })
    }
}

/// Whether the script a shell is given is an expansion (`sh "$F"`), which may be `-`.
fn word_is_dynamic_script(command: &Command<'_>) -> bool {
    command
        .arg_words()
        .find(|w| !w.text.starts_with(['-', '+']))
        .is_some_and(|w| w.dynamic)
}

/// One pipeline as `hookhost-guest` 0.1.0 gave it: each simple command's words, quotes
/// removed, assignments left out.
#[deprecated(
    since = "0.2.0",
    note = "read the host's parse instead: `shell::bash_command()` or `shell::parse(text)`, then `Script::commands()` (it sees `$(…)`, `bash -c`, `eval` and script files, and tells where a command's input comes from)"
)]
pub type Pipeline = Vec<Vec<String>>;

/// Every pipeline of `command` — nested ones too (`$(…)`, `bash -c '…'`, `eval`) — each
/// as its simple commands' words; `None` when the host could not read all of the text.
///
/// The function of `hookhost-guest` 0.1.0, kept for a release so that policies written
/// against it still build. It is now built on the host's parse, so an old policy that
/// looks for `curl … | sh` in these pipelines also finds it inside a substitution or a
/// `bash -c` script, which the 0.1.0 splitter did not read. Outside a component (native
/// tests) there is no host to parse, and it gives `None`.
#[deprecated(
    since = "0.2.0",
    note = "read the host's parse instead: `shell::bash_command()` or `shell::parse(text)`, then `Script::commands()` (it sees `$(…)`, `bash -c`, `eval` and script files, and tells where a command's input comes from)"
)]
#[allow(deprecated)]
pub fn pipelines(command: &str) -> Option<Vec<Pipeline>> {
    let script = parse(command);
    if script.partial() {
        return None;
    }
    let pipelines = (0..script.raw().pipelines.len() as u32)
        .map(|index| {
            script
                .members(index)
                .iter()
                .map(|node| Command {
                    script: &script,
                    index: *node,
                })
                .filter(|command| command.kind() == NodeKind::Simple)
                .map(|command| command.words().map(|w| w.text.to_string()).collect())
                .filter(|words: &Vec<String>| !words.is_empty())
                .collect::<Pipeline>()
        })
        .filter(|pipeline| !pipeline.is_empty())
        .collect();
    Some(pipelines)
}

/// Every simple command of every pipeline of `command`, flattened (`hookhost-guest`
/// 0.1.0's `commands`, kept for a release; see [`pipelines`]).
#[deprecated(
    since = "0.2.0",
    note = "use `shell::parse(text).commands()` (or `shell::bash_command()`)"
)]
#[allow(deprecated)]
pub fn commands(command: &str) -> Option<Vec<Vec<String>>> {
    Some(pipelines(command)?.into_iter().flatten().collect())
}
