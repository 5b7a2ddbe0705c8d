//! The front door: one request path for every entry point (`hookhost fire`, `serve`'s
//! `POST /hooks` and `POST /v1/fire`, `serve --stdio`, and embedders).
//!
//! An entry point hands over the raw request bytes and its limits and always gets back
//! the answer to give. Whenever a `failClosed` hook guards the event, every failure before
//! or around the hooks — oversize or unreadable input, no event, a request for another
//! project, overload after a bounded wait, a body that never finished, an internal error
//! — is answered as a block naming the cause, never as an error a host would read as
//! "proceed". Without such a hook the answer says what failed.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Map, Value};

use crate::dialect::Dialect;
use crate::hook_input::Fill;
use crate::outcome::EventOutcome;

pub(crate) mod agent;

/// Bounds a request is held to.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct RequestLimits {
    /// Largest input, bytes.
    pub max_body: usize,
    /// Refuse an input whose `cwd` lies outside the engine's project directory (a server
    /// answering for one project; see [`Failure::ForeignProject`]).
    pub same_project: bool,
}

impl RequestLimits {
    /// Inputs of at most `max_body` bytes; with `same_project`, an input whose `cwd` lies
    /// outside the engine's project is refused.
    pub fn new(max_body: usize, same_project: bool) -> RequestLimits {
        RequestLimits {
            max_body,
            same_project,
        }
    }
}

impl<'a> Request<'a> {
    /// A request for the input `body`, held to `limits`; the event is the input's own and
    /// `session_id` fills an input that has none.
    pub fn new(body: &'a [u8], session_id: &'a str, limits: &'a RequestLimits) -> Request<'a> {
        Request {
            body,
            event: None,
            session_id,
            limits,
        }
    }

    /// Names the event (else the input's event field names it).
    pub fn event(mut self, event: Option<&'a str>) -> Request<'a> {
        self.event = event;
        self
    }
}

impl Default for RequestLimits {
    fn default() -> Self {
        Self {
            max_body: 1 << 20,
            same_project: false,
        }
    }
}

/// A request as it arrived.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct Request<'a> {
    /// The hook input, as bytes.
    pub body: &'a [u8],
    /// The event, when the caller names it (else the input's event field).
    pub event: Option<&'a str>,
    /// The session id to fill in when the input has none.
    pub session_id: &'a str,
    /// Bounds.
    pub limits: &'a RequestLimits,
}

/// What went wrong before or around the hooks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Failure {
    /// The input is larger than [`RequestLimits::max_body`].
    #[error("the input is over the {limit}-byte limit")]
    Oversize {
        /// The limit, bytes.
        limit: usize,
    },
    /// The input did not arrive in time.
    #[error("the input did not arrive within {}s", .0.as_secs_f64())]
    SlowBody(Duration),
    /// No slot to run the hooks in within the bounded wait.
    #[error("too many calls in flight (no free slot within {}s)", .0.as_secs_f64())]
    Overload(Duration),
    /// The input is not a JSON object hookhost can read.
    #[error("the input cannot be read: {0}")]
    Unreadable(String),
    /// Neither the caller nor the input names the event.
    #[error("no event: name it or put `{0}` in the input")]
    NoEvent(&'static str),
    /// The input's `cwd` names a folder outside the project this engine serves.
    #[error("the input's cwd {cwd} is outside the project {project} this engine serves")]
    ForeignProject {
        /// The request's `cwd`.
        cwd: String,
        /// The engine's project directory.
        project: PathBuf,
    },
    /// hookhost failed while running the hooks.
    #[error("hookhost failed while running the hooks: {0}")]
    Internal(String),
    /// The caller did not prove it may call (`serve`'s bearer token was missing or
    /// wrong): a repository's `env` setting can blank the token a host sends, so a
    /// guarded event is answered as a block, never as an error the host proceeds on.
    #[error("the request did not carry serve's bearer token")]
    Unauthorized,
}

/// The answer to give.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Answer {
    /// The hooks ran — or a failure was answered as a block, because a `failClosed` hook
    /// guards the event.
    Outcome(Box<EventOutcome>),
    /// A failure no `failClosed` hook guards: the caller reports it.
    Failed(Failure),
}

impl Answer {
    /// The outcome, or the failure no `failClosed` hook guards.
    pub fn into_result(self) -> Result<EventOutcome, Failure> {
        match self {
            Answer::Outcome(outcome) => Ok(*outcome),
            Answer::Failed(failure) => Err(failure),
        }
    }
}

/// What the front door asks of the engine behind it ([`crate::Engine`] implements it):
/// the door sits above the engine and never names it.
pub(crate) trait Backend: Clone + Send + Sync + 'static {
    /// The dialect the engine speaks.
    fn dialect(&self) -> &'static Dialect;
    /// The project the engine serves.
    fn project_dir(&self) -> Option<&Path>;
    /// Whether a `failClosed` hook guards `event` (`None`: any event).
    fn guarded(&self, event: Option<&str>) -> bool;
    /// Runs `event`'s hooks on `input`, the fields the host left out filled from `fill`.
    fn run(
        &self,
        event: &str,
        input: Value,
        fill: Fill,
    ) -> impl Future<Output = EventOutcome> + Send;
}

