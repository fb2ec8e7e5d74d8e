//! Rewriting code cells to the moved paths, touching only the tokens that name them: a
//! `from` import's module (split when only some of its names moved to one module), an
//! imported module's name with the attribute uses through it, and fully dotted uses.
//!
//! Cells are parsed as IPython (magics and `!shell` lines are escape commands and stay as
//! they are). Bindings are notebook-wide, as a kernel sees them: an import in one cell names
//! a module for every later cell. What cannot be rewritten with certainty is left as it is,
//! and said.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use ruff_python_ast::visitor::{walk_body, walk_expr, walk_stmt, Visitor};
use ruff_python_ast::{Expr, Mod, Stmt};
use ruff_python_parser::{Mode, ParseOptions};
use ruff_text_size::{Ranged, TextRange, TextSize};
use serde::Serialize;

#[cfg(test)]
use super::calls::CallEdit;
use super::calls::{self, argument, CallRewrite, CallSite, KeywordArgument, StatementSite};
use crate::names::{ApiPath, ModulePath};
use crate::notebook::Location;

/// Why a moved API was left where it is in the code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum LeftWhy {
    /// `from m import *`: which names the code uses is not in sight.
    StarImport,
    /// The module bound by an import is used for names that move to different modules, or
    /// for names that stay.
    UsesDiverge { binding: String },
    /// The module bound by an import is used as a value itself (passed, assigned).
    ModuleUsedWhole { binding: String },
    /// The new module is not under the package the import names it from.
    OtherPackage { binding: String },
    /// A fully dotted use whose module no plain import binds.
    NoImportInSight,
    /// The rewritten cell would not parse (kept as it was).
    WouldNotParse,
    /// The notebook reaches it in a way the rewriter does not follow (through a variable,
    /// `getattr`, an indented cell or a cell magic).
    NotFound,
    /// A call whose arguments do not fit the template (or the keyword's rename): why.
    ArgumentsDoNotFit { detail: String },
    /// Used other than by calling it (passed as a value): only a call has a template.
    NotCalled,
    /// Inside another change's text (an argument of a call rewritten to a template).
    Nested,
}

/// A moved API left where it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Left {
    pub api: ApiPath,
    pub at: Location,
    pub why: LeftWhy,
}

/// A code cell to rewrite: its number (as locations count) and its source.
pub struct CellSource<'a> {
    pub number: u32,
    pub source: &'a str,
}

/// The rewritten cells (only those that changed), which moved APIs were rewritten, and
/// which were left.
#[derive(Debug, Clone, Default)]
pub struct Rewritten {
    pub cells: BTreeMap<u32, String>,
    pub applied: BTreeSet<ApiPath>,
    pub left: Vec<Left>,
}

/// One replacement in one cell, and the API that asks for it.
#[derive(Debug, Clone)]
pub(super) struct Edit {
    pub cell: u32,
    pub range: TextRange,
    pub text: String,
    pub api: ApiPath,
}

/// What to rewrite: moved paths (old → new), and rewrites at calls.
#[derive(Debug, Clone, Default)]
pub struct Rewrites {
    pub renames: BTreeMap<ApiPath, ApiPath>,
    pub calls: Vec<CallRewrite>,
    /// Renames whose calls must pass at most this many arguments by position (the successor
    /// put a parameter after them): a call passing more has the rest passed by keyword, or,
    /// where it cannot, keeps the old path everywhere.
    pub positional_limits: BTreeMap<ApiPath, PositionalLimit>,
}

/// The arguments a moved API's calls may pass by position, and how the others are passed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PositionalLimit {
    pub limit: usize,
    /// The old signature's positional parameters, in order: the keyword a positional
    /// argument beyond the limit is passed as, or `None` where the successor does not take
    /// that name.
    pub keywords: Vec<Option<String>>,
}

struct FromImport {
    cell: u32,
    range: TextRange,
    module: Option<(String, TextRange)>,
    level: u32,
    names: Vec<(String, Option<String>, TextRange)>,
}

struct ModuleImport {
    cell: u32,
    module: String,
    name_range: TextRange,
    asname: Option<String>,
}

struct Chain {
    cell: u32,
    range: TextRange,
    dotted: String,
}

#[derive(Default)]
struct Collected {
    froms: Vec<FromImport>,
    imports: Vec<ModuleImport>,
    chains: Vec<Chain>,
    /// Names that are not the root of an attribute chain, by cell, with where.
    bare: Vec<(u32, String, TextRange)>,
    calls: Vec<CallSite>,
}

struct Collector<'c> {
    cell: u32,
    out: &'c mut Collected,
    rooted: HashSet<TextRange>,
    /// Calls that are whole expression statements, by the call's range.
    statements: HashMap<TextRange, StatementSite>,
    /// Inside a compound statement's block (not the cell's top level).
    nested: bool,
    /// The block being read has one statement, inside a compound statement.
    alone: bool,
}

fn dotted(e: &Expr) -> Option<String> {
    match e {
        Expr::Name(n) => Some(n.id.to_string()),
        Expr::Attribute(a) => Some(format!("{}.{}", dotted(&a.value)?, a.attr.id)),
        _ => None,
    }
}

