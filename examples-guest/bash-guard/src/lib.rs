//! `bash-guard`: denies destructive shell commands before they run.
//!
//! It reads the command through the host's shell view, so it sees every command bash
//! would run: in any part of a chain (`&&`, `||`, `;`, newlines, `&`), of a pipeline, in
//! `$(…)`, `<(…)`, subshells and function bodies, and in scripts handed to another shell
//! (`bash -c '…'`, `eval`, here-strings, `echo '…' | sh`). Refused: recursive force
//! deletes of `/`, `~`, `$HOME` or the project root; `git reset --hard`; force pushes to a
//! protected branch (config `protectedBranches`, default `main` and `master`); a download
//! whose output reaches a shell (`curl … | sh`, `sh <(curl …)`, `bash -c "$(curl …)"`);
//! reading `.env` files; and git aliases or includes defined on the command line (`git -c
//! alias.x=…`), by `git config alias.x …` or through the environment
//! (`GIT_CONFIG_COUNT`, `GIT_CONFIG_PARAMETERS`, …), which hide the command that runs.
//! git's own options (`-C repo`, `--git-dir d`) are read past. Each reason tells the model what to do instead. A command the
//! host cannot fully read is refused (fail closed).

mod options;
mod place;
// One source for what a secret file is and which words a command reads, shared with the
// `secrets` guest.
#[path = "../../secret-scan/src/reads.rs"]
mod reads;
#[path = "../../secret-scan/src/secret_files.rs"]
#[allow(dead_code, reason = "bash-guard reads `secret_kind` alone")]
mod secret_files;

use hookhost_guest::shell::{Command, Script, Via, Words};
use hookhost_guest::{Answer, Hook, PreToolUse, config, export_hook};

/// The hook.
pub struct BashGuard;

impl Hook for BashGuard {
    fn pre_tool_use(call: PreToolUse) -> Result<Answer, String> {
        let Some(script) = call.shell() else {
            return Ok(Answer::none());
        };
        let checks = Checks::configured();
        Ok(
            match verdict(&script, call.cwd(), &checks, protected_branches) {
                Some(reason) => Answer::deny(reason),
                None => Answer::none(),
            },
        )
    }
}

export_hook!(BashGuard);

/// Which groups of checks run: config `checks`, a list of `delete`, `download`,
/// `env-files`, `git` (history rewrites and hidden aliases), `git-hooks` (skipping the
/// repository's hooks: `--no-verify`, `commit -n`, `core.hooksPath`) and `git-clean`
/// (`git clean -f` with `-d`/`-x`). Default: the first four (the builtin `git-safety` is
/// this guest with `git`, `git-hooks` and `git-clean`).
#[derive(Debug, Clone)]
pub struct Checks(Vec<String>);

impl Checks {
    /// The groups bash-guard runs unless configured otherwise.
    pub const DEFAULT: &[&str] = &["delete", "download", "env-files", "git"];

    /// The configured groups, or the default ones.
    pub fn configured() -> Checks {
        let configured = config::get_list("checks");
        if configured.is_empty() {
            Checks::of(Self::DEFAULT)
        } else {
            Checks(configured)
        }
    }

    /// Exactly `groups`.
    pub fn of(groups: &[&str]) -> Checks {
        Checks(groups.iter().map(|g| g.to_string()).collect())
    }

    fn on(&self, group: &str) -> bool {
        self.0.iter().any(|g| g == group)
    }
}

/// The configured `protectedBranches`, or `main` and `master`.
fn protected_branches() -> Vec<String> {
    let configured = config::get_list("protectedBranches");
    if configured.is_empty() {
        vec!["main".to_string(), "master".to_string()]
    } else {
        configured
    }
}

