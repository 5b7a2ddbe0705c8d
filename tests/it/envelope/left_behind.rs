//! Issue 65: what a command leaves behind does not run outside. Each attack plants
//! something inside the envelope (through the installed hook's rewrite, as the agent's
//! shell runs it); then the user's next ordinary action runs outside, with the user's
//! rights. The control runs the same attack without the envelope and shows the effect;
//! inside there is none. Ordinary git keeps working.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use hookhost_tests::TestEnv;
use serde_json::json;

use super::{Who, bash, bash_as, fire_as, guarded, rewrite, rewrite_as, text};

/// The marker an attack's planted code touches when it runs outside.
fn marker(test: &TestEnv) -> PathBuf {
    test.root.join("ran-outside")
}

/// One attack: what it does inside (`{M}` is the marker's path), what the user does
/// next outside, and extra settings for the owner's file.
struct LeftBehind {
    name: &'static str,
    command: &'static str,
    then: &'static str,
}

const GIT: &[LeftBehind] = &[
    LeftBehind {
        // The launcher inside is the command's parent (and visible in the project's PID
        // namespace): killed, it cannot put the key back — the process waiting outside
        // does. Only a hookhost parent is killed (the control's parent is the test).
        name: "core.fsmonitor, then the launcher killed",
        command: "git config core.fsmonitor 'touch {M}; false'; case $(ps -o comm= -p $PPID) in hookhost*) kill -9 $PPID;; esac",
        then: "git status --short",
    },
    LeftBehind {
        name: "core.fsmonitor runs at the next git status",
        command: "git config core.fsmonitor 'touch {M}; false'",
        then: "git status --short",
    },
    LeftBehind {
        name: "core.hooksPath to a folder the command wrote",
        command: "d=$(mktemp -d {M}.hooks.XXXXXX) && chmod 755 $d && printf '#!/bin/sh\\ntouch {M}\\n' > $d/pre-commit && chmod +x $d/pre-commit && git config core.hooksPath $d",
        then: "git commit -q --allow-empty -m next",
    },
    LeftBehind {
        name: "core.pager at the next git log",
        command: "git config core.pager 'touch {M}; cat'",
        then: "script -qc 'git log -1' /dev/null >/dev/null 2>&1 || true",
    },
    LeftBehind {
        name: "a repository alias overriding the user's",
        command: "git config alias.ci '!touch {M}'",
        then: "git ci || true",
    },
    LeftBehind {
        name: "include.path pulling keys from a project file",
        command: "printf '[core]\\n\\tfsmonitor = \"touch {M}; false\"\\n' > notes.cfg && git config include.path ../notes.cfg",
        then: "git status --short",
    },
    LeftBehind {
        name: "a filter driver and .git/info/attributes",
        command: "git config filter.x.clean 'touch {M}; cat' && mkdir -p .git/info && echo '* filter=x' >> .git/info/attributes",
        then: "echo new > added.txt && git add added.txt",
    },
    LeftBehind {
        name: "core.fsmonitor written by the config file's own syntax",
        command: "d=$(printf .gi%s t); printf '[CoRe]\\n\\tFSMonitor = \"touch {M}; false\"\\n' >> $d/config",
        then: "git status --short",
    },
    LeftBehind {
        name: "core.fsmonitor written by a process the command leaves running",
        command: "(sleep 1; git config core.fsmonitor 'touch {M}; false') >/dev/null 2>&1 &",
        then: "sleep 2; git status --short",
    },
    LeftBehind {
        name: "a submodule's hooks folder",
        command: "printf '#!/bin/sh\\ntouch {M}\\n' > .git/modules/lib/hooks/post-checkout && chmod +x .git/modules/lib/hooks/post-checkout",
        then: "sh .git/modules/lib/hooks/post-checkout 2>/dev/null || true",
    },
];

