//! Self-protection: the guarded agent may not switch its guard off. Before any configured
//! hook runs on a tool call, the engine asks [`SelfProtection::check`] whether the call
//! would change one of the places that decide which guards run — hookhost's own
//! configuration, state, cache, trust and audit folders, the project's `.hookhost/`, and
//! the agents' own hook settings files — or read one of hookhost's secrets, or run one of
//! hookhost's state-changing commands. Such a call is denied with the reason.
//!
//! What is recognised: the file tools (their target resolved past `..` and symbolic
//! links), and Bash commands read through the host's shell view (nested `sh -c`, `eval`
//! and substitutions included): redirections, the file-changing commands, interpreters'
//! inline code that spells a protected path, and `hookhost trust|claude install|…`. An
//! agent with a shell can always compute a path it never spells: SECURITY.md's threat
//! model says how far this reaches, and the locked deployment (root-owned managed files)
//! that holds against code too.
//!
//! It is on whenever an engine answers tool events; only the owners' `selfProtection`
//! setting (managed ▸ `--settings` ▸ user) turns it off or changes the set.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::file_target::{self, Access};
use crate::shell::{NodeKind, ShellView, Word};

mod simple;
use simple::Simple;

/// How far a whole-tree command's reach is judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reach {
    /// Before the configured hooks: a target that is a protected place, lies in one, or
    /// holds one below the home and the project (`rm -rf ~/.config`). The home, the
    /// project and `/` are left to the configured guards, whose reasons say more.
    Named,
    /// After them, when they let the call run: a move, removal or mode change of the
    /// home, the project or `/` too (`mv ~ /tmp/x`, `chmod 000 ~`), which takes every
    /// guard away at once. `find`, which mostly reads, keeps the named reach unless it
    /// deletes or runs a command on what it finds (`find ~ -name hooks.json -delete`).
    Whole,
}

/// One protected place: a file or a folder (everything below it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Place {
    /// The path, resolved where it exists.
    path: PathBuf,
    /// What it is, for the reason.
    what: String,
}

/// The protected set and the account's home (to read `~` and `$HOME` in commands).
#[derive(Debug, Clone, Default)]
pub(crate) struct SelfProtection {
    /// Places no tool call may write, move, delete, link or change the mode of.
    places: Vec<Place>,
    /// Files no tool call may read either (the serve token, the artifact key).
    secrets: Vec<Place>,
    /// The owner's home.
    home: Option<PathBuf>,
    /// The project: it and the home (and what holds them) are judged only with
    /// [`Reach::Whole`], after the configured hooks.
    project: Option<PathBuf>,
    /// Recent commands' shell views: an agent runs the same commands again and again.
    views: std::sync::Arc<crate::shell::ViewMemo>,
}

// What a program does with the words after it: one table for the host and the guards.
use crate::shell::facts::{FIND_ACTIONS, INTO_FOLDER, TREE_COMMANDS};

/// The programs a `find` with `args` runs on what it finds (`-exec PROGRAM …`).
fn find_programs<'a>(args: &'a [&'a str]) -> impl Iterator<Item = &'a str> + 'a {
    args.windows(2)
        .filter(|pair| FIND_ACTIONS.contains(&pair[0]) && pair[0] != "-delete")
        .map(|pair| crate::shell::basename(pair[1]))
}

/// How many entries below the protected folders a `find` with an action has its `-name`
/// patterns tried against before it is taken to reach them.
const FIND_WALK_LIMIT: usize = 4096;

/// Interpreters, with the flags that take inline code.
const INTERPRETERS: &[(&str, &[&str])] = &[
    ("python", &["-c"]),
    ("python2", &["-c"]),
    ("python3", &["-c"]),
    ("node", &["-e", "--eval", "-p", "--print"]),
    ("nodejs", &["-e", "--eval", "-p", "--print"]),
    ("deno", &["eval"]),
    ("bun", &["-e", "--eval"]),
    ("perl", &["-e", "-E"]),
    ("ruby", &["-e"]),
    ("php", &["-r"]),
    ("lua", &["-e"]),
    ("pwsh", &["-c", "-Command", "-command"]),
    ("powershell", &["-c", "-Command", "-command"]),
    ("osascript", &["-e"]),
    ("awk", &[]),
    ("gawk", &[]),
];