/// The reason to refuse `script`, if any; `project` is the project root (the session
/// cwd), and `protected` gives the protected branches (asked only for a `git push`).
/// Commands are read in place: a call that refuses nothing allocates nothing here.
pub fn verdict(
    script: &Script,
    project: &str,
    checks: &Checks,
    protected: impl Fn() -> Vec<String>,
) -> Option<String> {
    if script.partial() {
        return Some(format!(
            "bash-guard could not read this command ({}); rewrite it in plain shell syntax",
            script.error().unwrap_or("partial parse")
        ));
    }
    let runs_git = || {
        script
            .commands()
            .any(|c| c.is("git") || c.name_is_dynamic())
    };
    script.commands().find_map(|cmd| {
        None.or_else(|| checks.on("download").then(|| download_into_shell(&cmd))?)
            .or_else(|| checks.on("env-files").then(|| env_file(&cmd))?)
            .or_else(|| {
                checks
                    .on("git")
                    .then(|| git_config_from_environment(&cmd))?
            })
            .or_else(|| {
                checks
                    .on("git")
                    .then(|| dynamic_name_before_git(&cmd, runs_git))?
            })
            .or_else(|| {
                checks
                    .on("git-hooks")
                    .then(|| hook_skip_variable(&cmd, runs_git))?
            })
            .or_else(|| match cmd.name() {
                "rm" if checks.on("delete") => rm(cmd.arg_words(), project),
                "git" => git(cmd.arg_words(), checks, &protected),
                _ => None,
            })
    })
}

fn download_into_shell(cmd: &Command) -> Option<String> {
    let fetches = |c: Command| matches!(c.name(), "curl" | "wget" | "fetch" | "aria2c");
    // A shell in a process substitution reads what the command holding it writes there
    // (`curl x > >(sh)`, `curl x | tee >(sh)`).
    let fed_by_holder = || {
        cmd.via() == Via::ProcessSubstitution
            && cmd
                .ancestors()
                .next()
                .is_some_and(|holder| fetches(holder) || holder.upstream().any(fetches))
    };
    // A download reaches code where a shell runs its stdin (`curl … | sh`, `> >(sh)`), or
    // where it is the code itself (`bash -c "$(curl …)"`, `sh <(curl …)`, `eval`); a shell
    // that runs `-c TEXT` or a file reads a piped download as data.
    let piped = cmd.runs_stdin_as_code() && (cmd.upstream().any(fetches) || fed_by_holder());
    let inside = cmd.runs_code() && cmd.inside().any(fetches);
    (piped || inside).then(|| {
        "running a download as code runs unreviewed code; download the script to a file, read it, then run it explicitly".to_string()
    })
}

/// A `.env` file a command reads (the `secrets` builtin's rule: templates such as
/// `.env.example` or `.env.sample` are not secrets; a word the command only names, a
/// pattern or an option's text is not read).
fn env_file(cmd: &Command) -> Option<String> {
    reads::read_words(cmd)
        .into_iter()
        .find(|word| secret_files::secret_kind(word.text, &[]) == Some("environment secrets"))
        .map(|file| {
            format!(
                "`{}` holds secrets; read `.env.example` for the variable names instead",
                file.text
            )
        })
}

/// git reads configuration, aliases included, from `GIT_CONFIG_PARAMETERS`,
/// `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n` and `GIT_CONFIG_GLOBAL`/
/// `GIT_CONFIG_SYSTEM` (another file): setting any of them, before a command, through
/// `env` or with `export`, can make `git p` run `git push --force`. A word that names
/// one counts whether or not it carries a value: `read NAME`, `printf -v NAME` and
/// `declare -x NAME` set or export a variable by its name alone.
fn git_config_from_environment(cmd: &Command) -> Option<String> {
    cmd.assignments()
        .chain(cmd.words())
        .find_map(|w| {
            let name = w.text.split_once('=').map_or(w.text, |(name, _)| name);
            (name.starts_with("GIT_CONFIG") && name != "GIT_CONFIG_NOSYSTEM").then_some(name)
        })
        .map(|name| {
            format!(
                "`{name}` sets git configuration from the environment, where an alias can hide which git command runs; run git without it"
            )
        })
}

