//! The import drawing of the library, checked: every `crate::`, `super::` and `self::`
//! path in `host/src` (outside comments and test modules) is an arrow from the file that
//! writes it to the module it names, and a module naming one of its own children
//! (`child::item`) an arrow to that child. The top-level modules ("rooms") form no circle,
//! no files outside one another's folders form one, no circle runs through a parent naming
//! its child (a part may use its module's items; nothing may lead from the part back to
//! the module through a stranger), and the stages of `engine/` import only their siblings
//! — never `engine.rs`, which delegates to them. And each type's own (inherent) `impl`
//! is in one file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use regex::Regex;

/// A module's path below the crate root (`["engine", "select"]`).
type Module = Vec<String>;

/// Every module of `host/src` with its source, test modules left out.
fn modules(src: &Path) -> BTreeMap<Module, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let Some(rel) = path
                .strip_prefix(src)
                .unwrap()
                .to_str()
                .and_then(|p| p.strip_suffix(".rs"))
            else {
                continue;
            };
            let mut parts: Module = rel.split('/').map(str::to_string).collect();
            let last = parts.last().unwrap().as_str();
            if last == "tests" {
                continue; // a test module in a file of its own
            }
            if matches!(last, "mod" | "lib" | "main") {
                parts.pop();
            }
            out.insert(parts, std::fs::read_to_string(&path).unwrap());
        }
    }
    out
}

/// The arrows of each module: the modules its code names.
fn arrows(modules: &BTreeMap<Module, String>) -> BTreeMap<Module, BTreeSet<Module>> {
    let comment = Regex::new(r"//[^\n]*").unwrap();
    let tests = Regex::new(r"(?s)#\[cfg\(test\)\]\s*mod tests\s*\{.*").unwrap();
    let group = Regex::new(r"(?s)use\s+(crate|super|self)::\{([^;]*)\};").unwrap();
    let path = Regex::new(r"\b(crate|super|self)((?:::[A-Za-z_][A-Za-z0-9_]*)+)").unwrap();
    let word = Regex::new(r"[A-Za-z_][A-Za-z0-9_]*").unwrap();
    // The deepest module a path names.
    let resolve = |segments: Vec<String>| -> Module {
        (1..=segments.len())
            .rev()
            .map(|n| segments[..n].to_vec())
            .find(|prefix| modules.contains_key(prefix))
            .unwrap_or_default()
    };
    let target = |from: &Module, kind: &str, mut segments: Vec<String>| -> Module {
        let base = match kind {
            "crate" => Vec::new(),
            "self" => from.clone(),
            _ => {
                let mut up = from[..from.len().saturating_sub(1)].to_vec();
                while segments.first().is_some_and(|s| s == "super") {
                    segments.remove(0);
                    up.pop();
                }
                up
            }
        };
        resolve(base.into_iter().chain(segments).collect())
    };
    let mut out: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (module, text) in modules {
        let text = tests.replace(text, "");
        let text = comment.replace_all(&text, "");
        let mut to = BTreeSet::new();
        for g in group.captures_iter(&text) {
            let mut depth = 0;
            let mut item = String::new();
            for c in g[2].chars().chain([',']) {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        let head = item.split('{').next().unwrap_or("");
                        let segments: Vec<String> = word
                            .find_iter(head)
                            .map(|m| m.as_str().to_string())
                            .filter(|s| s != "self" && s != "as")
                            .collect();
                        to.insert(target(module, &g[1], segments));
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
        }
        for p in path.captures_iter(&text) {
            let segments = p[2]
                .split("::")
                .skip(1)
                .map(str::to_string)
                .collect::<Vec<_>>();
            to.insert(target(module, &p[1], segments));
        }
        // A module naming its own child without a prefix (`routes::claude_hook`).
        for child in modules
            .keys()
            .filter(|child| child.len() == module.len() + 1 && child.starts_with(module))
        {
            let name = child.last().map(String::as_str).unwrap_or_default();
            let named = Regex::new(&format!(r"(^|[^:A-Za-z0-9_]){name}::")).unwrap();
            if named.is_match(&text) {
                to.insert(child.clone());
            }
        }
        to.remove(module);
        to.remove(&Vec::new());
        out.insert(module.clone(), to);
    }
    out
}

/// The circles of `graph`: its strongly connected parts of more than one node.
fn circles<N: Ord + Clone>(graph: &BTreeMap<N, BTreeSet<N>>) -> Vec<BTreeSet<N>> {
    // Reachability by search from each node: small graphs, clarity over speed.
    let reach = |from: &N| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.clone()];
        while let Some(node) = todo.pop() {
            for next in graph.get(&node).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    todo.push(next.clone());
                }
            }
        }
        seen
    };
    let reached: BTreeMap<N, BTreeSet<N>> = graph.keys().map(|n| (n.clone(), reach(n))).collect();
    let mut out: Vec<BTreeSet<N>> = Vec::new();
    for node in graph.keys() {
        let part: BTreeSet<N> = reached[node]
            .iter()
            .filter(|other| reached.get(*other).is_some_and(|r| r.contains(node)))
            .cloned()
            .collect();
        if part.len() > 1 && !out.contains(&part) {
            out.push(part);
        }
    }
    out
}

