//! The `hookhost:hooks` WIT packages this host runs, one file per version
//! ([`v0_1`], an adapter; [`v0_2`], the core records and answer conversion; [`v0_3`],
//! 0.2.0's records plus the shell view; [`v0_4`], the shell view packed into one string
//! and a few flat lists; [`v0_5`], 0.4.0 plus file tools' resolved targets and script
//! files in the shell view). A released package is frozen
//! (`wit/CHECKSUMS`), so old guests keep working.

/// Implements a package's `host` and `input` interfaces (unchanged since 0.2.0) by
/// handing every call to 0.2.0's implementation. `$wit` is the package's generated
/// `hookhost::hooks` module.
macro_rules! host_and_input_as_v0_2 {
    ($wit:path) => {
        use $wit as generated;

        impl generated::host::Host for HostState {
            fn log(
                &mut self,
                level: generated::host::Level,
                message: String,
            ) -> wasmtime::Result<()> {
                use generated::host::Level as L;
                let level = match level {
                    L::Trace => v0_2::Level::Trace,
                    L::Debug => v0_2::Level::Debug,
                    L::Info => v0_2::Level::Info,
                    L::Warn => v0_2::Level::Warn,
                    L::Error => v0_2::Level::Error,
                };
                v0_2::HostImports::log(self, level, message)
            }

            fn config(&mut self, key: String) -> wasmtime::Result<Option<String>> {
                v0_2::HostImports::config(self, key)
            }

            fn config_json(&mut self) -> wasmtime::Result<String> {
                v0_2::HostImports::config_json(self)
            }
        }

        impl generated::input::Host for HostState {
            fn raw(&mut self) -> wasmtime::Result<String> {
                v0_2::InputImports::raw(self)
            }

            fn tool_input(&mut self) -> wasmtime::Result<Option<String>> {
                v0_2::InputImports::tool_input(self)
            }

            fn field(&mut self, name: String) -> wasmtime::Result<Option<String>> {
                v0_2::InputImports::field(self, name)
            }
        }
    };
}

/// Converts the host's shell view enums into a package's `shell` enums. `$wit` is the
/// package's generated `shell` module; `$script_file` the case a script file's commands
/// are held by (`ScriptFile` from 0.5.0; before it, `Shell`: a script handed to a shell).
macro_rules! shell_enums {
    ($wit:path, $script_file:ident) => {
        use $wit as shell_wit;

        fn node_kind(kind: view::NodeKind) -> shell_wit::NodeKind {
            match kind {
                view::NodeKind::Simple => shell_wit::NodeKind::Simple,
                view::NodeKind::Subshell => shell_wit::NodeKind::Subshell,
                view::NodeKind::Group => shell_wit::NodeKind::Group,
                view::NodeKind::If => shell_wit::NodeKind::IfClause,
                view::NodeKind::Loop => shell_wit::NodeKind::Loop,
                view::NodeKind::Case => shell_wit::NodeKind::CaseClause,
                view::NodeKind::Function => shell_wit::NodeKind::Function,
                view::NodeKind::Arithmetic => shell_wit::NodeKind::Arithmetic,
                view::NodeKind::Test => shell_wit::NodeKind::Test,
                view::NodeKind::Coprocess => shell_wit::NodeKind::Coprocess,
            }
        }

        fn joined(joined: view::Joined) -> shell_wit::Joined {
            match joined {
                view::Joined::First => shell_wit::Joined::First,
                view::Joined::Then => shell_wit::Joined::Then,
                view::Joined::And => shell_wit::Joined::And,
                view::Joined::Or => shell_wit::Joined::Or,
            }
        }

        fn via(via: view::Via) -> shell_wit::Via {
            match via {
                view::Via::Top => shell_wit::Via::Top,
                view::Via::Body => shell_wit::Via::Body,
                view::Via::FunctionBody => shell_wit::Via::FunctionBody,
                view::Via::CommandSubstitution => shell_wit::Via::CommandSubstitution,
                view::Via::ProcessSubstitution => shell_wit::Via::ProcessSubstitution,
                view::Via::Shell => shell_wit::Via::Shell,
                view::Via::Eval => shell_wit::Via::Eval,
                view::Via::ScriptFile => shell_wit::Via::$script_file,
            }
        }
    };
}