/// hookhost's own commands that change what guards run, as `(subcommand words, flag)`:
/// the command is refused when its arguments start with the words and (if given) hold
/// the flag.
const HOOKHOST_COMMANDS: &[(&[&str], Option<&str>)] = &[
    (&["trust"], None),
    (&["claude", "install"], None),
    (&["claude", "uninstall"], None),
    (&["install"], None),
    (&["uninstall"], None),
    (&["cache"], Some("--clear")),
    (&["cache"], Some("--prune")),
    // Moves a tag's remembered resolution in the component store.
    (&["pull"], None),
    // The envelope's launcher: only hookhost's own rewrite of a command calls it.
    (&["envelope", "run"], None),
];

/// What resolves the places: a memo of the folders on the way (unix); elsewhere each
/// path on its own, as [`file_target::resolve`] does.
#[cfg(unix)]
type PlaceResolver = crate::resolve::Resolver;

/// Each path resolved on its own (no memo off unix, where `canonicalize` spells paths
/// its own way).
#[cfg(not(unix))]
#[derive(Default)]
struct PlaceResolver(());

#[cfg(not(unix))]
impl PlaceResolver {
    fn resolve_lenient(&mut self, path: &Path) -> PathBuf {
        file_target::resolve(path)
    }
}

/// Why a tool call is refused.
fn reason(what: &str, path: &Path) -> String {
    format!(
        "hookhost self-protection: {what} ({}) decides which guards run, and an agent's tool call may not change it; the user can, from their own terminal",
        path.display()
    )
}

impl SelfProtection {
    /// A protection over `places` (files or folders no tool call may change) and
    /// `secrets` (files no tool call may read), for the owner's `home` and the `project`,
    /// reading commands through `views` (the Wasm hooks' memo too).
    pub(crate) fn new(
        places: Vec<(PathBuf, String)>,
        secrets: Vec<(PathBuf, String)>,
        home: Option<PathBuf>,
        project: Option<PathBuf>,
        views: std::sync::Arc<crate::shell::ViewMemo>,
    ) -> SelfProtection {
        // Most places share their folders: each folder is resolved once.
        let mut memo = PlaceResolver::default();
        let mut resolved = |path: &Path| memo.resolve_lenient(path);
        let mut place = |(path, what): (PathBuf, String)| Place {
            path: resolved(&path),
            what,
        };
        let mut places: Vec<Place> = places.into_iter().map(&mut place).collect();
        places.dedup();
        let secrets = secrets.into_iter().map(&mut place).collect();
        SelfProtection {
            places,
            secrets,
            home: home.map(|home| resolved(&home)),
            project: project.map(|project| resolved(&project)),
            views,
        }
    }

    /// The reason to deny the tool call `tool` with `tool_input`, run in `cwd`, when it
    /// would change a protected place, read a secret or run a hookhost command that
    /// changes what runs, judged with `reach`; `None` when it may run. `target` is the
    /// file tool's target as the input already resolved it (not resolved again, unless
    /// it starts with `~` or `$`, which only self-protection reads as the home).
    pub(crate) fn check(
        &self,
        tool: &str,
        tool_input: &Value,
        cwd: Option<&Path>,
        reach: Reach,
        target: Option<&file_target::FileTarget>,
    ) -> Option<String> {
        // The last word adds only whole-tree commands' broad targets: a file tool's
        // target was judged in full before the hooks.
        let runs_bash = crate::tools::runs_bash(tool, tool_input);
        if reach == Reach::Whole && !runs_bash {
            return None;
        }
        if let Some((name, access)) = file_target::tool_field(tool) {
            let path = match target {
                Some(target) if !target.given.starts_with(['~', '$']) => target.resolved.clone(),
                _ => self.locate(crate::tools::text(tool_input, name)?, cwd)?,
            };
            return match access {
                Access::Writes => self.written(&path, false, reach),
                Access::Reads => self.read(&path, false),
                Access::ReadsTree => self.read(&path, true),
            };
        }
        if runs_bash {
            return self.command(crate::tools::command(tool_input)?, cwd, reach);
        }
        None
    }

