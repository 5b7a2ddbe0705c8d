//! The tool table: which field of a tool call's input carries what rules, guards and
//! guests read — a shell tool's command, a fetch's URL, a file tool's path as a rule reads
//! it, the value a bare specifier matches. (Where a file tool's call lands is
//! [`crate::file_target`]'s table.) Nothing else reads a tool input's fields by name.

use serde_json::Value;

/// The field holding a shell command (Bash, PowerShell, and the WIT `bash-command`).
const COMMAND: &str = "command";

/// The shell tools: their command is [`COMMAND`]. Claude Code's `Monitor` runs its
/// `command` with the Bash tool's shell and streams the output back (a Monitor watching a
/// WebSocket, `ws`, has no `command` and runs nothing).
const SHELL_TOOLS: &[&str] = &["Bash", "PowerShell", "Monitor"];

/// The shell tools that run their command with bash: the ones a hook watching [`BASH`]
/// watches, and the ones the envelope encloses.
const BASH_TOOLS: &[&str] = &["Bash", "Monitor"];

/// The tool name that stands for every way the agent runs a bash command: a matcher or
/// rule naming it (`Bash`, `Bash(git push*)`) also matches the other [`BASH_TOOLS`], and
/// a guard judging a Bash call judges theirs.
pub(crate) const BASH: &str = "Bash";

/// The field holding a fetch's URL (WebFetch).
const URL: &str = "url";

/// The file tools a path rule (`Edit(src/**)`) applies to.
const PATH_RULE_TOOLS: &[&str] = &[
    "Edit",
    "Write",
    "Read",
    "MultiEdit",
    "NotebookEdit",
    "Glob",
    "Grep",
];

/// The fields a path rule reads, the first present one.
const PATH_FIELDS: &[&str] = &["file_path", "notebook_path", "path"];

/// The fields a specifier is matched against on any other tool, the first present one.
const SPECIFIER_FIELDS: &[&str] = &[
    "subagent_type",
    "skill",
    "command",
    "url",
    "query",
    "pattern",
];

/// What a rule's specifier is matched against on a tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Subject<'a> {
    /// A shell tool's command (`None`: the call has none).
    Command(Option<&'a str>),
    /// A fetch's URL.
    Url(Option<&'a str>),
    /// A file tool's path as given.
    Path(Option<&'a str>),
    /// Any other tool: the first of its fields a specifier can name.
    Other(Option<&'a str>),
}

/// The subject a specifier is matched against on `tool`'s call with `tool_input`.
pub(crate) fn subject<'a>(tool: &str, tool_input: &'a Value) -> Subject<'a> {
    if SHELL_TOOLS.contains(&tool) {
        Subject::Command(command(tool_input))
    } else if tool == "WebFetch" {
        Subject::Url(text(tool_input, URL))
    } else if PATH_RULE_TOOLS.contains(&tool) {
        Subject::Path(PATH_FIELDS.iter().find_map(|name| text(tool_input, name)))
    } else {
        Subject::Other(
            SPECIFIER_FIELDS
                .iter()
                .find_map(|name| text(tool_input, name)),
        )
    }
}

/// Whether `tool` runs a bash command: the one notion of "a shell command the agent
/// runs" every guard, self-protection and the envelope read. `tool_input` must carry the
/// command (Monitor's WebSocket form has none).
pub(crate) fn runs_bash(tool: &str, tool_input: &Value) -> bool {
    BASH_TOOLS.contains(&tool) && command(tool_input).is_some()
}

/// The name a call of `tool` is also matched as: [`BASH`] for the other bash tools
/// (`None` for Bash itself and every other tool).
pub(crate) fn matched_as(tool: &str) -> Option<&'static str> {
    (tool != BASH && BASH_TOOLS.contains(&tool)).then_some(BASH)
}

/// A tool input's shell command, whatever the tool.
pub(crate) fn command(tool_input: &Value) -> Option<&str> {
    text(tool_input, COMMAND)
}

/// The string field `name` of `tool_input`.
pub(crate) fn text<'a>(tool_input: &'a Value, name: &str) -> Option<&'a str> {
    tool_input.get(name).and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_tool_reads_its_own_field() {
        let input = json!({"command": "ls", "url": "https://x", "file_path": "a", "path": "b", "query": "q"});
        assert_eq!(subject("Bash", &input), Subject::Command(Some("ls")));
        assert_eq!(subject("PowerShell", &input), Subject::Command(Some("ls")));
        assert_eq!(subject("WebFetch", &input), Subject::Url(Some("https://x")));
        assert_eq!(subject("Edit", &input), Subject::Path(Some("a")));
        assert_eq!(
            subject("Grep", &json!({"path": "b"})),
            Subject::Path(Some("b"))
        );
        assert_eq!(
            subject("Task", &json!({"query": "q"})),
            Subject::Other(Some("q"))
        );
        assert_eq!(subject("Bash", &json!({})), Subject::Command(None));
        assert_eq!(subject("Monitor", &input), Subject::Command(Some("ls")));
    }

    #[test]
    fn monitor_runs_bash_unless_it_watches_a_socket() {
        let command = json!({"command": "tail -f log", "description": "d", "timeout_ms": 5000});
        assert!(runs_bash("Bash", &command) && runs_bash("Monitor", &command));
        assert!(!runs_bash("Monitor", &json!({"ws": "ws://127.0.0.1:1"})));
        assert!(!runs_bash("SlashCommand", &json!({"command": "/commit"})));
        assert!(!runs_bash("PowerShell", &command), "not bash");
        assert_eq!(matched_as("Monitor"), Some(BASH));
        assert_eq!(matched_as("Bash"), None);
        assert_eq!(matched_as("Read"), None);
    }
}