/// The packed shell view (0.4.0 on): `pack` turns the host's view into a package's
/// `wit::Script` — one string and flat lists. Expanded where `wit` names the package's
/// generated `shell` module and `view` the host's shell view.
macro_rules! packed_script {
    () => {
        /// `view` as one string and flat lists. Offsets are `u32`: a view comes from at most
        /// [`view::MAX_SCRIPT_BYTES`] of text, and its text a few times that.
        pub fn pack(view: &ShellView) -> wit::Script {
            let mut packer = Packer::default();
            let nodes = view
                .nodes
                .iter()
                .map(|n| {
                    let words = packer.words(&n.words);
                    let assignments = packer.words(&n.assignments);
                    let start = packer.redirects.len();
                    for r in &n.redirects {
                        let redirect = wit::Redirect {
                            fd: r.fd,
                            op: packer.text(&r.op),
                            target: packer.word(&r.target),
                        };
                        packer.redirects.push(redirect);
                    }
                    wit::Node {
                        kind: node_kind(n.kind),
                        words,
                        assignments,
                        redirects: range(start, packer.redirects.len()),
                        program: n.program,
                        pipeline: n.pipeline,
                        text: packer.text(&n.text),
                    }
                })
                .collect();
            let mut members =
                Vec::with_capacity(view.pipelines.iter().map(|p| p.nodes.len()).sum());
            let pipelines = view
                .pipelines
                .iter()
                .map(|p| {
                    let start = members.len();
                    members.extend_from_slice(&p.nodes);
                    wit::Pipeline {
                        nodes: range(start, members.len()),
                        joined: joined(p.joined),
                        background: p.background,
                        negated: p.negated,
                        parent: p.parent,
                        via: via(p.via),
                    }
                })
                .collect();
            wit::Script {
                text: packer.text,
                words: packer.words,
                redirects: packer.redirects,
                nodes,
                pipelines,
                members,
                partial: view.partial,
                error: view.error.clone(),
            }
        }

        /// The string and lists a packed script is built in.
        #[derive(Default)]
        struct Packer {
            text: String,
            words: Vec<wit::Word>,
            redirects: Vec<wit::Redirect>,
        }

        impl Packer {
            /// Appends `text` and names where it went.
            fn text(&mut self, text: &str) -> wit::Span {
                let start = self.text.len();
                self.text.push_str(text);
                wit::Span {
                    start: offset(start),
                    end: offset(self.text.len()),
                }
            }

            fn word(&mut self, word: &view::Word) -> wit::Word {
                wit::Word {
                    text: self.text(&word.text),
                    dynamic: word.dynamic,
                }
            }

            /// Appends `words` to the word list and names their range.
            fn words(&mut self, words: &[view::Word]) -> wit::Range {
                let start = self.words.len();
                for w in words {
                    let word = self.word(w);
                    self.words.push(word);
                }
                range(start, self.words.len())
            }
        }

        fn range(start: usize, end: usize) -> wit::Range {
            wit::Range {
                start: offset(start),
                end: offset(end),
            }
        }

        /// A length or index as the WIT's `u32`. Views are bounded far below 4 GiB (the input
        /// limit and [`view::MAX_SCRIPT_BYTES`]); saturating keeps an impossible overflow from
        /// wrapping into a wrong span.
        fn offset(n: usize) -> u32 {
            u32::try_from(n).unwrap_or(u32::MAX)
        }
    };
}

pub mod v0_1;
pub mod v0_2;
pub mod v0_3;
pub mod v0_4;
pub mod v0_5;

use serde_json::Value;
use wasmtime::Store;
use wasmtime::component::{HasSelf, Linker};

use super::host::HostState;
use crate::hook_input::HookInput;

/// Every WIT package version this host runs, oldest first.
pub const WIT_VERSIONS: &[&str] = &["0.1.0", "0.2.0", "0.3.0", "0.4.0", "0.5.0"];

/// The newest WIT package version (what the guest SDK builds against).
pub const WIT_VERSION: &str = "0.5.0";

/// One call's input record, in the version the component targets.
pub(super) enum CallInput {
    V0_1(v0_1::HookInput),
    V0_2(v0_2::HookInput),
}

/// A pre-instantiated component of one WIT version.
pub(super) enum Pre {
    V0_1(v0_1::HookPre<HostState>),
    V0_2(v0_2::HookPre<HostState>),
    V0_3(v0_3::HookPre<HostState>),
    V0_4(v0_4::HookPre<HostState>),
    V0_5(v0_5::HookPre<HostState>),
}

