//! What the command's own process takes on between fork and exec (the launcher stays
//! outside it, to settle what the command leaves behind when it ends): the Landlock
//! domain — read everywhere, write only below the writable roots (and device files), TCP
//! by the owner's choice, scopes; a seccomp filter that keeps set-user-ID and
//! set-group-ID bits off every file it makes or changes (a `chmod 4755` of a root-owned
//! copy of a shell is a root shell for whoever runs it later); and, for root, the
//! capabilities that change what others run or how the system runs dropped from the
//! bounding set (file capabilities, modules, raw devices, mounts, tracing). Everything is
//! built before the fork; the child only makes the system calls.

use std::collections::BTreeMap;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::Path;

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, NetPort, PathBeneath,
    PathFd, Ruleset, RulesetAttr, RulesetCreatedAttr, Scope,
};
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

use super::{Envelope, KernelSupport, Network};

/// The capabilities root loses inside: setting file capabilities, loading modules, raw
/// I/O, mounts and namespaces, tracing, the clock, rebooting, audit control and MAC policy,
/// immutable flags, BPF and perf.
const DROPPED_CAPABILITIES: &[u32] = &[
    8,  // CAP_SETPCAP (last, see below)
    9,  // CAP_LINUX_IMMUTABLE
    12, // CAP_NET_ADMIN
    16, // CAP_SYS_MODULE
    17, // CAP_SYS_RAWIO
    19, // CAP_SYS_PTRACE
    20, // CAP_SYS_PACCT
    21, // CAP_SYS_ADMIN
    22, // CAP_SYS_BOOT
    25, // CAP_SYS_TIME
    30, // CAP_AUDIT_CONTROL
    31, // CAP_SETFCAP
    32, // CAP_MAC_OVERRIDE
    33, // CAP_MAC_ADMIN
    34, // CAP_SYSLOG
    35, // CAP_WAKE_ALARM
    36, // CAP_BLOCK_SUSPEND
    38, // CAP_PERFMON
    39, // CAP_BPF
];

/// The set-user-ID and set-group-ID bits.
const SET_ID_BITS: [u64; 2] = [0o4000, 0o2000];

/// `fchmodat2` (Linux 6.6), the same number on every architecture hookhost builds for.
const SYS_FCHMODAT2: i64 = 452;

/// Everything the command's process takes on, built before the fork.
pub(crate) struct Confinement {
    /// The Landlock ruleset, created.
    ruleset: OwnedFd,
    /// The seccomp filters, applied in order.
    filters: Vec<BpfProgram>,
    /// Whether the bounding set is cut ([`DROPPED_CAPABILITIES`]): for root.
    drop_capabilities: bool,
}

/// Builds the confinement of `envelope` (its files already mounted: the rules are bound
/// to what the command will see).
pub(crate) fn build(envelope: &Envelope, support: KernelSupport) -> Result<Confinement, String> {
    Ok(Confinement {
        ruleset: ruleset(envelope, support)?,
        filters: filters()?,
        drop_capabilities: crate::platform::is_superuser(),
    })
}

/// Makes `command`'s process take `confinement` on between fork and exec.
pub(crate) fn attach(
    command: &mut std::process::Command,
    confinement: std::sync::Arc<Confinement>,
) {
    use std::os::unix::process::CommandExt;
    #[expect(
        unsafe_code,
        reason = "the hook runs between fork and exec and only makes system calls"
    )]
    // SAFETY: the closure allocates nothing and makes only prctl, landlock and seccomp
    // calls (the launcher's other threads, the git judge's, hold no lock it takes).
    unsafe {
        command.pre_exec(move || confinement.take_on());
    }
}

impl Confinement {
    /// The child's part: no new privileges, the bounding set cut (root), the Landlock
    /// domain, the filters. Any failure fails the exec, so nothing runs unconfined.
    pub(crate) fn take_on(&self) -> std::io::Result<()> {
        take_on(&self.ruleset, &self.filters, self.drop_capabilities)
    }
}

