//! The host's one reading of shell command text (bash syntax), handed to every guest
//! through the `shell` interface of `hookhost:hooks` (0.3.0, and packed in 0.4.0) so
//! that no policy has to write its own tokenizer.
//!
//! [`parse`] turns a script into a [`ShellView`]: a flat list of [`Node`]s (simple
//! commands and compound commands) grouped into [`Pipeline`]s, each pipeline knowing the
//! node that holds it and how ([`Via`]): the body of a subshell or loop, a command or
//! process substitution, a function body, or a script handed to another shell (`bash -c
//! '…'`, `eval '…'`, a here-string or here-document fed to a shell, `echo '…' | sh`).
//! The parsing is `brush-parser`'s; this module only walks its syntax tree.
//!
//! The promise a policy relies on: every command bash would run from the text appears as
//! a node (the property tests in `tests/it/shell_view.rs` check it against a real bash).
//! What cannot be read is reported, never dropped silently: [`ShellView::partial`] is set
//! with the reason, and the view holds every complete command before the point where
//! reading stopped.

// One file with the guest SDK (`guest-sdk/src/facts.rs`): command facts every reader shares.
pub mod facts;
mod memo;
mod programs;
mod script_files;
mod walk;

use serde::Serialize;

pub use memo::ViewMemo;
pub(crate) use programs::basename;
pub use script_files::MAX_SCRIPT_FILE_BYTES;

/// The longest script the host parses; a longer one gives a partial, empty view.
pub const MAX_SCRIPT_BYTES: usize = 256 * 1024;

/// How deeply scripts may nest inside each other (substitutions, `bash -c`, `eval`)
/// before the view is marked partial.
pub const MAX_NESTING: u32 = 16;

/// The structure of one script.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ShellView {
    /// Every command, in the order its text starts; a node's children come after it.
    pub nodes: Vec<Node>,
    /// Every pipeline (one command alone is a pipeline of one).
    pub pipelines: Vec<Pipeline>,
    /// Some text was not read (a syntax error, a script too long or too deeply nested).
    pub partial: bool,
    /// Why the view is partial.
    pub error: Option<String>,
}

/// What a node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NodeKind {
    /// A simple command: `words` are its argv.
    Simple,
    /// `( … )`.
    Subshell,
    /// `{ …; }`.
    Group,
    /// `if … then … fi`.
    If,
    /// `for`, `while`, `until` (`words` are a `for`'s values).
    Loop,
    /// `case WORD in …` (`words` holds the subject and the patterns).
    Case,
    /// A function definition (`words` holds its name); its body runs where it is called.
    Function,
    /// `(( … ))` or `for (( … ))`.
    Arithmetic,
    /// `[[ … ]]` (`words` holds its operands).
    Test,
    /// `coproc …`.
    Coprocess,
}

/// One word, with quotes resolved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Word {
    /// The word's text: quotes removed, escapes resolved; any expansion (`$X`, `~`,
    /// `$(…)`, a glob, a brace list) kept as written.
    pub text: String,
    /// The word holds an expansion, so bash may run it as something else than `text`.
    pub dynamic: bool,
}

/// One redirection of a node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Redirect {
    /// The file descriptor written before the operator (`2` in `2>&1`).
    pub fd: Option<u32>,
    /// The operator: `<`, `>`, `>>`, `<>`, `>|`, `<&`, `>&`, `&>`, `&>>`, `<<`, `<<-`,
    /// `<<<`.
    pub op: String,
    /// The file, descriptor, here-string or here-document text.
    pub target: Word,
}

/// How a pipeline is joined to the pipeline before it in the same list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Joined {
    /// The first pipeline of its list.
    First,
    /// After `;`, `&` or a newline: runs whatever the previous one did.
    Then,
    /// After `&&`.
    And,
    /// After `||`.
    Or,
}

/// How a pipeline's text reaches bash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Via {
    /// The top level of the script.
    Top,
    /// The body of a compound command (subshell, group, `if`, loop, `case`, coprocess).
    Body,
    /// A function's body.
    FunctionBody,
    /// `$( … )` or backquotes.
    CommandSubstitution,
    /// `<( … )` or `>( … )`.
    ProcessSubstitution,
    /// A script given to another shell: `bash -c '…'`, a here-string, a here-document
    /// or `echo '…'` piped into a shell.
    Shell,
    /// The arguments of `eval`.
    Eval,
    /// A script file the command holding it runs (`bash x.sh`, `source x`, `./x.sh`),
    /// read by the host: see [`parse_in`].
    ScriptFile,
}

