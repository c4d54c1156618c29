//! The crate's layers, read from its source: an import runs only down.
//!
//! `words` and `markup` < `sim` < `wire` < `lesson` < `tools` < `work` <
//! `ui`: the core knows nothing of links, stories, tools, the worker or the
//! page; a tool never names the worker or the page; only the page names
//! the page. A file may name its own layer and any layer below it, by
//! `crate::LAYER` anywhere in its text (a `use` line, a path in the code or
//! in a test; not in a comment). The binaries, `lib.rs`, `main.rs` and the fuzz targets'
//! bodies sit above them all.

use std::path::{Path, PathBuf};

/// Each layer, lowest first; a layer may name those before it.
const LAYERS: [&[&str]; 7] = [
    &["words", "markup", "cli"],
    &["sim"],
    &["wire"],
    &["lesson"],
    &["tools"],
    &["work"],
    &["ui"],
];

fn rank(module: &str) -> Option<usize> {
    LAYERS.iter().position(|layer| layer.contains(&module))
}

/// The top-level module a file under `src/` belongs to (`None` for the
/// crate's roots and binaries, which may name anything).
fn module_of(relative: &Path) -> Option<String> {
    let first = relative.components().next()?.as_os_str().to_str()?;
    let name = first.strip_suffix(".rs").unwrap_or(first);
    match name {
        "lib" | "main" | "bin" | "fuzzing" => None,
        _ => Some(name.to_string()),
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every `crate::NAME` a text names in code (comments, docs among them,
/// may speak of any layer).
fn named_modules(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let mut rest = line.split("//").next().unwrap_or_default();
        while let Some(at) = rest.find("crate::") {
            let before = rest[..at].chars().next_back();
            rest = &rest[at + "crate::".len()..];
            // `distlock::crate::` never occurs; `$crate::` is a macro's own.
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
                continue;
            }
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.push((n + 1, name));
            }
        }
    }
    out
}

#[test]
fn every_import_runs_down_the_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    assert!(files.len() > 50, "the crate's source is read");
    let mut wrong = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&src).expect("under src/");
        let Some(module) = module_of(relative) else {
            continue;
        };
        let Some(own) = rank(&module) else {
            wrong.push(format!(
                "src/{}: the module `{module}` has no layer in tests/core/layers.rs",
                relative.display()
            ));
            continue;
        };
        let text = std::fs::read_to_string(file).expect("the file reads");
        for (line, named) in named_modules(&text) {
            match rank(&named) {
                Some(r) if r > own => wrong.push(format!(
                    "src/{}:{line}: `{module}` names `crate::{named}`, a layer above it",
                    relative.display()
                )),
                Some(_) => {}
                // A module outside the layers (`fuzzing`) is named only from above.
                None if named == "fuzzing" => wrong.push(format!(
                    "src/{}:{line}: `{module}` names `crate::fuzzing`",
                    relative.display()
                )),
                None => {}
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports that run up:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_layer_reader_sees_paths_in_uses_code_and_tests() {
    let text = "use crate::sim::Sim;\n    let x = crate::ui::state::f();\n    $crate::sim::X;\n/// `crate::work` in words\n";
    assert_eq!(
        named_modules(text),
        [(1, "sim".to_string()), (2, "ui".to_string())]
    );
    assert_eq!(rank("words"), Some(0));
    assert!(rank("ui") > rank("work") && rank("work") > rank("tools"));
    assert!(rank("tools") > rank("lesson") && rank("lesson") > rank("sim"));
    assert_eq!(module_of(Path::new("bin/find.rs")), None);
    assert_eq!(
        module_of(Path::new("tools/explore/form.rs")).as_deref(),
        Some("tools")
    );
    assert_eq!(module_of(Path::new("words.rs")).as_deref(), Some("words"));
}
