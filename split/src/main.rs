//! Splits the page's release wasm in two (scripts/build/split.sh): the
//! functions a cold load runs stay in the page's wasm, every other function
//! moves to a second module that the page fetches once it has started
//! (assets/boot.js), before a click needs it.
//!
//!   distlock-split IN.wasm LIST OUT.wasm OUT_SPLIT.wasm MOVED
//!   distlock-split names IN.wasm
//!
//! LIST (split/first-part.txt) names the functions that stay, one a line, as
//! `names` writes them: the name in IN.wasm's name section without the hash
//! rustc appends (see `listed_name`), so the list reads the same from one
//! build to the next while the functions' indices do not. Every function of
//! a listed name stays; a listed name no function has is counted and
//! ignored, and a function the list does not name moves. MOVED receives the
//! indices in IN.wasm of the functions that moved, one a line. `names`
//! prints each function IN.wasm defines: its index, a tab, its listed name.
//!
//! In the first module a moved function that anything left there can reach
//! becomes a stub: if the second module is not in yet it calls the import
//! `__distlock_split` (the page loads it at once, synchronously), then calls
//! the real function through the function table, in whose slot the second
//! module's element segment has put it. A moved function that already had a
//! slot in the table keeps it, so function pointers stay the same numbers.
//! The second module imports from the first (module "p") every function,
//! global, memory and table its code uses; the first exports them under
//! short names. The words and tables (data) stay in the first module: moved
//! code reads them where they always were. Neither module carries a name
//! section.
//!
//! Binaryen's `wasm-split` does the same, but the npm package of binaryen
//! that builds the page does not ship it, and Debian's cannot read the
//! page's wasm. Walrus is the library wasm-bindgen is built on.

mod names;

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{bail, Context, Result};
use walrus::ir::{self, UnaryOp, Value, Visitor};
use walrus::{
    ConstExpr, ElementItems, ElementKind, ExportItem, FunctionBuilder, FunctionId, FunctionKind,
    GlobalId, GlobalKind, ImportKind, ImportedFunction, LocalFunction, MemoryId, Module,
    ModuleConfig, TableId, ValType,
};

/// The import the first module calls when a moved function is needed before
/// the second module is in; the page's glue answers it (scripts/build/split.sh).
const LOAD_IMPORT: &str = "__distlock_split";
/// The first module's export saying whether the second module is in.
const READY_EXPORT: &str = "__distlock_split_ready";
/// The module name under which the second module imports from the first.
const FROM_FIRST: &str = "p";

/// What a function's body refers to.
#[derive(Default)]
struct Refs {
    funcs: BTreeSet<usize>,
    globals: BTreeSet<usize>,
    memories: BTreeSet<usize>,
    tables: BTreeSet<usize>,
    /// Uses data or element segments, or takes a function's reference:
    /// such a function stays in the first module.
    pinned: bool,
}

/// Collects `Refs` as arena positions, which are the same in both parsed
/// copies of the module.
struct Collect<'a> {
    refs: &'a mut Refs,
    funcs: &'a BTreeMap<FunctionId, usize>,
    globals: &'a BTreeMap<GlobalId, usize>,
    memories: &'a BTreeMap<MemoryId, usize>,
    tables: &'a BTreeMap<TableId, usize>,
}

impl<'i> Visitor<'i> for Collect<'_> {
    fn visit_function_id(&mut self, f: &FunctionId) {
        self.refs.funcs.insert(self.funcs[f]);
    }
    fn visit_global_id(&mut self, g: &GlobalId) {
        self.refs.globals.insert(self.globals[g]);
    }
    fn visit_memory_id(&mut self, m: &MemoryId) {
        self.refs.memories.insert(self.memories[m]);
    }
    fn visit_table_id(&mut self, t: &TableId) {
        self.refs.tables.insert(self.tables[t]);
    }
    fn visit_data_id(&mut self, _: &walrus::DataId) {
        self.refs.pinned = true;
    }
    fn visit_element_id(&mut self, _: &walrus::ElementId) {
        self.refs.pinned = true;
    }
    fn visit_ref_func(&mut self, _: &ir::RefFunc) {
        self.refs.pinned = true;
    }
}

/// The arena positions of a module's items, both ways.
struct Positions {
    funcs: Vec<FunctionId>,
    globals: Vec<GlobalId>,
    memories: Vec<MemoryId>,
    tables: Vec<TableId>,
    func_at: BTreeMap<FunctionId, usize>,
    global_at: BTreeMap<GlobalId, usize>,
    memory_at: BTreeMap<MemoryId, usize>,
    table_at: BTreeMap<TableId, usize>,
}

