//! Programs besides git judged where they run: one the owner's `Bash(...)` condition
//! names, and one only the owner's `envelope.judge` names (its guard reads the command's
//! text itself), each started by a script inside the envelope — refused like the typed
//! call, while its ordinary calls run; as root and as an ordinary user, beside the
//! control without the envelope.

use std::os::unix::fs::PermissionsExt;

use hookhost_tests::TestEnv;
use serde_json::json;

use super::left_behind::{AS_USER, tree};
use super::{Who, bash_as, fire_as, rewrite_as, text};

/// The owner's policy: `deploytool prod` refused by a condition's hook, `othertool
/// danger` by a hook that reads the command itself (so only `envelope.judge` tells the
/// envelope to judge `othertool`).
fn policy() -> serde_json::Value {
    json!({
        "envelope": {"judge": ["othertool"]},
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "if": "Bash(deploytool prod*)",
             "command": "echo 'production deploys are the user own' >&2; exit 2"},
            {"type": "command",
             "command": "if grep -q 'othertool danger'; then echo 'othertool danger is refused' >&2; exit 2; fi"}
        ]}]}
    })
}

/// The two programs in a folder on the agent's `PATH`, each logging its arguments.
fn programs(test: &TestEnv) {
    let bin = test.root.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    for name in ["deploytool", "othertool"] {
        let file = bin.join(name);
        std::fs::write(
            &file,
            format!(
                "#!/bin/sh\necho \"{name} $*\" >> {}\n",
                test.root.join("ran.log").display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::fs::write(test.root.join("ran.log"), "").unwrap();
    std::fs::set_permissions(
        test.root.join("ran.log"),
        std::fs::Permissions::from_mode(0o666),
    )
    .unwrap();
    // Run by make and by an interpreter, by name and by path: no text guard reads them.
    test.write(
        "project/Makefile",
        "release:\n\t@deploytool staging\n\t@-deploytool prod --now\n",
    );
    test.write(
        "project/tools/release.py",
        &format!(
            "import subprocess\nfor argv in [['other'+'tool', 'status'], ['other'+'tool', 'dan'+'ger'], ['{}', 'prod', '--from-python']]:\n    subprocess.run(argv)\n",
            test.root.join("bin/deploytool").display()
        ),
    );
}

/// `command` in the agent's shell with the programs' folder on its `PATH`: rewritten
/// into the envelope (`inside`), or as written.
fn run(who: Who, test: &TestEnv, command: &str, inside: bool) -> String {
    let command = match inside {
        true => rewrite_as(who, test, command),
        false => command.to_string(),
    };
    let path = format!(
        "export PATH={}:\"$PATH\"; {command}",
        test.root.join("bin").display()
    );
    text(&bash_as(who, test, &path))
}

#[test]
fn a_program_the_owners_guards_watch_is_judged_where_a_script_runs_it() {
    for (as_user, inside) in AS_USER.into_iter().flat_map(|u| [(u, false), (u, true)]) {
        let (test, who) = tree(as_user, policy(), programs);
        // The typed calls are refused without the envelope too.
        for typed in ["deploytool prod", "othertool danger"] {
            let answer = fire_as(who, &test, typed, &[]);
            assert_eq!(answer["should_block"], true, "{typed}: {answer:#}");
        }
        let said = run(
            who,
            &test,
            "make -s release; python3 tools/release.py",
            inside,
        );
        let ran = std::fs::read_to_string(test.root.join("ran.log")).unwrap();
        // The ordinary calls run either way.
        for ordinary in ["deploytool staging", "othertool status"] {
            assert!(
                ran.lines().any(|line| line == ordinary),
                "{who:?}: {ordinary}: {ran}\n{said}"
            );
        }
        for refused in [
            "deploytool prod --now",
            "deploytool prod --from-python",
            "othertool danger",
        ] {
            assert_eq!(
                ran.lines().any(|line| line == refused),
                !inside,
                "{who:?}, inside: {inside}: {refused}\nran: {ran}\nsaid: {said}"
            );
        }
        if inside {
            hookhost_tests::assert_says(said.clone(), "hookhost envelope: deploytool was not run");
            hookhost_tests::assert_says(said.clone(), "production deploys are the user own");
            hookhost_tests::assert_says(said, "hookhost envelope: othertool was not run");
        }
    }
}

#[test]
fn envelope_show_names_the_judged_programs_and_the_pid_namespace() {
    let (test, _) = tree(false, policy(), programs);
    let said = super::envelope_show(&test);
    assert!(
        said.contains("judged where they run (a Makefile's, a script's call asked of the owner's guards like a typed one): git, deploytool, othertool"),
        "{said}"
    );
    assert!(said.contains("one PID namespace per project"), "{said}");
}

#[test]
fn hookhosts_binary_under_another_name_outside_the_envelope_runs_nothing_and_says_why() {
    let test = TestEnv::new();
    let renamed = test.root.join("hh");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_hookhost"), &renamed).unwrap();
    let out = std::process::Command::new(&renamed)
        .args(["trust", "."])
        .current_dir(&test.project)
        .env_remove("HOOKHOST_JUDGE")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(126), "{}", text(&out));
    hookhost_tests::assert_says(text(&out), "start it as `hookhost`");
}
