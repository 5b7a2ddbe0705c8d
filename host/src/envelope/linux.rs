//! The envelope on Linux, applied to the calling process (and so to every process it
//! starts): first a private mount namespace — each read-only place inside a writable
//! folder bound read-only onto itself, the folders between it and the writable root bound
//! onto themselves (a mount point cannot be renamed or removed, so `mv .git x` cannot
//! swap the read-only `.git/hooks` for a writable one), each secret file covered by the
//! withheld notice — then Landlock: read everywhere, write only below the writable roots
//! (and device files), TCP by the owner's choice, scopes. Landlock also forbids any later
//! mount change, so the command cannot take the covers off, and denies reaching another
//! process's files through `/proc/PID/root`.
//!
//! The process must be single-threaded (a mount or user namespace cannot be entered by
//! one thread of many).

use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, NetPort, PathBeneath,
    PathFd, Ruleset, RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope,
};
use nix::mount::{MsFlags, mount};
use nix::sched::{CloneFlags, unshare};

use super::{Envelope, KernelSupport, Mode, Network, Place};
use crate::resolve::Resolver;

/// What the mount namespace does, computed from the envelope and the files as they are
/// now: data, so its rules are tested without a namespace.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct MountPlan {
    /// Folders bound onto themselves, read-write (they become mount points).
    pub anchors: Vec<PathBuf>,
    /// Places bound read-only onto themselves.
    pub islands: Vec<PathBuf>,
    /// Writable roots inside a read-only place (a home below `/tmp` held for a missing
    /// startup file, the agent's state folder the session makes writable): bound
    /// read-write onto themselves after the places around them, before those inside.
    pub reopened: Vec<PathBuf>,
    /// Files covered by the withheld notice.
    pub masks: Vec<PathBuf>,
    /// Read-only places that neither exist nor have a folder of their own inside the
    /// writable root to protect instead: not enforced until they exist.
    pub unenforced: Vec<Place>,
}

/// The plan for `envelope` with the `secrets` found when the command starts.
pub(crate) fn plan(envelope: &Envelope, secrets: &[PathBuf]) -> MountPlan {
    let mut plan = MountPlan::default();
    // Many places share their folders (the agents' files in the home): each folder is
    // resolved once.
    let mut resolver = Resolver::default();
    let roots: Vec<PathBuf> = envelope
        .writable
        .iter()
        .filter_map(|root| resolver.resolve(&root.path))
        .collect();
    for place in &envelope.read_only {
        let Some((target, exists)) = resolver.existing(&place.path) else {
            continue;
        };
        let Some(root) = roots.iter().filter(|root| target.starts_with(root)).max() else {
            // Outside every writable root: Landlock keeps it read-only already.
            continue;
        };
        let target = if exists {
            target
        } else if target != *root {
            // Its nearest existing folder inside the root stands for it.
            target
        } else {
            plan.unenforced.push(place.clone());
            continue;
        };
        let mut between = target.parent();
        while let Some(dir) = between.filter(|dir| dir.starts_with(root) && *dir != root.as_path())
        {
            plan.anchors.push(dir.to_path_buf());
            between = dir.parent();
        }
        plan.islands.push(target);
    }
    for file in secrets
        .iter()
        .chain(envelope.unreadable.iter().map(|place| &place.path))
    {
        if std::fs::metadata(file).is_ok_and(|meta| meta.is_file()) {
            plan.masks.push(file.clone());
        }
    }
    for list in [&mut plan.anchors, &mut plan.islands, &mut plan.masks] {
        list.sort_by_key(|path| (path.components().count(), path.clone()));
        list.dedup();
    }
    plan.reopened = roots
        .iter()
        .filter(|root| {
            plan.islands
                .iter()
                .any(|island| root.starts_with(island) && *root != island)
        })
        .cloned()
        .collect();
    plan.reopened
        .sort_by_key(|path| (path.components().count(), path.clone()));
    plan.reopened.dedup();
    plan
}

/// The binds of `plan`'s read-only places and reopened roots, shallowest first (a deeper
/// one wins), a place before a root at the same depth: (path, read-only).
fn layers(plan: &MountPlan) -> Vec<(&Path, bool)> {
    let mut layers: Vec<(&Path, bool)> = plan
        .islands
        .iter()
        .map(|island| (island.as_path(), true))
        .chain(plan.reopened.iter().map(|root| (root.as_path(), false)))
        .collect();
    layers.sort_by_key(|(path, read_only)| (path.components().count(), *read_only));
    layers
}

