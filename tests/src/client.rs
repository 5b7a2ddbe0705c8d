//! The HTTP calls the tests make of `hookhost serve` and other local servers, each one
//! line: a POST of a JSON body read back as JSON, with or without serve's bearer token,
//! and a GET read back as text.

use serde_json::Value;

/// A client that never asks a proxy (the machine's proxy variables are not the test's).
pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("an HTTP client")
}

/// POSTs `body` to `url` and reads the answer as JSON.
pub async fn post_json(client: &reqwest::Client, url: impl AsRef<str>, body: &Value) -> Value {
    client
        .post(url.as_ref())
        .json(body)
        .send()
        .await
        .expect("POST")
        .json()
        .await
        .expect("a JSON answer")
}

/// POSTs `body` to `url` with `token` as the bearer token (none: no header); the status
/// and the answer read as JSON (`null` when it is not JSON).
pub async fn post_with_token(
    client: &reqwest::Client,
    url: impl AsRef<str>,
    token: Option<&str>,
    body: &Value,
) -> (u16, Value) {
    let mut request = client.post(url.as_ref()).json(body);
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let response = request.send().await.expect("POST");
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// GETs `url` and reads the answer as text.
pub async fn get_text(client: &reqwest::Client, url: impl AsRef<str>) -> String {
    client
        .get(url.as_ref())
        .send()
        .await
        .expect("GET")
        .text()
        .await
        .expect("a text answer")
}