fn drawing() -> BTreeMap<Module, BTreeSet<Module>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    arrows(&modules(&src))
}

#[test]
fn the_rooms_form_no_circle() {
    let files = drawing();
    assert!(files.len() > 100, "read {} modules", files.len());
    let mut rooms: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, to) in &files {
        let Some(room) = from.first() else { continue };
        let entry = rooms.entry(room.clone()).or_default();
        entry.extend(
            to.iter()
                .filter_map(|m| m.first())
                .filter(|other| *other != room)
                .cloned(),
        );
    }
    assert!(rooms.len() > 20, "{} rooms", rooms.len());
    assert_eq!(circles(&rooms), Vec::<BTreeSet<String>>::new());
}

#[test]
fn no_files_outside_one_anothers_folders_form_a_circle() {
    let nested = |a: &Module, b: &Module| a.starts_with(b) || b.starts_with(a);
    let files: BTreeMap<Module, BTreeSet<Module>> = drawing()
        .into_iter()
        .map(|(from, to)| {
            let to = to.into_iter().filter(|m| !nested(&from, m)).collect();
            (from, to)
        })
        .collect();
    assert_eq!(circles(&files), Vec::<BTreeSet<Module>>::new());
}

/// The circles of `graph` once a module's arrows up to its own parents are left out (a
/// part using its module's items is the idiom): circles through a parent naming its child
/// and strangers naming either.
fn stray_circles(graph: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<BTreeSet<Module>> {
    let downward: BTreeMap<Module, BTreeSet<Module>> = graph
        .iter()
        .map(|(from, to)| {
            let to = to
                .iter()
                .filter(|m| !from.starts_with(m))
                .cloned()
                .collect();
            (from.clone(), to)
        })
        .collect();
    circles(&downward)
}

#[test]
fn no_circle_runs_through_a_parent_naming_its_child() {
    assert_eq!(stray_circles(&drawing()), Vec::<BTreeSet<Module>>::new());
}

#[test]
fn the_engines_stages_never_import_the_engine() {
    let engine = vec!["engine".to_string()];
    let back_up: Vec<Module> = drawing()
        .into_iter()
        .filter(|(from, to)| from.len() > 1 && from.starts_with(&engine) && to.contains(&engine))
        .map(|(from, _)| from)
        .collect();
    assert_eq!(back_up, Vec::<Module>::new());
}

#[test]
fn the_drawing_sees_a_circle_where_there_is_one() {
    // The control: two rooms naming each other, and a stage naming its parent.
    let mut modules = BTreeMap::new();
    let m = |s: &str| s.split('/').map(str::to_string).collect::<Module>();
    modules.insert(m("a"), "use crate::b::Thing;".to_string());
    modules.insert(m("b"), "fn f() { crate::a::g() }".to_string());
    modules.insert(m("engine"), String::new());
    modules.insert(m("engine/select"), "use super::{Engine, X};".to_string());
    let drawn = arrows(&modules);
    assert_eq!(circles(&drawn), vec![BTreeSet::from([m("a"), m("b")])]);
    assert!(drawn[&m("engine/select")].contains(&m("engine")));
}

#[test]
fn the_drawing_sees_a_circle_through_a_parent_and_its_child() {
    // The control: `serve` names its child `routes`, which names `hook`, which names
    // `serve` back — the circle the agents' door once made. A parent and its own child
    // naming each other is no stray circle.
    let m = |s: &str| s.split('/').map(str::to_string).collect::<Module>();
    let mut modules = BTreeMap::new();
    modules.insert(m("cli"), String::new());
    modules.insert(m("cli/serve"), "fn f() { routes::door() }".to_string());
    modules.insert(
        m("cli/serve/routes"),
        "use super::Server; fn g() { crate::cli::hook::reply() }".to_string(),
    );
    modules.insert(
        m("cli/hook"),
        "fn h() { super::serve::token() }".to_string(),
    );
    let drawn = arrows(&modules);
    assert!(drawn[&m("cli/serve")].contains(&m("cli/serve/routes")));
    assert_eq!(
        stray_circles(&drawn),
        vec![BTreeSet::from([
            m("cli/hook"),
            m("cli/serve"),
            m("cli/serve/routes")
        ])]
    );
    modules.insert(m("cli/hook"), String::new());
    let drawn = arrows(&modules);
    assert_eq!(
        circles(&drawn),
        vec![BTreeSet::from([m("cli/serve"), m("cli/serve/routes")])]
    );
    assert_eq!(stray_circles(&drawn), Vec::<BTreeSet<Module>>::new());
}

/// The files holding each type's inherent `impl` blocks (`impl Name {` or
/// `impl<T> Name<T> {`; a trait's `impl Trait for Name` is one per trait and not counted),
/// keyed by the type: its name and the module declaring it — the impl's own module or its
/// nearest ancestor that declares the name, else the one module that does (two types of
/// one name in two places, like the platform modules' alternatives, are two types).
fn inherent_impls(
    modules: &BTreeMap<Module, String>,
) -> BTreeMap<(String, Module), BTreeSet<Module>> {
    let block = Regex::new(r"(?m)^\s*impl(?:<[^>{]*>)?\s+([A-Z]\w*)(?:<[^>{]*>)?\s*\{").unwrap();
    let declared = |module: &Module, name: &str| {
        let declaration =
            format!(r"(?m)^\s*(?:pub(?:\([^)]*\))?\s+)?(?:struct|enum|union)\s+{name}\b");
        Regex::new(&declaration).unwrap().is_match(&modules[module])
    };
    let mut out: BTreeMap<(String, Module), BTreeSet<Module>> = BTreeMap::new();
    for (module, source) in modules {
        for found in block.captures_iter(source) {
            let name = found[1].to_string();
            let owner = (0..=module.len())
                .rev()
                .map(|len| module[..len].to_vec())
                .find(|ancestor| modules.contains_key(ancestor) && declared(ancestor, &name))
                .or_else(|| {
                    // Declared in no ancestor: the one module anywhere that declares it.
                    let mut declaring = modules.keys().filter(|other| declared(other, &name));
                    declaring
                        .next()
                        .filter(|_| declaring.next().is_none())
                        .cloned()
                })
                .unwrap_or_else(|| module.clone());
            out.entry((name, owner)).or_default().insert(module.clone());
        }
    }
    out
}

/// The types whose inherent `impl` blocks stand in more than one file.
fn split_types(modules: &BTreeMap<Module, String>) -> Vec<(String, BTreeSet<Module>)> {
    inherent_impls(modules)
        .into_iter()
        .filter(|(_, files)| files.len() > 1)
        .map(|((name, _), files)| (name, files))
        .collect()
}

#[test]
fn every_types_own_impl_is_in_one_file() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let split = split_types(&modules(&src));
    assert!(
        split.is_empty(),
        "inherent impls in more than one file: {split:?}"
    );
}