/// [`Confinement::take_on`].
fn take_on(
    ruleset: &OwnedFd,
    filters: &[BpfProgram],
    drop_capabilities: bool,
) -> std::io::Result<()> {
    let fail = std::io::Error::last_os_error;
    #[expect(
        unsafe_code,
        reason = "prctl and landlock_restrict_self take plain integers"
    )]
    // SAFETY: integer arguments only; the ruleset descriptor is open for the call.
    unsafe {
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
            return Err(fail());
        }
        if drop_capabilities {
            // CAP_SETPCAP is what dropping needs: dropped last.
            for cap in DROPPED_CAPABILITIES
                .iter()
                .skip(1)
                .chain(&DROPPED_CAPABILITIES[..1])
            {
                let dropped = libc::prctl(libc::PR_CAPBSET_DROP, *cap as libc::c_ulong, 0, 0, 0);
                // EINVAL: a capability this kernel does not have.
                if dropped != 0
                    && std::io::Error::last_os_error().raw_os_error() != Some(libc::EINVAL)
                {
                    return Err(fail());
                }
            }
        }
        if libc::syscall(libc::SYS_landlock_restrict_self, ruleset.as_raw_fd(), 0u32) != 0 {
            return Err(fail());
        }
    }
    for filter in filters {
        seccompiler::apply_filter(filter).map_err(|err| std::io::Error::other(err.to_string()))?;
    }
    Ok(())
}

/// The seccomp filters: the set-ID bits refused (EPERM) on `chmod`, `fchmod`,
/// `fchmodat`, `fchmodat2`, on files `open`/`openat`/`creat` create and `mknod` makes;
/// `openat2` and `io_uring_setup` answered "not here" (ENOSYS: callers fall back to the
/// calls above, whose arguments the filter can read).
fn filters() -> Result<Vec<BpfProgram>, String> {
    let arch =
        TargetArch::try_from(std::env::consts::ARCH).map_err(|err| format!("seccomp: {err}"))?;
    let err = |err: seccompiler::BackendError| format!("seccomp: {err}");
    let set_id = |mode_arg: u8| -> Result<Vec<SeccompRule>, String> {
        SET_ID_BITS
            .iter()
            .map(|bit| {
                let condition = SeccompCondition::new(
                    mode_arg,
                    SeccompCmpArgLen::Dword,
                    SeccompCmpOp::MaskedEq(*bit),
                    *bit,
                )
                .map_err(err)?;
                SeccompRule::new(vec![condition]).map_err(err)
            })
            .collect()
    };
    let created_set_id = |flags_arg: u8, mode_arg: u8| -> Result<Vec<SeccompRule>, String> {
        SET_ID_BITS
            .iter()
            .map(|bit| {
                let creates = SeccompCondition::new(
                    flags_arg,
                    SeccompCmpArgLen::Dword,
                    SeccompCmpOp::MaskedEq(libc::O_CREAT as u64),
                    libc::O_CREAT as u64,
                )
                .map_err(err)?;
                let mode = SeccompCondition::new(
                    mode_arg,
                    SeccompCmpArgLen::Dword,
                    SeccompCmpOp::MaskedEq(*bit),
                    *bit,
                )
                .map_err(err)?;
                SeccompRule::new(vec![creates, mode]).map_err(err)
            })
            .collect()
    };
    let mut refused: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    refused.insert(libc::SYS_fchmod, set_id(1)?);
    refused.insert(libc::SYS_fchmodat, set_id(2)?);
    refused.insert(SYS_FCHMODAT2, set_id(2)?);
    refused.insert(libc::SYS_openat, created_set_id(2, 3)?);
    refused.insert(libc::SYS_mknodat, set_id(2)?);
    #[cfg(target_arch = "x86_64")]
    {
        refused.insert(libc::SYS_chmod, set_id(1)?);
        refused.insert(libc::SYS_creat, set_id(1)?);
        refused.insert(libc::SYS_open, created_set_id(1, 2)?);
        refused.insert(libc::SYS_mknod, set_id(1)?);
    }
    let mut absent: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    absent.insert(libc::SYS_openat2, Vec::new());
    absent.insert(libc::SYS_io_uring_setup, Vec::new());
    let filter = |rules, errno: i32| {
        SeccompFilter::new(
            rules,
            SeccompAction::Allow,
            SeccompAction::Errno(errno as u32),
            arch,
        )
        .map_err(err)
    };
    let (set_id_filter, absent_filter) =
        (filter(refused, libc::EPERM)?, filter(absent, libc::ENOSYS)?);
    [set_id_filter, absent_filter]
        .into_iter()
        .map(|filter| BpfProgram::try_from(filter).map_err(err))
        .collect()
}