/// A variable set or exported under a name that is itself an expansion (`export
/// "$N=…"`, `declare -x "$N"`, `read "$N"`) could be one of git's configuration
/// variables: refused where the command line also runs git.
fn dynamic_name_before_git(cmd: &Command, runs_git: impl Fn() -> bool) -> Option<String> {
    const SETS_BY_NAME: &[&str] = &[
        "export", "declare", "typeset", "readonly", "local", "read", "printf", "env",
    ];
    if !SETS_BY_NAME.contains(&cmd.name()) && !cmd.words().any(|w| w.text == "env") {
        return None;
    }
    let is_dynamic_name = |w: &hookhost_guest::shell::Word| {
        let name = w.text.split_once('=').map_or(w.text, |(name, _)| name);
        w.dynamic && !name.starts_with('-') && name.contains(['$', '`'])
    };
    // `printf` names a variable only with `-v NAME`; its format and arguments are text.
    let dynamic_name = if cmd.name() == "printf" {
        let words: Vec<_> = cmd.arg_words().collect();
        words
            .windows(2)
            .any(|pair| pair[0].text == "-v" && is_dynamic_name(&pair[1]))
    } else {
        cmd.words().any(|w| is_dynamic_name(&w))
    };
    (dynamic_name && runs_git()).then(|| {
        "a variable whose name is an expansion could be one of git's configuration variables, where an alias can hide which git command runs; name the variable".to_string()
    })
}

/// A configuration setting (`key` or `key=value`) that defines an alias or pulls in
/// another file (which can), or whose key is an expansion and so could be either.
fn hides_git_commands(setting: &str) -> bool {
    let key = setting.split('=').next().unwrap_or(setting);
    let key = key.to_ascii_lowercase();
    key.starts_with("alias.")
        || key.starts_with("include.")
        || key.starts_with("includeif.")
        || key.contains(['$', '`', '*', '?', '[', '{'])
}

/// `rm` recursive on a place the guard protects. Recursive is enough: an agent's shell
/// has no terminal, so `rm -r` asks nothing even without `-f`.
fn rm(args: Words, project: &str) -> Option<String> {
    let mut recursive = false;
    let mut options_done = false;
    let mut dangerous = None;
    for word in args {
        let arg = word.text;
        if !options_done && arg == "--" {
            options_done = true;
        } else if !options_done && arg.starts_with("--") {
            recursive |= options::long(arg, options::RM) == Some("recursive");
        } else if !options_done && arg.starts_with('-') && arg.len() > 1 {
            recursive |= arg.contains('r') || arg.contains('R');
        } else if dangerous.is_none()
            && let Some(what) = place::protected_reach(arg, word.dynamic, project)
        {
            dangerous = Some((arg, what));
        }
    }
    let (arg, what) = dangerous.filter(|_| recursive)?;
    Some(format!(
        "`rm -rf {arg}` would delete the filesystem root, the home directory or the whole project (here: {what}); remove the specific files or directories you mean, by path inside the project"
    ))
}

