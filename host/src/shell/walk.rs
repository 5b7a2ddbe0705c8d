//! Walks `brush-parser`'s syntax tree into the flat [`ShellView`]: one node per command,
//! one pipeline per `|` chain, nested scripts (substitutions, `bash -c`, `eval`, scripts
//! fed to a shell's stdin) parsed where they appear.

use brush_parser::ast::{
    self, AndOr, Command, CommandPrefixOrSuffixItem, CompoundCommand, CompoundList,
    ExtendedTestExpr, IoFileRedirectKind, IoFileRedirectTarget, IoRedirect, SeparatorOperator,
};
use brush_parser::{Parser, ParserOptions};

use std::path::Path;

use super::programs::{
    SHELLS, ShellScript, basename, commands_in_arguments, program_index, shell_script, stdin_text,
};
use super::script_files::{self, ScriptFile};
use super::{Joined, MAX_NESTING, Node, NodeKind, Pipeline, Redirect, ShellView, Via, Word};

mod words;

/// Nesting (brackets and compound-command keywords) of one text past which it is not
/// handed to the parser: its recursion must fit the parser's stack with a wide margin
/// (see the stack tests).
pub(super) const MAX_NESTING_DEPTH: usize = 48;

/// Bytes of script text one view may read, nested scripts included (each is read
/// again where it is handed on): four times the largest script, so any script that fits
/// can nest a few times, and a chain that doubles its text at each level cannot.
pub(super) const READ_BUDGET: usize = 4 * super::MAX_SCRIPT_BYTES;

/// Nesting of one text, and levels of nested scripts, up to which parsing stays on the
/// caller's stack (a few hundred KiB at most; see the stack tests).
pub(super) const DIRECT_NESTING: usize = 6;
pub(super) const DIRECT_LEVELS: u32 = 3;

/// The stack deeper text parses on.
pub(super) const PARSER_STACK: usize = 16 << 20;

/// Walks one view.
pub(super) struct Walker<'v> {
    pub(super) view: &'v mut ShellView,
    pub(super) options: ParserOptions,
    /// Parsing runs on the parser's own stack.
    own_stack: bool,
    /// The text being parsed (the tree's positions point into it).
    source: String,
    /// Bytes of script text parsed so far, nested scripts included, and the cap.
    read: usize,
    read_budget: usize,
    /// The folder the command runs in, to read the script files it runs; none to read
    /// no file.
    cwd: Option<&'v Path>,
    /// Some command runs a script file (read or not): the view depends on files.
    pub(super) runs_files: bool,
    /// The end words of the here-documents read (quotes taken off).
    pub(super) here_ends: Vec<String>,
}

/// Where a list's pipelines go.
#[derive(Clone, Copy)]
pub(super) struct Scope {
    pub(super) parent: Option<u32>,
    pub(super) via: Via,
    pub(super) depth: u32,
}

impl<'v> Walker<'v> {
    pub(super) fn new(view: &'v mut ShellView) -> Self {
        Walker {
            view,
            options: ParserOptions::default(),
            own_stack: false,
            source: String::new(),
            read: 0,
            read_budget: READ_BUDGET,
            cwd: None,
            runs_files: false,
            here_ends: Vec::new(),
        }
    }

    /// A walker that reads the script files commands run, relative to `cwd`.
    pub(super) fn in_folder(view: &'v mut ShellView, cwd: &'v Path) -> Self {
        let mut walker = Walker::new(view);
        walker.cwd = Some(cwd);
        walker
    }

    /// A walker that never moves to the parser's own stack (for the stack tests).
    #[cfg(test)]
    pub(super) fn on_this_stack(view: &'v mut ShellView) -> Self {
        let mut walker = Walker::new(view);
        walker.own_stack = true;
        walker
    }

