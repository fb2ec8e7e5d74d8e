//! Python 2 names rewritten on the syntax tree, once the source parses as Python 3: renamed
//! builtins, dict iteration, `has_key`, the standard library's renamed and split modules,
//! and lists Python 3 made iterators where the code's use proves a list. A name the notebook
//! binds itself (`long = 3`) is its own and stays.

use std::collections::{BTreeMap, BTreeSet};

use ruff_python_ast::visitor::{walk_expr, walk_stmt, Visitor};
use ruff_python_ast::{Expr, ExprCall, Number, Operator, Stmt};
use ruff_text_size::{Ranged, TextRange, TextSize};

use super::rule::{Caution, Rule};
use super::Edit;

/// Builtins Python 3 renamed: the same function under another name.
const RENAMED_BUILTINS: &[(&str, &str)] = &[
    ("xrange", "range"),
    ("raw_input", "input"),
    ("unicode", "str"),
    ("basestring", "str"),
    ("long", "int"),
    ("unichr", "chr"),
];

/// Standard-library modules Python 3 renamed, whole.
const RENAMED_MODULES: &[(&str, &str)] = &[
    ("cPickle", "pickle"),
    ("cStringIO", "io"),
    ("StringIO", "io"),
    ("Queue", "queue"),
    ("ConfigParser", "configparser"),
    ("urlparse", "urllib.parse"),
    ("HTMLParser", "html.parser"),
    ("htmlentitydefs", "html.entities"),
    ("httplib", "http.client"),
    ("cookielib", "http.cookiejar"),
    ("Tkinter", "tkinter"),
    ("tkMessageBox", "tkinter.messagebox"),
    ("tkFileDialog", "tkinter.filedialog"),
    ("__builtin__", "builtins"),
    ("copy_reg", "copyreg"),
    ("SocketServer", "socketserver"),
    ("xmlrpclib", "xmlrpc.client"),
    ("SimpleHTTPServer", "http.server"),
    ("BaseHTTPServer", "http.server"),
    ("robotparser", "urllib.robotparser"),
    ("UserDict", "collections"),
    ("thread", "_thread"),
    ("anydbm", "dbm"),
];

/// Members of `urllib` and `urllib2` and the Python 3 module each went to.
const SPLIT_MEMBERS: &[(&str, &str, &str)] = &[
    ("urllib2", "urlopen", "urllib.request"),
    ("urllib2", "Request", "urllib.request"),
    ("urllib2", "build_opener", "urllib.request"),
    ("urllib2", "install_opener", "urllib.request"),
    ("urllib2", "OpenerDirector", "urllib.request"),
    ("urllib2", "BaseHandler", "urllib.request"),
    ("urllib2", "HTTPHandler", "urllib.request"),
    ("urllib2", "HTTPSHandler", "urllib.request"),
    ("urllib2", "ProxyHandler", "urllib.request"),
    ("urllib2", "HTTPCookieProcessor", "urllib.request"),
    ("urllib2", "HTTPBasicAuthHandler", "urllib.request"),
    (
        "urllib2",
        "HTTPPasswordMgrWithDefaultRealm",
        "urllib.request",
    ),
    ("urllib2", "HTTPError", "urllib.error"),
    ("urllib2", "URLError", "urllib.error"),
    ("urllib2", "quote", "urllib.parse"),
    ("urllib2", "unquote", "urllib.parse"),
    ("urllib", "urlopen", "urllib.request"),
    ("urllib", "urlretrieve", "urllib.request"),
    ("urllib", "urlcleanup", "urllib.request"),
    ("urllib", "pathname2url", "urllib.request"),
    ("urllib", "url2pathname", "urllib.request"),
    ("urllib", "getproxies", "urllib.request"),
    ("urllib", "URLopener", "urllib.request"),
    ("urllib", "FancyURLopener", "urllib.request"),
    ("urllib", "urlencode", "urllib.parse"),
    ("urllib", "quote", "urllib.parse"),
    ("urllib", "quote_plus", "urllib.parse"),
    ("urllib", "unquote", "urllib.parse"),
    ("urllib", "unquote_plus", "urllib.parse"),
    ("urllib", "ContentTooShortError", "urllib.error"),
];

