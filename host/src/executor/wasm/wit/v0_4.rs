//! `hookhost:hooks@0.4.0`: 0.3.0 with the shell view packed. Every piece of the view's
//! text is a span of one string, and the words, redirections and pipeline members of
//! all nodes sit in one list each, so a view of any size is lowered into the guest as
//! one string and five lists instead of a string or list per word, node and pipeline.
//! Its `types` are 0.2.0's, as in 0.3.0.

use crate::shell::{self as view, ShellView};

use super::super::host::HostState;
use super::v0_2;

wasmtime::component::bindgen!({
    path: "wit/hooks@0.4.0",
    world: "hook",
    // Host functions may trap the guest (the `input` fetch budget).
    imports: { default: trappable },
    exports: { default: async },
    with: { "hookhost:hooks/types": super::v0_2::hookhost::hooks::types },
});

use self::hookhost::hooks::shell as wit;

host_and_input_as_v0_2!(self::hookhost::hooks);
shell_enums!(self::hookhost::hooks::shell, Shell);

impl wit::Host for HostState {
    fn bash_command(&mut self) -> wasmtime::Result<Option<wit::Script>> {
        Ok(super::v0_3::bash_command_view(self)?.map(|view| pack(&view)))
    }

    fn parse(&mut self, text: String) -> wasmtime::Result<wit::Script> {
        Ok(pack(&super::v0_3::parse_view(self, &text)?))
    }
}

packed_script!();

#[cfg(test)]
mod tests {
    use super::*;

    fn span(script: &wit::Script, span: wit::Span) -> &str {
        &script.text[span.start as usize..span.end as usize]
    }

    #[test]
    fn a_packed_view_holds_every_word_redirect_and_member_in_place() {
        let parsed = view::parse("FOO=1 sudo grep -r 'é x' src 2>&1 > out.txt | sh && echo $(ls)");
        let packed = pack(&parsed);
        assert_eq!(packed.nodes.len(), parsed.nodes.len());
        for (node, original) in packed.nodes.iter().zip(&parsed.nodes) {
            assert_eq!(span(&packed, node.text), original.text);
            let words = &packed.words[node.words.start as usize..node.words.end as usize];
            let texts: Vec<&str> = words.iter().map(|w| span(&packed, w.text)).collect();
            let expected: Vec<&str> = original.words.iter().map(|w| w.text.as_str()).collect();
            assert_eq!(texts, expected);
            let dynamic: Vec<bool> = words.iter().map(|w| w.dynamic).collect();
            let expected: Vec<bool> = original.words.iter().map(|w| w.dynamic).collect();
            assert_eq!(dynamic, expected);
            let assignments =
                &packed.words[node.assignments.start as usize..node.assignments.end as usize];
            assert_eq!(assignments.len(), original.assignments.len());
            let redirects =
                &packed.redirects[node.redirects.start as usize..node.redirects.end as usize];
            assert_eq!(redirects.len(), original.redirects.len());
            for (r, o) in redirects.iter().zip(&original.redirects) {
                assert_eq!((r.fd, span(&packed, r.op)), (o.fd, o.op.as_str()));
                assert_eq!(span(&packed, r.target.text), o.target.text);
            }
            assert_eq!(node.program, original.program);
            assert_eq!(node.pipeline, original.pipeline);
        }
        for (p, o) in packed.pipelines.iter().zip(&parsed.pipelines) {
            assert_eq!(
                packed.members[p.nodes.start as usize..p.nodes.end as usize],
                o.nodes[..]
            );
            assert_eq!(p.parent, o.parent);
        }
        assert_eq!(packed.pipelines.len(), parsed.pipelines.len());
        let first = &packed.nodes[0];
        assert_eq!(
            span(&packed, packed.words[first.assignments.start as usize].text),
            "FOO=1"
        );
    }

    /// What a packed script occupies in the guest: its text and every list entry at its
    /// canonical ABI size (span 8, word 12, redirect 28, node 48, pipeline 24, member 4).
    fn packed_bytes(script: &wit::Script) -> usize {
        script.text.len()
            + 12 * script.words.len()
            + 28 * script.redirects.len()
            + 48 * script.nodes.len()
            + 24 * script.pipelines.len()
            + 4 * script.members.len()
            + script.error.as_ref().map_or(0, String::len)
    }

    #[test]
    fn the_fetch_budget_covers_what_a_packed_view_puts_in_the_guest() {
        // Redirections are the densest records per byte of source text.
        let redirects: String = (0..2000).map(|i| format!(">{} ", i % 10)).collect();
        let scripts = [
            format!("echo {redirects}"),
            "a|b|c|d|e|f|g|h|i|j|k".to_string(),
            "x=1 y=2 z=3 a b c d e f $(g) <(h) ; i && j || k &".to_string(),
            "f() { g; }; ( ( ( h ) ) ); if a; then b; fi; for i in 1 2; do c; done".to_string(),
            String::new(),
            "echo 'unclosed".to_string(),
        ];
        for text in scripts {
            let parsed = view::parse(&text);
            let packed = pack(&parsed);
            let charged = super::super::v0_3::view_size(&parsed);
            assert!(
                packed_bytes(&packed) <= charged,
                "{text:.40}: {} bytes packed, {charged} charged",
                packed_bytes(&packed)
            );
        }
    }

    #[test]
    fn a_partial_view_keeps_its_reason() {
        let packed = pack(&view::parse("echo 'unclosed"));
        assert!(packed.partial);
        assert!(packed.error.is_some());
    }
}