/// Applies `envelope` to this process, with the `secrets` found; what the mount namespace
/// could not enforce is returned for the record.
pub(crate) fn apply(
    envelope: &Envelope,
    secrets: &[PathBuf],
    broker: Option<(&Path, &Path)>,
    support: KernelSupport,
) -> Result<MountPlan, String> {
    if let Some(why) = support.refusal(envelope.needed_abi()) {
        return Err(why);
    }
    let plan = plan(envelope, secrets);
    match (envelope.mode, broker) {
        (Mode::Enforce, _) => isolate(envelope, &plan, broker)?,
        (Mode::LandlockOnly, Some(_)) => {
            return Err("a whole session inside the envelope needs its private mount namespace, which the owner's landlock-only mode goes without".into());
        }
        (Mode::LandlockOnly, None) => {}
    }
    restrict(envelope, support)?;
    Ok(plan)
}

/// For each read-only place of `envelope` that neither exists nor has a folder to hold it,
/// the first missing folder on its way (where the place lies below one): made, empty, so
/// that a session's mounts hold it (a session lasts too long to remove a created hook
/// file only at its end). The folders made, for removal after the session.
pub(crate) fn placeholders(envelope: &Envelope) -> Result<Vec<PathBuf>, String> {
    let mut made: Vec<PathBuf> = Vec::new();
    for place in plan(envelope, &[]).unenforced {
        let missing = place
            .path
            .ancestors()
            .skip(1)
            .take_while(|dir| std::fs::symlink_metadata(dir).is_err())
            .last();
        let Some(folder) = missing else {
            continue;
        };
        if let Err(err) = std::fs::create_dir(folder) {
            for made in made.iter().rev() {
                let _ = std::fs::remove_dir(made);
            }
            return Err(format!(
                "cannot hold {} ({}) for the session: cannot make {} ({err})",
                place.path.display(),
                place.why,
                folder.display()
            ));
        }
        made.push(folder.to_path_buf());
    }
    Ok(made)
}

/// The private mount namespace of `plan`, with a session's `broker` shown where its hook
/// processes look for it (read-only: no command can put another socket there).
fn isolate(
    envelope: &Envelope,
    plan: &MountPlan,
    broker: Option<(&Path, &Path)>,
) -> Result<(), String> {
    let fix = "Fix: allow unprivileged user namespaces (Ubuntu: the `kernel.apparmor_restrict_unprivileged_userns` sysctl, or an AppArmor profile for hookhost), or the owner sets `envelope.mode` to \"landlock-only\" (weaker: places inside writable folders stay writable, secret files there readable)";
    if crate::platform::is_superuser() {
        unshare(CloneFlags::CLONE_NEWNS)
            .map_err(|err| format!("cannot make a private mount namespace ({err}). {fix}"))?;
    } else {
        let (uid, gid) = (nix::unistd::geteuid(), nix::unistd::getegid());
        unshare(CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWNS)
            .map_err(|err| format!("cannot make a user and mount namespace ({err}). {fix}"))?;
        // The same ids inside: files keep their owners (others' read as `nobody`).
        for (file, text) in [
            ("/proc/self/setgroups", "deny".to_string()),
            ("/proc/self/uid_map", format!("{uid} {uid} 1")),
            ("/proc/self/gid_map", format!("{gid} {gid} 1")),
        ] {
            std::fs::write(file, text)
                .map_err(|err| format!("cannot write {file} ({err}). {fix}"))?;
        }
    }
    let none: Option<&str> = None;
    mount(none, "/", none, MsFlags::MS_REC | MsFlags::MS_PRIVATE, none)
        .map_err(|err| format!("cannot make the mounts private ({err})"))?;
    // `Some(read_only)`: the new mount made read-only or writable whatever the mount it
    // was bound from (a root reopened inside a read-only place starts out read-only);
    // `None`: as bound.
    let bind = |from: &Path, to: &Path, make: Option<bool>| -> Result<(), String> {
        mount(
            Some(from),
            to,
            none,
            MsFlags::MS_BIND | MsFlags::MS_REC,
            none,
        )
        .map_err(|err| format!("cannot bind {} ({err})", to.display()))?;
        if let Some(read_only) = make {
            let kept = locked_flags(to);
            let flags = MsFlags::MS_BIND | MsFlags::MS_REMOUNT | kept;
            let (flags, what) = if read_only {
                (flags | MsFlags::MS_RDONLY, "read-only")
            } else {
                (flags, "writable")
            };
            mount(none, to, none, flags, none)
                .map_err(|err| format!("cannot make {} {what} ({err})", to.display()))?;
        }
        Ok(())
    };
    for anchor in &plan.anchors {
        bind(anchor, anchor, None)?;
    }
    for (path, read_only) in layers(plan) {
        bind(path, path, Some(read_only))?;
    }
    if !plan.masks.is_empty() {
        let withheld = std::fs::canonicalize(&envelope.withheld).map_err(|err| {
            format!(
                "the withheld notice {} is missing ({err}); the engine writes it when it loads",
                envelope.withheld.display()
            )
        })?;
        for mask in &plan.masks {
            bind(&withheld, mask, Some(true))?;
        }
    }
    if let Some((folder, seen_at)) = broker {
        bind(folder, seen_at, Some(true))?;
    }
    // The working folder was entered before the mounts: entered again by its path, its
    // lookups cross them (else `cat .env` from the project would read below the cover).
    let cwd =
        std::env::current_dir().map_err(|err| format!("cannot read the working folder ({err})"))?;
    std::env::set_current_dir(&cwd).map_err(|err| {
        format!(
            "cannot enter the working folder {} again ({err})",
            cwd.display()
        )
    })?;
    Ok(())
}