/// One command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Node {
    /// What it is.
    pub kind: NodeKind,
    /// Argv of a simple command; see [`NodeKind`] for the others.
    pub words: Vec<Word>,
    /// `NAME=value` assignments before a simple command.
    pub assignments: Vec<Word>,
    /// Its redirections.
    pub redirects: Vec<Redirect>,
    /// For a simple command, the index in `words` of what it finally runs, past
    /// wrappers such as `sudo`, `env A=1`, `timeout 5`, `xargs`, `nohup`, `exec`.
    pub program: Option<u32>,
    /// The pipeline it belongs to (an index into [`ShellView::pipelines`]).
    pub pipeline: u32,
    /// Its source text (of the script it was read from).
    pub text: String,
}

/// Commands joined by `|` (or `|&`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Pipeline {
    /// Its nodes, in order (indices into [`ShellView::nodes`]).
    pub nodes: Vec<u32>,
    /// How it follows the pipeline before it.
    pub joined: Joined,
    /// It ends with `&`.
    pub background: bool,
    /// It starts with `!`.
    pub negated: bool,
    /// The node that holds it (none at the top level).
    pub parent: Option<u32>,
    /// How it is held.
    pub via: Via,
}

impl ShellView {
    /// The nodes that hold `node`, nearest first.
    pub fn ancestors(&self, node: u32) -> impl Iterator<Item = u32> + '_ {
        let mut next = self.parent_of(node);
        std::iter::from_fn(move || {
            let current = next?;
            next = self.parent_of(current);
            Some(current)
        })
    }

    /// The node that holds `node`.
    pub fn parent_of(&self, node: u32) -> Option<u32> {
        let pipeline = self.nodes.get(node as usize)?.pipeline;
        self.pipelines.get(pipeline as usize)?.parent
    }

    /// The simple commands' argv, each as plain text.
    pub fn commands(&self) -> impl Iterator<Item = Vec<&str>> + '_ {
        self.nodes
            .iter()
            .filter(|n| n.kind == NodeKind::Simple)
            .map(|n| n.words.iter().map(|w| w.text.as_str()).collect())
    }

    fn mark_partial(&mut self, why: String) {
        self.partial = true;
        if self.error.is_none() {
            self.error = Some(why);
        }
    }
}

/// Parses `script` as bash would read it. Script files it runs are not read (see
/// [`parse_in`]).
pub fn parse(script: &str) -> ShellView {
    walk_script(script, None).0
}

/// Parses `script` as bash would read it run in `cwd`, and follows the script files its
/// commands run — `bash x.sh`, `sh x`, `source x`, `. x`, `./x.sh` (a shell script by its
/// `#!` line, or text without one) — into their content: their commands come as
/// pipelines held by the command that runs the file, [`Via::ScriptFile`]. Regular files
/// only, at most [`MAX_SCRIPT_FILE_BYTES`] each; a file that is there but cannot be read
/// leaves the view partial. Paths are taken from `cwd` as written: a `cd` earlier in the
/// command, or a name bash would expand, is not followed.
pub fn parse_in(script: &str, cwd: &std::path::Path) -> ShellView {
    walk_script(script, Some(cwd)).0
}

/// The view of `script`, reading script files from `cwd` when given, and whether some
/// command in it runs a script file (so the view depends on files, not only on text).
fn walk_script(script: &str, cwd: Option<&std::path::Path>) -> (ShellView, bool) {
    let mut view = ShellView::default();
    if script.len() > MAX_SCRIPT_BYTES {
        view.mark_partial(format!(
            "the script is {} bytes, over the {MAX_SCRIPT_BYTES}-byte limit of the shell view",
            script.len()
        ));
        return (view, false);
    }
    // The parser is third-party code reading hostile text: a panic in it (one was found
    // by fuzzing, see `host/vendor/brush-parser/VENDORED.md`) must not take the caller,
    // and with it the guard's answer, down. The view is then partial, which guards refuse.
    let walked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut walker = match cwd {
            Some(cwd) => walk::Walker::in_folder(&mut view, cwd),
            None => walk::Walker::new(&mut view),
        };
        walker.script(script, None, Via::Top, 0);
        let runs_files = walker.runs_files;
        let here_ends = std::mem::take(&mut walker.here_ends);
        // A here-document's end word read as a command means the parser lost the
        // document's body (brush-parser does after `$( (( … )) )`): what bash runs from it
        // is not in the view, which must say so.
        let lost = view.nodes.iter().any(|node| {
            node.kind == NodeKind::Simple
                && node
                    .program
                    .and_then(|p| node.words.get(p as usize))
                    .is_some_and(|program| here_ends.contains(&program.text))
        });
        if lost {
            view.mark_partial(
                "a here-document's body was not read (its end word came out as a command)"
                    .to_string(),
            );
        }
        (view, runs_files)
    }));
    walked.unwrap_or_else(|_| {
        let mut view = ShellView::default();
        view.mark_partial("the shell parser failed on this text; not read".to_string());
        (view, false)
    })
}

#[cfg(test)]
mod tests;
