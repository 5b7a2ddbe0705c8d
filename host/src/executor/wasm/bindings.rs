//! Host bindings generated from `wit/hooks@0.1.0` (the latest and only version).

wasmtime::component::bindgen!({
    path: "../wit/hooks@0.1.0",
    world: "hook",
    exports: { default: async },
});

pub use self::hookhost::hooks::host::{Host as HostImports, Level};
pub use self::hookhost::hooks::types::Decision;

/// The WIT package version these bindings implement.
pub const WIT_VERSION: &str = "0.1.0";