/// The WIT version a component targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum WitTarget {
    V0_1,
    V0_2,
    V0_3,
    V0_4,
    V0_5,
}

impl WitTarget {
    /// The version of a `hookhost:hooks` package named `version` (`"0.2.0"`), if this
    /// host runs it.
    pub(super) fn parse(version: &str) -> Option<WitTarget> {
        Some(match version {
            "0.1.0" => WitTarget::V0_1,
            "0.2.0" => WitTarget::V0_2,
            "0.3.0" => WitTarget::V0_3,
            "0.4.0" => WitTarget::V0_4,
            "0.5.0" => WitTarget::V0_5,
            _ => return None,
        })
    }

    /// The newest version: what a component importing nothing of hookhost's is checked
    /// against.
    pub(super) const NEWEST: WitTarget = WitTarget::V0_5;
}

impl Pre {
    /// `pre` checked against the world of `version` (its export must be that world's).
    pub(super) fn new(
        version: WitTarget,
        pre: wasmtime::component::InstancePre<HostState>,
    ) -> wasmtime::Result<Pre> {
        Ok(match version {
            WitTarget::V0_1 => Pre::V0_1(v0_1::HookPre::new(pre)?),
            WitTarget::V0_2 => Pre::V0_2(v0_2::HookPre::new(pre)?),
            WitTarget::V0_3 => Pre::V0_3(v0_3::HookPre::new(pre)?),
            WitTarget::V0_4 => Pre::V0_4(v0_4::HookPre::new(pre)?),
            WitTarget::V0_5 => Pre::V0_5(v0_5::HookPre::new(pre)?),
        })
    }
}

/// Adds every version of the hookhost host API to `linker`.
pub(super) fn add_to_linker(linker: &mut Linker<HostState>) -> wasmtime::Result<()> {
    v0_1::Hook::add_to_linker::<HostState, HasSelf<HostState>>(linker, |state| state)?;
    v0_2::Hook::add_to_linker::<HostState, HasSelf<HostState>>(linker, |state| state)?;
    v0_3::Hook::add_to_linker::<HostState, HasSelf<HostState>>(linker, |state| state)?;
    v0_4::Hook::add_to_linker::<HostState, HasSelf<HostState>>(linker, |state| state)?;
    v0_5::Hook::add_to_linker::<HostState, HasSelf<HostState>>(linker, |state| state)?;
    Ok(())
}

/// A fresh instance of one hook's component in its own store, not yet entered.
pub(super) enum Instance {
    V0_1(v0_1::Hook),
    V0_2(v0_2::Hook),
    V0_3(v0_3::Hook),
    V0_4(v0_4::Hook),
    V0_5(v0_5::Hook),
}

impl Instance {
    /// Instantiates `pre` in `store`.
    pub(super) async fn new(pre: &Pre, store: &mut Store<HostState>) -> wasmtime::Result<Self> {
        Ok(match pre {
            Pre::V0_1(pre) => Self::V0_1(pre.instantiate_async(store).await?),
            Pre::V0_2(pre) => Self::V0_2(pre.instantiate_async(store).await?),
            Pre::V0_3(pre) => Self::V0_3(pre.instantiate_async(store).await?),
            Pre::V0_4(pre) => Self::V0_4(pre.instantiate_async(store).await?),
            Pre::V0_5(pre) => Self::V0_5(pre.instantiate_async(store).await?),
        })
    }

    /// Calls the guest's `handle` with `input` (built for this instance's version); its
    /// answer in the 0.2.0 form every later version shares.
    pub(super) async fn call(
        self,
        store: &mut Store<HostState>,
        input: &CallInput,
    ) -> wasmtime::Result<Result<v0_2::HookAnswer, String>> {
        match (self, input) {
            (Instance::V0_1(hook), CallInput::V0_1(input)) => {
                let answer = hook.call_handle(store, input).await?;
                Ok(answer.map(v0_1::answer_into_v0_2))
            }
            (Instance::V0_2(hook), CallInput::V0_2(input)) => hook.call_handle(store, input).await,
            (Instance::V0_3(hook), CallInput::V0_2(input)) => hook.call_handle(store, input).await,
            (Instance::V0_4(hook), CallInput::V0_2(input)) => hook.call_handle(store, input).await,
            (Instance::V0_5(hook), CallInput::V0_2(input)) => hook.call_handle(store, input).await,
            _ => Err(wasmtime::Error::msg("input built for another WIT version")),
        }
    }
}

