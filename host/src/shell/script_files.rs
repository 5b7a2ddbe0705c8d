//! Scripts a command runs from files — `bash x.sh`, `sh -e x`, `source x`, `. x`,
//! `./x.sh` — found in a simple command and read for the view, so that "write a script,
//! then run it" is seen like the command itself. Files are read only when the view is
//! given the folder the command runs in ([`super::parse_in`]); regular files only, never
//! more than [`MAX_SCRIPT_FILE_BYTES`], opened without blocking.

use std::path::Path;

use super::Word;
use super::programs::{SHELLS, basename};

/// The largest script file the view reads; a larger one leaves the view partial.
pub const MAX_SCRIPT_FILE_BYTES: u64 = super::MAX_SCRIPT_BYTES as u64;

/// How a command runs a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Runs {
    /// Through a shell or `source`/`.`: bash reads it whatever it holds.
    AsScript,
    /// As the program itself (`./x.sh`): a shell script only when it says so (a shell
    /// `#!` line) or is text without one; a binary or another language is not read.
    AsProgram,
}

/// What reading a script file gave.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum ScriptFile {
    /// Not there, or not a shell script: nothing for the view.
    Nothing,
    /// Its text.
    Text(String),
    /// It is there but could not be read; the view must say so.
    Unread(String),
}

/// The word naming a script file that the simple command `program args…` runs, and
/// how; `shell_file` is the operand index a shell's own reading of its arguments found.
pub(super) fn script_word<'w>(
    program: &'w Word,
    args: &'w [Word],
    shell_file: Option<usize>,
) -> Option<(&'w Word, Runs)> {
    let name = basename(&program.text);
    if SHELLS.contains(&name) {
        return shell_file
            .and_then(|at| args.get(at))
            .map(|w| (w, Runs::AsScript));
    }
    if matches!(name, "source" | ".") {
        return args.first().map(|w| (w, Runs::AsScript));
    }
    // A program named by a path (not looked up in PATH) may be a script of the project.
    (program.text.contains('/') && !program.dynamic).then_some((program, Runs::AsProgram))
}

/// Reads the script file `word` names, relative to `cwd`.
pub(super) fn read(word: &Word, runs: Runs, cwd: &Path) -> ScriptFile {
    if word.dynamic || word.text.is_empty() {
        // Its name is known only when bash expands it.
        return ScriptFile::Nothing;
    }
    let path = cwd.join(&word.text);
    // A program run by path is read only when a shell runs it: its head says so (a
    // compiled program — ELF, Mach-O, PE — of any size is a program, not a script).
    if runs == Runs::AsProgram {
        match head(&path) {
            Ok(head) if !runs_as_shell_script(&head) => return ScriptFile::Nothing,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return ScriptFile::Nothing,
            _ => {}
        }
    }
    let bytes = match crate::files::read_regular(&path, MAX_SCRIPT_FILE_BYTES) {
        Ok(bytes) => bytes,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return ScriptFile::Nothing,
        Err(err) => {
            return ScriptFile::Unread(format!(
                "the script file {} it runs could not be read: {err}",
                word.text
            ));
        }
    };
    if runs == Runs::AsProgram && !runs_as_shell_script(&bytes) {
        return ScriptFile::Nothing;
    }
    ScriptFile::Text(String::from_utf8_lossy(&bytes).into_owned())
}

/// The first KiB of the regular file at `path`, whatever its size.
fn head(path: &Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let file = crate::files::open_regular(path, u64::MAX)?;
    let mut head = Vec::with_capacity(HEAD);
    file.take(HEAD as u64).read_to_end(&mut head)?;
    Ok(head)
}

/// How much of a program run by path tells whether a shell reads it.
const HEAD: usize = 1024;