/// `itertools` functions that became builtins, and those renamed within `itertools`.
const ITERTOOLS_BUILTINS: &[(&str, &str)] =
    &[("izip", "zip"), ("imap", "map"), ("ifilter", "filter")];
const ITERTOOLS_RENAMED: &[(&str, &str)] = &[
    ("izip_longest", "zip_longest"),
    ("ifilterfalse", "filterfalse"),
];

/// Module attributes renamed in place.
const RENAMED_ATTRIBUTES: &[(&str, &str, &str, Rule)] = &[
    ("string", "letters", "ascii_letters", Rule::StringConstant),
    (
        "string",
        "lowercase",
        "ascii_lowercase",
        Rule::StringConstant,
    ),
    (
        "string",
        "uppercase",
        "ascii_uppercase",
        Rule::StringConstant,
    ),
    ("sys", "maxint", "maxsize", Rule::SysMaxint),
    ("os", "getcwdu", "getcwd", Rule::GetcwdU),
];

fn lookup<'t>(table: &'t [(&str, &str)], key: &str) -> Option<&'t str> {
    table.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
}

fn split_member(module: &str, member: &str) -> Option<&'static str> {
    SPLIT_MEMBERS
        .iter()
        .find(|(m, a, _)| *m == module && *a == member)
        .map(|(_, _, to)| *to)
}

/// What the whole notebook binds, read once: names it assigns, defines or imports (a name
/// bound only by `from itertools import izip` is the rewrite's, not the notebook's), and the
/// module each imported name stands for.
#[derive(Debug, Default)]
pub(super) struct Bound {
    names: BTreeSet<String>,
    modules: BTreeMap<String, String>,
    from_itertools: BTreeSet<String>,
}

impl Bound {
    pub(super) fn read(body: &[Stmt], into: &mut Bound) {
        let mut v = Binder { out: into };
        v.visit_body(body);
    }

    fn binds(&self, name: &str) -> bool {
        self.names.contains(name)
    }

    /// The module `name` stands for, when an import bound it and nothing else did.
    fn module(&self, name: &str) -> Option<&str> {
        self.modules.get(name).map(String::as_str)
    }

    /// `izip` bound only by `from itertools import izip`: the import goes, the uses become
    /// the builtin.
    fn itertools_only(&self, name: &str) -> bool {
        self.from_itertools.contains(name) && !self.names.contains(name)
    }
}

struct Binder<'b> {
    out: &'b mut Bound,
}

impl<'a> Visitor<'a> for Binder<'_> {
    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::FunctionDef(f) => {
                self.out.names.insert(f.name.id.to_string());
                for p in f.parameters.iter() {
                    self.out.names.insert(p.name().id.to_string());
                }
            }
            Stmt::ClassDef(c) => {
                self.out.names.insert(c.name.id.to_string());
            }
            Stmt::Import(i) => {
                for a in &i.names {
                    let bound = match &a.asname {
                        Some(n) => n.id.to_string(),
                        None => a.name.id.split('.').next().unwrap_or_default().to_string(),
                    };
                    let module = if a.asname.is_some() {
                        a.name.id.to_string()
                    } else {
                        bound.clone()
                    };
                    self.out.modules.insert(bound, module);
                }
            }
            Stmt::ImportFrom(f) => {
                let itertools = f.level == 0
                    && f.module
                        .as_ref()
                        .is_some_and(|m| m.id.as_str() == "itertools");
                for a in &f.names {
                    let name = a.asname.as_ref().unwrap_or(&a.name).id.to_string();
                    if itertools
                        && a.asname.is_none()
                        && lookup(ITERTOOLS_BUILTINS, &name).is_some()
                    {
                        self.out.from_itertools.insert(name);
                    } else {
                        self.out.names.insert(name);
                    }
                }
            }
            Stmt::Global(g) => {
                for n in &g.names {
                    self.out.names.insert(n.id.to_string());
                }
            }
            Stmt::Try(t) => {
                for h in &t.handlers {
                    let ruff_python_ast::ExceptHandler::ExceptHandler(h) = h;
                    if let Some(n) = &h.name {
                        self.out.names.insert(n.id.to_string());
                    }
                }
            }
            _ => {}
        }
        walk_stmt(self, stmt);
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Name(n) if n.ctx.is_store() || n.ctx.is_del() => {
                self.out.names.insert(n.id.to_string());
            }
            Expr::Lambda(l) => {
                if let Some(params) = &l.parameters {
                    for p in params.iter() {
                        self.out.names.insert(p.name().id.to_string());
                    }
                }
            }
            _ => {}
        }
        walk_expr(self, expr);
    }
}

