//! ARCHITECTURE.md's code map names every source file: a newcomer finds each one on the map.
//! A Rust file is named in its crate's section as `` `stem` `` or `` `dir/stem` `` (`` `dir/` ``
//! or `` `dir` `` for a folder's `mod.rs`); a UI file as `` `name.ts` `` in the UI's section.

use std::path::{Path, PathBuf};

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The text of the section whose heading starts with `heading`, up to the next heading of
/// its level or above.
fn section<'a>(map: &'a str, heading: &str) -> &'a str {
    let start = map
        .find(heading)
        .unwrap_or_else(|| panic!("no section {heading:?} in ARCHITECTURE.md"));
    let rest = &map[start + heading.len()..];
    let end = [rest.find("\n### "), rest.find("\n## ")]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(rest.len());
    &rest[..end]
}

/// Every file under `dir` ending with `extension`, but tests (`tests.rs`, `tests/`,
/// `*.test.ts`) and binaries' entry points under `bin/`.
fn files(dir: &Path, extension: &str, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            if name != "tests" && name != "test" {
                files(&path, extension, out);
            }
        } else if name.ends_with(extension) && name != "tests.rs" && !name.ends_with(".test.ts") {
            out.push(path);
        }
    }
}

/// How the map names a Rust file: its stem, or its folder's name for a `mod.rs`, `lib.rs`
/// or `main.rs` (the crate's root: named by the section itself).
fn rust_names(root: &Path, file: &Path) -> Option<Vec<String>> {
    let stem = file.file_stem()?.to_string_lossy().into_owned();
    if file.parent() == Some(root) && (stem == "lib" || stem == "main") {
        return None;
    }
    let name = if stem == "mod" {
        file.parent()?.file_name()?.to_string_lossy().into_owned()
    } else {
        stem
    };
    let parent = file.parent()?.file_name()?.to_string_lossy().into_owned();
    Some(vec![
        format!("`{name}`"),
        format!("`{name}/`"),
        format!("`{name}.rs`"),
        format!("`{parent}/{name}`"),
    ])
}

#[test]
fn every_source_file_is_on_the_map() {
    let map = std::fs::read_to_string(repository().join("ARCHITECTURE.md")).unwrap();
    let mut missing = vec![];
    for (dir, heading) in [
        ("crates/docs-client/src", "### `crates/docs-client`"),
        ("crates/docs-mcp/src", "### `crates/docs-mcp`"),
        ("src-tauri/src", "### `src-tauri`"),
    ] {
        let root = repository().join(dir);
        let text = section(&map, heading);
        let mut sources = vec![];
        files(&root, ".rs", &mut sources);
        for file in sources {
            if let Some(names) = rust_names(&root, &file)
                && !names.iter().any(|name| text.contains(name.as_str()))
            {
                missing.push(
                    file.strip_prefix(repository())
                        .unwrap()
                        .display()
                        .to_string(),
                );
            }
        }
    }
    let ui = section(&map, "### `ui/`");
    let mut sources = vec![];
    files(&repository().join("ui/src"), ".ts", &mut sources);
    for file in sources {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        if !ui.contains(&format!("`{name}`")) && !ui.contains(&format!("`src/{name}`")) {
            missing.push(
                file.strip_prefix(repository())
                    .unwrap()
                    .display()
                    .to_string(),
            );
        }
    }
    missing.sort();
    assert!(
        missing.is_empty(),
        "source files ARCHITECTURE.md's code map does not name:\n{}",
        missing.join("\n")
    );
}
