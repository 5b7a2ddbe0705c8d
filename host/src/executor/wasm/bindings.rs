//! Host bindings, one module per supported version of the `hookhost:hooks` WIT package.
//! A released package is frozen (`wit/CHECKSUMS`); each version has its own adapter in
//! [`super::convert`] onto the one internal `HookOutput`, so old guests keep working.

/// `hookhost:hooks@0.1.0`: the whole input (and the tool input twice) in the record.
pub mod v0_1 {
    wasmtime::component::bindgen!({
        path: "../wit/hooks@0.1.0",
        world: "hook",
        exports: { default: async },
    });

    pub use self::hookhost::hooks::host::{Host as HostImports, Level};
    pub use self::hookhost::hooks::types::Decision;
}

/// `hookhost:hooks@0.2.0`: a small input record, the rest fetched on demand; every
/// answer field of the JSON protocol.
pub mod v0_2 {
    wasmtime::component::bindgen!({
        path: "../wit/hooks@0.2.0",
        world: "hook",
        // Host functions may trap the guest (the `input` fetch budget).
        imports: { default: trappable },
        exports: { default: async },
    });

    pub use self::hookhost::hooks::host::{Host as HostImports, Level};
    pub use self::hookhost::hooks::input::Host as InputImports;
    pub use self::hookhost::hooks::types::Decision;
}

/// Every WIT package version this host runs, oldest first.
pub const WIT_VERSIONS: &[&str] = &["0.1.0", "0.2.0"];

/// The newest WIT package version (what the guest SDK builds against).
pub const WIT_VERSION: &str = "0.2.0";
