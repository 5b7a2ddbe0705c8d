//! From configured handler to executor: the one place that knows every hook type, and
//! the resources executors share (one HTTP client, the HTTP policy, the LLM endpoint,
//! the Wasm runtime, created when the first Wasm hook needs it).

use std::sync::{Arc, Mutex, OnceLock};

use super::command::CommandExecutor;
use super::http::HttpExecutor;
use super::prompt::{LlmOptions, PromptExecutor};
use super::wasm::{WasmError, WasmOptions, WasmRuntime};
use super::{BoxFuture, Detached, Executor, HookCall, Unsupported};
use crate::admission::{Admission, AdmissionPolicy, Permit, admit};
use crate::config::{Handler, HookSpec, HttpPolicy, RunMode, WasmGrantPolicy};
use crate::outcome::HookRun;

/// What executors share.
pub struct Shared {
    /// Built when the first HTTP or prompt hook needs it (a process whose hooks are all
    /// commands or Wasm never loads the TLS roots).
    client: OnceLock<Result<reqwest::Client, String>>,
    admission: AdmissionPolicy,
    llm: LlmOptions,
    wasm_options: WasmOptions,
    wasm: Mutex<Option<Arc<WasmRuntime>>>,
}

impl Shared {
    /// Shared resources for executors built from one configuration.
    pub fn new(
        policy: HttpPolicy,
        grants: WasmGrantPolicy,
        project: Option<std::path::PathBuf>,
        llm: LlmOptions,
        wasm_options: WasmOptions,
    ) -> Shared {
        Shared {
            client: OnceLock::new(),
            admission: AdmissionPolicy {
                grants,
                http: Arc::new(policy),
                project,
            },
            llm,
            wasm_options,
            wasm: Mutex::new(None),
        }
    }

    /// The HTTP client, created on first use.
    fn client(&self) -> Result<reqwest::Client, String> {
        self.client
            .get_or_init(|| super::http::client().map_err(|err| format!("{err:#}")))
            .clone()
    }

    /// The Wasm runtime, created on first use.
    pub fn wasm_runtime(&self) -> Result<Arc<WasmRuntime>, WasmError> {
        let mut slot = self.wasm.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(runtime) = slot.as_ref() {
            return Ok(runtime.clone());
        }
        let runtime = Arc::new(WasmRuntime::new(self.wasm_options.clone())?);
        *slot = Some(runtime.clone());
        Ok(runtime)
    }

    /// The Wasm runtime if one was created.
    pub fn wasm_if_created(&self) -> Option<Arc<WasmRuntime>> {
        self.wasm.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// The executor for `spec`. Cheap checks run now and are reported by
/// [`Executor::load_error`]; the executor of a hook that cannot be set up reports its
/// error on every call.
pub fn build(spec: &HookSpec, shared: &Shared) -> Arc<dyn Executor> {
    let executor = build_sync(spec, shared);
    match spec.mode {
        RunMode::Sync => executor,
        RunMode::Async | RunMode::AsyncRewake => Arc::new(InBackground {
            inner: executor,
            rewake: spec.mode == RunMode::AsyncRewake,
        }),
    }
}

fn build_sync(spec: &HookSpec, shared: &Shared) -> Arc<dyn Executor> {
    let permit = match admit(spec, &shared.admission) {
        Admission::Run(permit) => permit,
        Admission::Skip(reason) => return Arc::new(Skipped(reason)),
        Admission::Refuse(reason) => {
            return Arc::new(Unavailable { message: reason });
        }
    };
    match &spec.handler {
        Handler::Command(command) => {
            Arc::new(CommandExecutor::new(command.clone(), spec.env.clone()))
        }
        Handler::Wasm(handler) => match shared.wasm_runtime() {
            Ok(runtime) => super::wasm::executor(&runtime, handler, &spec.display_name()),
            Err(err) => Arc::new(Unavailable {
                message: format!("cannot create the Wasm runtime: {err}"),
            }),
        },
        Handler::Http(handler) => match (shared.client(), permit) {
            (Ok(client), Permit::Url(url)) => Arc::new(HttpExecutor::new(
                handler.clone(),
                url,
                client,
                shared.admission.http.clone(),
            )),
            (Ok(_), Permit::Entry) => Arc::new(Unavailable {
                message: "an HTTP hook admitted without its URL".into(),
            }),
            (Err(err), _) => no_client(err),
        },
        Handler::Prompt(handler) => match shared.client() {
            Ok(client) => Arc::new(PromptExecutor::new(
                handler.clone(),
                client,
                shared.llm.clone(),
            )),
            Err(err) => no_client(err),
        },
        Handler::Unsupported(kind) => Arc::new(Unsupported(kind.clone())),
    }
}

/// The executor of an HTTP or prompt hook when no HTTP client could be built.
fn no_client(err: String) -> Arc<dyn Executor> {
    Arc::new(Unavailable {
        message: format!("cannot create the HTTP client: {err}"),
    })
}

/// An `async` / `asyncRewake` hook of any executor: the engine hands it to the
/// background and does not wait.
struct InBackground {
    inner: Arc<dyn Executor>,
    rewake: bool,
}

impl Executor for InBackground {
    fn execute<'a>(&'a self, call: HookCall) -> BoxFuture<'a, HookRun> {
        self.inner.execute(call)
    }

