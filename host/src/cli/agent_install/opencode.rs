//! OpenCode's wiring: a plugin file of hookhost's own (`plugin/hookhost.js` in OpenCode's
//! user or project folder) whose `tool.execute.before` and `tool.execute.after` hand the
//! call to `hookhost hook --agent opencode` and throw — OpenCode's way to refuse a tool
//! call — on a deny. A hookhost that cannot be run, or does not answer, refuses the call
//! too: the owner installed it as a guard.

use crate::cli::claude::entries;

/// The plugin's first line: how uninstall and a second install know the file is theirs.
pub(super) const MARKER: &str = "// Written by `hookhost install --agent opencode`";

/// The plugin file running `argv` (hookhost's absolute path and its words).
pub(super) fn plugin(argv: &[String]) -> String {
    let argv = serde_json::to_string(argv).unwrap_or_else(|_| "[]".into());
    format!(
        r#"{MARKER}; `hookhost uninstall --agent opencode` removes it.
// Each tool call goes to hookhost (the owner's hooks in ~/.config/hookhost/hooks.json);
// a deny, or a hookhost that does not answer, throws: OpenCode then refuses the call.
import {{ spawnSync }} from "node:child_process";

const HOOKHOST = {argv};

function ask(event, input, output, directory) {{
  const payload = JSON.stringify({{
    hook_event_name: event,
    sessionID: input.sessionID,
    callID: input.callID,
    tool: input.tool,
    args: output.args ?? {{}},
    output: output.output,
    cwd: directory,
  }});
  const run = spawnSync(HOOKHOST[0], HOOKHOST.slice(1), {{
    input: payload,
    encoding: "utf8",
    timeout: 60000,
    maxBuffer: 1 << 20,
  }});
  let answer;
  try {{
    answer = JSON.parse(run.stdout || "");
  }} catch {{
    throw new Error(`hookhost did not answer (${{run.error?.message ?? "exit " + run.status}}): the call is refused`);
  }}
  if (answer && (answer.decision === "deny" || answer.decision === "block")) {{
    throw new Error(answer.reason || "refused by hookhost");
  }}
}}

export const HookhostPlugin = async ({{ directory }}) => ({{
  "tool.execute.before": async (input, output) => ask("tool.execute.before", input, output, directory),
  "tool.execute.after": async (input, output) => {{
    try {{
      ask("tool.execute.after", input, output, directory);
    }} catch {{
      // The call already ran: nothing left to refuse.
    }}
  }},
}});
"#
    )
}

/// The hookhost command a plugin file of hookhost's own runs, as one command line (none:
/// not ours).
pub(super) fn command_of(text: &str) -> Option<String> {
    if !text.starts_with(MARKER) {
        return None;
    }
    let line = text
        .lines()
        .find(|line| line.starts_with("const HOOKHOST = "))?;
    let argv: Vec<String> = serde_json::from_str(
        line.trim_start_matches("const HOOKHOST = ")
            .trim_end_matches(';'),
    )
    .ok()?;
    Some(entries::line(&argv))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plugin_names_its_command_and_is_known_again() {
        let argv: Vec<String> = ["/opt/hook host", "hook", "--agent", "opencode"]
            .map(String::from)
            .to_vec();
        let text = plugin(&argv);
        assert!(text.starts_with(MARKER));
        assert!(
            text.contains(r#"const HOOKHOST = ["/opt/hook host","hook","--agent","opencode"];"#)
        );
        let command = command_of(&text).unwrap();
        assert!(
            super::super::layout::is_ours(&command, hookhost::Agent::OpenCode),
            "{command}"
        );
        assert_eq!(command_of("export const Mine = 1;\n"), None);
    }
}