fn at<T: Ord + Copy>(ids: &[T]) -> BTreeMap<T, usize> {
    ids.iter().enumerate().map(|(i, id)| (*id, i)).collect()
}

impl Positions {
    fn of(m: &Module) -> Positions {
        let funcs: Vec<_> = m.funcs.iter().map(|f| f.id()).collect();
        let globals: Vec<_> = m.globals.iter().map(|g| g.id()).collect();
        let memories: Vec<_> = m.memories.iter().map(|x| x.id()).collect();
        let tables: Vec<_> = m.tables.iter().map(|t| t.id()).collect();
        Positions {
            func_at: at(&funcs),
            global_at: at(&globals),
            memory_at: at(&memories),
            table_at: at(&tables),
            funcs,
            globals,
            memories,
            tables,
        }
    }

    fn refs_of(&self, body: &LocalFunction) -> Refs {
        let mut refs = Refs::default();
        let mut collect = Collect {
            refs: &mut refs,
            funcs: &self.func_at,
            globals: &self.global_at,
            memories: &self.memory_at,
            tables: &self.table_at,
        };
        ir::dfs_in_order(&mut collect, body, body.entry_block());
        refs
    }
}

/// The first table slot holding each function, from the active element
/// segments of `table`.
fn slots_in(m: &Module, table: TableId) -> Result<BTreeMap<FunctionId, u32>> {
    let mut slots = BTreeMap::new();
    for seg in m.elements.iter() {
        let ElementKind::Active { table: t, offset } = &seg.kind else {
            continue;
        };
        if *t != table {
            continue;
        }
        let ConstExpr::Value(Value::I32(base)) = offset else {
            bail!("an element segment of the function table has an offset that is not a constant")
        };
        let items: Vec<Option<FunctionId>> = match &seg.items {
            ElementItems::Functions(fs) => fs.iter().copied().map(Some).collect(),
            ElementItems::Expressions(_, exprs) => exprs
                .iter()
                .map(|e| match e {
                    ConstExpr::RefFunc(f) => Some(*f),
                    _ => None,
                })
                .collect(),
        };
        for (i, f) in items.into_iter().enumerate() {
            if let Some(f) = f {
                slots.entry(f).or_insert(*base as u32 + i as u32);
            }
        }
    }
    Ok(slots)
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [command, input] if command == "names" => print_names(input),
        [input, list, out_first, out_second, moved] => {
            split(input, list, out_first, out_second, moved)
        }
        _ => bail!(
            "usage: distlock-split IN.wasm LIST OUT.wasm OUT_SPLIT.wasm MOVED\n       \
             distlock-split names IN.wasm"
        ),
    }
}

/// What each function `m` defines refers to, both by index, with each
/// body's `Refs`.
fn bodies_of(m: &Module, pos: &Positions) -> BTreeMap<usize, Refs> {
    m.funcs
        .iter_local()
        .map(|(id, body)| (pos.func_at[&id], pos.refs_of(body)))
        .collect()
}

fn refers(bodies: &BTreeMap<usize, Refs>) -> BTreeMap<usize, BTreeSet<usize>> {
    bodies.iter().map(|(i, r)| (*i, r.funcs.clone())).collect()
}

/// Prints each function `input` defines: its index, a tab, its listed name
/// (nothing for a function that has none).
fn print_names(input: &str) -> Result<()> {
    let m = Module::from_file(input).with_context(|| format!("reading {input}"))?;
    let pos = Positions::of(&m);
    let names = names::listed_names(&m, &refers(&bodies_of(&m, &pos)));
    let mut out = String::new();
    for (i, f) in m.funcs.iter().enumerate() {
        if let FunctionKind::Local(_) = f.kind {
            let name = names.get(&i).map_or("", String::as_str);
            out.push_str(&format!("{i}\t{name}\n"));
        }
    }
    std::io::Write::write_all(&mut std::io::stdout().lock(), out.as_bytes())?;
    Ok(())
}