/// A line to check, not rewritten.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Noted {
    pub caution: Caution,
    pub offset: TextSize,
    pub what: String,
}

/// The edits of one cell's (Python 3) syntax tree, and the lines it notes.
pub(super) fn edits(source: &str, body: &[Stmt], bound: &Bound) -> (Vec<Edit>, Vec<Noted>) {
    let mut v = Names {
        source,
        bound,
        edits: Vec::new(),
        noted: Vec::new(),
        depth: 0,
        siblings: body.len(),
        statement: TextRange::default(),
        reduce_imported: false,
        top_values: std::collections::HashSet::new(),
    };
    for stmt in body {
        v.statement = stmt.range();
        v.visit_stmt(stmt);
    }
    (v.edits, v.noted)
}

struct Names<'s> {
    source: &'s str,
    bound: &'s Bound,
    edits: Vec<Edit>,
    noted: Vec<Noted>,
    /// How deep in compound statements: a removed import at depth 0 takes its line away,
    /// deeper it becomes `pass`.
    depth: u32,
    /// How many statements the block being read has: one that is removed must leave another.
    siblings: usize,
    /// The top-level statement being read.
    statement: TextRange,
    reduce_imported: bool,
    /// Expressions that are a whole test or value (`if d.has_key(k):`): no parentheses
    /// needed around what replaces them.
    top_values: std::collections::HashSet<TextRange>,
}

