//! Where a path a command names lands, as far as the guard can tell without running
//! anything: the variables whose value the host knows put in (`$PWD` is the event's
//! working directory, `~` and `$HOME` the home), `.` and `..` resolved, `//` collapsed, a
//! trailing `/*` read as the folder it empties. The same folder named another way is the
//! same folder.

/// What deleting `target` (a word of the command, `dynamic` when it holds an expansion)
/// would take, when that is something the guard protects: the filesystem root, the home,
/// the project (`cwd`, the event's working directory) or a folder holding one of them —
/// or, for a path that starts with an expansion the host cannot know, possibly any of
/// them.
pub fn protected_reach(target: &str, dynamic: bool, cwd: &str) -> Option<&'static str> {
    let cwd = cwd.trim_end_matches('/');
    let (base, rest) = match split_base(target, dynamic, cwd) {
        Ok(split) => split,
        Err(why) => return Some(why),
    };
    let mut parts: Vec<&str> = match base {
        Base::Home => Vec::new(),
        Base::Absolute(path) => path.split('/').filter(|p| !p.is_empty()).collect(),
    };
    let home = matches!(base, Base::Home);
    for part in rest.split('/').filter(|p| !p.is_empty() && *p != ".") {
        if part.contains(['$', '`']) {
            // Empty, it leaves the folder so far; set, anything below it.
            break;
        }
        if part == ".." {
            if parts.pop().is_none() && home {
                return Some("a folder holding the home directory");
            }
            continue;
        }
        if part.contains(['*', '?', '[']) {
            // A pattern matches anything in its folder: every child of the folder so far.
            let everything = matches!(part, "*" | ".*" | "*.*" | ".[!.]*" | "{*,.*}");
            let near_root = parts.is_empty() || is_above(&parts, cwd);
            if everything || near_root || home {
                break;
            }
            return None;
        }
        parts.push(part);
    }
    if home {
        return parts.is_empty().then_some("the home directory");
    }
    let path = format!("/{}", parts.join("/"));
    if path == "/" {
        Some("the filesystem root")
    } else if path == cwd {
        Some("the whole project")
    } else if is_above(&parts, cwd) {
        Some("a folder holding the project")
    } else {
        None
    }
}

/// Where a path starts.
enum Base<'t> {
    /// The home (`~`, `$HOME`): where it is the host knows, the guard does not.
    Home,
    /// An absolute folder.
    Absolute(&'t str),
}

/// The path's base and the rest; `Err` for a path that starts with an expansion whose
/// value is unknown (it could be `/`).
fn split_base<'t>(
    target: &'t str,
    dynamic: bool,
    cwd: &'t str,
) -> Result<(Base<'t>, &'t str), &'static str> {
    for (prefix, base) in [
        ("$HOME", Base::Home),
        ("${HOME}", Base::Home),
        ("$PWD", Base::Absolute(cwd)),
        ("${PWD}", Base::Absolute(cwd)),
    ] {
        if let Some(rest) = target.strip_prefix(prefix)
            && (rest.is_empty() || rest.starts_with('/'))
            && dynamic
        {
            return Ok((base, rest));
        }
    }
    if let Some(rest) = target.strip_prefix('~') {
        // `~` and `~/…` are the home, `~name` another account's home.
        let rest = rest.find('/').map_or("", |at| &rest[at..]);
        return Ok((Base::Home, rest));
    }
    if dynamic && target.starts_with(['$', '`']) {
        return Err("wherever that expansion points (the filesystem root, if it is empty or `/`)");
    }
    if target.starts_with('/') {
        Ok((Base::Absolute("/"), target))
    } else {
        Ok((Base::Absolute(cwd), target))
    }
}

/// Whether the folder `parts` holds `cwd`.
fn is_above(parts: &[&str], cwd: &str) -> bool {
    let path = format!("/{}/", parts.join("/")).replace("//", "/");
    cwd.starts_with(&path)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CWD: &str = "/work/proj";

    #[test]
    fn the_same_folder_named_another_way_is_the_same_folder() {
        for (target, dynamic, reach) in [
            ("/", false, Some("the filesystem root")),
            ("//", false, Some("the filesystem root")),
            ("/./", false, Some("the filesystem root")),
            ("/tmp/..", false, Some("the filesystem root")),
            ("/usr/../../", false, Some("the filesystem root")),
            ("/*", false, Some("the filesystem root")),
            ("/u*", false, Some("the filesystem root")),
            ("~", true, Some("the home directory")),
            ("~/", true, Some("the home directory")),
            ("~/x/..", true, Some("the home directory")),
            ("~/*", true, Some("the home directory")),
            ("~/..", true, Some("a folder holding the home directory")),
            ("~bob", false, Some("the home directory")),
            ("$HOME", true, Some("the home directory")),
            ("${HOME}/.", true, Some("the home directory")),
            (".", false, Some("the whole project")),
            ("./", false, Some("the whole project")),
            ("./*", false, Some("the whole project")),
            ("*", false, Some("the whole project")),
            (".*", false, Some("the whole project")),
            ("src/..", false, Some("the whole project")),
            ("../proj", false, Some("the whole project")),
            ("/work/proj/", false, Some("the whole project")),
            ("/work//proj/.", false, Some("the whole project")),
            ("$PWD", true, Some("the whole project")),
            ("${PWD}/", true, Some("the whole project")),
            ("$PWD/$D", true, Some("the whole project")),
            ("..", false, Some("a folder holding the project")),
            ("/work", false, Some("a folder holding the project")),
            ("../../", false, Some("the filesystem root")),
        ] {
            assert_eq!(protected_reach(target, dynamic, CWD), reach, "{target}");
        }
    }

    #[test]
    fn an_expansion_the_host_cannot_know_could_be_anything() {
        for target in ["$D", "${D}/", "$D/*", "$(pwd)", "`pwd`/x"] {
            assert!(protected_reach(target, true, CWD).is_some(), "{target}");
        }
    }

    #[test]
    fn ordinary_targets_inside_the_project_are_let_through() {
        for (target, dynamic) in [
            ("target", false),
            ("./target", false),
            ("src/*.o", false),
            ("*.log", false),
            ("build/$D", true),
            ("$PWD/target", true),
            ("/work/proj/target", false),
            ("/tmp/build", false),
            ("~/.cache/x", true),
            ("../other", false),
            ("$HOMEDIR", true),
        ] {
            let reach = protected_reach(target, dynamic, CWD);
            if target == "$HOMEDIR" {
                // Not `$HOME`: an unknown variable, refused as such.
                assert!(reach.is_some());
            } else {
                assert_eq!(reach, None, "{target}");
            }
        }
    }
}
