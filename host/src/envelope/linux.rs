//! The envelope on Linux, applied in two steps. The launcher makes a private mount
//! namespace and stays in it, outside the Landlock domain, to settle what the command
//! leaves behind ([`super::launch`]); the command's process takes on the rest between fork
//! and exec ([`super::confine`]). The mounts: the tool caches layered (an overlay whose
//! upper folder is the project's own, in hookhost's state folder), then every mount
//! read-only — so no file outside the writable roots has its mode, owner, times or
//! extended attributes changed, by root either — then each writable root bound writable
//! again, each read-only place inside one bound read-only onto itself, the folders
//! between it and the writable root bound onto themselves (a mount point cannot be renamed
//! or removed, so `mv .git x` cannot swap the read-only `.git/hooks` for a writable one),
//! each secret file and each listening unix socket of a process outside covered by the
//! withheld notice (Landlock ABI 7 does not govern connecting to a pathname socket: the
//! user's tmux server, the ssh-agent, a docker daemon). Landlock then forbids any later
//! mount change, so the command cannot take the covers off, and denies reaching another
//! process's files through `/proc/PID/root`.
//!
//! The process must be single-threaded (a mount or user namespace cannot be entered by
//! one thread of many).

use std::path::{Path, PathBuf};

use nix::mount::{MsFlags, mount};

use super::{Envelope, KernelSupport, Mode, Place};
use crate::resolve::Resolver;

/// What the mount namespace does, computed from the envelope and the files as they are
/// now: data, so its rules are tested without a namespace.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct MountPlan {
    /// Folders bound onto themselves, read-write (they become mount points).
    pub anchors: Vec<PathBuf>,
    /// Places bound read-only onto themselves.
    pub islands: Vec<PathBuf>,
    /// The writable roots and layered caches: bound writable again over the read-only
    /// whole, after the places around them (a home below `/tmp` held for a missing startup
    /// file, the agent's state folder the session makes writable), before those inside.
    pub roots: Vec<PathBuf>,
    /// Tool caches mounted as an overlay: (the cache, its layer folder).
    pub overlays: Vec<(PathBuf, PathBuf)>,
    /// Listening unix sockets covered.
    pub sockets: Vec<PathBuf>,
    /// The real git binaries and exec folders covered by the launcher's binary (the
    /// judge's client, [`super::judge`]).
    pub git: super::judge::Covers,
    /// Files covered by the withheld notice.
    pub masks: Vec<PathBuf>,
    /// Read-only places that neither exist nor have a folder of their own inside the
    /// writable root to protect instead: not enforced until they exist.
    pub unenforced: Vec<Place>,
}

/// The plan for `envelope` with the `secrets` found and the `sockets` listening when the
/// command starts (those already let through left out).
pub(crate) fn plan(envelope: &Envelope, secrets: &[PathBuf], sockets: &[PathBuf]) -> MountPlan {
    let mut plan = MountPlan::default();
    // Many places share their folders (the agents' files in the home): each folder is
    // resolved once.
    let mut resolver = Resolver::default();
    let roots: Vec<PathBuf> = envelope
        .writable
        .iter()
        .chain(&envelope.layered)
        .filter_map(|root| resolver.resolve(&root.path))
        .collect();
    for cache in &envelope.layered {
        if let Some(path) = resolver.resolve(&cache.path) {
            let layer = layer_folder(envelope, &path);
            plan.overlays.push((path, layer));
        }
    }
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
    plan.roots = roots;
    plan.roots
        .sort_by_key(|path| (path.components().count(), path.clone()));
    plan.roots.dedup();
    plan.sockets = sockets.to_vec();
    plan
}

/// What one bind over the read-only whole makes of its place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Layer {
    /// A writable root, writable again.
    Writable,
    /// A folder between a root and a read-only place: a mount point, as it is.
    Anchor,
    /// A read-only place.
    ReadOnly,
}