    /// The path a tool or a command names, resolved against `cwd`, with `~` and `$HOME`
    /// read as the owner's home; `None` for a path that holds another expansion.
    fn locate(&self, text: &str, cwd: Option<&Path>) -> Option<PathBuf> {
        self.lexical(text, cwd)
            .map(|path| file_target::resolve_as_opened(&path))
    }

    /// [`SelfProtection::locate`] before links are followed: absolute, not resolved.
    fn lexical(&self, text: &str, cwd: Option<&Path>) -> Option<PathBuf> {
        let home = self.home.as_deref();
        let rest = ["~/", "$HOME/", "${HOME}/"]
            .iter()
            .find_map(|prefix| text.strip_prefix(prefix));
        let path = match (rest, home) {
            (Some(rest), Some(home)) => home.join(rest),
            _ if matches!(text, "~" | "$HOME" | "${HOME}") => home?.to_path_buf(),
            _ => PathBuf::from(text),
        };
        if path.to_str().is_some_and(|p| p.contains(['$', '`'])) || text.is_empty() {
            return None;
        }
        Some(if path.is_absolute() {
            path
        } else {
            cwd?.join(path)
        })
    }

    /// The reason to refuse a write of `path` (and, for a command that takes a whole
    /// tree, of everything below it, as far as `reach` goes).
    fn written(&self, path: &Path, tree: bool, reach: Reach) -> Option<String> {
        let tree = tree && (reach == Reach::Whole || !self.too_broad(path));
        self.places.iter().chain(&self.secrets).find_map(|place| {
            let hit = path.starts_with(&place.path) || (tree && place.path.starts_with(path));
            hit.then(|| reason(&place.what, &place.path))
        })
    }

    /// Whether a whole-tree command on `folder` is everything rather than hookhost's files:
    /// the home, the project, or a folder that holds either (`/`).
    fn too_broad(&self, folder: &Path) -> bool {
        folder.parent().is_none()
            || [&self.home, &self.project]
                .into_iter()
                .flatten()
                .any(|broad| broad.starts_with(folder))
    }

    /// The reason to refuse a read of `path` (with `tree`, of everything below it).
    fn read(&self, path: &Path, tree: bool) -> Option<String> {
        self.secrets.iter().find_map(|secret| {
            let hit = path.starts_with(&secret.path) || (tree && secret.path.starts_with(path));
            hit.then(|| {
                format!(
                    "hookhost self-protection: {} ({}) is a secret of hookhost's; an agent's tool call may not read it",
                    secret.what,
                    secret.path.display()
                )
            })
        })
    }

    /// The reason to refuse the Bash `script`, from its shell view.
    fn command(&self, script: &str, cwd: Option<&Path>, reach: Reach) -> Option<String> {
        let view = self.views.view_in(script, cwd);
        if reach == Reach::Named && view.partial && self.names_a_protected_place(script) {
            return Some(
                "hookhost self-protection: the command names one of hookhost's guard files, and hookhost cannot read all of it; not run".into(),
            );
        }
        self.view(&view, cwd, reach)
    }

    /// Whether `text` spells a protected place or hookhost itself.
    fn names_a_protected_place(&self, text: &str) -> bool {
        text.contains("hookhost")
            || self.places.iter().chain(&self.secrets).any(|place| {
                self.spellings(&place.path)
                    .iter()
                    .any(|s| text.contains(s.as_str()))
            })
    }