/// The functions `m` defines whose listed name `list` gives, by index, and
/// how many of the list's names no function of `m` has.
fn listed_functions(
    m: &Module,
    bodies: &BTreeMap<usize, Refs>,
    list: &BTreeSet<String>,
) -> Result<(BTreeSet<usize>, usize)> {
    if m.funcs.iter().all(|f| f.name.is_none()) {
        bail!(
            "the wasm names none of its functions: the build must keep its name section \
             (Cargo.toml's release profile, wasm-opt's -g in index.html)"
        );
    }
    let names = names::listed_names(m, &refers(bodies));
    let mut found: BTreeSet<&str> = BTreeSet::new();
    let mut keep = BTreeSet::new();
    for (i, name) in &names {
        if let Some(listed) = list.get(name) {
            found.insert(listed);
            keep.insert(*i);
        }
    }
    Ok((keep, list.len() - found.len()))
}

fn split(
    input: &str,
    list: &str,
    out_first: &str,
    out_second: &str,
    moved_out: &str,
) -> Result<()> {
    let bytes = std::fs::read(input).with_context(|| format!("reading {input}"))?;
    let list = names::read_list(list)?;
    let mut config = ModuleConfig::new();
    config
        .generate_name_section(false)
        .generate_producers_section(false);
    let mut first = config.parse(&bytes)?;
    let mut second = config.parse(&bytes)?;
    let pos = Positions::of(&first);
    let pos2 = Positions::of(&second);
    let bodies = bodies_of(&first, &pos);
    let (keep, unknown) = listed_functions(&first, &bodies, &list)?;

    // What moves: every function defined here that the list does not name,
    // but the start function and those that must stay (see `Refs::pinned`).
    let start = first.start.map(|f| pos.func_at[&f]);
    let moved: BTreeSet<usize> = bodies
        .iter()
        .filter(|(i, refs)| !keep.contains(i) && Some(**i) != start && !refs.pinned)
        .map(|(i, _)| *i)
        .collect();
    if moved.is_empty() {
        bail!("nothing to move: every function is in the list to keep");
    }

    // What the first module still refers to: stubs for those moved ones.
    let mut from_first: BTreeSet<usize> = BTreeSet::new();
    for (i, refs) in &bodies {
        if !moved.contains(i) {
            from_first.extend(refs.funcs.iter().copied());
        }
    }
    for export in first.exports.iter() {
        if let ExportItem::Function(f) = export.item {
            from_first.insert(pos.func_at[&f]);
        }
    }
    for seg in first.elements.iter() {
        match &seg.items {
            ElementItems::Functions(fs) => from_first.extend(fs.iter().map(|f| pos.func_at[f])),
            ElementItems::Expressions(_, exprs) => {
                from_first.extend(exprs.iter().filter_map(|e| match e {
                    ConstExpr::RefFunc(f) => Some(pos.func_at[f]),
                    _ => None,
                }))
            }
        }
    }
    for g in first.globals.iter() {
        if let GlobalKind::Local(ConstExpr::RefFunc(f)) = &g.kind {
            from_first.insert(pos.func_at[f]);
        }
    }
    let stubbed: BTreeSet<usize> = moved.intersection(&from_first).copied().collect();

    // Table slots: a moved function keeps the slot it has; one that had none
    // gets a new one past the table's end.
    let table = first
        .tables
        .main_function_table()?
        .context("the module has no function table")?;
    let table_pos = pos.table_at[&table];
    let held = slots_in(&first, table)?;
    let mut slot: BTreeMap<usize, u32> = BTreeMap::new();
    let mut next = u32::try_from(first.tables.get(table).initial)?;
    for &i in &stubbed {
        let s = match held.get(&pos.funcs[i]) {
            Some(s) => *s,
            None => {
                next += 1;
                next - 1
            }
        };
        slot.insert(i, s);
    }
    {
        let t = first.tables.get_mut(table);
        t.initial = u64::from(next);
        if t.maximum.is_some_and(|max| max < u64::from(next)) {
            t.maximum = Some(u64::from(next));
        }
    }

    // What moved code uses from the first module, exported under short names
    // (or under the name it already has).
    let mut uses = Refs::default();
    for i in &moved {
        let refs = &bodies[i];
        uses.funcs
            .extend(refs.funcs.iter().filter(|f| !moved.contains(f)));
        uses.globals.extend(&refs.globals);
        uses.memories.extend(&refs.memories);
        uses.tables.extend(&refs.tables);
    }
    uses.tables.insert(table_pos);
    let mut names: BTreeMap<(u8, usize), String> = BTreeMap::new();
    for export in first.exports.iter() {
        let key = match export.item {
            ExportItem::Function(f) => (0, pos.func_at[&f]),
            ExportItem::Global(g) => (1, pos.global_at[&g]),
            ExportItem::Memory(m) => (2, pos.memory_at[&m]),
            ExportItem::Table(t) => (3, pos.table_at[&t]),
            _ => continue,
        };
        names.entry(key).or_insert_with(|| export.name.clone());
    }
    let wanted = uses
        .funcs
        .iter()
        .map(|i| (0u8, *i))
        .chain(uses.globals.iter().map(|i| (1, *i)))
        .chain(uses.memories.iter().map(|i| (2, *i)))
        .chain(uses.tables.iter().map(|i| (3, *i)));
    let mut count = 0usize;
    for key in wanted {
        if names.contains_key(&key) {
            continue;
        }
        let name = short_name(count);
        count += 1;
        let item = match key {
            (0, i) => ExportItem::Function(pos.funcs[i]),
            (1, i) => ExportItem::Global(pos.globals[i]),
            (2, i) => ExportItem::Memory(pos.memories[i]),
            (_, i) => ExportItem::Table(pos.tables[i]),
        };
        first.exports.add(&name, item);
        names.insert(key, name);
    }

    // The first module: the flag, the import that loads the rest, the stubs.
    let ready = first
        .globals
        .add_local(ValType::I32, true, false, ConstExpr::Value(Value::I32(0)));
    first.exports.add(READY_EXPORT, ready);
    let glue = first
        .imports
        .iter()
        .find(|i| matches!(i.kind, ImportKind::Function(_)))
        .map(|i| i.module.clone())
        .context("the module imports no function from its glue")?;
    let load_ty = first.types.add(&[], &[]);
    let (load, _) = first.add_import_func(&glue, LOAD_IMPORT, load_ty);
    for &i in &moved {
        let id = pos.funcs[i];
        let ty = first.funcs.get(id).ty();
        match slot.get(&i) {
            Some(&s) => set_body(&mut first, id, |body, locals| {
                body.global_get(ready).unop(UnaryOp::I32Eqz).if_else(
                    None,
                    |then| {
                        then.call(load);
                    },
                    |_| {},
                );
                for l in locals {
                    body.local_get(*l);
                }
                body.i32_const(s as i32).call_indirect(ty, table);
            }),
            // Nothing left in this module reaches it: the clean-up below
            // takes it out.
            None => set_body(&mut first, id, |body, _| {
                body.unreachable();
            }),
        }
    }
    walrus::passes::gc::run(&mut first);

    // The second module: the moved functions, the rest imported from the
    // first, and element segments putting the moved ones in their slots.
    for id in second.exports.iter().map(|e| e.id()).collect::<Vec<_>>() {
        second.exports.delete(id);
    }
    second.start = None;
    for id in second.data.iter().map(|d| d.id()).collect::<Vec<_>>() {
        second.data.delete(id);
    }
    for m in second.memories.iter_mut() {
        m.data_segments.clear();
    }
    for id in second.elements.iter().map(|e| e.id()).collect::<Vec<_>>() {
        second.elements.delete(id);
    }
    for t in second.tables.iter_mut() {
        t.elem_segments.clear();
    }
    let mut import_kind: Vec<(usize, ImportKind, String)> = Vec::new();
    for (i, id) in pos2.funcs.iter().enumerate() {
        if moved.contains(&i) {
            continue;
        }
        let name = names.get(&(0, i));
        match (&second.funcs.get(*id).kind, name) {
            (FunctionKind::Import(f), Some(name)) => {
                let import = f.import;
                import_from_first(&mut second, import, name);
            }
            (FunctionKind::Local(_), Some(name)) => {
                import_kind.push((i, ImportKind::Function(*id), name.clone()));
            }
            (FunctionKind::Local(_), None) => {
                // Not used by moved code: emptied, then taken out.
                let id = *id;
                set_body(&mut second, id, |body, _| {
                    body.unreachable();
                });
            }
            _ => {}
        }
    }
    for (i, kind, name) in import_kind {
        let id = pos2.funcs[i];
        let ty = second.funcs.get(id).ty();
        let import = second.imports.add(FROM_FIRST, &name, kind);
        second.funcs.get_mut(id).kind = FunctionKind::Import(ImportedFunction { import, ty });
    }
    for (i, id) in pos2.globals.iter().enumerate() {
        let Some(name) = names.get(&(1, i)).filter(|_| uses.globals.contains(&i)) else {
            continue;
        };
        let import = match &second.globals.get(*id).kind {
            GlobalKind::Import(import) => {
                let import = *import;
                import_from_first(&mut second, import, name);
                continue;
            }
            GlobalKind::Local(_) => second
                .imports
                .add(FROM_FIRST, name, ImportKind::Global(*id)),
        };
        second.globals.get_mut(*id).kind = GlobalKind::Import(import);
    }
    for (i, id) in pos2.memories.iter().enumerate() {
        let Some(name) = names.get(&(2, i)).filter(|_| uses.memories.contains(&i)) else {
            continue;
        };
        match second.memories.get(*id).import {
            Some(import) => import_from_first(&mut second, import, name),
            None => {
                let import = second
                    .imports
                    .add(FROM_FIRST, name, ImportKind::Memory(*id));
                second.memories.get_mut(*id).import = Some(import);
            }
        }
    }
    let table2 = pos2.tables[table_pos];
    for (i, id) in pos2.tables.iter().enumerate() {
        let Some(name) = names.get(&(3, i)).filter(|_| uses.tables.contains(&i)) else {
            continue;
        };
        match second.tables.get(*id).import {
            Some(import) => import_from_first(&mut second, import, name),
            None => {
                let import = second.imports.add(FROM_FIRST, name, ImportKind::Table(*id));
                let t = second.tables.get_mut(*id);
                t.import = Some(import);
                t.init = None;
            }
        }
    }
    {
        let t = second.tables.get_mut(table2);
        t.initial = u64::from(next);
        t.maximum = None;
    }
    // Element segments: a run of consecutive slots each.
    let mut runs: Vec<(u32, Vec<FunctionId>)> = Vec::new();
    let mut by_slot: Vec<(u32, usize)> = slot.iter().map(|(i, s)| (*s, *i)).collect();
    by_slot.sort();
    for (s, i) in by_slot {
        match runs.last_mut() {
            Some((at, fs)) if *at + fs.len() as u32 == s => fs.push(pos2.funcs[i]),
            _ => runs.push((s, vec![pos2.funcs[i]])),
        }
    }
    for (at, fs) in runs {
        let seg = second.elements.add(
            ElementKind::Active {
                table: table2,
                offset: ConstExpr::Value(Value::I32(at as i32)),
            },
            ElementItems::Functions(fs),
        );
        second.tables.get_mut(table2).elem_segments.insert(seg);
    }
    walrus::passes::gc::run(&mut second);
    if second.imports.iter().any(|i| i.module != FROM_FIRST) {
        bail!("the moved code imports from somewhere other than the first module");
    }

    first.emit_wasm_file(out_first)?;
    second.emit_wasm_file(out_second)?;
    let moved_lines: String = moved.iter().map(|i| format!("{i}\n")).collect();
    std::fs::write(moved_out, moved_lines).with_context(|| format!("writing {moved_out}"))?;
    let count_local = |m: &Module| m.funcs.iter_local().count();
    eprintln!(
        "split: {} functions moved ({} reached through a stub), {} kept; {} exports added; \
         {} of the list's {} names are in no function of this wasm",
        moved.len(),
        stubbed.len(),
        count_local(&first) - stubbed.len(),
        count + 1,
        unknown,
        list.len(),
    );
    Ok(())
}