    /// Parses `text` as a script and adds its commands under `parent`.
    pub(super) fn script(&mut self, text: &str, parent: Option<u32>, via: Via, depth: u32) {
        let scope = Scope { parent, via, depth };
        if depth > MAX_NESTING {
            self.view.mark_partial(format!(
                "scripts nest more than {MAX_NESTING} deep (substitutions, `bash -c`, `eval`)"
            ));
            return;
        }
        // Nested scripts are parsed again where they are handed on (`eval "$(…)"` parses
        // the substitution and then the eval text), so bound the text read in all.
        self.read = self.read.saturating_add(text.len());
        if self.read > self.read_budget {
            self.view.mark_partial(format!(
                "nested scripts repeat too much text (over {} bytes read in all); not parsed",
                self.read_budget
            ));
            return;
        }
        let nesting = nesting_depth(text);
        if nesting > MAX_NESTING_DEPTH {
            self.view.mark_partial(format!(
                "brackets and compound commands nest more than {MAX_NESTING_DEPTH} deep; not parsed"
            ));
            return;
        }
        // The parser recurses per nesting level of the text it reads; the walker adds a
        // few frames per nested script. Shallow text parses on the caller's stack (a host
        // function's, inside a Wasm call's fiber: about 1 MiB); deeper text moves to a
        // stack of its own (mapped lazily, so only touched pages cost).
        if !self.own_stack && (nesting > DIRECT_NESTING || depth > DIRECT_LEVELS) {
            self.own_stack = true;
            stacker::grow(PARSER_STACK, || self.parse(text, scope));
            self.own_stack = false;
        } else {
            self.parse(text, scope);
        }
    }

    fn parse(&mut self, text: &str, scope: Scope) {
        let outer = std::mem::replace(&mut self.source, text.to_string());
        self.parse_source(text, scope);
        self.source = outer;
    }

    fn parse_source(&mut self, text: &str, scope: Scope) {
        match self.program(text) {
            Ok(program) => {
                let mut first = true;
                for list in &program.complete_commands {
                    self.list(list, scope, &mut first);
                }
            }
            Err(err) => self.by_lines(text, scope, err),
        }
    }

    fn program(&self, text: &str) -> Result<ast::Program, brush_parser::ParseError> {
        Parser::new(std::io::Cursor::new(text), &self.options).parse_program()
    }

    /// bash reads a script one complete command at a time and runs each before it
    /// reads the next, so the commands before a syntax error do run: read line by line,
    /// joining lines until they parse, and keep every complete command found.
    fn by_lines(&mut self, text: &str, scope: Scope, first_error: brush_parser::ParseError) {
        let mut pending = String::new();
        let mut first = true;
        // Each attempt re-reads the pending lines: bound the work to a few times the text.
        let mut budget = 4 * text.len() + 4096;
        for line in text.split_inclusive('\n') {
            pending.push_str(line);
            budget = budget.saturating_sub(pending.len());
            if budget == 0 {
                break;
            }
            if let Ok(program) = self.program(&pending) {
                for list in &program.complete_commands {
                    self.list(list, scope, &mut first);
                }
                pending.clear();
            }
        }
        let what = if scope.depth == 0 {
            "the command".to_string()
        } else {
            "a nested script".to_string()
        };
        self.view
            .mark_partial(format!("{what} does not parse: {first_error}"));
    }

    fn list(&mut self, list: &CompoundList, scope: Scope, first: &mut bool) {
        for ast::CompoundListItem(and_or, separator) in &list.0 {
            let background = matches!(separator, SeparatorOperator::Async);
            let joined = if std::mem::take(first) {
                Joined::First
            } else {
                Joined::Then
            };
            self.pipeline(&and_or.first, joined, background, scope);
            for next in &and_or.additional {
                match next {
                    AndOr::And(p) => self.pipeline(p, Joined::And, background, scope),
                    AndOr::Or(p) => self.pipeline(p, Joined::Or, background, scope),
                }
            }
        }
    }

    fn body(&mut self, list: &CompoundList, parent: u32, via: Via, depth: u32) {
        let scope = Scope {
            parent: Some(parent),
            via,
            depth,
        };
        self.list(list, scope, &mut true);
    }

