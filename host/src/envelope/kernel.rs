//! What this kernel can enforce: its Landlock ABI (Linux), or that it has no Landlock.

/// Lowers the Landlock ABI hookhost sees, to show what a kernel without the envelope's
/// needs does (tests, and an owner trying the refusal). It can only lower: a variable the
/// agent sets makes commands refuse, never run with less.
pub const SIMULATE_ABI_VAR: &str = "HOOKHOST_SIMULATE_LANDLOCK_ABI";

/// What the running kernel can enforce.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelSupport {
    /// The Landlock ABI (0: none — not Linux, not built in, or not enabled at boot).
    pub landlock_abi: u32,
    /// macOS's Seatbelt (`sandbox-exec`) is there to apply the envelope instead.
    pub seatbelt: bool,
}

impl KernelSupport {
    /// The running kernel's (see [`SIMULATE_ABI_VAR`]).
    pub fn probe() -> KernelSupport {
        let abi = landlock_abi();
        let simulated = std::env::var(SIMULATE_ABI_VAR)
            .ok()
            .and_then(|value| value.parse::<u32>().ok());
        KernelSupport {
            landlock_abi: simulated.map_or(abi, |lower| lower.min(abi)),
            seatbelt: cfg!(target_os = "macos")
                && std::path::Path::new("/usr/bin/sandbox-exec").exists(),
        }
    }

    /// Why an envelope that needs Landlock ABI `needed` cannot run here, with how to fix
    /// it; `None` when it can.
    pub fn refusal(&self, needed: u32) -> Option<String> {
        if self.landlock_abi >= needed || self.seatbelt {
            return None;
        }
        let have = match self.landlock_abi {
            0 if cfg!(target_os = "linux") => {
                "this kernel has no Landlock (not built in, or not in the `lsm=` boot list)".to_string()
            }
            0 => "this system's kernel does not enforce it (the envelope is enforced on Linux by Landlock, on macOS by Seatbelt; not on Windows)".to_string(),
            abi => format!("this kernel has Landlock ABI {abi}"),
        };
        Some(format!(
            "hookhost envelope: the owner's policy runs every command inside a kernel envelope that needs Landlock ABI {needed} (Linux 6.2+ for files, 6.7+ for a TCP rule, 6.12+ for scopes); {have}, so the command was not run. Fix: a newer kernel with Landlock enabled, or the owner turns `envelope` off or narrows it in their settings"
        ))
    }
}

/// The Landlock ABI of the running kernel.
#[cfg(target_os = "linux")]
#[expect(
    unsafe_code,
    reason = "landlock_create_ruleset(NULL, 0, VERSION) only returns the ABI number"
)]
fn landlock_abi() -> u32 {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: with a null attribute pointer, size 0 and the VERSION flag the kernel reads
    // no memory and returns the ABI (or -1).
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    u32::try_from(abi).unwrap_or(0)
}

#[cfg(not(target_os = "linux"))]
fn landlock_abi() -> u32 {
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_below_the_needed_abi_and_says_how_to_fix() {
        let old = KernelSupport {
            landlock_abi: 2,
            seatbelt: false,
        };
        let why = old.refusal(3).unwrap();
        assert!(
            why.contains("needs Landlock ABI 3") && why.contains("ABI 2"),
            "{why}"
        );
        assert!(why.contains("Fix:"));
        let new = KernelSupport {
            landlock_abi: 7,
            seatbelt: false,
        };
        assert_eq!(new.refusal(6), None);
        let none = KernelSupport {
            landlock_abi: 0,
            seatbelt: false,
        };
        let none = none.refusal(3).unwrap();
        assert!(none.contains("Landlock"), "{none}");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_machine_has_landlock() {
        // Every developer machine and CI has ABI 7 (CONTRIBUTING); a kernel without it
        // would make every envelope test meaningless, so say so here.
        assert!(KernelSupport::probe().landlock_abi >= 6);
    }
}