    fn view(&self, view: &ShellView, cwd: Option<&Path>, reach: Reach) -> Option<String> {
        // A `cd DIR` earlier in the line moves where later relative paths land; which
        // later commands it reaches depends on how they are joined, so each is judged in
        // every folder a `cd` before it names, and in the one the line started in.
        let mut folders: Vec<Option<PathBuf>> = vec![cwd.map(Path::to_path_buf)];
        for (index, node) in view.nodes.iter().enumerate() {
            for folder in folders.clone() {
                if let Some(why) = self.node(node, folder.as_deref(), reach) {
                    return Some(why);
                }
                if reach == Reach::Named
                    && let Some(why) = self.fed_by_xargs(view, index, folder.as_deref())
                {
                    return Some(why);
                }
            }
            if let Some(folder) = self.cd_target(node, folders.last().cloned().flatten().as_deref())
            {
                folders.push(Some(folder));
            }
        }
        None
    }

    /// A writing command run by `xargs` writes what the commands before it in the
    /// pipeline print: each place they name counts as its target, with everything below
    /// it (`ls ~/.config/hookhost | xargs rm`); the home, the project and `/` are left to
    /// the configured guards, as for a command that names them.
    fn fed_by_xargs(&self, view: &ShellView, index: usize, cwd: Option<&Path>) -> Option<String> {
        let node = &view.nodes[index];
        let program = node.program? as usize;
        let (wrappers, words) = node.words.split_at(program);
        let name = crate::shell::basename(&words.first()?.text);
        let fed = wrappers
            .iter()
            .any(|w| crate::shell::basename(&w.text) == "xargs");
        // An in-place editor fed by xargs counts whatever its flags.
        if !fed
            || !(crate::shell::facts::writes_files(name, [])
                || crate::shell::facts::IN_PLACE.contains(&name))
        {
            return None;
        }
        view.nodes[..index]
            .iter()
            .filter(|upstream| upstream.pipeline == node.pipeline)
            .flat_map(|upstream| upstream.words.iter().skip(1))
            .filter(|word| !word.text.starts_with('-'))
            .filter_map(|word| self.locate(&word.text, cwd))
            .find_map(|path| self.written(&path, true, Reach::Named))
    }

    /// The folder a `cd DIR` (or `pushd DIR`) node moves to, resolved from `cwd`.
    fn cd_target(&self, node: &crate::shell::Node, cwd: Option<&Path>) -> Option<PathBuf> {
        if node.kind != NodeKind::Simple {
            return None;
        }
        let words = node.words.get(node.program? as usize..)?;
        let (program, args) = words.split_first()?;
        if !matches!(program.text.as_str(), "cd" | "pushd") {
            return None;
        }
        let dir = args
            .iter()
            .find(|w| !w.text.starts_with('-') || w.text == "-")?;
        if dir.text == "-"
            || (dir.dynamic && !dir.text.starts_with('~') && !dir.text.starts_with("$HOME"))
        {
            return None;
        }
        self.lexical(&dir.text, cwd)
            .map(|path| file_target::without_dots(&path))
    }

    /// The reason to refuse one node of a view, run in `cwd`.
    fn node(&self, node: &crate::shell::Node, cwd: Option<&Path>, reach: Reach) -> Option<String> {
        // A redirection writes one file: judged in full before the hooks.
        let redirects = if reach == Reach::Named {
            node.redirects.as_slice()
        } else {
            &[]
        };
        for redirect in redirects {
            let writes = crate::shell::facts::redirect_writes(&redirect.op, &redirect.target.text);
            let reads = matches!(redirect.op.as_str(), "<" | "<>");
            let Some(path) = self.locate(&redirect.target.text, cwd) else {
                continue;
            };
            if writes && let Some(why) = self.written(&path, false, reach) {
                return Some(why);
            }
            if reads && let Some(why) = self.read(&path, false) {
                return Some(why);
            }
        }
        if node.kind != NodeKind::Simple {
            return None;
        }
        let start = node.program.unwrap_or(0) as usize;
        let words = node.words.get(start..).filter(|w| !w.is_empty())?;
        self.simple(words, cwd, reach)
    }