fn git(args: Words, checks: &Checks, protected: impl Fn() -> Vec<String>) -> Option<String> {
    // Past git's own options; `-C repo` and `-c name=value` take the next word.
    let mut words = args;
    let sub = loop {
        let word = words.next()?;
        if !word.text.starts_with('-') {
            break word;
        }
        let setting = match word.text {
            "-c" | "--config-env" => words.clone().next().map(|w| w.text),
            _ => word.text.strip_prefix("--config-env="),
        };
        if checks.on("git-hooks") && setting.is_some_and(skips_git_hooks) {
            return Some(SKIPS_HOOKS.into());
        }
        if checks.on("git") && setting.is_some_and(hides_git_commands) {
            return Some(
                "an alias or include defined on the command line hides which git command runs; run that git command directly".into(),
            );
        }
        if hookhost_guest::facts::GIT_OPTIONS_WITH_VALUE.contains(&word.text) {
            words.next();
        }
    };
    let rest = || words.clone().map(|w| w.text);
    if let Some(reason) = git_safety(sub.text, sub.dynamic, rest, checks) {
        return Some(reason);
    }
    if !checks.on("git") {
        return None;
    }
    // A subcommand that is an expansion (`git $S --force`) could be any of them.
    let subs: &[&str] = if sub.dynamic {
        &["reset", "config", "push"]
    } else {
        std::slice::from_ref(&sub.text)
    };
    subs.iter().find_map(|sub| match *sub {
        "reset" if rest().any(|a| options::long(a, options::GIT_RESET) == Some("hard")) => Some(
            "`git reset --hard` discards uncommitted work; use `git stash` to set changes aside, or `git restore <path>` for specific files".into(),
        ),
        "config" if rest().any(hides_git_commands) => Some(
            "defining a git alias or include hides which git command runs later; run the git command directly".into(),
        ),
        "push" => {
            let force = rest().any(|a| {
                matches!(options::long(a, options::GIT_PUSH), Some("force" | "force-with-lease"))
                    || (a.starts_with('-') && !a.starts_with("--") && a.contains('f'))
            });
            let protected = protected();
            // `--mirror` force-updates every branch; `--all` pushes every one.
            let mirror = rest().any(|a| options::long(a, options::GIT_PUSH) == Some("mirror"));
            let all = rest().any(|a| options::long(a, options::GIT_PUSH) == Some("all"));
            let refspecs: Vec<&str> = rest().filter(|a| !a.starts_with('-')).skip(1).collect();
            // A `+` refspec is a force push of that one ref; `+HEAD` (or `+@`) is the
            // current branch, which may be a protected one.
            let plus_protected = refspecs.iter().any(|r| {
                r.strip_prefix('+').is_some_and(|r| {
                    targets_protected(r, &protected) || matches!(r, "HEAD" | "@") || r.contains(['$', '`'])
                })
            });
            let hits_protected =
                all || refspecs.is_empty() || refspecs.iter().any(|r| targets_protected(r, &protected));
            (mirror || (force && hits_protected) || plus_protected).then(|| {
                format!(
                    "force pushes to {} rewrite shared history; push to a feature branch and open a pull request instead",
                    protected.join("/")
                )
            })
        }
        _ => None,
    })
}

/// Variables with which the hook managers skip the repository's hooks (husky, lefthook,
/// pre-commit, overcommit, simple-git-hooks).
const HOOK_SKIP_VARIABLES: &[&str] = &[
    "HUSKY",
    "HUSKY_SKIP_HOOKS",
    "LEFTHOOK",
    "LEFTHOOK_EXCLUDE",
    "SKIP",
    "OVERCOMMIT_DISABLE",
    "SKIP_SIMPLE_GIT_HOOKS",
];

/// A variable a hook manager reads to skip the repository's hooks, set (`HUSKY=0 git
/// commit`, `export HUSKY=0`, `env SKIP=lint git push`) where the command line runs git.
fn hook_skip_variable(cmd: &Command, runs_git: impl Fn() -> bool) -> Option<String> {
    let skip = |w: hookhost_guest::shell::Word<'_>| {
        let (name, _) = w.text.split_once('=')?;
        HOOK_SKIP_VARIABLES
            .iter()
            .find(|variable| **variable == name)
            .copied()
    };
    // Before git itself (`HUSKY=0 git commit`), or exported for what follows.
    let on_git = cmd.is("git") || cmd.words().any(|w| w.text == "git");
    let exported = matches!(cmd.name(), "export" | "declare" | "typeset" | "env");
    let named = if on_git {
        cmd.assignments().chain(cmd.words()).find_map(skip)
    } else if exported && runs_git() {
        cmd.words().find_map(skip)
    } else {
        None
    }?;
    Some(format!(
        "`{named}` makes the hook manager skip the repository's hooks, and with them the checks its owners require; fix what they report instead"
    ))
}