    fn pipeline(&mut self, p: &ast::Pipeline, joined: Joined, background: bool, scope: Scope) {
        let index = self.view.pipelines.len() as u32;
        self.view.pipelines.push(Pipeline {
            nodes: Vec::new(),
            joined,
            background,
            negated: p.bang,
            parent: scope.parent,
            via: scope.via,
        });
        for command in &p.seq {
            let node = self.command(command, index, scope.depth);
            self.view.pipelines[index as usize].nodes.push(node);
        }
        self.scripts_piped_into_shells(index, scope.depth);
    }

    pub(super) fn push(&mut self, kind: NodeKind, pipeline: u32, text: String) -> u32 {
        let index = self.view.nodes.len() as u32;
        self.view.nodes.push(Node {
            kind,
            words: Vec::new(),
            assignments: Vec::new(),
            redirects: Vec::new(),
            program: None,
            pipeline,
            text,
        });
        index
    }

    fn node(&mut self, index: u32) -> &mut Node {
        &mut self.view.nodes[index as usize]
    }

    fn command(&mut self, command: &Command, pipeline: u32, depth: u32) -> u32 {
        match command {
            Command::Simple(simple) => self.simple(simple, pipeline, depth),
            Command::Compound(compound, redirects) => {
                let node = self.push(kind_of(compound), pipeline, command.to_string());
                self.compound(compound, node, Via::Body, depth);
                self.redirect_list(redirects.as_ref(), node, depth);
                node
            }
            Command::Function(function) => {
                let node = self.push(NodeKind::Function, pipeline, command.to_string());
                let name = words::word(self, &function.fname.value, node, depth);
                self.node(node).words.push(name);
                let ast::FunctionBody(body, redirects) = &function.body;
                self.compound(body, node, Via::FunctionBody, depth);
                self.redirect_list(redirects.as_ref(), node, depth);
                node
            }
            Command::ExtendedTest(test, redirects) => {
                let node = self.push(NodeKind::Test, pipeline, command.to_string());
                self.test_expr(&test.expr, node, depth);
                self.redirect_list(redirects.as_ref(), node, depth);
                node
            }
        }
    }

    /// Adds what a compound command runs under `node`.
    fn compound(&mut self, compound: &CompoundCommand, node: u32, via: Via, depth: u32) {
        match compound {
            CompoundCommand::Arithmetic(a) => match self.spaced_parentheses(&a.loc) {
                // brush-parser reads `( (cmd) )` as arithmetic; bash runs nested subshells.
                Some(inner) => {
                    self.node(node).kind = NodeKind::Subshell;
                    self.script(&inner, Some(node), via, depth + 1);
                }
                None => words::scan(self, &a.expr.value, node, depth),
            },
            CompoundCommand::ArithmeticForClause(f) => {
                for expr in [&f.initializer, &f.condition, &f.updater]
                    .into_iter()
                    .flatten()
                {
                    words::scan(self, &expr.value, node, depth);
                }
                self.body(&f.body.list, node, via, depth);
            }
            CompoundCommand::BraceGroup(g) => self.body(&g.list, node, via, depth),
            CompoundCommand::Subshell(s) => self.body(&s.list, node, via, depth),
            CompoundCommand::ForClause(f) => {
                for value in f.values.iter().flatten() {
                    let word = words::word(self, &value.value, node, depth);
                    self.node(node).words.push(word);
                }
                self.body(&f.body.list, node, via, depth);
            }
            CompoundCommand::CaseClause(c) => {
                let subject = words::word(self, &c.value.value, node, depth);
                self.node(node).words.push(subject);
                for item in &c.cases {
                    for pattern in &item.patterns {
                        let word = words::word(self, &pattern.value, node, depth);
                        self.node(node).words.push(word);
                    }
                    if let Some(list) = &item.cmd {
                        self.body(list, node, via, depth);
                    }
                }
            }
            CompoundCommand::IfClause(i) => {
                self.body(&i.condition, node, via, depth);
                self.body(&i.then, node, via, depth);
                for clause in i.elses.iter().flatten() {
                    if let Some(condition) = &clause.condition {
                        self.body(condition, node, via, depth);
                    }
                    self.body(&clause.body, node, via, depth);
                }
            }
            CompoundCommand::WhileClause(w) | CompoundCommand::UntilClause(w) => {
                let ast::WhileOrUntilClauseCommand(condition, body, _) = w;
                self.body(condition, node, via, depth);
                self.body(&body.list, node, via, depth);
            }
            CompoundCommand::Coprocess(c) => {
                if let Some(name) = &c.name {
                    let word = words::word(self, &name.value, node, depth);
                    self.node(node).words.push(word);
                }
                let index = self.view.pipelines.len() as u32;
                self.view.pipelines.push(Pipeline {
                    nodes: Vec::new(),
                    joined: Joined::First,
                    background: true,
                    negated: false,
                    parent: Some(node),
                    via,
                });
                let inner = self.command(&c.body, index, depth);
                self.view.pipelines[index as usize].nodes.push(inner);
            }
        }
    }

