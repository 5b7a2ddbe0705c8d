//! A budget for directory listings. wasmtime-wasi reads a whole directory into host
//! memory when a guest opens a listing (`descriptor.read-directory`), so a guest that
//! lists a big granted folder again and again spends host memory that no Wasm limit
//! sees. This module wraps that one host function: before the real implementation runs,
//! the directory is counted (a fresh handle, so the guest's own position is untouched)
//! and charged to the call; past [`MAX_LISTED_ENTRIES`] entries or [`MAX_LISTED_BYTES`]
//! name bytes in total the guest gets `insufficient-memory` instead of a listing.

use wasmtime::StoreContextMut;
use wasmtime::component::{Linker, Resource};
use wasmtime_wasi::filesystem::{Descriptor, WasiFilesystemView};
use wasmtime_wasi::p2::bindings::filesystem::types::{
    DirectoryEntryStream, ErrorCode, HostDescriptor,
};

use super::host::HostState;
use super::limits::{MAX_LISTED_BYTES, MAX_LISTED_ENTRIES};

/// The WASI filesystem interface this wasmtime-wasi defines (older 0.2 imports resolve to
/// it by semver).
const FILESYSTEM_TYPES: &str = "wasi:filesystem/types@0.2.12";

/// Replaces `descriptor.read-directory` in `linker` with the budgeted version.
pub fn install(linker: &mut Linker<HostState>) -> wasmtime::Result<()> {
    linker.allow_shadowing(true);
    let mut types = linker.instance(FILESYSTEM_TYPES)?;
    types.func_wrap_async(
        "[method]descriptor.read-directory",
        |mut store: StoreContextMut<'_, HostState>, (fd,): (Resource<Descriptor>,)| {
            Box::new(async move {
                let dir = match store.data_mut().table.get(&fd)? {
                    Descriptor::Dir(dir) => Some(dir.dir.clone()),
                    Descriptor::File(_) => None,
                };
                if let Some(dir) = dir {
                    let counted = tokio::task::spawn_blocking(move || count(&dir))
                        .await
                        .map_err(wasmtime::Error::msg)?;
                    let fits = match counted {
                        Ok((entries, bytes)) => store.data_mut().listing.charge(entries, bytes),
                        Err(_) => true, // the real call reports the error itself
                    };
                    if !fits {
                        return Ok((Err::<Resource<DirectoryEntryStream>, _>(
                            ErrorCode::InsufficientMemory,
                        ),));
                    }
                }
                let mut view = store.data_mut().filesystem();
                match HostDescriptor::read_directory(&mut view, fd).await {
                    Ok(stream) => Ok((Ok(stream),)),
                    Err(err) => Ok((Err(err.downcast()?),)),
                }
            })
        },
    )?;
    linker.allow_shadowing(false);
    Ok(())
}

/// Entries and name bytes of the directory behind `dir`, read through a listing of its
/// own (cap-std opens `.` relative to the handle on Unix), so the guest's descriptor keeps
/// its offset.
fn count(dir: &std::fs::File) -> std::io::Result<(usize, usize)> {
    let dir = cap_std::fs::Dir::from_std_file(dir.try_clone()?);
    let (mut entries, mut bytes) = (0usize, 0usize);
    for entry in dir.entries()? {
        let name = entry?.file_name();
        entries += 1;
        bytes += name.len();
        if entries > MAX_LISTED_ENTRIES || bytes > MAX_LISTED_BYTES {
            break;
        }
    }
    Ok((entries, bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::executor::wasm::limits::ListingBudget;

    #[test]
    fn the_budget_covers_every_listing_of_a_call() {
        let mut budget = ListingBudget::default();
        assert!(budget.charge(MAX_LISTED_ENTRIES / 2, 10));
        assert!(budget.charge(MAX_LISTED_ENTRIES / 2, 10));
        assert!(!budget.charge(1, 0));
        assert!(budget.exceeded);
        let mut budget = ListingBudget::default();
        assert!(!budget.charge(1, MAX_LISTED_BYTES + 1));
    }

    #[test]
    fn counting_does_not_disturb_the_directory() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["a", "bb", "ccc"] {
            std::fs::write(dir.path().join(name), "").unwrap();
        }
        let handle = std::fs::File::open(dir.path()).unwrap();
        assert_eq!(count(&handle).unwrap(), (3, 6));
        assert_eq!(count(&handle).unwrap(), (3, 6));
    }
}