/// Why skipping the repository's hooks is refused.
const SKIPS_HOOKS: &str = "skipping the repository's hooks (`--no-verify`, `commit -n`, `core.hooksPath`) skips the checks its owners require; fix what they report instead";

/// `git commit`'s short options among `words`, letter by letter: the value of one that
/// takes a value (`-m MSG`, `-mMSG`, `-F FILE`, `-C REF`, `-c REF`, `-t FILE`) is skipped,
/// whether attached or the next word; words after `--` are paths.
fn commit_options<'a>(words: impl Iterator<Item = &'a str>) -> impl Iterator<Item = char> {
    const TAKES_VALUE: &[char] = &['m', 'F', 'C', 'c', 't'];
    let mut letters = Vec::new();
    let mut value_next = false;
    for word in words {
        if value_next {
            value_next = false;
            continue;
        }
        if word == "--" {
            break;
        }
        let Some(cluster) = word.strip_prefix('-').filter(|c| !c.starts_with('-')) else {
            if matches!(
                word,
                "--message"
                    | "--file"
                    | "--reuse-message"
                    | "--reedit-message"
                    | "--template"
                    | "--author"
                    | "--date"
            ) {
                value_next = true;
            }
            continue;
        };
        for (at, letter) in cluster.char_indices() {
            letters.push(letter);
            if TAKES_VALUE.contains(&letter) {
                value_next = at + letter.len_utf8() == cluster.len();
                break;
            }
        }
    }
    letters.into_iter()
}

/// A `-c` setting that points git at other hooks (or none).
fn skips_git_hooks(setting: &str) -> bool {
    let key = setting.split('=').next().unwrap_or(setting);
    key.eq_ignore_ascii_case("core.hooksPath") || key.contains(['$', '`'])
}

/// The `git-hooks` and `git-clean` checks on subcommand `sub` (any, when it is an
/// expansion) and its words `rest`.
fn git_safety<'a, I>(
    sub: &str,
    dynamic: bool,
    rest: impl Fn() -> I,
    checks: &Checks,
) -> Option<String>
where
    I: Iterator<Item = &'a str>,
{
    let is = |name: &str| dynamic || sub == name;
    if checks.on("git-hooks") {
        // `--no-verify` by any prefix git could read as it.
        let no_verify = rest().any(|a| a.starts_with("--no-v") && "--no-verify".starts_with(a));
        // `commit -n` is `--no-verify` (elsewhere `-n` is a dry run); a message (`-m
        // MSG`, `-am MSG`, `-mMSG`) or another option's value is no option.
        let commit_n = is("commit") && commit_options(rest()).any(|letter| letter == 'n');
        let hooked = [
            "commit",
            "push",
            "merge",
            "rebase",
            "am",
            "cherry-pick",
            "revert",
            "pull",
        ]
        .iter()
        .any(|name| is(name));
        if hooked && (no_verify || commit_n) {
            return Some(SKIPS_HOOKS.into());
        }
        if is("config") && rest().any(|a| a.eq_ignore_ascii_case("core.hooksPath")) {
            return Some(SKIPS_HOOKS.into());
        }
    }
    if checks.on("git-clean") && is("clean") {
        let force = rest().any(|a| {
            options::long(a, options::GIT_CLEAN) == Some("force")
                || (a.starts_with('-') && !a.starts_with("--") && a.contains('f'))
        });
        let sweeping = rest().any(|a| {
            a.starts_with('-')
                && !a.starts_with("--")
                && (a.contains('d') || a.contains('x') || a.contains('X'))
        });
        if force && sweeping {
            return Some("`git clean -fdx` deletes untracked and ignored files, which no git command brings back; delete the specific files you mean".into());
        }
    }
    None
}

fn targets_protected(refspec: &str, protected: &[String]) -> bool {
    let target = refspec.rsplit(':').next().unwrap_or(refspec);
    let target = target.strip_prefix("refs/heads/").unwrap_or(target);
    protected.iter().any(|p| p == target)
}
