//! The tool table: which field of a tool call's input carries what rules, guards and
//! guests read — a shell tool's command, a fetch's URL, a file tool's path as a rule reads
//! it, the value a bare specifier matches. (Where a file tool's call lands is
//! [`crate::file_target`]'s table.) Nothing else reads a tool input's fields by name.

use serde_json::Value;

/// The field holding a shell command (Bash, PowerShell, and the WIT `bash-command`).
const COMMAND: &str = "command";

/// The shell tools: their command is [`COMMAND`].
const SHELL_TOOLS: &[&str] = &["Bash", "PowerShell"];

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
    }
}