impl<'a> Visitor<'a> for Collector<'_> {
    fn visit_body(&mut self, body: &'a [Stmt]) {
        let (nested, alone) = (self.nested, self.alone);
        self.alone = nested && body.len() == 1;
        self.nested = true;
        walk_body(self, body);
        (self.nested, self.alone) = (nested, alone);
    }

    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        if let Stmt::Expr(e) = stmt {
            if e.value.is_call_expr() {
                self.statements.insert(
                    e.value.range(),
                    StatementSite {
                        range: stmt.range(),
                        alone: self.alone,
                    },
                );
            }
        }
        match stmt {
            Stmt::Import(i) => {
                for a in &i.names {
                    self.out.imports.push(ModuleImport {
                        cell: self.cell,
                        module: a.name.id.to_string(),
                        name_range: a.name.range,
                        asname: a.asname.as_ref().map(|n| n.id.to_string()),
                    });
                }
            }
            Stmt::ImportFrom(f) => self.out.froms.push(FromImport {
                cell: self.cell,
                range: f.range,
                module: f.module.as_ref().map(|m| (m.id.to_string(), m.range)),
                level: f.level,
                names: f
                    .names
                    .iter()
                    .map(|a| {
                        (
                            a.name.id.to_string(),
                            a.asname.as_ref().map(|n| n.id.to_string()),
                            a.range,
                        )
                    })
                    .collect(),
            }),
            _ => {}
        }
        walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Attribute(a) => {
                if let Expr::Name(root) = a.value.as_ref() {
                    self.rooted.insert(root.range);
                }
                if let Some(d) = dotted(expr) {
                    self.out.chains.push(Chain {
                        cell: self.cell,
                        range: a.range,
                        dotted: d,
                    });
                }
            }
            Expr::Name(n) if !self.rooted.contains(&n.range) => {
                self.out.bare.push((self.cell, n.id.to_string(), n.range));
            }
            Expr::Call(c) => {
                let a = &c.arguments;
                self.out.calls.push(CallSite {
                    cell: self.cell,
                    range: c.range(),
                    dotted: dotted(&c.func),
                    member: match c.func.as_ref() {
                        Expr::Attribute(m) => Some((m.attr.id.to_string(), argument(&m.value))),
                        _ => None,
                    },
                    func: c.func.range(),
                    args: a
                        .args
                        .iter()
                        .filter(|e| !e.is_starred_expr())
                        .map(argument)
                        .collect(),
                    keywords: a
                        .keywords
                        .iter()
                        .filter_map(|k| {
                            let name = k.arg.as_ref()?;
                            Some(KeywordArgument {
                                name: name.id.to_string(),
                                name_range: name.range,
                                value: argument(&k.value),
                            })
                        })
                        .collect(),
                    unpacked: a.args.iter().any(Expr::is_starred_expr)
                        || a.keywords.iter().any(|k| k.arg.is_none()),
                    statement: self.statements.remove(&c.range()),
                });
            }
            _ => {}
        }
        walk_expr(self, expr);
    }
}

fn ipython() -> ParseOptions {
    ParseOptions::from(Mode::Ipython)
}

/// Whether a cell is plain Python as written: not a cell magic, not indented (IPython
/// dedents those, and positions would no longer be the file's).
fn rewritable(source: &str) -> bool {
    let first = source.lines().find(|l| !l.trim().is_empty());
    first.is_some_and(|l| !l.starts_with([' ', '\t']) && !l.starts_with("%%"))
}

/// The line (from 1) of offset `at` in `source`.
pub(super) fn line_of(source: &str, at: TextSize) -> u32 {
    let offset = usize::from(at).min(source.len());
    source[..offset].matches('\n').count() as u32 + 1
}

pub(super) fn location(cell: u32, source: &str, at: TextSize) -> Location {
    Location::new(cell, line_of(source, at))
}

fn parent(path: &ApiPath) -> Option<(&str, &str)> {
    path.split_last()
}

/// Rewrites `cells` as `rewrites` say: the calls first (templates, renamed keywords), then
/// the moves, where the code imports them (`from old import f`), through the modules it
/// binds (`import old as m`, then `m.f`), and fully dotted (`old.f`).
pub fn rewrite(cells: &[CellSource<'_>], rewrites: &Rewrites) -> Rewritten {
    if rewrites.renames.is_empty() && rewrites.calls.is_empty() {
        return Rewritten::default();
    }
    let mut pass = Pass::collect(cells);
    let (bound, dropped) = pass.calls(rewrites);
    let renames = pass.positional_limits(rewrites, &bound);
    pass.imported_names(&renames, &dropped);
    for r in pass.references(&renames) {
        pass.through_binding(&r, &renames);
    }
    pass.fully_dotted(&renames);
    pass.finish()
}

/// One rewrite of the notebook's cells: what the cells hold, and the edits and the uses left
/// so far.
struct Pass<'s> {
    collected: Collected,
    sources: BTreeMap<u32, &'s str>,
    edits: Vec<Edit>,
    /// Attribute uses an import's edit already took care of.
    handled: HashSet<(u32, TextRange)>,
    out: Rewritten,
}