    /// The reason to refuse one simple command (`words[0]` is what it runs): what a
    /// `find` reads, any argument naming a secret, hookhost's own programs and inline
    /// code, then the places it writes. With `reach` whole, only whole-tree commands are
    /// judged (the last word adds only their broad targets; the rest was judged before).
    fn simple(&self, words: &[Word], cwd: Option<&Path>, reach: Reach) -> Option<String> {
        let command = Simple::read(words);
        let name = command.name;
        if let Some(why) = self.find_reads(&command, cwd) {
            return Some(why);
        }
        let whole_tree = (TREE_COMMANDS.contains(&name) && (name != "find" || command.find_acts))
            || command.recursive;
        if reach == Reach::Whole
            && (!whole_tree || (command.find_acts && !self.find_may_reach(&command.args)))
        {
            return None;
        }
        if let Some(why) = self.names_a_secret(&command.args, cwd) {
            return Some(why);
        }
        if let Some(why) = self.refused_program(&command, cwd) {
            return Some(why);
        }
        if !crate::shell::facts::writes_files(name, command.args.iter().copied()) {
            return None;
        }
        let reach = if name == "find" && !command.find_acts {
            Reach::Named
        } else {
            reach
        };
        let tree = TREE_COMMANDS.contains(&name) || command.recursive;
        let (targets, operands) = self.write_targets(&command, cwd);
        targets
            .iter()
            .find_map(|path| self.written(path, tree, reach))
            .or_else(|| {
                operands
                    .iter()
                    .find_map(|operand| self.glob_written(operand, cwd, tree, reach))
            })
    }

    /// A `find` that only reads, running a program on what it finds (`-exec grep …`):
    /// the trees it starts from are read whole.
    fn find_reads(&self, command: &Simple<'_>, cwd: Option<&Path>) -> Option<String> {
        let args = &command.args;
        if command.name != "find" || command.find_acts || find_programs(args).next().is_none() {
            return None;
        }
        args.iter()
            .take_while(|a| !a.starts_with('-'))
            .filter_map(|start| self.locate(start, cwd))
            .find_map(|start| self.read(&start, true))
    }

    /// Any argument naming a secret reads it (`cat`, `cp`, `base64`, …): by its words, or
    /// where it lands as the kernel opens it. A path with nothing at it reads nothing and
    /// costs one `lstat` (which follows every link but the last).
    fn names_a_secret(&self, args: &[&str], cwd: Option<&Path>) -> Option<String> {
        for arg in args {
            let value = arg.split_once('=').map_or(*arg, |(_, v)| v);
            for text in [*arg, value] {
                let Some(path) = self.lexical(text, cwd) else {
                    continue;
                };
                let why = self
                    .read(&file_target::without_dots(&path), false)
                    .or_else(|| {
                        std::fs::symlink_metadata(&path).ok()?;
                        let real = std::fs::canonicalize(&path).ok()?;
                        self.read(&real, false)
                    });
                if why.is_some() {
                    return why;
                }
            }
        }
        None
    }

    /// hookhost's own programs run by the agent, and inline code an interpreter runs.
    fn refused_program(&self, command: &Simple<'_>, cwd: Option<&Path>) -> Option<String> {
        let name = command.name;
        if name == "hookhost" || self.is_own_binary(command.program, cwd) {
            return hookhost_command(&command.args);
        }
        if name == "hookhost-envelope" {
            return Some("hookhost self-protection: `hookhost-envelope` is the envelope's launcher; only hookhost's own rewrite of a command calls it".into());
        }
        let (_, flags) = INTERPRETERS.iter().find(|(n, _)| {
            *n == name
                || name
                    .strip_prefix(n)
                    .is_some_and(|v| v.starts_with(|c: char| c == '.' || c.is_ascii_digit()))
        })?;
        self.inline_code(&command.args, flags)
    }