impl CallInput {
    /// The input of one call in the version of `pre`, its size for the input limit, and
    /// the length of its JSON text. 0.1.0 carries the whole input in its record; 0.2.0
    /// hands out the raw input on demand (so its text is only counted here), and the
    /// limit and the memory allowance count it either way.
    pub(super) fn new(pre: &Pre, input: &HookInput) -> (CallInput, usize, usize) {
        let record = v0_2::hook_input(input);
        match pre {
            Pre::V0_1(_) => {
                let base = v0_2::input_size(&record);
                let json = input.json();
                let wide = v0_1::hook_input(record, input, json);
                let size = v0_1::input_size(base, &wide);
                (CallInput::V0_1(wide), size, json.len())
            }
            Pre::V0_2(_) | Pre::V0_3(_) | Pre::V0_4(_) | Pre::V0_5(_) => {
                let json_len = input.json_len();
                let size = v0_2::input_size(&record) + json_len;
                (CallInput::V0_2(record), size, json_len)
            }
        }
    }
}

/// Bytes the WIT input record for `input` on `event` carries into a guest (what the
/// Wasm input limit counts). Public for the fuzz targets.
pub fn input_record_size(event: &str, input: &Value) -> usize {
    let input = HookInput::new(crate::dialect::Event::new(event), input.clone());
    let record = v0_2::hook_input(&input);
    let base = v0_2::input_size(&record);
    v0_1::input_size(base, &v0_1::hook_input(record, &input, input.json()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::Event;
    use crate::output::PermissionDecision;
    use serde_json::json;

    fn answer() -> v0_2::HookAnswer {
        v0_1::answer_into_v0_2(v0_1::HookAnswer {
            decision: v0_1::Decision::Deny,
            reason: Some("no".into()),
            additional_context: None,
            system_message: None,
            updated_input: None,
            updated_tool_output: None,
            watch_paths: Vec::new(),
            stop: false,
            stop_reason: None,
            initial_user_message: None,
            retry: None,
        })
    }

    #[test]
    fn a_0_1_answer_converts_like_the_same_0_2_answer() {
        let event = Event::new("PreToolUse");
        let out = v0_2::hook_output(answer(), event.spec()).unwrap();
        assert_eq!(out.permission_decision, Some(PermissionDecision::Deny));
        assert_eq!(out.permission_decision_reason.as_deref(), Some("no"));
        assert!(!out.suppress_output && out.updated_permissions.is_empty());
    }

    #[test]
    fn new_answer_fields_reach_the_output() {
        let event = Event::new("PermissionRequest");
        let mut new = answer();
        new.updated_permissions = vec![r#"{"type":"setMode","mode":"plan"}"#.into()];
        new.interrupt = true;
        new.session_title = Some("t".into());
        new.suppress_output = true;
        new.worktree_path = Some("/w".into());
        let out = v0_2::hook_output(new, event.spec()).unwrap();
        assert_eq!(
            out.updated_permissions,
            vec![json!({"type": "setMode", "mode": "plan"})]
        );
        assert!(out.interrupt && out.suppress_output);
        assert_eq!(out.session_title.as_deref(), Some("t"));
        assert_eq!(out.worktree_path.as_deref(), Some("/w"));
    }

    #[test]
    fn permission_updates_must_be_json_objects() {
        let event = Event::new("PermissionRequest");
        for bad in ["[1]", "not json", "\"text\""] {
            let mut new = answer();
            new.updated_permissions = vec![bad.into()];
            let err = v0_2::hook_output(new, event.spec()).unwrap_err();
            assert!(err.contains("updated-permissions"), "{err}");
        }
    }

    #[test]
    fn the_0_2_record_leaves_the_raw_input_out() {
        let event = Event::new("PreToolUse");
        let input = json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "cwd": "/p"});
        let raw = input.to_string();
        let input = HookInput::new(event, input);
        let small = v0_2::hook_input(&input);
        let wide = v0_1::hook_input(small.clone(), &input, &raw);
        assert_eq!(wide.raw, raw);
        assert_eq!(wide.tool_input.as_deref(), Some(r#"{"command":"ls"}"#));
        let base = v0_2::input_size(&small);
        assert_eq!(
            v0_1::input_size(base, &wide),
            base + r#"{"command":"ls"}"#.len() + raw.len()
        );
        assert_eq!(
            small.tool_input_fields,
            vec![("command".into(), "ls".into())]
        );
    }
}