const PROJECT: &[LeftBehind] = &[
    LeftBehind {
        name: "a Claude Code project hook script",
        command: "mkdir -p .claude/hooks && printf '#!/bin/sh\\ntouch {M}\\n' > .claude/hooks/check.sh",
        then: "sh .claude/hooks/check.sh 2>/dev/null || true",
    },
    LeftBehind {
        name: "an MCP server in .mcp.json",
        command: "echo '{\"mcpServers\": {\"x\": {\"command\": \"touch\", \"args\": [\"{M}\"]}}}' > .mcp.json",
        then: "test -f .mcp.json && touch {M} || true",
    },
    LeftBehind {
        name: "a settings file created by a process the command leaves running",
        command: "d=$(printf .gem%s ini); (sleep 1; mkdir -p $d && echo '{\"hooks\": {}}' > $d/settings.json) >/dev/null 2>&1 &",
        then: "sleep 2; test -f .gemini/settings.json && touch {M} || true",
    },
    LeftBehind {
        name: "a VS Code task that runs when the folder opens",
        command: "d=$(printf .vsco%s de); mkdir -p $d && echo '{\"tasks\": [{\"label\": \"x\", \"command\": \"touch {M}\", \"runOptions\": {\"runOn\": \"folderOpen\"}}]}' > $d/tasks.json",
        then: "grep -q folderOpen .vscode/tasks.json 2>/dev/null && touch {M} || true",
    },
    LeftBehind {
        name: "a cargo runner in the project's cargo config",
        command: "d=$(printf .car%s go); mkdir -p $d && printf '[target.x86_64-unknown-linux-gnu]\\nrunner = \"sh -c touch\"\\n' > $d/config.toml",
        then: "grep -q runner .cargo/config.toml 2>/dev/null && touch {M} || true",
    },
    LeftBehind {
        name: "an OpenCode plugin",
        command: "d=$(printf .openco%s de); mkdir -p $d/plugins && echo 'touch' > $d/plugins/x.js",
        then: "test -f .opencode/plugins/x.js && touch {M} || true",
    },
];

/// `command` as `who`'s agent shell runs it: rewritten into the envelope (`inside`), or
/// as written (the control).
fn as_run_by(who: Who, test: &TestEnv, command: &str, inside: bool) -> String {
    if inside {
        rewrite_as(who, test, command)
    } else {
        command.to_string()
    }
}

/// Both accounts every attack runs as: this test's (root on CI) and an ordinary user.
pub(super) const AS_USER: [bool; 2] = [false, true];

/// A test tree as `guarded` makes it, set up by `setup`, then handed to the account.
pub(super) fn tree(as_user: bool, extra: serde_json::Value, setup: fn(&TestEnv)) -> (TestEnv, Who) {
    let test = guarded(extra);
    setup(&test);
    let who = if as_user {
        Who::ordinary(&test)
    } else {
        Who::Me
    };
    (test, who)
}

/// Runs each attack inside and, as the control, without the envelope, as root and as an
/// ordinary user; the user's next action outside shows whether the planted code ran.
fn run_attacks(attacks: &[LeftBehind], setup: fn(&TestEnv)) {
    for attack in attacks {
        for (as_user, inside) in AS_USER.into_iter().flat_map(|u| [(u, false), (u, true)]) {
            let (test, who) = tree(as_user, json!({}), setup);
            let mark = marker(&test);
            let command = attack.command.replace("{M}", &mark.display().to_string());
            let out = if inside {
                let answer = fire_as(who, &test, &command, &[]);
                assert!(
                    !answer["should_block"].as_bool().unwrap_or(true),
                    "{}: the guards refuse it (write it so they do not: the envelope is what is tested): {}",
                    attack.name,
                    answer["block_reason"]
                );
                bash_as(who, &test, &rewrite_as(who, &test, &command))
            } else {
                bash_as(who, &test, &command)
            };
            let then = bash_as(
                who,
                &test,
                &attack.then.replace("{M}", &mark.display().to_string()),
            );
            assert_eq!(
                mark.exists(),
                !inside,
                "{} ({who:?}): {}\ninside the command: {}\nthe user's next action: {}",
                attack.name,
                if inside {
                    "ran outside after the envelope"
                } else {
                    "did not run even without the envelope (the control)"
                },
                text(&out),
                text(&then)
            );
        }
    }
}

