//! The owners' `telemetry` setting (managed ▸ `--settings` ▸ user; a repository's is
//! ignored, and no variable names a collector): where every decision is exported over
//! OTLP. A bad value is an error that names the field, and the export stays off — the
//! decisions themselves are never touched.

use serde_json::Value;

use super::owners::owner_values;
use super::source::Source;
use super::{Diagnostic, Severity};
use crate::fleet::export::TelemetrySettings;

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
            diags.push(Diagnostic {
                severity: Severity::Warning,
                file: source.label.clone(),
                location: "telemetry".into(),
                message: "`telemetry` counts only in the owners' settings; ignored".into(),
            });
        }
    }
    let (source, value) = owner_values(sources, "telemetry", false)
        .into_iter()
        .next()?;
    let mut error = |field: &str, message: String| {
        diags.push(Diagnostic {
            severity: Severity::Error,
            file: source.label.clone(),
            location: format!("telemetry{field}"),
            message: format!("{message}; decisions are not exported"),
        });
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
