//! The Claude Code wire protocol: the [field table](fields) every other part reads its
//! keys from, the [parser](parse) for hook answers, and the [renderer](render) of an
//! outcome as a Claude Code answer.

pub mod action;
pub mod fields;
pub mod parse;
pub mod render;

pub use fields::scope;
pub use parse::{MAX_LIST_ENTRIES, async_timeout, is_async_marker, looks_like_json, parse_answer};
pub use render::ClaudeAnswer;