impl Names<'_> {
    fn text(&self, range: TextRange) -> &str {
        &self.source[range]
    }

    fn free(&self, name: &str) -> bool {
        !self.bound.binds(name) && self.bound.module(name).is_none()
    }

    /// Whether `e` is a name an import bound to a module (`reader.next()` is an iterator's,
    /// `mod.next()` a module's function).
    fn names_module(&self, e: &Expr) -> bool {
        matches!(e, Expr::Name(n) if self.bound.module(n.id.as_str()).is_some())
    }

    fn replace(&mut self, range: TextRange, new: &str, rule: Rule) {
        self.edits
            .push(Edit::replace(range.start(), range.end(), new, rule));
    }

    /// `import M` statements: renamed modules aliased to their old name, split ones to the
    /// parts the notebook uses.
    fn import(&mut self, i: &ruff_python_ast::StmtImport) {
        for a in &i.names {
            let old = a.name.id.as_str();
            if let Some(new) = lookup(RENAMED_MODULES, old) {
                let text = match &a.asname {
                    Some(_) => new.to_string(),
                    None => format!("{new} as {old}"),
                };
                self.replace(a.name.range, &text, Rule::RenamedModule);
            } else if matches!(old, "urllib" | "urllib2") {
                let parts: &str = if old == "urllib" {
                    "urllib.request, urllib.parse, urllib.error"
                } else {
                    "urllib.request, urllib.error, urllib.parse"
                };
                self.replace(a.range, parts, Rule::SplitModule);
            }
        }
    }

    fn import_from(&mut self, f: &ruff_python_ast::StmtImportFrom) {
        if f.level != 0 {
            return;
        }
        let Some(module) = &f.module else {
            return;
        };
        let old = module.id.as_str();
        if let Some(new) = lookup(RENAMED_MODULES, old) {
            self.replace(module.range, new, Rule::RenamedModule);
            return;
        }
        if matches!(old, "urllib" | "urllib2") {
            let mut by_module: BTreeMap<&str, Vec<String>> = BTreeMap::new();
            for a in &f.names {
                let Some(to) = split_member(old, a.name.id.as_str()) else {
                    self.noted.push(Noted {
                        caution: Caution::UnknownMember,
                        offset: a.range.start(),
                        what: format!("{old}.{}", a.name.id),
                    });
                    return;
                };
                by_module
                    .entry(to)
                    .or_default()
                    .push(self.text(a.range).to_string());
            }
            let text = by_module
                .iter()
                .map(|(m, names)| format!("from {m} import {}", names.join(", ")))
                .collect::<Vec<_>>()
                .join("; ");
            self.replace(f.range, &text, Rule::SplitModule);
            return;
        }
        if old != "itertools" {
            return;
        }
        let mut kept = Vec::new();
        let mut changed = false;
        for a in &f.names {
            let name = a.name.id.as_str();
            if a.asname.is_none() && self.bound.itertools_only(name) {
                changed = true;
                continue;
            }
            if let Some(new) = lookup(ITERTOOLS_RENAMED, name) {
                changed = true;
                let alias = a.asname.as_ref().map_or(name, |n| n.id.as_str());
                kept.push(format!("{new} as {alias}"));
                continue;
            }
            kept.push(self.text(a.range).to_string());
        }
        if !changed {
            return;
        }
        if !kept.is_empty() {
            let text = format!("from itertools import {}", kept.join(", "));
            self.replace(f.range, &text, Rule::ItertoolsBuiltin);
        } else if (self.depth == 0 || self.siblings > 1) && self.alone_on_its_lines(f.range) {
            let (start, end) = self.whole_lines(f.range);
            self.edits
                .push(Edit::replace(start, end, "", Rule::ItertoolsBuiltin));
        } else {
            self.replace(f.range, "pass", Rule::ItertoolsBuiltin);
        }
    }

    fn alone_on_its_lines(&self, range: TextRange) -> bool {
        let (start, end) = self.whole_lines(range);
        self.source[start.to_usize()..end.to_usize()].trim() == self.text(range).trim()
    }

    /// From the start of `range`'s first line to past the newline of its last.
    fn whole_lines(&self, range: TextRange) -> (TextSize, TextSize) {
        let s = self.source;
        let start = s[..range.start().to_usize()]
            .rfind('\n')
            .map_or(0, |i| i + 1);
        let end = s[range.end().to_usize()..]
            .find('\n')
            .map_or(s.len(), |i| range.end().to_usize() + i + 1);
        (TextSize::new(start as u32), TextSize::new(end as u32))
    }

    fn call(&mut self, call: &ExprCall) {
        let no_args = call.arguments.args.is_empty() && call.arguments.keywords.is_empty();
        if let Expr::Attribute(a) = call.func.as_ref() {
            let method = a.attr.id.as_str();
            let dict_method = match method {
                "iteritems" | "viewitems" => Some("items"),
                "itervalues" | "viewvalues" => Some("values"),
                "iterkeys" | "viewkeys" => Some("keys"),
                _ => None,
            };
            if let Some(new) = dict_method.filter(|_| no_args) {
                self.replace(a.attr.range, new, Rule::DictIteration);
            }
            // The iterator protocol's method became `__next__`, reached by the builtin. A
            // notebook that binds `next` itself (a class's `def next`) is left to its reader.
            if method == "next" && no_args && self.free("next") && !self.names_module(&a.value) {
                self.edits.push(Edit::insert(
                    call.range().start(),
                    "next(",
                    Rule::NextBuiltin,
                ));
                self.replace(
                    TextRange::new(a.value.range().end(), call.range().end()),
                    ")",
                    Rule::NextBuiltin,
                );
            }
            if method == "has_key"
                && call.arguments.args.len() == 1
                && call.arguments.keywords.is_empty()
            {
                let key = &call.arguments.args[0];
                let key_text = atom_text(self.source, key);
                let dict_text = atom_text(self.source, &a.value);
                let mut new = format!("{key_text} in {dict_text}");
                if !self.top_values.contains(&call.range()) {
                    new = format!("({new})");
                }
                self.replace(call.range(), &new, Rule::HasKey);
            }
        }
        if let Expr::Name(n) = call.func.as_ref() {
            if n.id.as_str() == "len" && self.free("len") && call.arguments.args.len() == 1 {
                self.listed(&call.arguments.args[0], true);
            }
        }
    }

    /// `e` is used as a list (indexed, or measured when `measured`): an iterator there wraps
    /// in `list(...)`.
    fn listed(&mut self, e: &Expr, measured: bool) {
        let Expr::Call(c) = e else {
            return;
        };
        let builtin = match c.func.as_ref() {
            Expr::Name(n) if matches!(n.id.as_str(), "map" | "filter" | "zip") => {
                self.free(n.id.as_str())
            }
            // Views have a length; they cannot be indexed.
            Expr::Attribute(a)
                if !measured
                    && matches!(a.attr.id.as_str(), "keys" | "values" | "items")
                    && c.arguments.args.is_empty() =>
            {
                true
            }
            _ => false,
        };
        if builtin {
            self.edits.push(Edit::insert(
                c.range().start(),
                "list(",
                Rule::ListOfIterator,
            ));
            self.edits
                .push(Edit::insert(c.range().end(), ")", Rule::ListOfIterator));
        }
    }

    fn division(&mut self, left: &Expr, right: &Expr, range: TextRange) {
        let (l, r) = (self.integer(left), self.integer(right));
        if l && r {
            // The operator sits between the operands, past their closing parentheses.
            let between = TextRange::new(left.end(), right.start());
            if let Some(i) = self.text(between).find('/') {
                let at = between.start() + TextSize::new(i as u32);
                self.edits.push(Edit::replace(
                    at,
                    at + TextSize::new(1),
                    "//",
                    Rule::FloorDivision,
                ));
            }
        } else if l || r {
            self.noted.push(Noted {
                caution: Caution::Division,
                offset: range.start(),
                what: self.text(range).to_string(),
            });
        }
    }

    /// An integer for certain: an integer literal, or `len(...)`.
    fn integer(&self, e: &Expr) -> bool {
        match e {
            Expr::NumberLiteral(n) => matches!(n.value, Number::Int(_)),
            Expr::Call(c) => {
                matches!(c.func.as_ref(), Expr::Name(n) if n.id.as_str() == "len" && self.free("len"))
            }
            _ => false,
        }
    }
}

