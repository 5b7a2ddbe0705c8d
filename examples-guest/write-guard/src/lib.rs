//! `write-guard` (the builtins `protected-paths` and `system-dirs`): no tool and no
//! command writes under the configured places. File tools are judged on the target the
//! host resolved past `..` and links (and the path as given); Bash through the host's
//! shell view, every command bash would run: output redirections, `tee`, `sed -i`,
//! `perl -i`, `dd of=`, the destination of `cp`/`install`/`ln`/`rsync`, and every operand
//! of the commands that change or remove what they name (`mv`, `rm`, `chmod`, `touch`,
//! `truncate`, …). Config: `paths` (absolute; as the builtins, a relative path is made
//! absolute against the project by the host before the guest sees it, and a component
//! loaded from a file reads one relative to the event's working directory; each protects
//! itself and everything below it) and `label` (how the reason names them).

mod writes;

use hookhost_guest::{Answer, Hook, PreToolUse, config, export_hook};

/// The hook.
pub struct WriteGuard;

const FILE_TOOLS: &[&str] = &["Write", "Edit", "MultiEdit", "NotebookEdit"];

impl Hook for WriteGuard {
    fn pre_tool_use(call: PreToolUse) -> Result<Answer, String> {
        let protected = config::get_list("paths");
        if protected.is_empty() {
            return Ok(Answer::none());
        }
        let label = config::get_str("label").unwrap_or_else(|| "a protected path".into());
        let cwd = call.cwd().to_string();
        let hit = match call.tool_name() {
            Some(tool) if FILE_TOOLS.contains(&tool) => {
                let resolved = call.target().map(|target| target.resolved_path);
                let given = call.file_path().map(str::to_string);
                resolved
                    .into_iter()
                    .chain(given)
                    .find_map(|path| writes::protected_by(&path, &cwd, &protected))
            }
            // Every shell command the agent runs (Bash, Monitor, a skill's `!` line): the
            // host gives its view for those alone among the tools this guard is matched on.
            _ => call.shell().and_then(|script| {
                script.commands().find_map(|command| {
                    writes::targets(&command)
                        .into_iter()
                        .find_map(|path| writes::protected_by(&path, &cwd, &protected))
                })
            }),
        };
        Ok(match hit {
            Some((path, place)) => Answer::deny(format!(
                "`{path}` is under {place}, {label} no tool or command may write; change files inside the project instead, or ask the user to make this change"
            )),
            None => Answer::none(),
        })
    }
}

export_hook!(WriteGuard);