impl<'s> Pass<'s> {
    /// Reads the cells that parse as plain Python.
    fn collect(cells: &[CellSource<'s>]) -> Self {
        let mut collected = Collected::default();
        let mut sources: BTreeMap<u32, &str> = BTreeMap::new();
        for c in cells {
            if !rewritable(c.source) {
                continue;
            }
            let Ok(parsed) = crate::parse::unchecked(c.source, ipython()) else {
                continue;
            };
            if !parsed.errors().is_empty() {
                continue;
            }
            sources.insert(c.number, c.source);
            if let Mod::Module(m) = parsed.syntax() {
                let mut v = Collector {
                    cell: c.number,
                    out: &mut collected,
                    rooted: HashSet::new(),
                    statements: HashMap::new(),
                    nested: false,
                    alone: false,
                };
                v.visit_body(&m.body);
            }
        }
        Self {
            collected,
            sources,
            edits: Vec::new(),
            handled: HashSet::new(),
            out: Rewritten::default(),
        }
    }

    fn at(&self, cell: u32, offset: TextSize) -> Location {
        location(cell, self.sources[&cell], offset)
    }

    /// Calls: templates and renamed keywords. Returns what the imports bind and the APIs
    /// whose every call became a template.
    fn calls(&mut self, rewrites: &Rewrites) -> (HashMap<String, String>, BTreeSet<ApiPath>) {
        let bound = calls::bindings(import_bindings(&self.collected));
        let references: Vec<(u32, TextRange, String)> = self
            .collected
            .chains
            .iter()
            .map(|c| (c.cell, c.range, c.dotted.clone()))
            .chain(
                self.collected
                    .bare
                    .iter()
                    .map(|(c, n, r)| (*c, *r, n.clone())),
            )
            .collect();
        let call_edits = calls::edits(
            &rewrites.calls,
            &self.collected.calls,
            &references,
            &bound,
            &self.sources,
        );
        self.edits.extend(call_edits.edits);
        self.out.left.extend(call_edits.left);
        (bound, call_edits.replaced)
    }

    /// Moves that hold only for calls within the arguments both signatures share by
    /// position: the arguments past the limit passed by the old parameters' names, where every
    /// such call allows it (`learning_curve(m, X, y, sizes)` →
    /// `learning_curve(m, X, y, train_sizes=sizes)`); otherwise the move is not made. Returns
    /// the moves left to make.
    fn positional_limits(
        &mut self,
        rewrites: &Rewrites,
        bound: &HashMap<String, String>,
    ) -> BTreeMap<ApiPath, ApiPath> {
        let mut renames = rewrites.renames.clone();
        for (api, positional) in &rewrites.positional_limits {
            let limit = positional.limit;
            let names_it = |d: &str| calls::resolve(d, bound).as_deref() == Some(api.as_str());
            let beyond: Vec<&CallSite> = self
                .collected
                .calls
                .iter()
                .filter(|c| c.dotted.as_deref().is_some_and(names_it))
                .filter(|c| c.unpacked || c.args.len() > limit)
                .collect();
            let by_keyword: Option<Vec<Edit>> = beyond
                .iter()
                .map(|c| keyword_edits(c, positional, api))
                .collect::<Option<Vec<Vec<Edit>>>>()
                .map(|e| e.into_iter().flatten().collect());
            if let Some(by_keyword) = by_keyword {
                self.edits.extend(by_keyword);
                continue;
            }
            renames.remove(api);
            let left: Vec<Left> = beyond
                .iter()
                .map(|c| Left {
                    api: api.clone(),
                    at: self.at(c.cell, c.range.start()),
                    why: LeftWhy::ArgumentsDoNotFit {
                        detail: format!(
                            "it passes more than {limit} arguments by position, and the \
                             successor put a parameter after the first {limit}"
                        ),
                    },
                })
                .collect();
            self.out.left.extend(left);
        }
        renames
    }

    /// `from old import a, b as c`.
    fn imported_names(
        &mut self,
        renames: &BTreeMap<ApiPath, ApiPath>,
        dropped: &BTreeSet<ApiPath>,
    ) {
        for f in &self.collected.froms {
            let Some((module, module_range)) = &f.module else {
                continue;
            };
            if f.level > 0 {
                continue;
            }
            if f.names.iter().any(|(n, _, _)| n == "*") {
                for old in renames
                    .keys()
                    .filter(|k| parent(k).is_some_and(|(m, _)| m == module))
                {
                    self.out.left.push(Left {
                        api: old.clone(),
                        at: location(f.cell, self.sources[&f.cell], f.range.start()),
                        why: LeftWhy::StarImport,
                    });
                }
                continue;
            }
            from_import(
                f,
                module,
                *module_range,
                renames,
                dropped,
                &self.sources,
                &mut self.edits,
            );
        }
    }

    /// Modules bound by imports, through which the code reaches moved APIs: `import old as
    /// m`, `import old.sub`, `from pkg import old`.
    fn references(&self, renames: &BTreeMap<ApiPath, ApiPath>) -> Vec<Reference> {
        let mut references: Vec<Reference> = Vec::new();
        for i in &self.collected.imports {
            match &i.asname {
                Some(b) => references.push(Reference {
                    cell: i.cell,
                    binding: b.clone(),
                    module: i.module.clone(),
                    target: Target::ImportAs(i.name_range),
                    whole_checked: true,
                }),
                None if i.module.contains('.') => references.push(Reference {
                    cell: i.cell,
                    binding: i.module.clone(),
                    module: i.module.clone(),
                    target: Target::ImportDotted(i.name_range),
                    whole_checked: false,
                }),
                None => {}
            }
        }
        for f in self.collected.froms.iter().filter(|f| f.level == 0) {
            let Some((module, _)) = &f.module else {
                continue;
            };
            for (name, asname, range) in &f.names {
                let Ok(api) = ApiPath::new(&format!("{module}.{name}")) else {
                    continue;
                };
                if renames.contains_key(&api) {
                    continue;
                }
                references.push(Reference {
                    cell: f.cell,
                    binding: asname.clone().unwrap_or_else(|| name.clone()),
                    module: api.to_string(),
                    target: Target::FromMember {
                        package: module.clone(),
                        range: *range,
                        asname: asname.clone(),
                        name: name.clone(),
                    },
                    whole_checked: true,
                });
            }
        }
        references
    }

    /// The attribute uses through one binding: the import moves with them when every use
    /// moves to one module and the binding is not used whole; otherwise they are left, each
    /// with why.
    fn through_binding(&mut self, r: &Reference, renames: &BTreeMap<ApiPath, ApiPath>) {
        let prefix = format!("{}.", r.binding);
        let uses: Vec<&Chain> = self
            .collected
            .chains
            .iter()
            .filter(|c| {
                c.dotted
                    .strip_prefix(&prefix)
                    .is_some_and(|rest| !rest.contains('.'))
            })
            .collect();
        let moved: Vec<(&Chain, ApiPath, &ApiPath)> = uses
            .iter()
            .filter_map(|c| {
                let rest = &c.dotted[prefix.len()..];
                let api = ApiPath::new(&format!("{}.{rest}", r.module)).ok()?;
                let new = renames.get(&api)?;
                Some((*c, api, new))
            })
            .collect();
        if moved.is_empty() {
            return;
        }
        for (c, _, _) in &moved {
            self.handled.insert((c.cell, c.range));
        }
        let targets: BTreeSet<&str> = moved
            .iter()
            .filter_map(|(_, _, new)| parent(new).map(|(m, _)| m))
            .collect();
        let used_whole = self.collected.bare.iter().any(|(_, n, _)| *n == r.binding);
        let why = if moved.len() < uses.len() || targets.len() != 1 {
            Some(LeftWhy::UsesDiverge {
                binding: r.binding.clone(),
            })
        } else if r.whole_checked && used_whole {
            Some(LeftWhy::ModuleUsedWhole {
                binding: r.binding.clone(),
            })
        } else {
            None
        };
        let new_module = *targets.iter().next().expect("one target");
        let target_edit = match (&why, &r.target) {
            (Some(_), _) => None,
            (None, Target::ImportAs(range) | Target::ImportDotted(range)) => {
                Some((*range, new_module.to_string()))
            }
            (
                None,
                Target::FromMember {
                    package,
                    range,
                    asname,
                    name,
                },
            ) => match ModulePath::new(new_module) {
                Ok(m) if m.parent().is_some_and(|p| p.as_str() == package) => {
                    let bound = asname.as_deref().unwrap_or(name);
                    Some((*range, format!("{} as {bound}", m.name())))
                }
                _ => None,
            },
        };
        let Some((range, text)) = target_edit else {
            let why = why.unwrap_or(LeftWhy::OtherPackage {
                binding: r.binding.clone(),
            });
            for (c, api, _) in &moved {
                self.out.left.push(Left {
                    api: api.clone(),
                    at: location(c.cell, self.sources[&c.cell], c.range.start()),
                    why: why.clone(),
                });
            }
            return;
        };
        self.edits.push(Edit {
            cell: r.cell,
            range,
            text,
            api: moved[0].1.clone(),
        });
        for (c, api, new) in &moved {
            let text = match r.target {
                Target::ImportDotted(_) => new.to_string(),
                _ => format!("{}.{}", r.binding, parent(new).map_or("", |(_, n)| n)),
            };
            // Pushed even when the text stays: the API counts as rewritten, the import
            // carrying the move.
            self.edits.push(Edit {
                cell: c.cell,
                range: c.range,
                text,
                api: api.clone(),
            });
        }
    }

    /// Fully dotted uses through a plain `import top`.
    fn fully_dotted(&mut self, renames: &BTreeMap<ApiPath, ApiPath>) {
        for c in &self.collected.chains {
            if self.handled.contains(&(c.cell, c.range)) {
                continue;
            }
            let Ok(api) = ApiPath::new(&c.dotted) else {
                continue;
            };
            let Some(new) = renames.get(&api) else {
                continue;
            };
            let plain = self
                .collected
                .imports
                .iter()
                .any(|i| i.asname.is_none() && i.module == api.top_level());
            if plain && new.top_level() == api.top_level() {
                self.edits.push(Edit {
                    cell: c.cell,
                    range: c.range,
                    text: new.to_string(),
                    api,
                });
            } else {
                self.out.left.push(Left {
                    api,
                    at: location(c.cell, self.sources[&c.cell], c.range.start()),
                    why: LeftWhy::NoImportInSight,
                });
            }
        }
    }

    /// The edits made, the uses left in order.
    fn finish(mut self) -> Rewritten {
        apply(self.edits, &self.sources, &mut self.out);
        self.out
            .left
            .sort_by(|a, b| (&a.at, &a.api).cmp(&(&b.at, &b.api)));
        self.out.left.dedup();
        self.out
    }
}

/// What an import binds a module to, and the tokens that name it.
struct Reference {
    cell: u32,
    /// The name the code uses (`cv`, or `sklearn.cross_validation` for a dotted import).
    binding: String,
    module: String,
    target: Target,
    /// Whether a bare use of the binding (the module as a value) keeps it from moving.
    whole_checked: bool,
}

enum Target {
    /// `import m as b`: the name `m`.
    ImportAs(TextRange),
    /// `import a.b`: the name `a.b`.
    ImportDotted(TextRange),
    /// `from package import m [as b]`: the whole alias.
    FromMember {
        package: String,
        range: TextRange,
        asname: Option<String>,
        name: String,
    },
}

/// The edits for one `from module import ...` statement.
fn from_import(
    f: &FromImport,
    module: &str,
    module_range: TextRange,
    renames: &BTreeMap<ApiPath, ApiPath>,
    dropped: &BTreeSet<ApiPath>,
    sources: &BTreeMap<u32, &str>,
    edits: &mut Vec<Edit>,
) {
    let mut stay: Vec<String> = Vec::new();
    // Names whose every call became a template: the import of them goes.
    let mut gone: Vec<ApiPath> = Vec::new();
    // New module → its names as written, each with the API it moves.
    let mut moved: BTreeMap<String, Vec<(String, ApiPath)>> = BTreeMap::new();
    let mut renamed = false;
    for (name, asname, _) in &f.names {
        if let Some(api) = ApiPath::new(&format!("{module}.{name}"))
            .ok()
            .filter(|a| dropped.contains(a))
        {
            gone.push(api);
            continue;
        }
        let written = match asname {
            Some(a) => format!("{name} as {a}"),
            None => name.clone(),
        };
        let new = ApiPath::new(&format!("{module}.{name}"))
            .ok()
            .and_then(|old| renames.get(&old).map(|new| (old, new)));
        match new.and_then(|(old, new)| parent(new).map(|(m, n)| (old, m, n))) {
            Some((old, new_module, new_name)) => {
                let text = if new_name == name {
                    written
                } else {
                    renamed = true;
                    format!("{new_name} as {}", asname.as_deref().unwrap_or(name))
                };
                moved
                    .entry(new_module.to_string())
                    .or_default()
                    .push((text, old));
            }
            None => stay.push(written),
        }
    }
    if moved.is_empty() && gone.is_empty() {
        return;
    }
    if gone.is_empty() && stay.is_empty() && moved.len() == 1 && !renamed {
        let new_module = moved.keys().next().expect("one").clone();
        for (_, old) in moved.into_values().flatten() {
            edits.push(Edit {
                cell: f.cell,
                range: module_range,
                text: new_module.clone(),
                api: old,
            });
        }
        return;
    }
    // Split: one statement per module, on lines of their own at the statement's indentation
    // when it starts its line, else joined by `;`.
    let source = sources[&f.cell];
    let start = usize::from(f.range.start());
    let line_start = source[..start].rfind('\n').map_or(0, |i| i + 1);
    let indent = &source[line_start..start];
    let separator = if indent.trim().is_empty() {
        format!("\n{indent}")
    } else {
        "; ".to_string()
    };
    let mut statements: Vec<String> = Vec::new();
    if !stay.is_empty() {
        statements.push(format!("from {module} import {}", stay.join(", ")));
    }
    let mut apis = gone;
    for (new_module, names) in &moved {
        let written: Vec<&str> = names.iter().map(|(t, _)| t.as_str()).collect();
        statements.push(format!("from {new_module} import {}", written.join(", ")));
        apis.extend(names.iter().map(|(_, old)| old.clone()));
    }
    let (range, text) = if statements.is_empty() {
        removed_statement(source, f.range)
    } else {
        (f.range, statements.join(&separator))
    };
    for old in apis {
        edits.push(Edit {
            cell: f.cell,
            range,
            text: text.clone(),
            api: old,
        });
    }
}

/// What replaces a statement that goes: its whole line when it stands alone at the cell's
/// top level, else `pass` (an indented block, or a line it shares, stays valid).
fn removed_statement(source: &str, range: TextRange) -> (TextRange, String) {
    let (start, end) = (usize::from(range.start()), usize::from(range.end()));
    let line_start = source[..start].rfind('\n').map_or(0, |i| i + 1);
    let rest = &source[end..];
    let line_end = rest.find('\n').map_or(source.len(), |i| end + i);
    let alone = start == line_start && source[end..line_end].trim().is_empty();
    if alone {
        let through = (line_end + 1).min(source.len());
        let range = TextRange::new(TextSize::from(start as u32), TextSize::from(through as u32));
        (range, String::new())
    } else {
        (range, "pass".to_string())
    }
}

/// What the notebook's imports bind, as (name, target) pairs: `import a.b` binds `a` to `a`,
/// `import a.b as c` binds `c` to `a.b`, `from m import n as k` binds `k` to `m.n`.
fn import_bindings(collected: &Collected) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for i in &collected.imports {
        match &i.asname {
            Some(b) => out.push((b.clone(), i.module.clone())),
            None => {
                let top = i.module.split('.').next().unwrap_or(&i.module);
                out.push((top.to_string(), top.to_string()));
            }
        }
    }
    for f in collected.froms.iter().filter(|f| f.level == 0) {
        let Some((module, _)) = &f.module else {
            continue;
        };
        for (name, asname, _) in f.names.iter().filter(|(n, _, _)| n != "*") {
            let bound = asname.clone().unwrap_or_else(|| name.clone());
            out.push((bound, format!("{module}.{name}")));
        }
    }
    out
}

