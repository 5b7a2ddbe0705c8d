//! The owners' `telemetry` setting (managed ▸ `--settings` ▸ user; a repository's is
//! ignored, and no variable names a collector): where every decision is exported over
//! OTLP. A bad value is an error that names the field, and the export stays off — the
//! decisions themselves are never touched.

use serde_json::Value;

use super::owners::owner_values;
use super::source::Source;
use super::{Diagnostic, Severity};

/// The owners' `telemetry`, if set and valid.
pub(super) fn telemetry(
    sources: &[Source],
    diags: &mut Vec<Diagnostic>,
) -> Option<TelemetrySettings> {
    for source in sources.iter().filter(|s| !s.layer.is_owner()) {
        if source
            .value
            .as_ref()
            .is_some_and(|v| v.get("telemetry").is_some())
        {
            diags.push(Diagnostic::new(
                Severity::Warning,
                source.label.clone(),
                "telemetry",
                "`telemetry` counts only in the owners' settings; ignored",
            ));
        }
    }
    let (source, value) = owner_values(sources, "telemetry", false)
        .into_iter()
        .next()?;
    let mut error = |field: &str, message: String| {
        diags.push(Diagnostic::new(
            Severity::Error,
            source.label.clone(),
            format!("telemetry{field}"),
            format!("{message}; decisions are not exported"),
        ));
        None
    };
    let Some(object) = value.as_object() else {
        return error("", "`telemetry` is not an object".into());
    };
    let Some(endpoint) = object.get("endpoint").and_then(Value::as_str) else {
        return error(
            ".endpoint",
            "`endpoint` (the collector's OTLP/HTTP URL) is missing".into(),
        );
    };
    let Ok(url) = reqwest::Url::parse(endpoint) else {
        return error(".endpoint", format!("`{endpoint}` is not a URL"));
    };
    let host = url.host_str().unwrap_or_default();
    let loopback = host == "localhost"
        || host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    match url.scheme() {
        "https" => {}
        "http" if loopback => {}
        _ => {
            return error(
                ".endpoint",
                format!(
                    "`{endpoint}`: decisions leave the machine over https only (plain http only to a collector on loopback)"
                ),
            );
        }
    }
    let mut settings = TelemetrySettings::for_endpoint(endpoint);
    let pairs = |field: &str| -> Result<Vec<(String, String)>, String> {
        match object.get(field) {
            None => Ok(Vec::new()),
            Some(Value::Object(map)) => map
                .iter()
                .map(|(k, v)| match v.as_str() {
                    Some(text) => Ok((k.clone(), text.to_string())),
                    None => Err(format!("`{field}.{k}` is not a string")),
                })
                .collect(),
            Some(_) => Err(format!("`{field}` is not an object of strings")),
        }
    };
    settings.headers = match pairs("headers") {
        Ok(headers) => headers,
        Err(message) => return error(".headers", message),
    };
    settings.resource = match pairs("resource") {
        Ok(resource) => resource,
        Err(message) => return error(".resource", message),
    };
    match object.get("captureToolInput") {
        None => {}
        Some(Value::Bool(on)) => settings.capture_tool_input = *on,
        Some(_) => {
            return error(
                ".captureToolInput",
                "`captureToolInput` is not true or false".into(),
            );
        }
    }
    let number = |field: &str, least: u64| -> Result<Option<u64>, String> {
        match object.get(field) {
            None => Ok(None),
            Some(value) => value
                .as_u64()
                .filter(|n| *n >= least)
                .map(Some)
                .ok_or_else(|| format!("`{field}` must be a whole number of at least {least}")),
        }
    };
    match number("maxTextBytes", 64) {
        Ok(Some(n)) => settings.max_text_bytes = n as usize,
        Ok(None) => {}
        Err(message) => return error(".maxTextBytes", message),
    }
    match number("statusInterval", 10) {
        Ok(Some(n)) => settings.status_interval = n,
        Ok(None) => {}
        Err(message) => return error(".statusInterval", message),
    }
    Some(settings)
}

/// The owners' `telemetry` setting.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TelemetrySettings {
    /// The collector's OTLP/HTTP base (`https://…:4318`, plain http only on loopback);
    /// traces go to `<endpoint>/v1/traces`.
    pub endpoint: String,
    /// Headers sent with every POST (e.g. an ingest key).
    pub headers: Vec<(String, String)>,
    /// Whether a tool's input is exported (`captureToolInput`, default off).
    pub capture_tool_input: bool,
    /// Resource attributes added to the machine's own (`resource`).
    pub resource: Vec<(String, String)>,
    /// Bytes of each text attribute kept (`maxTextBytes`, default 4096).
    pub max_text_bytes: usize,
    /// Seconds between `serve`'s status reports (`statusInterval`, default 300).
    pub status_interval: u64,
}

/// Default bytes kept of a reason or a captured input.
pub const DEFAULT_MAX_TEXT_BYTES: usize = 4096;