/// Whether a file executed directly is read by a shell: its `#!` line names one, or it
/// has none and is text (bash runs such a file itself).
fn runs_as_shell_script(bytes: &[u8]) -> bool {
    let Some(line) = bytes.strip_prefix(b"#!") else {
        // Text: no NUL, and UTF-8 (a character cut at the end of the sample allowed).
        let head = &bytes[..bytes.len().min(HEAD)];
        let utf8 = std::str::from_utf8(head).map_or_else(|e| e.error_len().is_none(), |_| true);
        return utf8 && !head.contains(&0);
    };
    let line = line.split(|b| *b == b'\n').next().unwrap_or_default();
    let line = String::from_utf8_lossy(line);
    let mut words = line.split_whitespace();
    let Some(interpreter) = words.next() else {
        return false;
    };
    let interpreter = match basename(interpreter) {
        // `#!/usr/bin/env bash`, `#!/usr/bin/env -S bash -e`.
        "env" => words.find(|w| !w.starts_with('-')).unwrap_or_default(),
        other => other,
    };
    SHELLS.contains(&basename(interpreter))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(text: &str) -> Word {
        Word {
            text: text.into(),
            dynamic: text.contains('$'),
        }
    }

    #[test]
    fn shells_source_and_paths_run_files() {
        let (bash, x) = (word("bash"), [word("x.sh")]);
        assert_eq!(
            script_word(&bash, &x, Some(0)).map(|(w, r)| (w.text.as_str(), r)),
            Some(("x.sh", Runs::AsScript))
        );
        assert!(script_word(&bash, &x, None).is_none());
        let dot = word(".");
        assert_eq!(
            script_word(&dot, &x, None).map(|(w, _)| w.text.as_str()),
            Some("x.sh")
        );
        let local = word("./run.sh");
        assert_eq!(
            script_word(&local, &[], None).map(|(w, r)| (w.text.as_str(), r)),
            Some(("./run.sh", Runs::AsProgram))
        );
        assert!(script_word(&word("make"), &x, None).is_none());
        assert!(script_word(&word("$D/run.sh"), &x, None).is_none());
    }

    #[test]
    fn a_compiled_program_of_any_size_run_by_path_is_not_a_script() {
        let dir = tempfile::tempdir().unwrap();
        let mut program = b"\x7fELF\x02\x01\x01\0".to_vec();
        program.resize(MAX_SCRIPT_FILE_BYTES as usize * 4, 0);
        std::fs::create_dir_all(dir.path().join("target/release")).unwrap();
        std::fs::write(dir.path().join("target/release/app"), &program).unwrap();
        let app = word("./target/release/app");
        assert_eq!(read(&app, Runs::AsProgram, dir.path()), ScriptFile::Nothing);
        // A shell script over the cap stays unread (the view says so); so does the same
        // program when a shell is told to run it.
        let mut script = b"#!/bin/sh\n".to_vec();
        script.resize(MAX_SCRIPT_FILE_BYTES as usize + 10, b'#');
        std::fs::write(dir.path().join("configure"), &script).unwrap();
        assert!(matches!(
            read(&word("./configure"), Runs::AsProgram, dir.path()),
            ScriptFile::Unread(_)
        ));
        assert!(matches!(
            read(&app, Runs::AsScript, dir.path()),
            ScriptFile::Unread(_)
        ));
    }

    #[test]
    fn a_program_is_read_only_when_a_shell_runs_it() {
        for (head, shell) in [
            (&b"#!/bin/sh\nrm -rf x\n"[..], true),
            (b"#!/usr/bin/env bash\n", true),
            (b"#!/usr/bin/env -S bash -e\n", true),
            (b"#! /bin/bash -x\n", true),
            (b"echo no shebang\n", true),
            (b"#!/usr/bin/env python3\nimport os\n", false),
            (b"#!/usr/bin/node\n", false),
            (b"\x7fELF\x02\x01\x01\0\0\0", false),
        ] {
            assert_eq!(
                runs_as_shell_script(head),
                shell,
                "{}",
                String::from_utf8_lossy(head)
            );
        }
    }
}