/// The source of `e`, parenthesized unless it is an atom or a primary (a number too: `1 in d`
/// needs none).
fn atom_text(source: &str, e: &Expr) -> String {
    let text = &source[e.range()];
    if super::super::calls::atomic(e) || matches!(e, Expr::NumberLiteral(_)) {
        text.to_string()
    } else {
        format!("({text})")
    }
}

impl<'a> Visitor<'a> for Names<'_> {
    fn visit_body(&mut self, body: &'a [Stmt]) {
        let outer = std::mem::replace(&mut self.siblings, body.len());
        ruff_python_ast::visitor::walk_body(self, body);
        self.siblings = outer;
    }

    fn visit_stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::Import(i) => self.import(i),
            Stmt::ImportFrom(f) => self.import_from(f),
            Stmt::If(s) => {
                self.top_values.insert(s.test.range());
            }
            Stmt::While(s) => {
                self.top_values.insert(s.test.range());
            }
            Stmt::Assign(s) => {
                self.top_values.insert(s.value.range());
                if let Expr::Call(c) = s.value.as_ref() {
                    if matches!(c.func.as_ref(), Expr::Name(n)
                        if matches!(n.id.as_str(), "map" | "filter" | "zip") && self.free(n.id.as_str()))
                    {
                        self.noted.push(Noted {
                            caution: Caution::Iterator,
                            offset: s.range.start(),
                            what: self.text(s.range).lines().next().unwrap_or("").to_string(),
                        });
                    }
                }
            }
            Stmt::Return(s) => {
                if let Some(v) = &s.value {
                    self.top_values.insert(v.range());
                }
            }
            Stmt::Expr(s) => {
                self.top_values.insert(s.value.range());
            }
            _ => {}
        }
        let compound = matches!(
            stmt,
            Stmt::If(_)
                | Stmt::While(_)
                | Stmt::For(_)
                | Stmt::Try(_)
                | Stmt::With(_)
                | Stmt::FunctionDef(_)
                | Stmt::ClassDef(_)
                | Stmt::Match(_)
        );
        if compound {
            self.depth += 1;
        }
        walk_stmt(self, stmt);
        if compound {
            self.depth -= 1;
        }
    }

    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Name(n) if n.ctx.is_load() => {
                let name = n.id.as_str();
                if let Some(new) = lookup(RENAMED_BUILTINS, name).filter(|_| self.free(name)) {
                    self.replace(n.range, new, Rule::RenamedBuiltin);
                } else if name == "reduce" && self.free(name) && !self.reduce_imported {
                    self.reduce_imported = true;
                    let at = self.statement.start();
                    let line_start = self.source[..at.to_usize()]
                        .rfind('\n')
                        .map_or(0, |i| i + 1);
                    self.edits.push(Edit::insert(
                        TextSize::new(line_start as u32),
                        "from functools import reduce\n",
                        Rule::ReduceMoved,
                    ));
                } else if let Some(new) =
                    lookup(ITERTOOLS_BUILTINS, name).filter(|_| self.bound.itertools_only(name))
                {
                    self.replace(n.range, new, Rule::ItertoolsBuiltin);
                }
            }
            Expr::Attribute(a) => {
                if let Expr::Name(root) = a.value.as_ref() {
                    let attr = a.attr.id.as_str();
                    let module = self.bound.module(root.id.as_str()).map(str::to_string);
                    match module.as_deref() {
                        Some(m @ ("urllib" | "urllib2")) => {
                            match split_member(m, attr) {
                                Some(to) => self.replace(
                                    a.range,
                                    &format!("{to}.{attr}"),
                                    Rule::SplitModule,
                                ),
                                None => self.noted.push(Noted {
                                    caution: Caution::UnknownMember,
                                    offset: a.range.start(),
                                    what: format!("{m}.{attr}"),
                                }),
                            }
                            return;
                        }
                        Some("itertools") => {
                            if let Some(new) =
                                lookup(ITERTOOLS_BUILTINS, attr).filter(|b| self.free(b))
                            {
                                self.replace(a.range, new, Rule::ItertoolsBuiltin);
                                return;
                            }
                            if let Some(new) = lookup(ITERTOOLS_RENAMED, attr) {
                                self.replace(a.attr.range, new, Rule::ItertoolsBuiltin);
                            }
                        }
                        Some(m) => {
                            if let Some((_, _, new, rule)) = RENAMED_ATTRIBUTES
                                .iter()
                                .find(|(mm, old, _, _)| *mm == m && *old == attr)
                            {
                                self.replace(a.attr.range, new, *rule);
                            }
                        }
                        None => {}
                    }
                }
            }
            Expr::Call(c) => self.call(c),
            Expr::Subscript(s) => self.listed(&s.value, false),
            Expr::BinOp(b) if b.op == Operator::Div => {
                self.division(&b.left, &b.right, b.range);
            }
            _ => {}
        }
        walk_expr(self, expr);
    }
}