/// A repository with a commit and a submodule's git dir (as `git submodule add` leaves).
fn repository(test: &TestEnv) {
    // The editor's and cargo's folders a project has.
    std::fs::create_dir_all(test.project.join(".vscode")).unwrap();
    std::fs::create_dir_all(test.project.join(".cargo")).unwrap();
    let git = |args: &[&str]| hookhost_tests::git(&test.project, args);
    // The secret is not committed (a tracked one reads as modified inside: issue 66).
    std::fs::write(test.project.join(".gitignore"), ".env\n").unwrap();
    git(&["add", "-A"]);
    git(&["commit", "-qm", "first"]);
    let module = test.project.join(".git/modules/lib");
    std::fs::create_dir_all(module.join("hooks")).unwrap();
    std::fs::write(module.join("HEAD"), "ref: refs/heads/main\n").unwrap();
    std::fs::write(module.join("config"), "[core]\n\tbare = false\n").unwrap();
}

#[test]
fn git_keys_and_hooks_the_command_plants_never_run_at_the_users_next_git_command() {
    run_attacks(GIT, repository);
}

#[test]
fn agents_project_files_the_command_plants_are_never_there_for_the_next_session() {
    run_attacks(PROJECT, repository);
}

#[test]
fn ordinary_git_keeps_working_inside() {
    for as_user in AS_USER {
        let (test, who) = tree(as_user, json!({}), |test| {
            repository(test);
            hookhost_tests::git(
                &test.root,
                &["init", "-q", "--bare", "-b", "main", "remote.git"],
            );
        });
        let remote = test.root.join("remote.git");
        // The worktree in /tmp, in a folder `mktemp` makes (pids repeat across PID
        // namespaces), inside the test's tree.
        let script = format!(
            "set -e; git remote add origin {remote}; git config user.email other@example.com; \
             git switch -qc feature; echo x > f.txt; git add f.txt; git commit -qm f; \
             git push -q -u origin feature 2>&1; git rebase -q main; \
             wt=$(mktemp -d '{root}/wt.XXXXXX')/wt; git worktree add -q $wt main 2>&1 && git worktree remove $wt; \
             git config branch.feature.remote",
            remote = remote.display(),
            root = test.root.display()
        );
        let out = bash_as(who, &test, &rewrite_as(who, &test, &script));
        assert!(out.status.success(), "{who:?}: {}", text(&out));
        assert!(text(&out).contains("origin"), "{who:?}: {}", text(&out));
        let config = std::fs::read_to_string(test.project.join(".git/config")).unwrap();
        for kept in [
            "other@example.com",
            "[remote \"origin\"]",
            "[branch \"feature\"]",
        ] {
            assert!(config.contains(kept), "{who:?}: {kept} lost:\n{config}");
        }
        assert!(
            !text(&out).contains("put back"),
            "{who:?}: an ordinary change was taken for a program key: {}",
            text(&out)
        );
    }
}