/// The insertions that pass `call`'s positional arguments past `positional.limit` by
/// keyword; `None` when one cannot be (unpacked arguments, more than the old signature
/// took, a name the successor lacks or the call already passes).
fn keyword_edits(
    call: &CallSite,
    positional: &PositionalLimit,
    api: &ApiPath,
) -> Option<Vec<Edit>> {
    if call.unpacked || call.args.len() > positional.keywords.len() {
        return None;
    }
    call.args
        .iter()
        .enumerate()
        .skip(positional.limit)
        .map(|(i, arg)| {
            let name = positional.keywords[i].as_ref()?;
            if call.keywords.iter().any(|k| &k.name == name) {
                return None;
            }
            Some(Edit {
                cell: call.cell,
                range: TextRange::empty(arg.range.start()),
                text: format!("{name}="),
                api: api.clone(),
            })
        })
        .collect()
}

/// Applies the edits cell by cell; a cell whose result would not parse is kept as it was.
fn apply(mut edits: Vec<Edit>, sources: &BTreeMap<u32, &str>, out: &mut Rewritten) {
    edits.sort_by_key(|e| (e.cell, e.range.start(), e.range.end()));
    let mut by_cell: BTreeMap<u32, Vec<Edit>> = BTreeMap::new();
    for e in edits {
        by_cell.entry(e.cell).or_default().push(e);
    }
    for (cell, edits) in by_cell {
        let source = sources[&cell];
        let mut text = String::with_capacity(source.len());
        let mut done = 0usize;
        let mut last: Option<TextRange> = None;
        let mut nested: Vec<Left> = Vec::new();
        for e in &edits {
            if last == Some(e.range) {
                continue;
            }
            let (s, t) = (usize::from(e.range.start()), usize::from(e.range.end()));
            if s < done {
                nested.push(Left {
                    api: e.api.clone(),
                    at: location(cell, source, e.range.start()),
                    why: LeftWhy::Nested,
                });
                continue;
            }
            text.push_str(&source[done..s]);
            text.push_str(&e.text);
            done = t;
            last = Some(e.range);
        }
        text.push_str(&source[done..]);
        let apis: BTreeSet<&ApiPath> = edits.iter().map(|e| &e.api).collect();
        if crate::parse::unchecked(&text, ipython()).map_or(true, |p| !p.errors().is_empty()) {
            for e in &edits {
                out.left.push(Left {
                    api: e.api.clone(),
                    at: location(cell, source, e.range.start()),
                    why: LeftWhy::WouldNotParse,
                });
            }
            continue;
        }
        out.left.extend(nested);
        out.applied.extend(apis.into_iter().cloned());
        if text != source {
            out.cells.insert(cell, text);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn renames(pairs: &[(&str, &str)]) -> BTreeMap<ApiPath, ApiPath> {
        pairs
            .iter()
            .map(|(a, b)| (ApiPath::new(a).unwrap(), ApiPath::new(b).unwrap()))
            .collect()
    }

    /// The sources after rewriting `cells` (numbered from 1), and what was left.
    fn run(cells: &[&str], pairs: &[(&str, &str)]) -> (Vec<String>, Vec<Left>) {
        run_with(
            cells,
            Rewrites {
                renames: renames(pairs),
                ..Rewrites::default()
            },
        )
    }

    fn run_with(cells: &[&str], rewrites: Rewrites) -> (Vec<String>, Vec<Left>) {
        let input: Vec<CellSource<'_>> = cells
            .iter()
            .enumerate()
            .map(|(i, s)| CellSource {
                number: i as u32 + 1,
                source: s,
            })
            .collect();
        let out = rewrite(&input, &rewrites);
        let texts = cells
            .iter()
            .enumerate()
            .map(|(i, s)| {
                out.cells
                    .get(&(i as u32 + 1))
                    .cloned()
                    .unwrap_or_else(|| s.to_string())
            })
            .collect::<Vec<_>>();
        for t in &texts {
            assert!(
                crate::parse::unchecked(t, ipython())
                    .unwrap()
                    .errors()
                    .is_empty(),
                "{t}"
            );
        }
        (texts, out.left)
    }

    const SPLIT: (&str, &str) = (
        "sk.cross_validation.train_test_split",
        "sk.model_selection.train_test_split",
    );
    const KFOLD: (&str, &str) = ("sk.cross_validation.KFold", "sk.model_selection.KFold");

    #[test]
    fn a_from_import_gets_the_new_module() {
        let (out, left) = run(
            &["from sk.cross_validation import train_test_split as tts, KFold\ntts(1)"],
            &[SPLIT, KFOLD],
        );
        assert_eq!(
            out[0],
            "from sk.model_selection import train_test_split as tts, KFold\ntts(1)"
        );
        assert!(left.is_empty(), "{left:?}");
    }

    #[test]
    fn a_from_import_is_split_when_some_names_stay() {
        let (out, _) = run(
            &["if True:\n    from sk.cross_validation import train_test_split, shuffle\n"],
            &[SPLIT],
        );
        assert_eq!(
            out[0],
            "if True:\n    from sk.cross_validation import shuffle\n    from sk.model_selection import train_test_split\n"
        );
    }

    #[test]
    fn a_renamed_name_keeps_its_binding() {
        let (out, _) = run(&["from a.old import f\nf()"], &[("a.old.f", "a.new.g")]);
        assert_eq!(out[0], "from a.new import g as f\nf()");
    }

    #[test]
    fn an_aliased_module_moves_when_all_its_uses_do() {
        let (out, left) = run(
            &[
                "import sk.cross_validation as cv",
                "x = cv.train_test_split(1)\nk = cv.KFold(2)",
            ],
            &[SPLIT, KFOLD],
        );
        assert_eq!(out[0], "import sk.model_selection as cv");
        assert_eq!(out[1], "x = cv.train_test_split(1)\nk = cv.KFold(2)");
        assert!(left.is_empty(), "{left:?}");
    }

    #[test]
    fn an_aliased_module_with_uses_that_stay_is_left_and_said() {
        let cells = ["import sk.cross_validation as cv\ncv.train_test_split(1)\ncv.shuffle(2)"];
        let (out, left) = run(&cells, &[SPLIT]);
        assert_eq!(out[0], cells[0]);
        assert_eq!(left.len(), 1);
        assert_eq!(
            left[0].why,
            LeftWhy::UsesDiverge {
                binding: "cv".into()
            }
        );
        assert_eq!(left[0].at, Location::new(1, 2));
    }

    #[test]
    fn an_aliased_module_used_as_a_value_is_left() {
        let cells = ["import sk.cross_validation as cv\ncv.train_test_split(1)\nprint(cv)"];
        let (out, left) = run(&cells, &[SPLIT]);
        assert_eq!(out[0], cells[0]);
        assert!(matches!(left[0].why, LeftWhy::ModuleUsedWhole { .. }));
    }

    #[test]
    fn fully_dotted_uses_move_with_their_import() {
        let (out, left) = run(
            &["import sk.cross_validation\nsk.cross_validation.train_test_split(1)"],
            &[SPLIT],
        );
        assert_eq!(
            out[0],
            "import sk.model_selection\nsk.model_selection.train_test_split(1)"
        );
        assert!(left.is_empty(), "{left:?}");
    }

    #[test]
    fn fully_dotted_uses_through_the_package_move() {
        let (out, _) = run(
            &["import sk\nsk.cross_validation.train_test_split(1)"],
            &[SPLIT],
        );
        assert_eq!(out[0], "import sk\nsk.model_selection.train_test_split(1)");
    }

    #[test]
    fn a_module_imported_from_its_package_moves_within_it() {
        let (out, _) = run(
            &["from sk import cross_validation\ncross_validation.train_test_split(1)"],
            &[SPLIT],
        );
        assert_eq!(
            out[0],
            "from sk import model_selection as cross_validation\ncross_validation.train_test_split(1)"
        );
    }

    #[test]
    fn magics_and_shell_lines_stay() {
        let cell = "%matplotlib inline\n!pip install sk==0.17\nfrom sk.cross_validation import train_test_split\n";
        let (out, _) = run(&[cell], &[SPLIT]);
        assert_eq!(
            out[0],
            "%matplotlib inline\n!pip install sk==0.17\nfrom sk.model_selection import train_test_split\n"
        );
    }

    #[test]
    fn cell_magics_are_not_touched() {
        let cell = "%%time\nfrom sk.cross_validation import train_test_split\n";
        let (out, _) = run(&[cell], &[SPLIT]);
        assert_eq!(out[0], cell);
    }

    #[test]
    fn a_star_import_is_left_and_said() {
        let cell = "from sk.cross_validation import *\ntrain_test_split(1)";
        let (out, left) = run(&[cell], &[SPLIT]);
        assert_eq!(out[0], cell);
        assert_eq!(left[0].why, LeftWhy::StarImport);
    }

    #[test]
    fn nothing_to_move_nothing_changed() {
        let cell = "from sk.cross_validation import shuffle\nshuffle(1)";
        let (out, left) = run(&[cell], &[SPLIT]);
        assert_eq!(out[0], cell);
        assert!(left.is_empty());
    }

    #[test]
    fn a_move_with_a_positional_limit_holds_only_when_every_call_keeps_to_it() {
        let rewrites = |cells: &[&str]| {
            run_with(
                cells,
                Rewrites {
                    renames: renames(&[SCORE]),
                    positional_limits: BTreeMap::from([(
                        ApiPath::new(SCORE.0).unwrap(),
                        PositionalLimit {
                            limit: 3,
                            keywords: ["estimator", "X", "y", "scoring"]
                                .iter()
                                .map(|n| Some(n.to_string()))
                                .chain([None])
                                .collect(),
                        },
                    )]),
                    ..Rewrites::default()
                },
            )
        };
        let within =
            "from sk.cross_validation import cross_val_score\ncross_val_score(m, X, y, cv=5)";
        let (out, left) = rewrites(&[within]);
        assert_eq!(
            out[0],
            "from sk.model_selection import cross_val_score\ncross_val_score(m, X, y, cv=5)"
        );
        assert!(left.is_empty(), "{left:?}");
        // One more by position: passed by its old name.
        let beyond =
            "from sk.cross_validation import cross_val_score\ncross_val_score(m, X, y, 'f1')";
        let (out, left) = rewrites(&[beyond]);
        assert_eq!(
            out[0],
            "from sk.model_selection import cross_val_score\ncross_val_score(m, X, y, scoring='f1')"
        );
        assert!(left.is_empty(), "{left:?}");
        // Where that cannot be (a name the successor lacks, one passed already), the old
        // path stays everywhere.
        for cannot in [
            "from sk.cross_validation import cross_val_score\ncross_val_score(m, X, y, 'f1', 2)",
            "from sk.cross_validation import cross_val_score\ncross_val_score(m, X, y, 'f1', scoring='f1')",
        ] {
            let (out, left) = rewrites(&[cannot]);
            assert_eq!(out[0], cannot);
            assert!(matches!(left[0].why, LeftWhy::ArgumentsDoNotFit { .. }));
            assert_eq!(left[0].at, Location::new(1, 2));
        }
    }

    const SCORE: (&str, &str) = (
        "sk.cross_validation.cross_val_score",
        "sk.model_selection.cross_val_score",
    );

    fn call(api: &str, method: bool, at: (u32, u32), edit: CallEdit) -> Rewrites {
        Rewrites {
            positional_limits: BTreeMap::new(),
            renames: BTreeMap::new(),
            calls: vec![CallRewrite {
                api: ApiPath::new(api).unwrap(),
                method,
                at: vec![Location::new(at.0, at.1)],
                edit,
            }],
        }
    }

    /// `np.asscalar(a)` returned `a.item()` in its last releases.
    fn asscalar() -> Rewrites {
        call(
            "np_.asscalar",
            false,
            (1, 2),
            CallEdit::Template {
                expr: "a.item()".into(),
                signature: "(a)".parse().unwrap(),
            },
        )
    }

    #[test]
    fn a_call_through_an_alias_becomes_the_template() {
        let (out, left) = run_with(
            &["import np_ as np
print(np.asscalar(np.array([1.5])), np.asscalar(1))"],
            asscalar(),
        );
        assert_eq!(
            out[0],
            "import np_ as np
print(np.array([1.5]).item(), (1).item())"
        );
        assert!(left.is_empty(), "{left:?}");
    }

    #[test]
    fn a_function_becomes_a_method_chain_on_its_first_argument() {
        let chain = || {
            call(
                "pd_.rolling_mean",
                false,
                (2, 1),
                CallEdit::Chain {
                    method: "rolling".into(),
                    rest: ".mean()".into(),
                },
            )
        };
        let (out, left) = run_with(
            &[
                "import pd_ as pd\nfrom pd_ import rolling_mean",
                "pd.rolling_mean(df, 3, center=True)\nrolling_mean(a + b, window=2)",
            ],
            chain(),
        );
        assert_eq!(out[0], "import pd_ as pd\n");
        assert_eq!(
            out[1],
            "df.rolling(3, center=True).mean()\n(a + b).rolling(window=2).mean()"
        );
        assert!(left.is_empty(), "{left:?}");
        // No value passed by position: left, and said.
        let (out, left) = run_with(&["import pd_ as pd", "pd.rolling_mean(arg=df)"], chain());
        assert_eq!(out[1], "pd.rolling_mean(arg=df)");
        assert_eq!(left.len(), 1, "{left:?}");
    }

    #[test]
    fn a_name_imported_for_the_template_goes_with_its_calls() {
        let (out, left) = run_with(
            &[
                "from np_ import asscalar, zeros
from np_ import asscalar as s
",
                "asscalar(a + b)
s(x)",
            ],
            asscalar(),
        );
        assert_eq!(
            out[0],
            "from np_ import zeros
"
        );
        assert_eq!(
            out[1],
            "(a + b).item()
x.item()"
        );
        assert!(left.is_empty(), "{left:?}");
    }

    #[test]
    fn a_call_whose_arguments_do_not_fit_is_left_with_its_import() {
        let cells = ["from np_ import asscalar
asscalar(*xs)
asscalar(x)"];
        let (out, left) = run_with(&cells, asscalar());
        // The call that fits is written; the import stays for the one that does not.
        assert_eq!(
            out[0],
            "from np_ import asscalar
asscalar(*xs)
x.item()"
        );
        assert!(matches!(left[0].why, LeftWhy::ArgumentsDoNotFit { .. }));
        assert_eq!(left[0].at, Location::new(1, 2));
    }

    #[test]
    fn a_function_passed_as_a_value_is_left() {
        let cells = ["import np_
ys = list(map(np_.asscalar, xs))"];
        let (out, left) = run_with(&cells, asscalar());
        assert_eq!(out[0], cells[0]);
        assert_eq!(left[0].why, LeftWhy::NotCalled);
    }

    #[test]
    fn a_method_call_is_found_where_the_analysis_saw_it() {
        let rewrites = call(
            "pd_.DataFrame.as_matrix",
            true,
            (1, 2),
            CallEdit::Template {
                expr: "self.values".into(),
                signature: "(self)".parse().unwrap(),
            },
        );
        let (out, left) = run_with(
            &["df = load()
m = df.as_matrix()
n = other.as_matrix()"],
            rewrites,
        );
        // Line 3's receiver is not one the analysis saw as a DataFrame: left alone.
        assert_eq!(
            out[0],
            "df = load()
m = df.values
n = other.as_matrix()"
        );
        assert!(left.is_empty(), "{left:?}");
    }

    /// A candidate only a warning names: an attribute of the same value takes the place of
    /// a call passing nothing; a method keeps the call and its arguments.
    #[test]
    fn a_named_member_takes_the_method_name_s_place() {
        let member = |name: &str, call: bool| CallEdit::Member {
            name: name.into(),
            call,
        };
        let mut rewrites = call(
            "pd_.DataFrame.as_matrix",
            true,
            (1, 2),
            member("values", false),
        );
        rewrites.calls[0].at.push(Location::new(1, 3));
        rewrites.calls[0].at.push(Location::new(1, 4));
        let (out, left) = run_with(
            &["df = load()
m = df.as_matrix()
n = (df + 1).as_matrix()
o = df.as_matrix(columns=['a'])"],
            rewrites,
        );
        assert_eq!(
            out[0],
            "df = load()
m = df.values
n = (df + 1).values
o = df.as_matrix(columns=['a'])"
        );
        assert_eq!(left.len(), 1, "{left:?}");
        assert_eq!(left[0].at, Location::new(1, 4));
        assert!(matches!(left[0].why, LeftWhy::ArgumentsDoNotFit { .. }));

        let (out, left) = run_with(
            &["df = load()
m = df . as_matrix(columns=['a'])"],
            call(
                "pd_.DataFrame.as_matrix",
                true,
                (1, 2),
                member("to_numpy", true),
            ),
        );
        assert_eq!(
            out[0],
            "df = load()
m = df . to_numpy(columns=['a'])"
        );
        assert!(left.is_empty(), "{left:?}");
    }

    #[test]
    fn a_renamed_keyword_is_renamed_at_each_call_passing_it() {
        let rename = || CallEdit::Keyword {
            old: "normed".into(),
            new: "density".into(),
        };
        let (out, left) = run_with(
            &["import mpl_.pyplot as plt
plt.hist(x, normed=True)
plt.hist(y)"],
            call("mpl_.pyplot.hist", false, (1, 2), rename()),
        );
        assert_eq!(
            out[0],
            "import mpl_.pyplot as plt
plt.hist(x, density=True)
plt.hist(y)"
        );
        assert!(left.is_empty(), "{left:?}");
        let both = "import mpl_.pyplot as plt
plt.hist(x, normed=True, density=True)";
        let (out, left) = run_with(&[both], call("mpl_.pyplot.hist", false, (1, 2), rename()));
        assert_eq!(out[0], both);
        assert!(matches!(left[0].why, LeftWhy::ArgumentsDoNotFit { .. }));
    }

    proptest::proptest! {
        /// Any subset of a `from` import's names moving, in any order, aliased or not: the
        /// result parses and binds the same names, each from where the renames say.
        #[test]
        fn split_imports_parse_and_bind_the_same_names(
            moved in proptest::collection::vec(proptest::bool::ANY, 1..5),
            aliased in proptest::collection::vec(proptest::bool::ANY, 5),
        ) {
            let names: Vec<String> = (0..moved.len()).map(|i| format!("n{i}")).collect();
            let written: Vec<String> = names
                .iter()
                .zip(&aliased)
                .map(|(n, a)| if *a { format!("{n} as b_{n}") } else { n.clone() })
                .collect();
            let cell = format!("from p.old import {}\n", written.join(", "));
            let pairs: Vec<(String, String)> = names
                .iter()
                .zip(&moved)
                .filter(|(_, m)| **m)
                .map(|(n, _)| (format!("p.old.{n}"), format!("p.new.{n}")))
                .collect();
            let pairs: Vec<(&str, &str)> =
                pairs.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
            let (out, _) = run(&[&cell], &pairs);
            for ((n, m), w) in names.iter().zip(&moved).zip(&written) {
                let module = if *m { "p.new" } else { "p.old" };
                let expected = format!("from {module} import");
                let line = out[0].lines().find(|l| l.contains(w.as_str())).unwrap_or_else(|| panic!("{n} in {}", out[0]));
                proptest::prop_assert!(line.starts_with(&expected), "{}", out[0]);
            }
        }
    }
}