/// The binds of `plan`, shallowest first (a deeper one wins); at one depth a root, then
/// an anchor, then a read-only place.
fn layers(plan: &MountPlan) -> Vec<(&Path, Layer)> {
    let mut layers: Vec<(&Path, Layer)> = plan
        .roots
        .iter()
        .map(|root| (root.as_path(), Layer::Writable))
        .chain(
            plan.anchors
                .iter()
                .map(|dir| (dir.as_path(), Layer::Anchor)),
        )
        .chain(
            plan.islands
                .iter()
                .map(|island| (island.as_path(), Layer::ReadOnly)),
        )
        .collect();
    layers.sort_by_key(|(path, layer)| (path.components().count(), *layer));
    layers
}

/// The layer folder of the cache `cache` for `envelope`'s project.
fn layer_folder(envelope: &Envelope, cache: &Path) -> PathBuf {
    let project = envelope
        .project
        .as_ref()
        .map(|project| super::digest_of(project.as_os_str().as_encoded_bytes()));
    let project = project.as_deref().unwrap_or("no-project");
    let cache = super::digest_of(cache.as_os_str().as_encoded_bytes());
    envelope
        .layers
        .join(&project[..16.min(project.len())])
        .join(&cache[..16])
}

/// The listening unix sockets of this network namespace whose paths exist now
/// (`/proc/net/unix`), but those `keep` names (a path or a folder of them).
pub(crate) fn listening_sockets(keep: &[PathBuf]) -> Vec<PathBuf> {
    use std::os::unix::fs::FileTypeExt;
    /// `__SO_ACCEPTCON`: the socket listens.
    const LISTENING: u32 = 0x10000;
    let Ok(table) = crate::files::read_regular(Path::new("/proc/net/unix"), 8 << 20) else {
        return Vec::new();
    };
    let table = String::from_utf8_lossy(&table);
    let mut found: Vec<PathBuf> = table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let fields: Vec<&str> = line.splitn(8, ' ').filter(|f| !f.is_empty()).collect();
            let flags = u32::from_str_radix(fields.get(3)?, 16).ok()?;
            let path = line.split_whitespace().nth(7)?;
            (flags & LISTENING != 0 && path.starts_with('/')).then(|| PathBuf::from(path))
        })
        .filter(|path| !keep.iter().any(|kept| path.starts_with(kept)))
        .filter(|path| {
            std::fs::symlink_metadata(path).is_ok_and(|meta| meta.file_type().is_socket())
        })
        .take(4096)
        .collect();
    found.sort();
    found.dedup();
    found
}

/// Applies the mounts of `envelope` to this process (the launcher), with the `secrets`
/// found and the `sockets` to cover, and builds what the command's process takes on;
/// what the mount namespace could not enforce is in the plan, for the record.
pub(crate) fn apply(
    envelope: &Envelope,
    secrets: &[PathBuf],
    sockets: &[PathBuf],
    git: super::judge::Covers,
    broker: Option<(&Path, &Path)>,
    support: KernelSupport,
) -> Result<(MountPlan, super::confine::Confinement), String> {
    if let Some(why) = support.refusal(envelope.needed_abi()) {
        return Err(why);
    }
    let mut plan = plan(envelope, secrets, sockets);
    plan.git = git;
    match (envelope.mode, broker) {
        (Mode::Enforce, _) => isolate(envelope, &plan, broker)?,
        (Mode::LandlockOnly, Some(_)) => {
            return Err("a whole session inside the envelope needs its private mount namespace, which the owner's landlock-only mode goes without".into());
        }
        (Mode::LandlockOnly, None) => {}
    }
    let confinement = super::confine::build(envelope, support)?;
    Ok((plan, confinement))
}