    /// The places a writing command writes, and its operands (for globs): a copy or a
    /// link only its destination — into a folder, what lands there —, a move its sources
    /// too, a hard link its sources (the same file under another name), `-t DIR` its
    /// folder and what lands in it.
    fn write_targets<'a>(
        &self,
        command: &Simple<'a>,
        cwd: Option<&Path>,
    ) -> (Vec<PathBuf>, Vec<&'a str>) {
        let (name, args) = (command.name, &command.args);
        let operands: Vec<&str> = args
            .iter()
            .map(|a| {
                if name == "dd" {
                    a.strip_prefix("of=").unwrap_or(a)
                } else {
                    a
                }
            })
            .filter(|a| !a.starts_with('-'))
            .collect();
        let named: Vec<PathBuf> = operands
            .iter()
            .filter_map(|a| self.locate(a, cwd))
            .collect();
        let into_folder = INTO_FOLDER.contains(&name)
            && named.len() > 1
            && named.last().is_some_and(|last| last.is_dir());
        let mut targets: Vec<PathBuf> = if command.copying {
            let contents = operands[..operands.len().saturating_sub(1)]
                .iter()
                .any(|source| {
                    source.ends_with("/.")
                        || *source == "."
                        || (name == "rsync" && source.ends_with('/'))
                });
            if into_folder && !contents {
                Vec::new()
            } else {
                named.last().cloned().into_iter().collect()
            }
        } else if into_folder {
            named[..named.len() - 1].to_vec()
        } else {
            named.clone()
        };
        let symbolic = args.iter().any(|a| {
            *a == "--symbolic" || (a.starts_with('-') && !a.starts_with("--") && a.contains('s'))
        });
        if matches!(name, "ln" | "link") && !symbolic {
            targets.extend(named[..named.len().saturating_sub(1)].iter().cloned());
        }
        // `cp -t DIR SOURCE…` names its destination first.
        let target_dir = args
            .windows(2)
            .find(|w| w[0] == "-t")
            .map(|w| w[1])
            .or_else(|| {
                args.iter()
                    .find_map(|a| a.strip_prefix("--target-directory="))
            });
        if let Some(dir) = target_dir.and_then(|dir| self.locate(dir, cwd)) {
            targets.extend(
                named
                    .iter()
                    .filter_map(|source| Some(dir.join(source.file_name()?))),
            );
            targets.push(dir);
        }
        // `cp -r x/.hookhost .` lands on `./.hookhost`.
        if into_folder && let Some((last, sources)) = named.split_last() {
            targets.extend(
                sources
                    .iter()
                    .filter_map(|source| Some(last.join(source.file_name()?))),
            );
        }
        (targets, operands)
    }

    /// Whether a `find` with `args` may act on a protected place: unless its `-name` /
    /// `-iname` patterns match no name on a protected place's path nor below a protected
    /// folder (read up to [`FIND_WALK_LIMIT`] entries; past it, it may), it may — so
    /// `find . -name '*.o' -delete` runs, and `find ~ -name hooks.json -delete` is
    /// refused.
    fn find_may_reach(&self, args: &[&str]) -> bool {
        let patterns: Vec<globset::GlobMatcher> = args
            .windows(2)
            .filter(|pair| matches!(pair[0], "-name" | "-iname"))
            .filter_map(|pair| {
                globset::GlobBuilder::new(pair[1])
                    .case_insensitive(pair[0] == "-iname")
                    .build()
                    .ok()
                    .map(|glob| glob.compile_matcher())
            })
            .collect();
        let names = args
            .iter()
            .filter(|a| matches!(**a, "-name" | "-iname"))
            .count();
        if patterns.is_empty() || patterns.len() != names {
            return true;
        }
        let matches = |name: &std::ffi::OsStr| patterns.iter().any(|glob| glob.is_match(name));
        let mut budget = FIND_WALK_LIMIT;
        self.places.iter().chain(&self.secrets).any(|place| {
            if place
                .path
                .components()
                .any(|part| matches(part.as_os_str()))
            {
                return true;
            }
            // Every name below a protected folder, breadth first, within the budget.
            let mut folders = vec![place.path.clone()];
            while let Some(folder) = folders.pop() {
                let Ok(entries) = std::fs::read_dir(&folder) else {
                    continue;
                };
                for entry in entries.flatten() {
                    if budget == 0 {
                        return true;
                    }
                    budget -= 1;
                    if matches(&entry.file_name()) {
                        return true;
                    }
                    if entry.file_type().is_ok_and(|t| t.is_dir()) {
                        folders.push(entry.path());
                    }
                }
            }
            false
        })
    }

    /// The reason to refuse a write through the glob `pattern` (bash expands it before
    /// the command sees it): when it matches a protected place, or with `tree` a folder
    /// above one. A `*`, `?` or `[` at the start of a name does not match a leading dot,
    /// as in bash.
    fn glob_written(
        &self,
        pattern: &str,
        cwd: Option<&Path>,
        tree: bool,
        reach: Reach,
    ) -> Option<String> {
        if !pattern.contains(['*', '?', '[']) {
            return None;
        }
        let path = self.locate(pattern, cwd)?;
        let parts: Vec<String> = path
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let matches = |part: &str, name: &str| {
            if !part.contains(['*', '?', '[']) {
                return part == name;
            }
            if name.starts_with('.') && !part.starts_with('.') {
                return false;
            }
            globset::Glob::new(part).is_ok_and(|glob| glob.compile_matcher().is_match(name))
        };
        self.places.iter().chain(&self.secrets).find_map(|place| {
            let names: Vec<String> = place
                .path
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            let matched: PathBuf = place.path.components().take(parts.len()).collect();
            let fits = parts.len() <= names.len()
                && (parts.len() == names.len()
                    || (tree && (reach == Reach::Whole || !self.too_broad(&matched))))
                && parts.iter().zip(&names).all(|(p, n)| matches(p, n));
            fits.then(|| reason(&place.what, &place.path))
        })
    }

    /// The reason to refuse an interpreter's inline code that spells a protected path.
    fn inline_code(&self, args: &[&str], flags: &[&str]) -> Option<String> {
        let code: Vec<&str> = if flags.is_empty() {
            args.to_vec()
        } else {
            args.windows(2)
                .filter(|pair| flags.contains(&pair[0]))
                .map(|pair| pair[1])
                .collect()
        };
        for text in code {
            for place in self.places.iter().chain(&self.secrets) {
                if self
                    .spellings(&place.path)
                    .iter()
                    .any(|s| text.contains(s.as_str()))
                {
                    return Some(format!(
                        "hookhost self-protection: inline code names {} ({}), which decides which guards run; an agent's tool call may not change it",
                        place.what,
                        place.path.display()
                    ));
                }
            }
        }
        None
    }

    /// Whether `program`, named by a path, is this very hookhost binary under another
    /// name (a symbolic or hard link: the same file); a program found by name on `PATH`
    /// is judged by its name.
    fn is_own_binary(&self, program: &str, cwd: Option<&Path>) -> bool {
        static OWN: std::sync::OnceLock<Option<crate::platform::FileId>> =
            std::sync::OnceLock::new();
        if !program.contains('/') {
            return false;
        }
        let Some(own) = OWN.get_or_init(|| {
            let exe = std::env::current_exe().ok()?;
            crate::platform::path_id(&exe).ok()
        }) else {
            return false;
        };
        self.locate(program, cwd)
            .and_then(|path| crate::platform::path_id(&path).ok())
            .is_some_and(|id| id == *own)
    }

    /// How code may spell `path`: whole, and below the home as `~/…`, `$HOME/…` or the
    /// part below the home (what `os.path.expanduser('~') + '/.config/hookhost'` holds).
    fn spellings(&self, path: &Path) -> Vec<String> {
        let mut forms = vec![path.display().to_string()];
        if let Some(rest) = self.home.as_deref().and_then(|h| path.strip_prefix(h).ok())
            && rest.components().count() > 0
        {
            forms.push(rest.display().to_string());
        }
        forms
    }
}