#[test]
fn a_command_its_harness_ends_still_has_its_git_config_put_back() {
    // The agent plants the key and outlasts the tool's timeout; the harness ends the
    // command's process group with SIGTERM, as the agents do. The launcher inside dies
    // with it; its parent outside passes the signal on, stays, and puts the key back.
    use std::os::unix::process::CommandExt;
    for (as_user, inside) in AS_USER.into_iter().flat_map(|u| [(u, false), (u, true)]) {
        let (test, who) = tree(as_user, json!({}), repository);
        let mark = marker(&test);
        let command = format!(
            "git config core.fsmonitor 'touch {}; false'; sleep 60",
            mark.display()
        );
        let script = as_run_by(who, &test, &command, inside);
        let mut shell = who.command("bash");
        shell
            .arg("-c")
            .arg(&script)
            .current_dir(&test.project)
            .env("HOME", &test.home)
            .process_group(0);
        let mut child = shell.spawn().unwrap();
        let config = test.project.join(".git/config");
        for _ in 0..1000 {
            if std::fs::read_to_string(&config).is_ok_and(|text| text.contains("fsmonitor")) {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let group = nix::unistd::Pid::from_raw(-(child.id() as i32));
        let _ = nix::sys::signal::kill(group, nix::sys::signal::Signal::SIGTERM);
        let _ = child.wait();
        // The shell the test started ends at once; what it started (the launcher's parent,
        // settling) may take a moment more: every process of the group gone.
        for _ in 0..1000 {
            if nix::sys::signal::kill(group, None).is_err() {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let then = bash_as(who, &test, "git status --short");
        assert_eq!(
            mark.exists(),
            !inside,
            "{who:?}, inside: {inside}: {}\nthe config: {}",
            text(&then),
            std::fs::read_to_string(&config).unwrap_or_default()
        );
    }
}

#[test]
fn a_program_key_is_put_back_and_the_command_is_told_which() {
    let test = guarded(json!({}));
    repository(&test);
    let out = bash(
        &test,
        &rewrite(
            &test,
            "git config core.fsmonitor 'echo hi' && git config user.name kept",
        ),
    );
    hookhost_tests::assert_says(text(&out), "the command set core.fsmonitor");
    let config = std::fs::read_to_string(test.project.join(".git/config")).unwrap();
    assert!(
        !config.contains("fsmonitor") && config.contains("kept"),
        "{config}"
    );
}

/// A folder outside every writable root (as the user's real files are): below
/// `/var/lib` as root, else below the account's home; removed when dropped.
struct RealPlace {
    dir: tempfile::TempDir,
}

impl RealPlace {
    fn new() -> RealPlace {
        let parent = if nix::unistd::geteuid().is_root() {
            PathBuf::from("/var/lib")
        } else {
            std::env::home_dir().expect("the account has a home")
        };
        let dir = tempfile::Builder::new()
            .prefix(".hookhost-test-")
            .tempdir_in(parent)
            .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        RealPlace { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }
}

#[test]
fn metadata_outside_the_writable_roots_cannot_change_and_no_set_id_file_is_made() {
    let place = RealPlace::new();
    let file = place.path().join("tool");
    for (as_user, inside) in AS_USER.into_iter().flat_map(|u| [(u, false), (u, true)]) {
        let (test, who) = tree(as_user, json!({}), |_| {});
        std::fs::write(&file, "#!/bin/sh\n").unwrap();
        if let Who::User { uid, gid } = who {
            nix::unistd::chown(
                &file,
                Some(nix::unistd::Uid::from_raw(uid)),
                Some(nix::unistd::Gid::from_raw(gid)),
            )
            .unwrap();
        }
        let before = std::fs::metadata(&file).unwrap();
        let command = format!(
            "chmod 777 {f}; touch -d 2001-01-01 {f}; python3 -c \"import os; os.setxattr('{f}', 'user.x', b'1')\"; chown 65534 {f}; \
             cp /bin/sh ./sh4; chmod 4755 ./sh4; chmod g+s ./sh4; install -m 4755 /bin/sh ./sh5",
            f = file.display()
        );
        let out = if inside {
            bash_as(who, &test, &rewrite_as(who, &test, &command))
        } else {
            bash_as(who, &test, &command)
        };
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let after = std::fs::metadata(&file).unwrap();
        let changed = after.mode() != before.mode()
            || after.mtime() != before.mtime()
            || after.uid() != before.uid()
            || xattr_set(&file);
        assert_eq!(
            changed,
            !inside,
            "metadata outside ({who:?}): {}",
            text(&out)
        );
        let set_id = ["sh4", "sh5"].iter().any(|name| {
            std::fs::metadata(test.project.join(name))
                .is_ok_and(|meta| meta.permissions().mode() & 0o6000 != 0)
        });
        assert_eq!(set_id, !inside, "a set-ID file ({who:?}): {}", text(&out));
        // chmod +x, the everyday one, works inside.
        if inside {
            let out = bash_as(
                who,
                &test,
                &rewrite_as(
                    who,
                    &test,
                    "touch run.sh && chmod +x run.sh && test -x run.sh",
                ),
            );
            assert!(out.status.success(), "{}", text(&out));
        }
        let _ = std::fs::remove_file(&file);
    }
}

fn xattr_set(file: &Path) -> bool {
    Command::new("python3")
        .arg("-c")
        .arg(format!(
            "import os,sys; sys.exit(0 if 'user.x' in os.listxattr('{}') else 1)",
            file.display()
        ))
        .status()
        .is_ok_and(|status| status.success())
}

/// A server outside: a unix socket that touches `mark` when a client sends to it. Ends
/// (by its pid) when dropped.
struct SocketServer {
    child: std::process::Child,
}

impl SocketServer {
    fn start(who: Who, socket: &Path, mark: &Path) -> SocketServer {
        let child = who
            .command("python3")
            .arg("-c")
            .arg(format!(
                "import socket,os\ns=socket.socket(socket.AF_UNIX)\ns.bind('{sock}')\ns.listen(4)\nwhile True:\n    c,_=s.accept()\n    if c.recv(16): open('{mark}','w').close()\n    c.close()\n",
                sock = socket.display(),
                mark = mark.display()
            ))
            .spawn()
            .unwrap();
        for _ in 0..200 {
            if socket.exists() {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        SocketServer { child }
    }
}

impl Drop for SocketServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_socket_of_a_process_outside_is_not_reachable_unless_the_owner_names_it() {
    for as_user in AS_USER {
        for (inside, named) in [(false, false), (true, false), (true, true)] {
            let extra = if named {
                json!({"envelope": {"sockets": ["/tmp"]}})
            } else {
                json!({})
            };
            let (test, who) = tree(as_user, extra, |_| {});
            let socket = test.root.join("outside.sock");
            let mark = marker(&test);
            let _server = SocketServer::start(who, &socket, &mark);
            let command = format!(
                "python3 -c \"import socket; s=socket.socket(socket.AF_UNIX); s.connect('{}'); s.send(b'run')\"",
                socket.display()
            );
            let out = if inside {
                bash_as(who, &test, &rewrite_as(who, &test, &command))
            } else {
                bash_as(who, &test, &command)
            };
            std::thread::sleep(Duration::from_millis(300));
            assert_eq!(
                mark.exists(),
                !inside || named,
                "{who:?}, inside: {inside}, named: {named}: {}",
                text(&out)
            );
        }
    }
}

#[test]
fn the_users_tmux_server_runs_nothing_for_the_command() {
    if Command::new("tmux").arg("-V").output().is_err() {
        panic!("tmux is not installed (CI installs it)");
    }
    for (as_user, inside) in AS_USER.into_iter().flat_map(|u| [(u, false), (u, true)]) {
        let (test, who) = tree(as_user, json!({}), |_| {});
        let socket = test.root.join("tmux.sock");
        let mark = marker(&test);
        let started = who
            .command("tmux")
            .arg("-S")
            .arg(&socket)
            .args(["new-session", "-d", "-s", "user", "sh"])
            .status()
            .unwrap();
        assert!(started.success());
        let pid = who
            .command("tmux")
            .arg("-S")
            .arg(&socket)
            .args(["display-message", "-p", "#{pid}"])
            .output()
            .unwrap();
        let pid: i32 = String::from_utf8_lossy(&pid.stdout).trim().parse().unwrap();
        let command = format!(
            "tmux -S {} send-keys -t user 'touch {}' Enter",
            socket.display(),
            mark.display()
        );
        let out = bash_as(who, &test, &as_run_by(who, &test, &command, inside));
        std::thread::sleep(Duration::from_millis(500));
        let ran = mark.exists();
        // The user's own tmux keeps working outside.
        let listed = who
            .command("tmux")
            .arg("-S")
            .arg(&socket)
            .arg("list-sessions")
            .output()
            .unwrap();
        assert!(listed.status.success(), "{}", text(&listed));
        let _ = nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGTERM,
        );
        assert_eq!(ran, !inside, "{who:?}: {}", text(&out));
    }
}

#[test]
fn a_cache_the_command_poisons_is_the_projects_own_layer_not_the_users() {
    for (as_user, inside) in AS_USER.into_iter().flat_map(|u| [(u, false), (u, true)]) {
        let (test, who) = tree(as_user, json!({}), |test| {
            test.write(
                "home/.cargo/registry/src/index/dep-1.0.0/build.rs",
                "fn main() {}\n",
            );
            test.write("home/.npm/_npx/abc/node_modules/.bin/tool", "#!/bin/sh\n");
        });
        let build = test
            .home
            .join(".cargo/registry/src/index/dep-1.0.0/build.rs");
        let command = "echo 'fn main() { std::process::Command::new(\"touch\").arg(\"/tmp/x\"); }' > ~/.cargo/registry/src/index/dep-1.0.0/build.rs; echo 'touch owned' >> ~/.npm/_npx/abc/node_modules/.bin/tool; mkdir -p ~/.cargo/registry/cache/new && echo ok > ~/.cargo/registry/cache/new/dl && cat ~/.cargo/registry/cache/new/dl";
        let out = if inside {
            bash_as(who, &test, &rewrite_as(who, &test, command))
        } else {
            bash_as(who, &test, command)
        };
        // The build inside still fills its cache (and reads it back).
        assert!(text(&out).contains("ok"), "{}", text(&out));
        let poisoned = std::fs::read_to_string(&build).unwrap().contains("Command")
            || std::fs::read_to_string(test.home.join(".npm/_npx/abc/node_modules/.bin/tool"))
                .unwrap()
                .contains("owned");
        assert_eq!(poisoned, !inside, "{who:?}: {}", text(&out));
        if inside {
            // The next command of the same project sees its own layer.
            let again = bash_as(
                who,
                &test,
                &rewrite_as(who, &test, "cat ~/.cargo/registry/cache/new/dl"),
            );
            assert!(text(&again).contains("ok"), "{}", text(&again));
        }
    }
}

#[test]
fn a_folder_on_the_users_path_takes_no_planted_program() {
    // A folder on the PATH inside a writable root (here /tmp; in a real home the
    // home's own bin folders, `~/.local/bin`, `~/.cargo/bin`, …, which lie outside every
    // root unless a cache or the owner's `writable` holds them).
    for (as_user, inside) in AS_USER.into_iter().flat_map(|u| [(u, false), (u, true)]) {
        let (test, who) = tree(as_user, json!({}), |test| {
            std::fs::create_dir_all(test.root.join("bin")).unwrap();
        });
        let bin = test.root.join("bin");
        let command = "printf '#!/bin/sh\\ntouch owned\\n' > \"${PATH%%:*}/git\"; chmod +x \"${PATH%%:*}/git\"";
        let out = who
            .command("bash")
            .arg("-c")
            .arg(as_run_by(who, &test, command, inside))
            .current_dir(&test.project)
            .env("HOME", &test.home)
            .env(
                "PATH",
                format!("{}:/usr/local/bin:/usr/bin:/bin", bin.display()),
            )
            .output()
            .unwrap();
        assert_eq!(bin.join("git").exists(), !inside, "{who:?}: {}", text(&out));
    }
}

#[test]
fn the_agents_logins_and_the_variables_the_owner_names_stay_outside() {
    for (as_user, inside) in AS_USER.into_iter().flat_map(|u| [(u, false), (u, true)]) {
        let (test, who) = tree(
            as_user,
            json!({"envelope": {"withholdEnv": ["ANTHROPIC_API_KEY"]}}),
            |test| {
                test.write(
                    "home/.claude/.credentials.json",
                    "{\"claudeAiOauth\": {\"accessToken\": \"sk-ant-oat-login\"}}",
                );
            },
        );
        // The agent's process holds a variable its commands do not get; a command looks
        // for it in every process's environment.
        let command = "cat ~/.claude/.credentials.json; echo key=$ANTHROPIC_API_KEY; cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep AGENT_ONLY";
        let out = who
            .command("bash")
            .arg("-c")
            .arg("env -u AGENT_ONLY bash -c \"$1\"; exit $?")
            .arg("agent")
            .arg(as_run_by(who, &test, command, inside))
            .current_dir(&test.project)
            .env("HOME", &test.home)
            .env("ANTHROPIC_API_KEY", "sk-ant-api-inherited")
            .env("AGENT_ONLY", "agent-secret-in-environ")
            .output()
            .unwrap();
        let said = text(&out);
        for secret in [
            "sk-ant-oat-login",
            "sk-ant-api-inherited",
            "agent-secret-in-environ",
        ] {
            assert_eq!(said.contains(secret), !inside, "{who:?}: {secret}: {said}");
        }
    }
}

#[test]
fn envelope_show_names_what_runs_later() {
    let test = guarded(json!({}));
    let said = super::envelope_show(&test);
    for expected in [
        "Claude Code's project folder",
        ".github/hooks",
        ".mcp.json",
        "git config",
        "Claude Code's login",
        "sockets",
    ] {
        assert!(said.contains(expected), "{expected}: {said}");
    }
}

#[test]
fn the_owners_checks_run_the_projects_makefile_inside_the_envelope() {
    // The agent edited the Makefile; the owner's checks run `make check` before the
    // commit: outside the envelope its recipe rewrites the owner's hook file.
    for (as_user, enveloped) in AS_USER.into_iter().flat_map(|u| [(u, false), (u, true)]) {
        let (test, who) = tree(as_user, json!({}), |test| {
            test.write(
                "project/Makefile",
                "check:\n\t@echo '{}' > $(HOME)/.config/hookhost/hooks.json\n",
            );
        });
        // The owner's checks, naming the binary as this account can start it.
        super::set_owner_settings(
            who,
            &test,
            json!({
                "envelope": enveloped,
                "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{
                    "type": "command",
                    "command": format!("{} checks-before-commit --run 'make -s check'", who.cli()),
                }]}]}
            }),
        );
        let hooks = test.home.join(".config/hookhost/hooks.json");
        let before = std::fs::read_to_string(&hooks).unwrap();
        let answer = fire_as(
            who,
            &test,
            "git commit -qam 'next'",
            &[("HOME", test.home.to_str().unwrap())],
        );
        let after = std::fs::read_to_string(&hooks).unwrap();
        assert_eq!(
            after == before,
            enveloped,
            "{who:?}: {}: {answer:#}",
            if enveloped {
                "the checks wrote outside the envelope"
            } else {
                "the control did not write"
            }
        );
        if enveloped {
            // The check failed inside, so the commit is refused, with the reason.
            assert_eq!(answer["should_block"], true, "{answer:#}");
            hookhost_tests::assert_says(
                answer["block_reason"].as_str().unwrap_or_default(),
                "ran inside the owner's envelope",
            );
        }
    }
}

/// The owner's file with bash-guard (which refuses a force push and `--no-verify`) and
/// the envelope.
fn with_bash_guard() -> serde_json::Value {
    json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "wasm", "component": "builtin:bash-guard",
         "config": {"checks": ["delete", "download", "env-files", "git", "git-hooks", "git-clean"]}}
    ]}]}})
}

