//! The envelope as a macOS Seatbelt profile (`sandbox-exec -p`): the same envelope, the
//! same rules — writes only below the writable roots, never to the read-only places
//! inside them, no reading of the secret files or hookhost's keys, TCP by the owner's
//! choice. Seatbelt denies inside an allowed tree by path, so no mount is needed.

use std::fmt::Write;

use super::scan::Secret;
use super::{Envelope, Network};

/// The SBPL profile for `envelope` with the `secrets` found when the command starts.
pub(crate) fn profile(envelope: &Envelope, secrets: &[Secret]) -> String {
    let mut text = String::from("(version 1)\n(allow default)\n");
    let _ = writeln!(text, "(deny file-write*)");
    let mut allow = String::from("(allow file-write*");
    // Seatbelt has no overlay: the caches are shared with the user's builds here
    // (docs/envelope.md says so).
    for root in envelope.writable.iter().chain(&envelope.layered) {
        let _ = write!(
            allow,
            " (subpath {})",
            literal(&root.path.to_string_lossy())
        );
    }
    let _ = writeln!(
        allow,
        " (regex #\"^/dev/(null|zero|tty|fd/[0-9]+|dtracehelper)$\"))"
    );
    text.push_str(&allow);
    for place in &envelope.read_only {
        let _ = writeln!(
            text,
            "(deny file-write* (subpath {}))",
            literal(&place.path.to_string_lossy())
        );
    }
    for path in secrets
        .iter()
        .map(|secret| &secret.path)
        .chain(envelope.unreadable.iter().map(|place| &place.path))
    {
        let _ = writeln!(
            text,
            "(deny file-read* file-write* (literal {}))",
            literal(&path.to_string_lossy())
        );
    }
    match &envelope.network {
        Network::Any => {}
        Network::None => {
            let _ = writeln!(text, "(deny network-outbound (remote tcp))");
            let _ = writeln!(text, "(deny network-bind (local tcp))");
        }
        Network::Ports { connect, bind } => {
            let _ = writeln!(text, "(deny network-outbound (remote tcp))");
            for port in connect {
                let _ = writeln!(text, "(allow network-outbound (remote tcp \"*:{port}\"))");
            }
            let _ = writeln!(text, "(deny network-bind (local tcp))");
            for port in bind {
                let _ = writeln!(text, "(allow network-bind (local tcp \"*:{port}\"))");
            }
        }
    }
    if envelope.scope_signals {
        let _ = writeln!(text, "(deny signal (target others))");
    }
    text
}

/// `text` as an SBPL string literal.
fn literal(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn the_profile_says_what_the_envelope_says() {
        let mut envelope = super::super::tests::sample(Path::new("/p"), Path::new("/h"));
        envelope.network = Network::Ports {
            connect: vec![443],
            bind: vec![],
        };
        envelope.scope_signals = true;
        let secrets = [Secret {
            path: "/p/.env".into(),
            kind: "environment secrets",
        }];
        let text = profile(&envelope, &secrets);
        let expected = [
            "(version 1)\n(allow default)\n(deny file-write*)\n",
            "(allow file-write* (subpath \"/p\") (subpath \"/tmp\")",
            "(deny file-write* (subpath \"/p/.git/hooks\"))",
            "(deny file-read* file-write* (literal \"/p/.env\"))",
            "(deny file-read* file-write* (literal \"/h/.config/hookhost/cache.key\"))",
            "(deny network-outbound (remote tcp))\n(allow network-outbound (remote tcp \"*:443\"))",
            "(deny signal (target others))",
        ];
        for part in expected {
            assert!(text.contains(part), "{part}\n---\n{text}");
        }
        // Writes are allowed only after the blanket deny, and read-only places come
        // after the allow: Seatbelt's last matching rule wins.
        let allow = text.find("(allow file-write*").unwrap();
        assert!(text.find("(deny file-write*)").unwrap() < allow);
        assert!(allow < text.find("/p/.git/hooks").unwrap());
    }

    #[test]
    fn quotes_cannot_end_a_literal() {
        assert_eq!(literal("a\"b\\"), "\"a\\\"b\\\\\"");
    }
}