    fn test_expr(&mut self, expr: &ExtendedTestExpr, node: u32, depth: u32) {
        match expr {
            ExtendedTestExpr::And(a, b) | ExtendedTestExpr::Or(a, b) => {
                self.test_expr(a, node, depth);
                self.test_expr(b, node, depth);
            }
            ExtendedTestExpr::Not(a) | ExtendedTestExpr::Parenthesized(a) => {
                self.test_expr(a, node, depth)
            }
            ExtendedTestExpr::UnaryTest(_, w) => {
                let word = words::word(self, &w.value, node, depth);
                self.node(node).words.push(word);
            }
            ExtendedTestExpr::BinaryTest(_, a, b) => {
                for w in [a, b] {
                    let word = words::word(self, &w.value, node, depth);
                    self.node(node).words.push(word);
                }
            }
        }
    }

    fn simple(&mut self, simple: &ast::SimpleCommand, pipeline: u32, depth: u32) -> u32 {
        let node = self.push(NodeKind::Simple, pipeline, simple.to_string());
        let prefix = simple.prefix.iter().flat_map(|p| p.0.iter());
        for item in prefix {
            match item {
                CommandPrefixOrSuffixItem::AssignmentWord(_, w) => {
                    let word = words::word(self, &w.value, node, depth);
                    self.node(node).assignments.push(word);
                }
                other => self.item(other, node, depth),
            }
        }
        if let Some(name) = &simple.word_or_name {
            let word = words::word(self, &name.value, node, depth);
            self.node(node).words.push(word);
        }
        for item in simple.suffix.iter().flat_map(|s| s.0.iter()) {
            self.item(item, node, depth);
        }
        let program = program_index(&self.view.nodes[node as usize].words);
        self.node(node).program = program;
        self.nested_scripts(node, depth);
        node
    }

    fn item(&mut self, item: &CommandPrefixOrSuffixItem, node: u32, depth: u32) {
        match item {
            CommandPrefixOrSuffixItem::IoRedirect(r) => {
                let redirect = self.redirect(r, node, depth);
                self.node(node).redirects.push(redirect);
            }
            CommandPrefixOrSuffixItem::Word(w)
            | CommandPrefixOrSuffixItem::AssignmentWord(_, w) => {
                let word = words::word(self, &w.value, node, depth);
                self.node(node).words.push(word);
            }
            CommandPrefixOrSuffixItem::ProcessSubstitution(kind, sub) => {
                let word = self.process_substitution(kind, sub, node, depth);
                self.node(node).words.push(word);
            }
        }
    }

    fn process_substitution(
        &mut self,
        kind: &ast::ProcessSubstitutionKind,
        sub: &ast::SubshellCommand,
        node: u32,
        depth: u32,
    ) -> Word {
        self.body(&sub.list, node, Via::ProcessSubstitution, depth);
        let sigil = match kind {
            ast::ProcessSubstitutionKind::Read => '<',
            ast::ProcessSubstitutionKind::Write => '>',
        };
        Word {
            text: format!("{sigil}{sub}"),
            dynamic: true,
        }
    }

    fn redirect_list(&mut self, list: Option<&ast::RedirectList>, node: u32, depth: u32) {
        for r in list.iter().flat_map(|l| l.0.iter()) {
            let redirect = self.redirect(r, node, depth);
            self.node(node).redirects.push(redirect);
        }
    }