#[test]
fn a_type_whose_impl_is_split_over_two_files_is_seen() {
    let m = |s: &str| s.split('/').map(str::to_string).collect::<Module>();
    let mut modules = BTreeMap::new();
    let matcher = "pub enum Matcher {}\nimpl Matcher {\n    fn a() {}\n}\n";
    modules.insert(m("matcher"), matcher.to_string());
    let reach = "impl fmt::Display for Matcher {}\nstruct Reach<'a>;\nimpl<'a> Reach<'a> {}\n";
    modules.insert(m("matcher/reach"), reach.to_string());
    // Another module's own type of the same name is another type.
    let own = "pub(crate) struct Matcher;\nimpl Matcher {}\n";
    modules.insert(m("dialect"), own.to_string());
    assert_eq!(split_types(&modules), vec![]);
    let split =
        |name: &str, files: [&str; 2]| vec![(name.to_string(), BTreeSet::from(files.map(m)))];
    modules.insert(m("matcher/reach"), "  impl Matcher {\n}\n".to_string());
    assert_eq!(
        split_types(&modules),
        split("Matcher", ["matcher", "matcher/reach"])
    );
    // A sibling's impl of a type declared once is seen too.
    modules.insert(m("matcher/reach"), reach.to_string());
    modules.insert(m("matcher/words"), "impl Reach<'_> {}\n".to_string());
    assert_eq!(
        split_types(&modules),
        split("Reach", ["matcher/reach", "matcher/words"])
    );
}