/// For each read-only place of `envelope` that neither exists nor has a folder to hold it,
/// the first missing folder on its way (where the place lies below one): made, empty, so
/// that a session's mounts hold it (a session lasts too long to remove a created hook
/// file only at its end). The folders made, for removal after the session.
pub(crate) fn placeholders(envelope: &Envelope) -> Result<Vec<PathBuf>, String> {
    let mut made: Vec<PathBuf> = Vec::new();
    for place in plan(envelope, &[], &[]).unenforced {
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
    // The launcher is inside the project's PID namespace and a private mount namespace
    // already (`keeper::enter`); never are these mounts made in the one it started in.
    if !super::keeper::joined() {
        return Err("the launcher has no private mount namespace to enclose the command in (it did not join the project's namespaces)".into());
    }
    // git's exec folders are covered by a folder holding only the client as `git`,
    // made (in the envelope's folder) before anything is read-only.
    let git_folder = match plan.git.folders.is_empty() {
        true => None,
        false => Some(git_exec_folder(envelope)?),
    };
    let none: Option<&str> = None;
    mount(none, "/", none, MsFlags::MS_REC | MsFlags::MS_PRIVATE, none)
        .map_err(|err| format!("cannot make the mounts private ({err})"))?;
    for (cache, layer) in &plan.overlays {
        overlay(cache, layer)?;
    }
    set_attributes(Path::new("/"), MOUNT_ATTR_RDONLY, 0, true)
        .map_err(|err| format!("cannot make the mounts read-only ({err})"))?;
    let bind = |from: &Path, to: &Path| -> Result<(), String> {
        mount(
            Some(from),
            to,
            none,
            MsFlags::MS_BIND | MsFlags::MS_REC,
            none,
        )
        .map_err(|err| format!("cannot bind {} ({err})", to.display()))
    };
    let read_only = |path: &Path| -> Result<(), String> {
        set_attributes(path, MOUNT_ATTR_RDONLY, 0, true)
            .map_err(|err| format!("cannot make {} read-only ({err})", path.display()))
    };
    for (path, layer) in layers(plan) {
        bind(path, path)?;
        match layer {
            Layer::Anchor => {}
            Layer::ReadOnly => read_only(path)?,
            // A mount below the root that was read-only before (locked in a user
            // namespace) stays so: only the root itself must be writable.
            Layer::Writable => set_attributes(path, 0, MOUNT_ATTR_RDONLY, true)
                .or_else(|_| set_attributes(path, 0, MOUNT_ATTR_RDONLY, false))
                .map_err(|err| format!("cannot make {} writable ({err})", path.display()))?,
        }
    }
    if !plan.masks.is_empty() || !plan.sockets.is_empty() {
        let withheld = std::fs::canonicalize(&envelope.withheld).map_err(|err| {
            format!(
                "the withheld notice {} is missing ({err}); the engine writes it when it loads",
                envelope.withheld.display()
            )
        })?;
        for mask in &plan.masks {
            bind(&withheld, mask)?;
            read_only(mask)?;
        }
        for socket in &plan.sockets {
            bind(&withheld, socket).map_err(|why| {
                format!("{why}: a unix socket of a process outside, which commands may not reach")
            })?;
            read_only(socket)?;
        }
    }
    if let Some((folder, seen_at)) = broker {
        bind(folder, seen_at)?;
        read_only(seen_at)?;
    }
    if !plan.git.files.is_empty() || !plan.git.folders.is_empty() {
        let client = std::env::current_exe().map_err(|err| {
            format!("cannot find the launcher's binary to judge git with ({err})")
        })?;
        for file in &plan.git.files {
            bind(&client, file)?;
            read_only(file)?;
        }
        if let Some(folder) = &git_folder {
            bind(&client, &folder.join("git"))?;
            for exec in &plan.git.folders {
                bind(folder, exec)?;
                read_only(exec)?;
            }
        }
    }
    super::keeper::mount_proc()?;
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

/// Holds `paths` read-only in this mount namespace from now on (for the processes a
/// command left running): each bound onto itself, read-only.
pub(crate) fn hold(paths: &[PathBuf]) -> Result<(), String> {
    let none: Option<&str> = None;
    for path in paths {
        mount(
            Some(path.as_path()),
            path.as_path(),
            none,
            MsFlags::MS_BIND,
            none,
        )
        .map_err(|err| format!("cannot bind {} ({err})", path.display()))?;
        set_attributes(path, MOUNT_ATTR_RDONLY, 0, false)
            .map_err(|err| format!("cannot make {} read-only ({err})", path.display()))?;
    }
    Ok(())
}

/// The folder that covers git's exec folders: in the envelope's folder, holding one
/// empty file `git` the client is bound onto.
fn git_exec_folder(envelope: &Envelope) -> Result<PathBuf, String> {
    let folder = envelope.layers.with_file_name("git-exec");
    crate::files::ensure_private_dir(&folder)?;
    let git = folder.join("git");
    if std::fs::symlink_metadata(&git).is_err() {
        std::fs::File::create(&git)
            .map_err(|err| format!("cannot make {}: {err}", git.display()))?;
    }
    Ok(folder)
}

/// `MOUNT_ATTR_RDONLY`.
const MOUNT_ATTR_RDONLY: u64 = 0x1;

/// Sets and clears mount attributes of the mount at `path` (and those below it, when
/// `recursive`): `mount_setattr(2)`, which changes only the attributes named, so the
/// flags a user namespace locks are kept as they are.
fn set_attributes(path: &Path, set: u64, clear: u64, recursive: bool) -> nix::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    #[repr(C)]
    struct MountAttr {
        attr_set: u64,
        attr_clr: u64,
        propagation: u64,
        userns_fd: u64,
    }
    /// `AT_RECURSIVE`.
    const AT_RECURSIVE: libc::c_uint = 0x8000;
    let path =
        std::ffi::CString::new(path.as_os_str().as_bytes()).map_err(|_| nix::Error::EINVAL)?;
    let attr = MountAttr {
        attr_set: set,
        attr_clr: clear,
        propagation: 0,
        userns_fd: 0,
    };
    let flags = if recursive { AT_RECURSIVE } else { 0 };
    #[expect(
        unsafe_code,
        reason = "mount_setattr reads a NUL-terminated path and a mount_attr of the size given"
    )]
    // SAFETY: `path` is NUL-terminated and `attr` outlives the call; its size is passed.
    let done = unsafe {
        libc::syscall(
            libc::SYS_mount_setattr,
            libc::AT_FDCWD,
            path.as_ptr(),
            flags,
            &attr as *const MountAttr,
            std::mem::size_of::<MountAttr>(),
        )
    };
    if done == 0 {
        Ok(())
    } else {
        Err(nix::Error::last())
    }
}

