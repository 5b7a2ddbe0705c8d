//! `--listen unix:PATH`: a unix socket with no window in which another user can connect.
//! Unix only; elsewhere the option is refused with a clear message.

use super::*;

/// Serves `app` on a unix socket at `path` until a stop signal; the socket is removed
/// when `serve` ends.
#[cfg(unix)]
pub(super) async fn serve(
    path: &Path,
    app: Router,
    drain: Duration,
    server: &Arc<Server>,
    stop: StopSignals,
) -> CliResult {
    let (listener, cleanup) = bind_unix(path)?;
    println!("listening on unix:{}", path.display());
    let result = run_http(listener, app, drain, server, stop).await;
    drop(cleanup);
    result
}

/// Unix sockets do not exist here.
#[cfg(not(unix))]
pub(super) async fn serve(
    path: &Path,
    _app: Router,
    _drain: Duration,
    _server: &Arc<Server>,
    _stop: StopSignals,
) -> CliResult {
    Err(CliError::Usage(anyhow::anyhow!(
        "--listen unix:{}: unix sockets are not available on this system; listen on 127.0.0.1:PORT",
        path.display()
    )))
}

/// Removes the socket (and its private folder) when `serve` ends.
#[cfg(unix)]
struct UnixCleanup {
    socket: PathBuf,
}

#[cfg(unix)]
impl Drop for UnixCleanup {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.socket);
    }
}

/// Binds a unix socket at `path` with no window in which another user can connect: the
/// socket is created inside a fresh private (0700) folder and renamed into place. Only a
/// stale socket at `path` is replaced; any other file there is an error.
#[cfg(unix)]
fn bind_unix(path: &Path) -> anyhow::Result<(tokio::net::UnixListener, UnixCleanup)> {
    use std::os::unix::fs::FileTypeExt;
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_socket() => std::fs::remove_file(path)
            .with_context(|| format!("cannot replace the stale socket {}", path.display()))?,
        Ok(_) => anyhow::bail!(
            "--listen unix:{}: a file that is not a socket is in the way; not replacing it",
            path.display()
        ),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
        Err(err) => return Err(err).with_context(|| format!("cannot check {}", path.display())),
    }
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let private = tempfile::Builder::new()
        .prefix(".hookhost-sock")
        .tempdir_in(parent)
        .with_context(|| format!("cannot create a private folder in {}", parent.display()))?;
    let staged = private.path().join("s");
    let listener = tokio::net::UnixListener::bind(&staged)
        .with_context(|| format!("cannot listen on {}", path.display()))?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&staged, std::fs::Permissions::from_mode(0o600))
        .with_context(|| format!("cannot restrict {}", path.display()))?;
    std::fs::rename(&staged, path).with_context(|| format!("cannot place {}", path.display()))?;
    Ok((
        listener,
        UnixCleanup {
            socket: path.to_path_buf(),
        },
    ))
}
