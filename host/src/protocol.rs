//! The Claude Code wire protocol: the [field table](fields) every other part reads its
//! keys from, the [parser](parse) for hook answers, and the [renderer](render) of an
//! outcome as a Claude Code answer.

pub mod action;
pub mod fields;
pub mod parse;
pub mod read;

pub use fields::scope;
pub use parse::{async_timeout, is_async_marker, looks_like_json, parse_answer};
pub use read::MAX_LIST_ENTRIES;
