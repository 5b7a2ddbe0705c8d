//! Registry reads held to a size: a manifest (which `oci-client` would read whole,
//! however large a hostile registry makes it) is fetched here, its body streamed and cut
//! at [`MAX_MANIFEST_BYTES`]; a signature blob at [`super::MAX_SIGNATURE_BYTES`]. The
//! registry's token exchange stays `oci-client`'s.

use futures_util::{Stream, StreamExt};
use oci_client::manifest::OciImageManifest;
use oci_client::secrets::RegistryAuth;
use oci_client::{Client, RegistryOperation};

use super::{OciError, OciRef, registry_error, sha256_digest};

/// The largest manifest read (registries following the distribution spec accept
/// manifests up to 4 MiB; a Wasm artifact's is under 1 KiB).
pub const MAX_MANIFEST_BYTES: usize = 4 << 20;

/// Media types asked for: an OCI image manifest, or Docker's v2 one.
const MANIFEST_TYPES: &str = "application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json";

/// The image manifest `reference` names now, and its digest (the SHA-256 of the bytes
/// served, which must be the reference's digest when it names one).
pub(crate) async fn manifest(
    client: &Client,
    reference: &OciRef,
    auth: &RegistryAuth,
) -> Result<(OciImageManifest, String), OciError> {
    let image = &reference.reference;
    let token = client
        .auth(image, auth, RegistryOperation::Pull)
        .await
        .map_err(|e| registry_error(reference, e))?;
    let scheme = if reference.is_loopback() {
        "http"
    } else {
        "https"
    };
    let target = image.digest().or(image.tag()).unwrap_or("latest");
    let url = format!(
        "{scheme}://{}/v2/{}/manifests/{target}",
        image.resolve_registry(),
        image.repository()
    );
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::limited(3))
        .build()
        .map_err(|e| registry_error(reference, e))?;
    let mut request = http
        .get(&url)
        .header(reqwest::header::ACCEPT, MANIFEST_TYPES);
    request = match (token, auth) {
        (Some(token), _) => request.bearer_auth(token),
        (None, RegistryAuth::Basic(user, password)) => request.basic_auth(user, Some(password)),
        _ => request,
    };
    let mut response = request
        .send()
        .await
        .map_err(|e| registry_error(reference, e))?;
    let status = response.status();
    if !status.is_success() {
        return Err(registry_error(
            reference,
            format!("the registry answered {status} for the manifest"),
        ));
    }
    let too_long = |e: String| registry_error(reference, format!("the manifest: {e}"));
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| too_long(e.to_string()))?
    {
        append_capped(&mut body, &chunk, MAX_MANIFEST_BYTES).map_err(too_long)?;
    }
    let digest = sha256_digest(&body);
    if let Some(expected) = image.digest()
        && expected != digest
    {
        return Err(registry_error(
            reference,
            format!("the registry served a manifest whose digest is {digest}, not {expected}"),
        ));
    }
    let manifest = serde_json::from_slice(&body)
        .map_err(|e| registry_error(reference, format!("not an image manifest: {e}")))?;
    Ok((manifest, digest))
}

/// Why a blob could not be read whole.
pub(crate) enum BlobError {
    /// The bytes are not the ones the manifest names (`actual`: what the client saw).
    Digest(String),
    /// The registry refused, failed, or served more than the manifest declares.
    Registry(String),
}

/// The blob `layer` names, streamed and held to the size its manifest declares (a
/// registry that serves more is cut off at the first byte over); the client checks the
/// bytes against the manifest's digest as they arrive.
pub(crate) async fn blob(
    client: &Client,
    reference: &OciRef,
    layer: &oci_client::manifest::OciDescriptor,
) -> Result<Vec<u8>, BlobError> {
    let mut stream = client
        .pull_blob_stream(&reference.reference, layer)
        .await
        .map_err(|e| BlobError::Registry(e.to_string()))?;
    let declared = layer.size.max(0) as usize;
    let mut bytes = Vec::with_capacity(declared);
    while let Some(chunk) = stream.stream.next().await {
        let chunk = chunk.map_err(|e| {
            match e
                .get_ref()
                .and_then(|inner| inner.downcast_ref::<oci_client::errors::DigestError>())
            {
                Some(err) => BlobError::Digest(err.to_string()),
                None => BlobError::Registry(e.to_string()),
            }
        })?;
        if bytes.len() + chunk.len() > declared {
            return Err(BlobError::Registry(format!(
                "the blob runs past the {declared} bytes its manifest declares"
            )));
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

/// Every chunk of `stream` while they add up to at most `cap` bytes; an error at the
/// first chunk over it (the rest is never read).
pub(crate) async fn read_capped<T: AsRef<[u8]>, E: std::fmt::Display>(
    stream: impl Stream<Item = Result<T, E>>,
    cap: usize,
) -> Result<Vec<u8>, String> {
    let mut stream = std::pin::pin!(stream);
    let mut body = Vec::new();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| e.to_string())?;
        append_capped(&mut body, chunk.as_ref(), cap)?;
    }
    Ok(body)
}

/// Appends `chunk` to `body` unless that takes it past `cap` bytes.
fn append_capped(body: &mut Vec<u8>, chunk: &[u8], cap: usize) -> Result<(), String> {
    if body.len() + chunk.len() > cap {
        return Err(format!("over the limit of {cap} bytes; not read further"));
    }
    body.extend_from_slice(chunk);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn reading_stops_at_the_cap() {
        let chunks = |n: usize| {
            futures_util::stream::iter((0..n).map(|_| Ok::<_, std::io::Error>(vec![0u8; 1024])))
        };
        assert_eq!(read_capped(chunks(4), 4096).await.unwrap().len(), 4096);
        let err = read_capped(chunks(1 << 20), 4096).await.unwrap_err();
        assert!(err.contains("over the limit of 4096 bytes"), "{err}");
    }
}