/// The self-protection of an engine loaded from `config` with the Wasm folders of `wasm`
/// and the session state folder `state_dir` (`None` when an owner turned it off): the
/// [`places`] it protects.
pub(crate) fn for_engine(
    config: &crate::config::LoadedConfig,
    wasm: &crate::executor::wasm::WasmOptions,
    state_dir: Option<&Path>,
    audit: Option<&Path>,
) -> Option<SelfProtection> {
    if !config.self_protection.enabled {
        return None;
    }
    let (mut places, secrets) = places(config, wasm, state_dir, audit);
    // git's configuration changes what later git commands run (aliases, `core.hooksPath`,
    // `core.fsmonitor`): no tool call writes it by name. (Ordinary git writes it itself,
    // so the envelope keeps it writable.)
    if let Some(project) = &config.project_dir {
        places.push((
            project.join(".git").join("config"),
            "the project's git configuration".into(),
        ));
    }
    Some(SelfProtection::new(
        places,
        secrets,
        config.home.clone(),
        config.project_dir.clone(),
        wasm.views.clone(),
    ))
}

/// A place and what it is.
pub(crate) type Named = (PathBuf, String);

/// What decides which guards run — hookhost's folders, the audit log, the project's
/// `.hookhost/`, every hook settings file, and the owners' additions, less what they
/// allow — and hookhost's secrets (the serve token, the artifact key), each with what it
/// is: what self-protection guards and the envelope keeps read-only.
pub(crate) fn places(
    config: &crate::config::LoadedConfig,
    wasm: &crate::executor::wasm::WasmOptions,
    state_dir: Option<&Path>,
    audit: Option<&Path>,
) -> (Vec<Named>, Vec<Named>) {
    let settings = &config.self_protection;
    let mut places: Vec<(std::path::PathBuf, String)> = Vec::new();
    let mut add = |path: Option<&Path>, what: &str| {
        if let Some(path) = path {
            places.push((path.to_path_buf(), what.to_string()));
        }
    };
    add(
        wasm.config_dir.as_deref(),
        "hookhost's configuration folder",
    );
    add(wasm.cache_dir.as_deref(), "hookhost's artifact cache");
    add(wasm.oci_dir.as_deref(), "hookhost's component store");
    add(state_dir, "hookhost's state folder");
    add(audit, "hookhost's audit log");
    let project_own = config.project_dir.as_ref().map(|dir| dir.join(".hookhost"));
    add(project_own.as_deref(), "the project's .hookhost folder");
    let git_hooks = config
        .project_dir
        .as_ref()
        .map(|dir| dir.join(".git").join("hooks"));
    add(
        git_hooks.as_deref(),
        "the project's git hooks (they run at the next commit)",
    );
    for file in &config.guard_files {
        add(Some(file), "a hook settings file");
    }
    for path in &settings.paths {
        add(Some(path), "a place the owner protects");
    }
    // Under the envelope the user's own skills and commands are what runs outside it
    // (Claude Code runs their `!` lines itself): no tool call plants one there.
    if config.envelope.enabled
        && let Some(home) = &config.home
    {
        for folder in ["skills", "commands"] {
            add(
                Some(&home.join(".claude").join(folder)),
                "the user's Claude Code skills and commands (their `!` lines run outside the envelope)",
            );
        }
    }
    let secrets = wasm
        .config_dir
        .iter()
        .flat_map(|dir| {
            [
                (dir.join("serve-token"), "the serve token".to_string()),
                (dir.join("cache.key"), "the artifact key".to_string()),
            ]
        })
        .collect();
    places.retain(|(path, _)| {
        !settings
            .allow
            .iter()
            .any(|allowed| path.starts_with(allowed))
    });
    (places, secrets)
}

/// The reason to refuse `hookhost ARGS`, when it changes what guards run.
fn hookhost_command(args: &[&str]) -> Option<String> {
    let words: Vec<&str> = args
        .iter()
        .copied()
        .filter(|a| !a.starts_with('-'))
        .collect();
    HOOKHOST_COMMANDS.iter().find_map(|(sub, flag)| {
        let hit = words.starts_with(sub)
            && flag.is_none_or(|flag| args.contains(&flag))
            && !(sub == &["trust"] && args.contains(&"--list"));
        hit.then(|| {
            format!(
                "hookhost self-protection: `hookhost {}` changes which guards run, and an agent's tool call may not run it; the user can, from their own terminal",
                sub.join(" ")
            )
        })
    })
}

#[cfg(test)]
mod tests;