impl TelemetrySettings {
    /// The settings for `endpoint`, every other field at its default.
    pub fn for_endpoint(endpoint: &str) -> Self {
        Self {
            endpoint: endpoint.trim_end_matches('/').to_string(),
            headers: Vec::new(),
            capture_tool_input: false,
            resource: Vec::new(),
            max_text_bytes: DEFAULT_MAX_TEXT_BYTES,
            status_interval: 300,
        }
    }

    /// Where spans are POSTed.
    pub fn traces_url(&self) -> String {
        if self.endpoint.ends_with("/v1/traces") {
            self.endpoint.clone()
        } else {
            format!("{}/v1/traces", self.endpoint)
        }
    }

    /// The machine's resource attributes: `service.*`, `host.*`, the policy revision in
    /// force, then the owner's `resource`.
    pub fn resource_for(&self, policy_revision: Option<&str>) -> Vec<(String, String)> {
        let mut resource = vec![
            ("service.name".to_string(), "hookhost".to_string()),
            (
                "service.version".to_string(),
                env!("CARGO_PKG_VERSION").to_string(),
            ),
            ("os.type".to_string(), std::env::consts::OS.to_string()),
        ];
        if let Some(name) = crate::platform::host_name() {
            resource.push(("host.name".into(), name));
        }
        if let Some(id) = machine_id() {
            resource.push(("host.id".into(), id));
        }
        if let Some(revision) = policy_revision {
            resource.push(("hookhost.policy.revision".into(), revision.to_string()));
        }
        for (key, value) in &self.resource {
            resource.retain(|(known, _)| known != key);
            resource.push((key.clone(), value.clone()));
        }
        resource
    }
}

/// `/etc/machine-id` (systemd's stable machine identity), when there is one.
fn machine_id() -> Option<String> {
    let bytes = crate::files::read_regular(std::path::Path::new("/etc/machine-id"), 256).ok()?;
    let id = String::from_utf8(bytes).ok()?.trim().to_string();
    (!id.is_empty()).then_some(id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Layer;
    use serde_json::json;

    use crate::config::source::test_source as source;

    fn read(sources: &[Source]) -> (Option<TelemetrySettings>, Vec<Diagnostic>) {
        let mut diags = Vec::new();
        (telemetry(sources, &mut diags), diags)
    }

    #[test]
    fn only_an_owner_names_a_collector_and_plain_http_only_on_loopback() {
        let repository = source(
            Layer::Project,
            json!({"telemetry": {"endpoint": "https://evil.example"}}),
        );
        let (settings, diags) = read(&[repository]);
        assert!(settings.is_none());
        assert!(
            diags[0]
                .message
                .contains("counts only in the owners' settings")
        );
        let owner =
            |endpoint: &str| source(Layer::Managed, json!({"telemetry": {"endpoint": endpoint}}));
        let (settings, _) = read(&[owner("http://127.0.0.1:4318/")]);
        assert_eq!(
            settings.unwrap().traces_url(),
            "http://127.0.0.1:4318/v1/traces"
        );
        let (settings, diags) = read(&[owner("http://collector.example:4318")]);
        assert!(settings.is_none());
        assert_eq!(diags[0].location, "telemetry.endpoint");
        assert!(
            diags[0].message.contains("https only"),
            "{}",
            diags[0].message
        );
        assert!(read(&[owner("https://collector.example")]).0.is_some());
    }

    #[test]
    fn a_bad_field_is_named_and_the_export_stays_off() {
        for (telemetry, field) in [
            (
                json!({"endpoint": "https://c.example", "maxTextBytes": 3}),
                "telemetry.maxTextBytes",
            ),
            (
                json!({"endpoint": "https://c.example", "headers": {"a": 1}}),
                "telemetry.headers",
            ),
            (
                json!({"endpoint": "https://c.example", "captureToolInput": "yes"}),
                "telemetry.captureToolInput",
            ),
            (json!({"headers": {}}), "telemetry.endpoint"),
            (json!("https://c.example"), "telemetry"),
        ] {
            let (settings, diags) = read(&[source(Layer::User, json!({"telemetry": telemetry}))]);
            assert!(settings.is_none(), "{field}");
            assert_eq!(diags[0].location, field);
            assert!(diags[0].message.ends_with("decisions are not exported"));
        }
        let (settings, _) = read(&[source(
            Layer::User,
            json!({"telemetry": {"endpoint": "https://c.example", "captureToolInput": true,
                "maxTextBytes": 128, "resource": {"deployment.environment": "prod"}}}),
        )]);
        let settings = settings.unwrap();
        assert!(settings.capture_tool_input);
        assert_eq!(settings.max_text_bytes, 128);
        let resource = settings.resource_for(Some("sha256:ab"));
        assert!(resource.contains(&("hookhost.policy.revision".into(), "sha256:ab".into())));
        assert!(resource.contains(&("deployment.environment".into(), "prod".into())));
        assert!(resource.contains(&("service.name".into(), "hookhost".into())));
    }
}
