//! One simple command as self-protection reads it: the program's name, its arguments, and
//! what kind of command it is (a copy, a recursive copy, a `find` that acts).

use std::path::Path;

use super::find_programs;
use crate::shell::Word;
use crate::shell::facts::{READ_ONLY_PROGRAMS, RECURSIVE_FLAGS, WRITES_DESTINATION};

/// One simple command, read.
#[derive(Debug)]
pub(super) struct Simple<'a> {
    /// What it runs, as written.
    pub(super) program: &'a str,
    /// The program's file name, without `.exe`.
    pub(super) name: &'a str,
    /// Its arguments.
    pub(super) args: Vec<&'a str>,
    /// It writes only its last operand (`cp`, `ln`, …).
    pub(super) copying: bool,
    /// A `cp` or `rsync` that copies trees.
    pub(super) recursive: bool,
    /// A `find` that deletes, or runs a program that may change what it finds (`-exec
    /// grep …` reads only).
    pub(super) find_acts: bool,
}

impl<'a> Simple<'a> {
    /// Reads `words` (`words[0]` is what it runs; never empty).
    pub(super) fn read(words: &'a [Word]) -> Simple<'a> {
        let program = words[0].text.as_str();
        let name = Path::new(program)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or(program)
            .trim_end_matches(".exe");
        let args: Vec<&str> = words[1..].iter().map(|w| w.text.as_str()).collect();
        let recursive = matches!(name, "cp" | "rsync")
            && args.iter().any(|a| {
                RECURSIVE_FLAGS.contains(a)
                    || (a.starts_with('-') && !a.starts_with("--") && a.contains(['r', 'R', 'a']))
            });
        let find_acts = name == "find"
            && (args.contains(&"-delete")
                || find_programs(&args).any(|program| !READ_ONLY_PROGRAMS.contains(&program)));
        Simple {
            program,
            name,
            copying: WRITES_DESTINATION.contains(&name),
            recursive,
            find_acts,
            args,
        }
    }
}
