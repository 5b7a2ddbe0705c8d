//! Decisions and status as OTLP traces (`ExportTraceServiceRequest`, protobuf): one span
//! per decision, named and attributed after OpenTelemetry's GenAI tool-call conventions
//! (`execute_tool {tool}`, `gen_ai.operation.name`, `gen_ai.tool.name`,
//! `gen_ai.tool.call.id`, `gen_ai.conversation.id`, `gen_ai.tool.call.arguments` only when
//! the owner opted in) with hookhost's own attributes under `hookhost.` for what they
//! lack; one `hookhost.status` span per status report; the machine's identity as
//! resource attributes.

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use opentelemetry_proto::tonic::common::v1::{
    AnyValue, ArrayValue, InstrumentationScope, KeyValue,
};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans, Span, Status};
use prost::Message;

use super::record::DecisionRecord;
use super::status::StatusReport;

fn pair(key: &str, value: Any) -> KeyValue {
    KeyValue {
        key: key.to_string(),
        value: Some(AnyValue { value: Some(value) }),
        ..Default::default()
    }
}

fn text(key: &str, value: impl Into<String>) -> KeyValue {
    pair(key, Any::StringValue(value.into()))
}

fn number(key: &str, value: i64) -> KeyValue {
    pair(key, Any::IntValue(value))
}

fn list(key: &str, values: &[String]) -> KeyValue {
    let values = values
        .iter()
        .map(|v| AnyValue {
            value: Some(Any::StringValue(v.clone())),
        })
        .collect();
    pair(key, Any::ArrayValue(ArrayValue { values }))
}

fn random<const N: usize>() -> Vec<u8> {
    let mut bytes = [0u8; N];
    let _ = getrandom::fill(&mut bytes);
    bytes.to_vec()
}

/// The span of one decision.
pub fn decision_span(record: &DecisionRecord) -> Span {
    let mut attributes = vec![
        text("hookhost.event", &record.event),
        text("hookhost.decision", &record.decision),
    ];
    let optional = [
        ("hookhost.reason", &record.reason),
        ("hookhost.decided_by", &record.decided_by),
        ("hookhost.policy.revision", &record.policy_revision),
        ("hookhost.agent", &record.agent),
        ("hookhost.project", &record.project),
        ("gen_ai.conversation.id", &record.session_id),
        ("gen_ai.tool.call.id", &record.tool_call_id),
        ("gen_ai.tool.call.arguments", &record.tool_input),
    ];
    for (key, value) in optional {
        if let Some(value) = value {
            attributes.push(text(key, value));
        }
    }
    if !record.components.is_empty() {
        attributes.push(list("hookhost.components", &record.components));
    }
    let name = match &record.tool_name {
        Some(tool) => {
            attributes.push(text("gen_ai.operation.name", "execute_tool"));
            attributes.push(text("gen_ai.tool.name", tool));
            attributes.push(text("gen_ai.tool.type", "function"));
            format!("execute_tool {tool}")
        }
        None => format!("hookhost {}", record.event),
    };
    Span {
        trace_id: random::<16>(),
        span_id: random::<8>(),
        name,
        kind: SpanKind::Internal as i32,
        start_time_unix_nano: record.end_unix_nano.saturating_sub(record.duration_nano),
        end_time_unix_nano: record.end_unix_nano,
        attributes,
        status: Some(Status::default()),
        ..Default::default()
    }
}

/// The span of one status report.
pub fn status_span(report: &StatusReport) -> Span {
    let mut attributes = vec![
        text("hookhost.version", &report.version),
        number("hookhost.export.dropped", report.dropped as i64),
        text("hookhost.status.reason", &report.reason),
    ];
    let optional = [
        ("hookhost.policy.reference", &report.reference),
        ("hookhost.policy.revision", &report.revision),
        ("hookhost.policy.activated_at", &report.activated_at),
        ("hookhost.policy.last_pull", &report.last_pull),
        ("hookhost.policy.last_error", &report.last_error),
    ];
    for (key, value) in optional {
        if let Some(value) = value {
            attributes.push(text(key, value));
        }
    }
    Span {
        trace_id: random::<16>(),
        span_id: random::<8>(),
        name: "hookhost.status".into(),
        kind: SpanKind::Internal as i32,
        start_time_unix_nano: report.time_unix_nano,
        end_time_unix_nano: report.time_unix_nano,
        attributes,
        status: Some(Status::default()),
        ..Default::default()
    }
}

/// An `ExportTraceServiceRequest` of `spans` from the machine `resource` describes,
/// protobuf-encoded.
pub fn encode(resource: &[(String, String)], spans: Vec<Span>) -> Vec<u8> {
    let request = ExportTraceServiceRequest {
        resource_spans: vec![ResourceSpans {
            resource: Some(Resource {
                attributes: resource.iter().map(|(k, v)| text(k, v)).collect(),
                ..Default::default()
            }),
            scope_spans: vec![ScopeSpans {
                scope: Some(InstrumentationScope {
                    name: "hookhost".into(),
                    version: env!("CARGO_PKG_VERSION").into(),
                    ..Default::default()
                }),
                spans,
                ..Default::default()
            }],
            ..Default::default()
        }],
    };
    request.encode_to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_decision_span_follows_the_tool_call_conventions_and_decodes() {
        let record = DecisionRecord {
            end_unix_nano: 2_000,
            duration_nano: 500,
            event: "PreToolUse".into(),
            tool_name: Some("Bash".into()),
            tool_call_id: Some("t1".into()),
            session_id: Some("s1".into()),
            project: None,
            agent: None,
            decision: "deny".into(),
            reason: Some("no".into()),
            decided_by: Some("guard".into()),
            components: vec!["sha256:ab".into()],
            policy_revision: Some("sha256:cd".into()),
            tool_input: None,
        };
        let bytes = encode(
            &[("service.name".into(), "hookhost".into())],
            vec![decision_span(&record)],
        );
        let decoded = ExportTraceServiceRequest::decode(&bytes[..]).unwrap();
        let span = &decoded.resource_spans[0].scope_spans[0].spans[0];
        assert_eq!(span.name, "execute_tool Bash");
        assert_eq!(span.start_time_unix_nano, 1_500);
        let get = |key: &str| {
            span.attributes
                .iter()
                .find(|kv| kv.key == key)
                .and_then(|kv| match kv.value.as_ref()?.value.as_ref()? {
                    Any::StringValue(s) => Some(s.clone()),
                    _ => None,
                })
        };
        assert_eq!(
            get("gen_ai.operation.name").as_deref(),
            Some("execute_tool")
        );
        assert_eq!(get("hookhost.decision").as_deref(), Some("deny"));
        assert_eq!(
            get("hookhost.policy.revision").as_deref(),
            Some("sha256:cd")
        );
        assert_eq!(get("gen_ai.tool.call.arguments"), None);
        assert_eq!(span.trace_id.len(), 16);
    }
}
