//! No module imports one that imports it back: the crates' modules form no circle, so each can
//! be read (and changed) after the ones it uses. A module's use of its ancestors (`super::`,
//! the items its parent declares) and a parent's use of its own children are not circles: a
//! folder is one room. Test code is left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The crates' source roots, from the repository's root.
const ROOTS: &[&str] = &[
    "crates/docs-client/src",
    "crates/docs-mcp/src",
    "src-tauri/src",
];

type Module = Vec<String>;

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every `.rs` file under `dir` but test files (`tests.rs`, `tests/`) and binaries (`bin/`).
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            if name != "tests" && name != "bin" {
                sources(&path, out);
            }
        } else if name.ends_with(".rs") && name != "tests.rs" {
            out.push(path);
        }
    }
}

/// The module a file is: `a/b.rs` and `a/b/mod.rs` are `[a, b]`; `lib.rs`, `main.rs` the root.
fn module_of(root: &Path, file: &Path) -> Module {
    let relative = file.strip_prefix(root).unwrap().with_extension("");
    let mut parts: Module = relative
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The source without its test module (`#[cfg(test)] mod tests { … }`, at the end by habit
/// here) and without comments.
fn code(source: &str) -> String {
    let source = source
        .find("#[cfg(test)]\nmod tests {")
        .map_or(source, |at| &source[..at]);
    source
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The paths a source names from `crate::` or `super::` (relative to `module`), as segments;
/// a group (`crate::{a, b::c}`) gives each of its members.
fn named_paths(module: &Module, source: &str) -> Vec<Module> {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = vec![];
    let bytes: Vec<char> = source.chars().collect();
    let mut i = 0;
    while i < bytes.len() {
        let start_ok = i == 0 || !ident(bytes[i - 1]) && bytes[i - 1] != ':';
        let rest: String = bytes[i..bytes.len().min(i + 7)].iter().collect();
        let (mut base, skip) = if start_ok && rest.starts_with("crate::") {
            (vec![], 7)
        } else if start_ok && rest.starts_with("super::") {
            (module[..module.len().saturating_sub(1)].to_vec(), 7)
        } else {
            i += 1;
            continue;
        };
        i += skip;
        // More `super::`.
        while bytes[i..].iter().collect::<String>().starts_with("super::") {
            base.pop();
            i += 7;
        }
        let mut segments = base.clone();
        loop {
            if bytes.get(i) == Some(&'{') {
                // A group: each member's first segments, to the matching brace.
                let (mut depth, mut member) = (0, String::new());
                i += 1;
                while i < bytes.len() {
                    let c = bytes[i];
                    if c == '{' {
                        depth += 1;
                    } else if c == '}' {
                        if depth == 0 {
                            break;
                        }
                        depth -= 1;
                    } else if c == ',' && depth == 0 {
                        out.push(join(&segments, &member));
                        member.clear();
                    } else if depth == 0 {
                        member.push(c);
                    }
                    i += 1;
                }
                out.push(join(&segments, &member));
                break;
            }
            let word: String = bytes[i..].iter().take_while(|c| ident(**c)).collect();
            if word.is_empty() {
                out.push(segments.clone());
                break;
            }
            i += word.chars().count();
            segments.push(word);
            if bytes[i..].iter().collect::<String>().starts_with("::") {
                i += 2;
            } else {
                out.push(segments.clone());
                break;
            }
        }
    }
    out
}

/// `prefix` then the `::`-separated segments of a group member (`b::c as d` → `b`, `c`).
fn join(prefix: &Module, member: &str) -> Module {
    let member = member.split(" as ").next().unwrap_or("");
    let mut path = prefix.clone();
    path.extend(
        member
            .split("::")
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty() && s != "self" && s != "*"),
    );
    path
}

/// The modules of one crate, and the modules each uses (ancestors and descendants left out).
fn uses(root: &Path) -> BTreeMap<Module, BTreeSet<Module>> {
    let mut files = vec![];
    sources(root, &mut files);
    let modules: BTreeSet<Module> = files.iter().map(|f| module_of(root, f)).collect();
    let related = |a: &Module, b: &Module| a.starts_with(b) || b.starts_with(a);
    let mut graph = BTreeMap::new();
    for file in &files {
        let module = module_of(root, file);
        let source = code(&std::fs::read_to_string(file).unwrap());
        let used: BTreeSet<Module> = named_paths(&module, &source)
            .into_iter()
            .filter_map(|path| {
                (1..=path.len())
                    .rev()
                    .map(|n| path[..n].to_vec())
                    .find(|prefix| modules.contains(prefix))
            })
            .filter(|target| !related(&module, target))
            .collect();
        graph.insert(module, used);
    }
    graph
}

/// The circles of `graph`: its strongly connected components of more than one module.
fn circles(graph: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    // Kosaraju: finishing order on the graph, then components on the reversed graph.
    fn visit(
        node: &Module,
        graph: &BTreeMap<Module, BTreeSet<Module>>,
        seen: &mut BTreeSet<Module>,
        order: &mut Vec<Module>,
    ) {
        if !seen.insert(node.clone()) {
            return;
        }
        for next in graph.get(node).into_iter().flatten() {
            visit(next, graph, seen, order);
        }
        order.push(node.clone());
    }
    let mut reversed: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (from, tos) in graph {
        for to in tos {
            reversed.entry(to.clone()).or_default().insert(from.clone());
        }
    }
    let (mut seen, mut order) = (BTreeSet::new(), vec![]);
    for node in graph.keys() {
        visit(node, graph, &mut seen, &mut order);
    }
    let mut assigned = BTreeSet::new();
    let mut out = vec![];
    for node in order.iter().rev() {
        let mut component = vec![];
        visit(node, &reversed, &mut assigned, &mut component);
        if component.len() > 1 {
            component.sort();
            out.push(component);
        }
    }
    out
}

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let mut found = vec![];
    for root in ROOTS {
        let graph = uses(&repository().join(root));
        for circle in circles(&graph) {
            // Each use within the circle, to say what ties it.
            let ties: Vec<String> = circle
                .iter()
                .flat_map(|from| {
                    graph[from]
                        .iter()
                        .filter(|to| circle.contains(to))
                        .map(move |to| format!("{} → {}", from.join("::"), to.join("::")))
                })
                .collect();
            found.push(format!("{root}: {}", ties.join(", ")));
        }
    }
    assert!(
        found.is_empty(),
        "modules that import each other:\n{}",
        found.join("\n")
    );
}

#[test]
fn paths_are_read_as_written() {
    let module: Module = vec!["service".into(), "decide".into()];
    let named = named_paths(
        &module,
        "use super::merge::{Merged, keep};\nuse crate::{edits::{self, EditOp}, record::Channel};\nlet x = crate::json::parse(1);",
    );
    let names: Vec<String> = named.iter().map(|m| m.join("::")).collect();
    assert_eq!(
        names,
        [
            "service::merge::Merged",
            "service::merge::keep",
            "edits",
            "record::Channel",
            "json::parse"
        ]
    );
    let graph = BTreeMap::from([
        (vec!["a".to_owned()], BTreeSet::from([vec!["b".to_owned()]])),
        (vec!["b".to_owned()], BTreeSet::from([vec!["a".to_owned()]])),
        (vec!["c".to_owned()], BTreeSet::from([vec!["a".to_owned()]])),
    ]);
    assert_eq!(
        circles(&graph),
        [vec![vec!["a".to_owned()], vec!["b".to_owned()]]]
    );
}