    fn redirect(&mut self, redirect: &IoRedirect, node: u32, depth: u32) -> Redirect {
        let fd = |fd: &Option<i32>| fd.and_then(|f| u32::try_from(f).ok());
        match redirect {
            IoRedirect::File(n, kind, target) => {
                let op = match kind {
                    IoFileRedirectKind::Read => "<",
                    IoFileRedirectKind::Write => ">",
                    IoFileRedirectKind::Append => ">>",
                    IoFileRedirectKind::ReadAndWrite => "<>",
                    IoFileRedirectKind::Clobber => ">|",
                    IoFileRedirectKind::DuplicateInput => "<&",
                    IoFileRedirectKind::DuplicateOutput => ">&",
                };
                let target = match target {
                    IoFileRedirectTarget::Filename(w) | IoFileRedirectTarget::Duplicate(w) => {
                        words::word(self, &w.value, node, depth)
                    }
                    IoFileRedirectTarget::Fd(f) => Word {
                        text: f.to_string(),
                        dynamic: false,
                    },
                    IoFileRedirectTarget::ProcessSubstitution(kind, sub) => {
                        self.process_substitution(kind, sub, node, depth)
                    }
                };
                Redirect {
                    fd: fd(n),
                    op: op.into(),
                    target,
                }
            }
            IoRedirect::HereDocument(n, doc) => {
                self.here_ends
                    .push(doc.here_end.value.replace(['\'', '"', '\\'], ""));
                let target = if doc.requires_expansion {
                    words::heredoc(self, &doc.doc.value, node, depth)
                } else {
                    Word {
                        text: doc.doc.value.clone(),
                        dynamic: false,
                    }
                };
                Redirect {
                    fd: fd(n),
                    op: if doc.remove_tabs { "<<-" } else { "<<" }.into(),
                    target,
                }
            }
            IoRedirect::HereString(n, w) => Redirect {
                fd: fd(n),
                op: "<<<".into(),
                target: words::word(self, &w.value, node, depth),
            },
            IoRedirect::OutputAndError(w, append) => Redirect {
                fd: None,
                op: if *append { "&>>" } else { "&>" }.into(),
                target: words::word(self, &w.value, node, depth),
            },
        }
    }

    /// Scripts that a simple command hands to a shell: `bash -c TEXT`, `eval TEXT`, or a
    /// here-string / here-document on the stdin of a shell given no script.
    fn nested_scripts(&mut self, node: u32, depth: u32) {
        let n = &self.view.nodes[node as usize];
        let Some(at) = n.program else { return };
        let name = basename(&n.words[at as usize].text);
        let args = &n.words[at as usize + 1..];
        let mut scripts: Vec<(String, Via)> = Vec::new();
        let mut shell_file = None;
        if name == "eval" {
            let text: Vec<&str> = args.iter().map(|w| w.text.as_str()).collect();
            scripts.push((text.join(" "), Via::Eval));
        } else if SHELLS.contains(&name) {
            match shell_script(args) {
                ShellScript::Text(text) => scripts.push((text, Via::Shell)),
                ShellScript::Stdin => {
                    scripts.extend(stdin_text(&n.redirects).map(|t| (t, Via::Shell)))
                }
                ShellScript::File(at) => shell_file = at,
            }
        }
        let file = script_files::script_word(&n.words[at as usize], args, shell_file)
            .map(|(word, runs)| self.cwd.map(|cwd| script_files::read(word, runs, cwd)));
        // Programs that run a command line given as text or as their arguments.
        scripts.extend(
            commands_in_arguments(name, args, &n.words[..at as usize])
                .into_iter()
                .map(|text| (text, Via::Shell)),
        );
        if let Some(read) = file {
            self.runs_files = true;
            match read {
                Some(ScriptFile::Text(text)) => scripts.push((text, Via::ScriptFile)),
                Some(ScriptFile::Unread(why)) => self.view.mark_partial(why),
                Some(ScriptFile::Nothing) | None => {}
            }
        }
        for (text, via) in scripts {
            self.script(&text, Some(node), via, depth + 1);
        }
    }