/// The flags of the mount holding `path` that a remount inside a user namespace must
/// keep (the kernel refuses to drop them there).
fn locked_flags(path: &Path) -> MsFlags {
    use nix::sys::statvfs::{FsFlags, statvfs};
    let Ok(stat) = statvfs(path) else {
        return MsFlags::empty();
    };
    let flags = stat.flags();
    let mut kept = MsFlags::empty();
    for (fs, ms) in [
        (FsFlags::ST_NOSUID, MsFlags::MS_NOSUID),
        (FsFlags::ST_NODEV, MsFlags::MS_NODEV),
        (FsFlags::ST_NOEXEC, MsFlags::MS_NOEXEC),
        (FsFlags::ST_NOATIME, MsFlags::MS_NOATIME),
        (FsFlags::ST_NODIRATIME, MsFlags::MS_NODIRATIME),
        // The kernel's ST_RELATIME, which nix names only for glibc.
        (FsFlags::from_bits_retain(0x1000), MsFlags::MS_RELATIME),
    ] {
        if flags.contains(fs) {
            kept |= ms;
        }
    }
    kept
}

/// The Landlock domain: every right the ABI has is handled; reading is granted
/// everywhere, writing below the writable roots, writing to existing device files in
/// `/dev` (`/dev/null`, the terminal).
fn restrict(envelope: &Envelope, support: KernelSupport) -> Result<(), String> {
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
    for root in &envelope.writable {
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
    let status = created
        .restrict_self()
        .map_err(|e| err("restricting this process", &e))?;
    if status.ruleset != RulesetStatus::FullyEnforced {
        return Err(format!(
            "Landlock enforces the envelope only in part here ({:?}); not run",
            status.ruleset
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_only_places_inside_writable_roots_become_islands_with_their_anchors() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let (project, home) = (root.join("p"), root.join("h"));
        std::fs::create_dir_all(project.join(".git/hooks")).unwrap();
        std::fs::create_dir_all(project.join(".claude")).unwrap();
        std::fs::create_dir_all(home.join("state")).unwrap();
        std::fs::write(project.join(".env"), "K=1").unwrap();
        let mut envelope = super::super::tests::sample(&project, &home);
        // The test's folders lie below /tmp: only the project is writable here.
        envelope.writable.retain(|root| root.path == project);
        envelope.read_only.push(Place {
            path: project.join(".claude/settings.local.json"),
            why: "a hook settings file".into(),
        });
        envelope.read_only.push(Place {
            path: project.join("deploy/prod.yml"),
            why: "a protected path".into(),
        });
        envelope.read_only.push(Place {
            path: home.join(".bashrc"),
            why: "outside every writable root".into(),
        });
        let plan = plan(&envelope, &[project.join(".env")]);
        assert_eq!(plan.anchors, [project.join(".git")]);
        assert_eq!(
            plan.islands,
            [project.join(".claude"), project.join(".git/hooks")]
        );
        assert_eq!(plan.masks, [project.join(".env")]);
        let unenforced: Vec<&Path> = plan.unenforced.iter().map(|p| p.path.as_path()).collect();
        assert_eq!(unenforced, [project.join("deploy/prod.yml")]);
    }

    #[test]
    fn a_writable_root_inside_a_held_place_is_opened_again_and_its_own_places_held() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let home = root.join("h");
        std::fs::create_dir_all(home.join(".factory")).unwrap();
        std::fs::write(home.join(".factory/settings.json"), "{}").unwrap();
        let mut envelope = super::super::tests::sample(&root.join("p"), &home);
        // The home lies in a writable root (a test home below /tmp), a startup file it
        // lacks holds all of it; the session makes the agent's state folder writable.
        envelope.writable = vec![
            Place {
                path: root.clone(),
                why: "a temporary folder".into(),
            },
            Place {
                path: home.join(".factory"),
                why: "given with --writable".into(),
            },
        ];
        envelope.read_only = vec![
            Place {
                path: home.join(".bash_profile"),
                why: "a shell startup file".into(),
            },
            Place {
                path: home.join(".factory/settings.json"),
                why: "a hook settings file".into(),
            },
        ];
        let plan = plan(&envelope, &[]);
        assert_eq!(plan.reopened, [home.join(".factory")]);
        let layers = layers(&plan);
        assert_eq!(
            layers,
            [
                (home.as_path(), true),
                (home.join(".factory").as_path(), false),
                (home.join(".factory/settings.json").as_path(), true),
            ],
            "the home held, the state folder open in it, its hook file held in that"
        );
    }
}
