//! An agent's input in hookhost's terms: its event named as hookhost names it, its common
//! fields renamed, an event that is one tool's call given that tool, its tool renamed with
//! its fields (the agent's own name kept in [`crate::agent::AGENT_TOOL_FIELD`]), MCP tools
//! as `mcp__server__tool`, and a Codex patch split into one input per file.

use serde_json::{Map, Value, json};

use super::{AgentError, Normalised, apply_patch};
use crate::agent::contract::{Contract, ToolMap};
use crate::agent::{AGENT_FIELD, AGENT_TOOL_FIELD, Agent};

impl Normalised {
    /// Reads `raw`, the input `agent` gave its hook; `event` is the event name the
    /// installed command passes where the agent's input does not carry one (Copilot's
    /// camelCase events).
    pub fn read(agent: Agent, event: Option<&str>, raw: Value) -> Result<Normalised, AgentError> {
        let contract = agent.contract();
        let Value::Object(mut map) = raw else {
            return Err(AgentError::NotAnObject {
                agent: agent.name(),
            });
        };
        let agent_event = event
            .map(str::to_string)
            .or_else(|| {
                map.get(contract.event_field)
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })
            .ok_or(AgentError::NoEvent {
                agent: agent.name(),
            })?;
        let (event, fixed_tool) = contract.event(&agent_event);
        let event = event.to_string();
        for (from, to) in contract.fields {
            if let Some(value) = map.remove(*from) {
                map.entry(*to).or_insert(value);
            }
        }
        if !map.contains_key("cwd")
            && let Some(root) = map
                .get("workspace_roots")
                .and_then(Value::as_array)
                .and_then(|roots| roots.first())
                .cloned()
        {
            map.insert("cwd".into(), root);
        }
        if let Some(tool) = fixed_tool {
            // An event that is one tool's call (Cursor's `beforeShellExecution`): the tool
            // input is the event's own fields.
            let mut input = Map::new();
            for (from, to) in tool.args {
                if let Some(value) = map.remove(*from) {
                    input.insert((*to).to_string(), value);
                }
            }
            map.insert("tool_name".into(), json!(tool.tool));
            map.insert("tool_input".into(), Value::Object(input));
        }
        map.insert(
            crate::dialect::DialectId::Claude
                .dialect()
                .event_field
                .into(),
            json!(&event),
        );
        map.insert(AGENT_FIELD.into(), json!(agent.name()));
        // Only hookhost names the agent's own tool (the envelope reads it).
        map.remove(AGENT_TOOL_FIELD);
        let inputs = match rename_tool(contract, &mut map) {
            Some(patch) => apply_patch::per_file(&map, &patch),
            None => vec![Value::Object(map)],
        };
        Ok(Normalised {
            agent,
            agent_event,
            event,
            inputs,
        })
    }
}

/// Gives the input's tool its hookhost name and fields; a Codex `apply_patch` returns its
/// patch text instead (its files become one input each).
fn rename_tool(contract: &Contract, map: &mut Map<String, Value>) -> Option<String> {
    let name = map.get("tool_name").and_then(Value::as_str)?.to_string();
    if contract.patch_tool == Some(name.as_str()) {
        return Some(apply_patch::text(map.get("tool_input")?)?.to_string());
    }
    if let Some((prefix, separator)) = contract.mcp
        && let Some(rest) = name.strip_prefix(prefix)
        && let Some((server, tool)) = rest.split_once(separator)
    {
        map.insert("tool_name".into(), json!(format!("mcp__{server}__{tool}")));
        return None;
    }
    let tool = contract.tools.iter().find(|t: &&ToolMap| t.agent == name)?;
    map.insert("tool_name".into(), json!(tool.tool));
    if tool.agent != tool.tool {
        map.insert(AGENT_TOOL_FIELD.into(), json!(tool.agent));
    }
    if let Some(Value::Object(args)) = map.get_mut("tool_input") {
        for (from, to) in tool.args {
            if from != to
                && let Some(value) = args.remove(*from)
            {
                args.entry(*to).or_insert(value);
            }
        }
    }
    None
}