/// The cache `cache` mounted over itself as an overlay: read from it, written to the
/// layer folder `layer` (made private when missing).
fn overlay(cache: &Path, layer: &Path) -> Result<(), String> {
    let (upper, work) = (layer.join("upper"), layer.join("work"));
    for dir in [&upper, &work] {
        crate::files::ensure_private_dir(dir)?;
    }
    let escape = |path: &Path| {
        path.display()
            .to_string()
            .replace('\\', "\\\\")
            .replace(',', "\\,")
            .replace(':', "\\:")
    };
    let mut options = format!(
        "lowerdir={},upperdir={},workdir={}",
        escape(cache),
        escape(&upper),
        escape(&work)
    );
    if !crate::platform::is_superuser() {
        options.push_str(",userxattr");
    }
    mount(
        Some("overlay"),
        cache,
        Some("overlay"),
        MsFlags::empty(),
        Some(options.as_str()),
    )
    .map_err(|err| {
        format!(
            "cannot layer the cache {} over {} ({err}); the cache would be shared with the user's own builds",
            cache.display(),
            layer.display()
        )
    })
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
        envelope.layered.clear();
        // The agents' folders the launcher makes before the plan are left out here.
        envelope.read_only.retain(|place| {
            !place.path.starts_with(&project) || place.path.ends_with(".git/hooks")
        });
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
        let plan = plan(&envelope, &[project.join(".env")], &[]);
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
        envelope.layered.clear();
        let plan = plan(&envelope, &[], &[]);
        assert_eq!(plan.roots, [root.clone(), home.join(".factory")]);
        let layers = layers(&plan);
        assert_eq!(
            layers,
            [
                (root.as_path(), Layer::Writable),
                (home.as_path(), Layer::ReadOnly),
                (home.join(".factory").as_path(), Layer::Writable),
                (
                    home.join(".factory/settings.json").as_path(),
                    Layer::ReadOnly
                ),
            ],
            "the home held, the state folder open in it, its hook file held in that"
        );
    }
}