    /// `echo TEXT | sh`, `printf TEXT | bash`, `cat <<EOF | sh`: the script a shell reads
    /// from the command before it in its pipeline.
    fn scripts_piped_into_shells(&mut self, pipeline: u32, depth: u32) {
        let nodes = self.view.pipelines[pipeline as usize].nodes.clone();
        for pair in nodes.windows(2) {
            let (from, to) = (
                &self.view.nodes[pair[0] as usize],
                &self.view.nodes[pair[1] as usize],
            );
            let (Some(f), Some(t)) = (from.program, to.program) else {
                continue;
            };
            if !SHELLS.contains(&basename(&to.words[t as usize].text))
                || !matches!(
                    shell_script(&to.words[t as usize + 1..]),
                    ShellScript::Stdin
                )
            {
                continue;
            }
            let args = &from.words[f as usize + 1..];
            let text = match basename(&from.words[f as usize].text) {
                "echo" | "printf" => {
                    let words: Vec<&str> = args
                        .iter()
                        .map(|w| w.text.as_str())
                        .skip_while(|w| w.starts_with('-'))
                        .collect();
                    Some(words.join(" "))
                }
                "cat" if args.is_empty() => stdin_text(&from.redirects),
                _ => None,
            };
            if let Some(text) = text {
                self.script(&text, Some(pair[1]), Via::Shell, depth + 1);
            }
        }
    }

    /// When the source of an arithmetic command is not `((…))` with both pairs of
    /// parentheses adjacent, the text inside its outer parentheses (a subshell's body).
    fn spaced_parentheses(&self, loc: &brush_parser::SourceSpan) -> Option<String> {
        let text: String = self
            .source
            .chars()
            .skip(loc.start.index)
            .take(loc.end.index.saturating_sub(loc.start.index))
            .collect();
        let adjacent = text.starts_with("((") && text.ends_with("))");
        if adjacent || text.len() < 2 {
            return None;
        }
        let inner = text.strip_prefix('(')?.strip_suffix(')')?;
        Some(inner.to_string())
    }
}

fn kind_of(compound: &CompoundCommand) -> NodeKind {
    match compound {
        CompoundCommand::Arithmetic(_) => NodeKind::Arithmetic,
        CompoundCommand::ArithmeticForClause(_)
        | CompoundCommand::ForClause(_)
        | CompoundCommand::WhileClause(_)
        | CompoundCommand::UntilClause(_) => NodeKind::Loop,
        CompoundCommand::BraceGroup(_) => NodeKind::Group,
        CompoundCommand::Subshell(_) => NodeKind::Subshell,
        CompoundCommand::CaseClause(_) => NodeKind::Case,
        CompoundCommand::IfClause(_) => NodeKind::If,
        CompoundCommand::Coprocess(_) => NodeKind::Coprocess,
    }
}

/// The deepest nesting of brackets and compound-command keywords in `text`, quotes
/// ignored. A closer pops only its own opener (a `case` pattern's `)` closes nothing), so
/// it errs high.
pub(super) fn nesting_depth(text: &str) -> usize {
    let mut open: Vec<&str> = Vec::new();
    let mut deepest = 0usize;
    let close = |open: &mut Vec<&str>, opener: &str| {
        if open.last() == Some(&opener) {
            open.pop();
        }
    };
    let tokens = text.split(|c: char| !(c.is_ascii_alphanumeric() || "(){}[]".contains(c)));
    for token in tokens {
        match token {
            "if" | "case" | "do" | "function" => open.push(token),
            "fi" => close(&mut open, "if"),
            "esac" => close(&mut open, "case"),
            "done" => close(&mut open, "do"),
            _ => {
                for (i, c) in token.char_indices() {
                    match c {
                        '(' | '{' | '[' => {
                            open.push(&token[i..i + 1]);
                            deepest = deepest.max(open.len());
                        }
                        ')' => close(&mut open, "("),
                        '}' => close(&mut open, "{"),
                        ']' => close(&mut open, "["),
                        _ => {}
                    }
                }
            }
        }
        deepest = deepest.max(open.len());
    }
    deepest
}
