//! The project's PID namespace: the agent's own processes (and every other process of the
//! machine) are out of the enclosed command's sight and reach, while a server one command
//! leaves running is seen, and ended, by the project's next command — as root and as an
//! ordinary user, each beside its control.

use std::process::{Child, Stdio};
use std::time::Duration;

use serde_json::json;

use super::left_behind::{AS_USER, tree};
use super::{Who, bash_as, rewrite_as, text};

/// A process outside the envelope, as the agent's own is: started as `who`, with a
/// secret in its command line; ended by its pid when dropped.
struct AgentProcess(Child);

impl AgentProcess {
    fn start(who: Who) -> AgentProcess {
        let child = who
            .command("bash")
            .args(["-c", "exec -a agent-holds-TOKEN-4711 sleep 300"])
            .stdin(Stdio::null())
            .spawn()
            .unwrap();
        let cmdline = format!("/proc/{}/cmdline", child.id());
        for _ in 0..500 {
            if std::fs::read(&cmdline).is_ok_and(|line| line.starts_with(b"agent-holds")) {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        AgentProcess(child)
    }
}

impl Drop for AgentProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `command` run as `who` in `test`'s project: inside the envelope or, as the control,
/// as written.
fn run(who: Who, test: &hookhost_tests::TestEnv, command: &str, inside: bool) -> String {
    let out = if inside {
        bash_as(who, test, &rewrite_as(who, test, command))
    } else {
        bash_as(who, test, command)
    };
    text(&out)
}

#[test]
fn the_agents_processes_are_out_of_sight_and_reach_inside() {
    for as_user in AS_USER {
        for inside in [false, true] {
            let (test, who) = tree(as_user, json!({}), |_| {});
            let agent = AgentProcess::start(who);
            let pid = agent.0.id();
            let probe = format!(
                "ps -eo args; kill -0 {pid} && echo SIGNAL-''REACHED; tr '\\0' ' ' < /proc/{pid}/cmdline && echo; ls /proc | grep -c '^[0-9]' | sed 's/^/PROCESSES /'"
            );
            let said = run(who, &test, &probe, inside);
            assert_eq!(
                said.contains("TOKEN-4711"),
                !inside,
                "{who:?}, inside: {inside}: the agent's command line\n{said}"
            );
            assert_eq!(
                said.contains("SIGNAL-REACHED"),
                !inside,
                "{who:?}, inside: {inside}: a signal to the agent\n{said}"
            );
            let seen: usize = said
                .lines()
                .find_map(|line| line.strip_prefix("PROCESSES "))
                .and_then(|count| count.trim().parse().ok())
                .unwrap_or_else(|| panic!("no count: {said}"));
            // Inside: the keeper, the launcher, the shell and its pipeline — a handful,
            // not the machine's.
            assert_eq!(
                seen < 12,
                inside,
                "{who:?}, inside: {inside}: {seen} processes\n{said}"
            );
        }
    }
}

#[test]
fn a_server_one_command_leaves_running_is_seen_and_ended_by_the_next() {
    for as_user in AS_USER {
        let (test, who) = tree(as_user, json!({}), |_| {});
        let started = run(
            who,
            &test,
            "nohup sleep 4242 >/dev/null 2>&1 & echo started $!",
            true,
        );
        let server: u32 = started
            .lines()
            .find_map(|line| line.strip_prefix("started "))
            .and_then(|pid| pid.trim().parse().ok())
            .unwrap_or_else(|| panic!("{who:?}: {started}"));
        // The command has ended; its server runs on, in the project's namespace.
        let seen = run(who, &test, "ps -eo pid,args", true);
        assert!(
            seen.lines()
                .any(|line| line.trim_start().starts_with(&format!("{server} "))
                    && line.contains("sleep 4242")),
            "{who:?}: the server is not seen by the next command\n{seen}"
        );
        let ended = run(who, &test, &format!("kill {server} && echo ended"), true);
        assert!(ended.contains("ended"), "{who:?}: {ended}");
        let after = run(
            who,
            &test,
            "for i in $(seq 50); do ps -eo args | grep -q '[s]leep 4242' || break; sleep 0.1; done; ps -eo args",
            true,
        );
        assert!(!after.contains("sleep 4242"), "{who:?}: {after}");
    }
}