/// The Landlock ruleset: every right the ABI has is handled; reading is granted
/// everywhere, writing below the writable roots and the layered caches, writing to
/// existing device files in `/dev` (`/dev/null`, the terminal).
fn ruleset(envelope: &Envelope, support: KernelSupport) -> Result<OwnedFd, String> {
    let abi = if support.landlock_abi >= 5 {
        ABI::V5
    } else {
        ABI::V3
    };
    let all = AccessFs::from_all(abi);
    let devices_only: BitFlags<AccessFs> = AccessFs::MakeChar | AccessFs::MakeBlock;
    let ioctl = all & AccessFs::IoctlDev;
    let read = AccessFs::from_read(abi) | ioctl;
    let write = all & !devices_only;
    let device_write = AccessFs::WriteFile | AccessFs::Truncate | ioctl;
    let err = |what: &str, err: &dyn std::fmt::Display| format!("Landlock: {what}: {err}");
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(all)
        .map_err(|e| err("handling the file rights", &e))?;
    if envelope.network != Network::Any {
        ruleset = ruleset
            .handle_access(AccessNet::from_all(ABI::V4))
            .map_err(|e| err("handling TCP", &e))?;
    }
    if envelope.scope_signals {
        ruleset = ruleset
            .scope(Scope::Signal)
            .map_err(|e| err("scoping signals", &e))?;
    }
    if envelope.scope_abstract_sockets {
        ruleset = ruleset
            .scope(Scope::AbstractUnixSocket)
            .map_err(|e| err("scoping abstract sockets", &e))?;
    }
    let mut created = ruleset
        .create()
        .map_err(|e| err("creating the ruleset", &e))?;
    let beneath = |path: &Path| PathFd::new(path).map_err(|e| err(&path.display().to_string(), &e));
    created = created
        .add_rule(PathBeneath::new(beneath(Path::new("/"))?, read))
        .map_err(|e| err("reading everywhere", &e))?;
    for root in envelope.writable.iter().chain(&envelope.layered) {
        if !root.path.is_dir() {
            continue;
        }
        created = created
            .add_rule(PathBeneath::new(beneath(&root.path)?, write))
            .map_err(|e| err(&root.path.display().to_string(), &e))?;
    }
    created = created
        .add_rule(PathBeneath::new(beneath(Path::new("/dev"))?, device_write))
        .map_err(|e| err("/dev", &e))?;
    if let Network::Ports { connect, bind } = &envelope.network {
        for port in connect {
            created = created
                .add_rule(NetPort::new(*port, AccessNet::ConnectTcp))
                .map_err(|e| err(&format!("connect to port {port}"), &e))?;
        }
        for port in bind {
            created = created
                .add_rule(NetPort::new(*port, AccessNet::BindTcp))
                .map_err(|e| err(&format!("bind port {port}"), &e))?;
        }
    }
    Option::<OwnedFd>::from(created)
        .ok_or_else(|| "Landlock: this kernel cannot enforce the ruleset; not run".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filters_compile_for_this_machine() {
        let filters = filters().unwrap();
        assert_eq!(filters.len(), 2);
        assert!(filters.iter().all(|filter| !filter.is_empty()));
    }

    #[test]
    fn a_set_id_bit_is_refused_and_plain_modes_pass() {
        // In a child of this test: the filters on, then chmod and open.
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        std::fs::write(&file, "x").unwrap();
        let filters = filters().unwrap();
        let script = format!(
            "chmod 755 {f} && echo plain-ok; chmod 4755 {f} || echo setuid-refused; chmod g+s {f} || echo setgid-refused; stat -c %a {f}",
            f = file.display()
        );
        let mut command = std::process::Command::new("/bin/sh");
        command.arg("-c").arg(script);
        use std::os::unix::process::CommandExt;
        #[expect(unsafe_code, reason = "a test child applying the filters before exec")]
        // SAFETY: the closure makes only prctl and seccomp calls.
        unsafe {
            command.pre_exec(move || {
                if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                for filter in &filters {
                    seccompiler::apply_filter(filter)
                        .map_err(|err| std::io::Error::other(err.to_string()))?;
                }
                Ok(())
            });
        }
        let out = command.output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("plain-ok"), "{text}");
        assert!(text.contains("setuid-refused"), "{text}");
        assert!(text.contains("setgid-refused"), "{text}");
        assert!(text.trim_end().ends_with("755"), "{text}");
    }
}
