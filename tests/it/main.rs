//! hookhost integration tests: real processes, real Wasm components, one binary.

mod cli;
mod command;
mod config;
mod examples;
mod http;
mod pipeline;
mod prompt;
mod sandbox;
mod wasm;
