//! The host's shell view (`hookhost:hooks/shell`): the command text an agent (or a
//! prompt injected into it) writes, read as bash would, nested scripts and array
//! subscripts included. Beyond "no panic", the view must hold together: every index
//! points at something that exists, a node's parent comes before it, and the same text
//! always gives the same view (the view is memoised by text).
#![no_main]

use hookhost::internals::shell;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let view = shell::parse(text);
    assert_eq!(view.partial, view.error.is_some(), "{text:?}");
    for (index, node) in view.nodes.iter().enumerate() {
        let pipeline = &view.pipelines[node.pipeline as usize];
        assert!(pipeline.nodes.contains(&(index as u32)), "{text:?}");
        if let Some(parent) = pipeline.parent {
            assert!((parent as usize) < index, "a parent after its child: {text:?}");
        }
        if let Some(program) = node.program {
            assert!((program as usize) < node.words.len(), "{text:?}");
        }
    }
    for pipeline in &view.pipelines {
        for &node in &pipeline.nodes {
            assert!((node as usize) < view.nodes.len(), "{text:?}");
        }
    }
    assert_eq!(shell::parse(text), view, "two readings differ: {text:?}");
});
