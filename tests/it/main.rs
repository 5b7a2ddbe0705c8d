//! hookhost integration tests: real processes, real Wasm components, one binary.
//!
//! Unix only: the fixtures are `sh` scripts, symlinks, FIFOs and mode bits. What differs
//! on Windows is covered by the unit tests of `platform/windows.rs`, which compile for
//! that target in CI (see README, "Supported systems").
#![cfg(unix)]

mod agent_clients;
mod agents;
mod builtins;
mod cases;
mod claude_code;
mod cli;
mod command;
mod config;
mod dist;
mod envelope;
mod examples;
mod fleet;
mod http;
mod layering;
mod new_project;
mod oci;
mod parsers;
mod pipeline;
mod policy;
mod polyglot;
mod prepared;
mod prompt;
mod sandbox;
mod serve;
mod shell_view;
mod surfaces;
mod warm;
mod wasm;
