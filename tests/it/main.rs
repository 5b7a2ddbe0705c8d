//! hookhost integration tests: real processes, real Wasm components, one binary.

mod cases;
mod claude_code;
mod cli;
mod command;
mod config;
mod examples;
mod http;
mod new_project;
mod parsers;
mod pipeline;
mod policy;
mod polyglot;
mod prompt;
mod sandbox;
mod serve;
mod shell_view;
mod surfaces;
mod wasm;