/// Answers one request: parses and bounds the input, fills the common fields a host
/// may leave out (`session_id`, `transcript_path`, `cwd`, `permission_mode`), runs the
/// event's hooks (a panic inside the engine is caught) and returns the outcome; any
/// failure goes through [`refuse`].
pub(crate) async fn answer(engine: &impl Backend, request: Request<'_>) -> Answer {
    let limits = request.limits;
    if request.body.len() > limits.max_body {
        let head = &request.body[..limits.max_body];
        return refuse(
            engine,
            request.event,
            head,
            Failure::Oversize {
                limit: limits.max_body,
            },
        );
    }
    let input = match crate::input::parse(request.body) {
        Ok(input) => input,
        Err(err) => {
            return refuse(
                engine,
                request.event,
                request.body,
                Failure::Unreadable(err.to_string()),
            );
        }
    };
    let Some(map) = input.as_object() else {
        return refuse(
            engine,
            request.event,
            request.body,
            Failure::Unreadable("not a JSON object".into()),
        );
    };
    let field = engine.dialect().event_field;
    let event = match request.event.or(map.get(field).and_then(Value::as_str)) {
        Some(event) => event.to_string(),
        None => return refuse(engine, None, request.body, Failure::NoEvent(field)),
    };
    answer_input(engine, &event, input, limits, request.session_id).await
}

/// Answers one input already read (an agent's call, normalised): the project check, the
/// fields the host left out filled in, the event's hooks run (a panic inside the engine is
/// caught); any failure goes through [`refuse`].
pub(crate) async fn answer_input(
    engine: &impl Backend,
    event: &str,
    input: Value,
    limits: &RequestLimits,
    session_id: &str,
) -> Answer {
    if limits.same_project
        && let Some(map) = input.as_object()
        && let Some(failure) = foreign_project(engine, map)
    {
        return refuse(engine, Some(event), b"", failure);
    }
    let fill = Fill {
        session: session_id.to_string(),
        project: engine.project_dir().map(Path::to_path_buf),
    };
    let task = {
        let (engine, event) = (engine.clone(), event.to_string());
        tokio::spawn(async move { engine.run(&event, input, fill).await })
    };
    match task.await {
        Ok(outcome) => Answer::Outcome(Box::new(outcome)),
        Err(err) => refuse(engine, Some(event), b"", Failure::Internal(err.to_string())),
    }
}

/// The answer to a request that failed before or around its hooks: a block naming
/// `failure` when a `failClosed` hook guards the event (named, or sniffed from `body`;
/// when it cannot be told, any `failClosed` hook counts), else the failure itself.
pub(crate) fn refuse(
    engine: &impl Backend,
    event: Option<&str>,
    body: &[u8],
    failure: Failure,
) -> Answer {
    let event = event
        .map(str::to_string)
        .or_else(|| crate::input::sniff_event(body));
    if !engine.guarded(event.as_deref()) {
        return Answer::Failed(failure);
    }
    let event = event.unwrap_or_else(|| "PreToolUse".into());
    let reason = format!(
        "hookhost could not run the {event} hooks ({failure}); blocking because a failClosed hook guards this event"
    );
    tracing::warn!("{reason}");
    Answer::Outcome(Box::new(crate::outcome::EventOutcome::failed_closed(
        &event, &reason,
    )))
}

/// A failure when the input's `cwd` is not the project directory or below it.
fn foreign_project(engine: &impl Backend, map: &Map<String, Value>) -> Option<Failure> {
    let project = engine.project_dir()?;
    crate::hook_input::named_cwds(engine.dialect(), map).find_map(|cwd| outside(cwd, project))
}

/// The failure of a working directory `cwd` outside `project`.
fn outside(cwd: &str, project: &Path) -> Option<Failure> {
    (!within(Path::new(cwd), project)).then(|| Failure::ForeignProject {
        cwd: cwd.to_string(),
        project: project.to_path_buf(),
    })
}

/// Whether `path` is `root` or below it: an absolute path, judged where it leads
/// ([`crate::paths::inside`]: past links, and `..` taken out of the part not created
/// yet), so neither `..` nor a symlink inside the project leads out of it.
fn within(path: &Path, root: &Path) -> bool {
    path.is_absolute() && crate::paths::inside(path, root)
}

#[cfg(test)]
mod tests {
    use super::within;
    use std::path::Path;

    #[test]
    fn within_is_judged_on_words_and_links() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let project = root.join("p");
        std::fs::create_dir_all(project.join("sub")).unwrap();
        assert!(within(&project, &project));
        assert!(within(&project.join("sub"), &project));
        assert!(within(&project.join("not-yet"), &project));
        assert!(!within(&project.join("../q"), &project));
        assert!(!within(&project.join("sub/../../q"), &project));
        assert!(!within(Path::new("p/sub"), &project));
        assert!(!within(&root.join("p2"), &project));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&root, project.join("out")).unwrap();
            assert!(!within(&project.join("out"), &project));
            // A project named through a link (macOS's /tmp) and a cwd given as its real
            // path: the same folder.
            let alias = root.join("alias");
            std::os::unix::fs::symlink(&root, &alias).unwrap();
            assert!(within(&project.join("sub"), &alias.join("p")));
        }
    }
}
