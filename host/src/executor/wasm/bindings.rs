//! Host bindings generated from the newest package in `wit/` (the build script finds
//! it; the version is spelled only in the folder name).

include!(concat!(env!("OUT_DIR"), "/wit_bindings.rs"));

pub use self::hookhost::hooks::host::{Host as HostImports, Level};
pub use self::hookhost::hooks::types::Decision;