    fn default_timeout(&self, event: &crate::event::EventSpec) -> std::time::Duration {
        self.inner.default_timeout(event)
    }

    fn detached(&self) -> Option<Detached> {
        Some(Detached {
            rewake: self.rewake,
        })
    }

    fn load_error(&self) -> Option<String> {
        self.inner.load_error()
    }

    fn load_warning(&self) -> Option<String> {
        self.inner.load_warning()
    }

    fn prepare(&self) -> BoxFuture<'_, Option<String>> {
        self.inner.prepare()
    }

    fn digest(&self) -> Option<String> {
        self.inner.digest()
    }

    fn oci_tag(&self) -> Option<(String, String)> {
        self.inner.oci_tag()
    }

    fn provenance(&self) -> Option<String> {
        self.inner.provenance()
    }

    fn prepare_now(&self) -> Option<String> {
        self.inner.prepare_now()
    }
}

/// A hook admission skips (an untrusted workspace's command, HTTP or prompt hook): never
/// run, reported `skipped` with the reason.
struct Skipped(String);

impl Executor for Skipped {
    fn execute<'a>(&'a self, _call: HookCall) -> BoxFuture<'a, HookRun> {
        let result = HookRun::skipped(self.0.clone());
        Box::pin(async move { result })
    }
}

/// A hook whose executor could not be created: reported at load, fails every call (the
/// scheduler blocks the event when the hook is `failClosed`).
struct Unavailable {
    message: String,
}

impl Executor for Unavailable {
    fn execute<'a>(&'a self, _call: HookCall) -> BoxFuture<'a, HookRun> {
        let result = HookRun::non_blocking(self.message.clone());
        Box::pin(async move { result })
    }

    fn load_error(&self) -> Option<String> {
        Some(self.message.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An executor that answers every question the trait asks with something.
    struct Answers;

    impl Executor for Answers {
        fn execute<'a>(&'a self, _call: HookCall) -> BoxFuture<'a, HookRun> {
            Box::pin(async { HookRun::skipped("ran") })
        }

        fn default_timeout(&self, _event: &crate::event::EventSpec) -> std::time::Duration {
            std::time::Duration::from_secs(7)
        }

        fn load_error(&self) -> Option<String> {
            Some("load error".into())
        }

        fn load_warning(&self) -> Option<String> {
            Some("load warning".into())
        }

        fn prepare(&self) -> BoxFuture<'_, Option<String>> {
            Box::pin(async { Some("prepared".into()) })
        }

        fn digest(&self) -> Option<String> {
            Some("sha256".into())
        }

        fn oci_tag(&self) -> Option<(String, String)> {
            Some(("oci://r/p:1".into(), "sha256:d".into()))
        }

        fn provenance(&self) -> Option<String> {
            Some("oci://r/p:1 signed by k".into())
        }

        fn prepare_now(&self) -> Option<String> {
            Some("prepared now".into())
        }
    }

    /// Issue 44: an async Wasm hook lost its OCI tag and provenance because the background
    /// wrapper forwarded only some of the trait's defaulted methods. It forwards every one.
    #[tokio::test]
    async fn the_background_wrapper_forwards_everything_but_detachment() {
        let wrapped = InBackground {
            inner: Arc::new(Answers),
            rewake: true,
        };
        let inner = Answers;
        let event = crate::dialect::Dialect::claude().lookup("Stop").unwrap();
        assert_eq!(wrapped.default_timeout(event), inner.default_timeout(event));
        assert_eq!(wrapped.load_error(), inner.load_error());
        assert_eq!(wrapped.load_warning(), inner.load_warning());
        assert_eq!(wrapped.prepare().await, inner.prepare().await);
        assert_eq!(wrapped.digest(), inner.digest());
        assert_eq!(wrapped.oci_tag(), inner.oci_tag());
        assert_eq!(wrapped.provenance(), inner.provenance());
        assert_eq!(wrapped.prepare_now(), inner.prepare_now());
        assert!(wrapped.detached().is_some_and(|d| d.rewake));
    }
}