/// Gives the local function `id` a new body, written by `write` with the
/// function's parameters as locals.
fn set_body(
    m: &mut Module,
    id: FunctionId,
    write: impl FnOnce(&mut walrus::InstrSeqBuilder<'_>, &[walrus::LocalId]),
) {
    let ty = m.types.get(m.funcs.get(id).ty());
    let (params, results) = (ty.params().to_vec(), ty.results().to_vec());
    let mut builder = FunctionBuilder::new(&mut m.types, &params, &results);
    let locals: Vec<_> = params.iter().map(|p| m.locals.add(*p)).collect();
    write(&mut builder.func_body(), &locals);
    m.funcs.get_mut(id).kind = FunctionKind::Local(builder.local_func(locals));
}

/// Points an import of the second module at the first module's export `name`.
fn import_from_first(m: &mut Module, import: walrus::ImportId, name: &str) {
    let at = m.imports.get_mut(import);
    at.module = FROM_FIRST.into();
    at.name = name.into();
}

/// A short export name for the `n`th item: letters and digits, from "a".
fn short_name(mut n: usize) -> String {
    const CHARS: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    let mut name = vec![CHARS[n % 52]];
    n /= 52;
    while n > 0 {
        name.push(CHARS[n % CHARS.len()]);
        n /= CHARS.len();
    }
    // A leading "$" keeps them apart from wasm-bindgen's own exports.
    format!("${}", String::from_utf8(name).expect("ascii"))
}
