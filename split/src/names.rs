//! The names by which split/first-part.txt lists the functions that stay in
//! the first part. A function's index changes with every change to the
//! code; its name mostly does not, so the list is written in names, and
//! every function of a listed name stays. The page's wasm is built with
//! rustc's v0 symbol names (.cargo/config.toml), which spell out a generic
//! function's type arguments, so its copies have names of their own.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{Context, Result};
use walrus::{ExportItem, FunctionKind, Module};

/// A name-section name as the list writes it, without what changes from one
/// build to the next: rustc's hash at the end of a path (`::h` and 16 hex
/// digits), a crate's disambiguator (`core[c5930c85a12de822]`), the number
/// that tells two copies of a name apart (`write_fmt[1]`, LLVM's
/// `format.106`). Functions that differ only by those (the copies of a
/// generic function, the closures of one function) share a listed name.
pub fn listed_name(name: &str) -> String {
    let b = name.as_bytes();
    let hex = |from: usize| {
        b.get(from..).map_or(0, |s| {
            s.iter()
                .take_while(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(c))
                .count()
        })
    };
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"::h")
            && hex(i + 3) == 16
            && !b.get(i + 19).is_some_and(|&c| ident(c))
        {
            i += 19;
            continue;
        }
        if b[i] == b'[' && i > 0 && ident(b[i - 1]) {
            let n = hex(i + 1);
            if n > 0 && b.get(i + 1 + n) == Some(&b']') {
                i += n + 2;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    let mut name = String::from_utf8(out).expect("only ASCII was taken out");
    while let Some(dot) = name.rfind('.') {
        let number = &name[dot + 1..];
        if number == "llvm" || (!number.is_empty() && number.bytes().all(|c| c.is_ascii_digit())) {
            name.truncate(dot);
        } else {
            break;
        }
    }
    name
}

/// Each function `m` defines, by index (imports first), and its listed name:
/// the name section's (see `listed_name`), else the export's
/// (`export NAME`). Binaryen names none of the functions it makes (the
/// bodies `merge-similar-functions` shares between look-alikes): such a
/// function is listed by the smallest name among the functions that call or
/// refer to it, nearest first (`called from NAME`). `refers` gives, by
/// index, the functions each body refers to.
pub fn listed_names(
    m: &Module,
    refers: &BTreeMap<usize, BTreeSet<usize>>,
) -> BTreeMap<usize, String> {
    let index: BTreeMap<_, _> = m
        .funcs
        .iter()
        .enumerate()
        .map(|(i, f)| (f.id(), i))
        .collect();
    let mut names = BTreeMap::new();
    for (i, f) in m.funcs.iter().enumerate() {
        if let (FunctionKind::Local(_), Some(name)) = (&f.kind, &f.name) {
            names.insert(i, listed_name(name));
        }
    }
    for export in m.exports.iter() {
        if let ExportItem::Function(f) = export.item {
            let i = index[&f];
            if matches!(m.funcs.get(f).kind, FunctionKind::Local(_)) {
                names
                    .entry(i)
                    .or_insert_with(|| format!("export {}", export.name));
            }
        }
    }
    // One step further from the named functions at a time, so that a name
    // does not depend on the order of the indices.
    loop {
        let mut found: BTreeMap<usize, String> = BTreeMap::new();
        for (from, to) in refers {
            let Some(caller) = names.get(from) else {
                continue;
            };
            for i in to.iter().filter(|i| !names.contains_key(i)) {
                let name = format!("called from {caller}");
                match found.get(i) {
                    Some(known) if *known <= name => {}
                    _ => {
                        found.insert(*i, name);
                    }
                }
            }
        }
        if found.is_empty() {
            return names;
        }
        names.extend(found);
    }
}

/// The names a list gives, one a line; blank lines and `#` comments aside.
pub fn read_list(path: &str) -> Result<BTreeSet<String>> {
    Ok(std::fs::read_to_string(path)
        .with_context(|| format!("reading {path}"))?
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::listed_name;

    #[test]
    fn a_listed_name_drops_what_changes_between_builds() {
        let cases = [
            ("yew::scheduler::start::h0123456789abcdef", "yew::scheduler::start"),
            (
                "web_sys::Node::last_child::__wbg_lastChild_d03af7c29f69e2ad::he0bcfd076dfb62ef externref shim",
                "web_sys::Node::last_child::__wbg_lastChild_d03af7c29f69e2ad externref shim",
            ),
            ("<core[c5930c85a12de822]::fmt::Formatter>::pad", "<core::fmt::Formatter>::pad"),
            ("<alloc::string::String as core::fmt::Write>::write_fmt[1]", "<alloc::string::String as core::fmt::Write>::write_fmt"),
            ("alloc[3ca501edff3f0c7c]::fmt::format.106", "alloc::fmt::format"),
            ("foo::bar::h0123456789abcdef.llvm.1234", "foo::bar"),
            ("<[u8; 4] as core::fmt::Debug>::fmt", "<[u8; 4] as core::fmt::Debug>::fmt"),
            ("core::hash::Hasher::write_h0123", "core::hash::Hasher::write_h0123"),
        ];
        for (name, listed) in cases {
            assert_eq!(listed_name(name), listed, "{name}");
        }
    }
}