/// A repository with a bare remote it has pushed `main` to, and a commit only it has.
fn pushed(test: &TestEnv) {
    repository(test);
    let remote = test.root.join("remote.git");
    let git = |args: &[&str]| hookhost_tests::git(&test.project, args);
    git(&[
        "init",
        "-q",
        "--bare",
        "-b",
        "main",
        remote.to_str().unwrap(),
    ]);
    git(&["remote", "add", "origin", remote.to_str().unwrap()]);
    git(&["push", "-q", "origin", "main"]);
    git(&["commit", "-q", "--amend", "-m", "rewritten"]);
}

/// The remote's `main`.
fn remote_main(test: &TestEnv) -> String {
    let out = Command::new("git")
        .args(["-c", "safe.directory=*", "rev-parse", "main"])
        .current_dir(test.root.join("remote.git"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn a_force_push_a_makefile_runs_is_judged_like_the_typed_one() {
    for (as_user, inside) in AS_USER.into_iter().flat_map(|u| [(u, false), (u, true)]) {
        let (test, who) = tree(as_user, with_bash_guard(), |test| {
            pushed(test);
            test.write(
                "project/Makefile",
                "release:\n\tgit push -q --force origin main\n",
            );
            test.write(
                "project/tools/ci.py",
                "import subprocess\nsubprocess.run(['git', 'commit', '-q', '--allow-empty', '--no-verify', '-m', 'skip'], check=True)\n",
            );
        });
        let before = remote_main(&test);
        // The typed force push is refused by the guard without the envelope too.
        let typed = fire_as(who, &test, "git push --force origin main", &[]);
        assert_eq!(typed["should_block"], true, "{typed:#}");
        let command = "make -s release; python3 tools/ci.py; git log -1 --format=%s";
        let out = if inside {
            bash_as(who, &test, &rewrite_as(who, &test, command))
        } else {
            bash_as(who, &test, command)
        };
        let said = text(&out);
        assert_eq!(
            remote_main(&test) == before,
            inside,
            "{who:?}: the Makefile's force push {}: {said}",
            if inside {
                "went through"
            } else {
                "did not (control)"
            }
        );
        assert_eq!(
            said.lines().any(|line| line == "skip"),
            !inside,
            "{who:?}: the script's --no-verify commit: {said}"
        );
        if inside {
            hookhost_tests::assert_says(said.clone(), "hookhost envelope: git was not run");
            // Ordinary git through the judge still works, from make and from python.
            let ordinary = bash_as(
                who,
                &test,
                &rewrite_as(
                    who,
                    &test,
                    "python3 -c \"import subprocess; print(subprocess.run(['git', 'status', '--short'], capture_output=True, text=True).returncode)\" && git rev-parse --abbrev-ref HEAD",
                ),
            );
            assert!(
                ordinary.status.success() && text(&ordinary).contains("main"),
                "{}",
                text(&ordinary)
            );
        }
    }
}

#[test]
fn the_real_git_is_reachable_only_through_the_judge() {
    for as_user in AS_USER {
        let (test, who) = tree(as_user, with_bash_guard(), pushed);
        // git's exec folder (its dashed names), the binaries under every name, a copy, a
        // cleared environment: from a program, where no text guard reads them.
        test.write(
        "project/tools/push.py",
        r#"import os, shutil, subprocess, tempfile
def run(argv, env=None):
    try:
        print(argv[0], subprocess.run(argv, env=env, capture_output=True, text=True).stderr.strip()[-200:])
    except OSError as err:
        print(argv[0], err)
print(sorted(os.listdir('/usr/lib/git-core')) if os.path.isdir('/usr/lib/git-core') else 'no exec folder')
for git in ['/usr/lib/git-core/git-push', '/usr/lib/git-core/git', '/usr/bin/git', '/usr/local/bin/git', '/usr/local/libexec/git-core/git-push']:
    run([git, 'push', '--force', 'origin', 'main'] if not git.endswith('-push') else [git, '--force', 'origin', 'main'])
run(['/usr/bin/git', 'push', '--force', 'origin', 'main'], env={})
folder = tempfile.mkdtemp()
copy = os.path.join(folder, 'g')
shutil.copy('/usr/bin/git', copy)
run([copy, 'push', '--force', 'origin', 'main'])
shutil.rmtree(folder)
print('done')
"#,
    );
        let before = remote_main(&test);
        let out = bash_as(who, &test, &rewrite_as(who, &test, "python3 tools/push.py"));
        assert_eq!(remote_main(&test), before, "{who:?}: {}", text(&out));
        assert!(text(&out).contains("done"), "{who:?}: {}", text(&out));
    }
}

#[test]
fn the_folders_made_to_hold_are_gone_after_a_command_that_leaves_nothing_running() {
    let test = guarded(json!({}));
    repository(&test);
    std::fs::remove_dir_all(test.project.join(".claude")).unwrap();
    let _ = std::fs::remove_file(test.project.join(".git/info/attributes"));
    let entries = |dir: &Path| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .flatten()
                    .map(|entry| entry.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    };
    let before = (
        entries(&test.project),
        entries(&test.project.join(".git/info")),
    );
    // Inside, the agents' folders exist (held); afterwards the project is as it was.
    let out = bash(
        &test,
        &rewrite(
            &test,
            "test -d .codex && test -d .github/hooks && echo held",
        ),
    );
    assert!(text(&out).contains("held"), "{}", text(&out));
    let after = (
        entries(&test.project),
        entries(&test.project.join(".git/info")),
    );
    assert_eq!(before, after, "{}", text(&out));
}
