//! Evaluating expressions to abstract values while recording what they use. An attribute
//! chain on a module (`np.random.RandomState`) is recorded once, whole, at its outermost
//! node; calls record their callee with the keyword arguments they pass.

use std::rc::Rc;

use ruff_python_ast::{Arguments, Expr, ExprAttribute, ExprCall, ExprName, Operator};
use ruff_text_size::Ranged;

use super::binding::{FrameKind, Value};
use super::builtins;
use super::external::{self, FileAccess, FileUse, NetworkKind, NetworkUse};
use super::python_version::HintReason;
use super::tracing::{walk_children, Tracer};
use super::usage::{NoteKind, UseKind};
use crate::python::{PythonRange, PythonVersion};

/// Expressions nested deeper than this (`a + b + … ` with thousands of terms) are not followed
/// further, so that generated code cannot exhaust the stack.
const MAX_DEPTH: u32 = 200;

fn keyword_names(args: &Arguments) -> impl Iterator<Item = &str> + Clone {
    args.keywords
        .iter()
        .filter_map(|k| k.arg.as_ref().map(|a| a.as_str()))
}

/// PEP 8 class names start with a capital: calling one constructs an instance.
fn is_class_name(path: &str) -> bool {
    path.rsplit('.')
        .next()
        .is_some_and(|last| last.starts_with(|c: char| c.is_ascii_uppercase()))
}

/// A short rendering of a member use for messages: `df.ix`, `pd.read_csv(…).groupby`.
pub(crate) fn example(receiver: &Expr, member: &str) -> String {
    let mut out = String::new();
    label(receiver, &mut out, 0);
    out.push('.');
    out.push_str(member);
    out
}

fn label(e: &Expr, out: &mut String, depth: u32) {
    if depth > 6 {
        out.push('…');
        return;
    }
    match e {
        Expr::Name(n) => out.push_str(&n.id),
        Expr::Attribute(a) => {
            label(&a.value, out, depth + 1);
            out.push('.');
            out.push_str(a.attr.as_str());
        }
        Expr::Call(c) => {
            label(&c.func, out, depth + 1);
            out.push_str("(…)");
        }
        Expr::Subscript(s) => {
            label(&s.value, out, depth + 1);
            out.push_str("[…]");
        }
        _ => out.push('…'),
    }
}

/// `[*a, *b]`, `(*a, 1)`, `{*a}`, `{**a, 'k': 1}`: unpacking inside a display (PEP 448,
/// Python 3.5). Only loaded displays count: `[a, *b] = x` is a 3.0 assignment target.
fn unpacks_in_display(e: &Expr) -> bool {
    match e {
        Expr::List(l) => l.ctx.is_load() && l.elts.iter().any(Expr::is_starred_expr),
        Expr::Tuple(t) => t.ctx.is_load() && t.elts.iter().any(Expr::is_starred_expr),
        Expr::Set(s) => s.elts.iter().any(Expr::is_starred_expr),
        Expr::Dict(d) => d.items.iter().any(|item| item.key.is_none()),
        _ => false,
    }
}

/// What calls before Python 3.5 refused (PEP 448): a second `*` or `**`, a positional
/// argument after `*a`, a keyword after `**kw`.
fn unpacks_in_call(args: &Arguments) -> bool {
    let stars = args.args.iter().filter(|a| a.is_starred_expr()).count();
    let positional_after_star = args
        .args
        .iter()
        .skip_while(|a| !a.is_starred_expr())
        .any(|a| !a.is_starred_expr());
    let double_stars = args.keywords.iter().filter(|k| k.arg.is_none()).count();
    let keyword_after_double_star = args
        .keywords
        .iter()
        .skip_while(|k| k.arg.is_some())
        .any(|k| k.arg.is_some());
    stars > 1 || positional_after_star || double_stars > 1 || keyword_after_double_star
}

fn string_literal(e: &Expr) -> Option<&str> {
    match e {
        Expr::StringLiteral(s) => Some(s.value.to_str()),
        _ => None,
    }
}

impl Tracer {
    /// Evaluates `expr`, recording it (and everything in it).
    pub(crate) fn eval(&mut self, expr: &Expr) -> Value {
        self.eval_as(expr, UseKind::Attribute)
    }

    /// Like [`Tracer::eval`]; a top-level attribute chain is recorded as `kind` (decorators,
    /// base classes) and a call as `kind` plus `Call`.
    pub(crate) fn eval_as(&mut self, expr: &Expr, kind: UseKind) -> Value {
        if self.depth >= MAX_DEPTH {
            self.too_deep = true;
            return Value::Unknown;
        }
        self.depth += 1;
        let v = self.eval_inner(expr, kind);
        self.depth -= 1;
        v
    }

    fn eval_inner(&mut self, expr: &Expr, kind: UseKind) -> Value {
        match expr {
            Expr::Attribute(a) => {
                let base = self.resolve(&a.value);
                let v = self.attribute(base, a, None);
                self.record(&v, kind, None, a.start(), None);
                v
            }
            Expr::Call(c) => {
                // a plain expression's call is just a call; decorators and bases say so
                let kind = if kind == UseKind::Attribute {
                    UseKind::Call
                } else {
                    kind
                };
                self.call(c, kind)
            }
            Expr::Name(n) => {
                let (v, star) = self.name(n);
                if star {
                    self.star_candidates(n, None, None);
                }
                v
            }
            _ => self.resolve(expr),
        }
    }

    /// Records a use of an API-valued expression.
    fn record(
        &mut self,
        v: &Value,
        kind: UseKind,
        extra: Option<UseKind>,
        offset: ruff_text_size::TextSize,
        args: Option<&Arguments>,
    ) {
        let at = self.at(offset);
        let keywords = args.into_iter().flat_map(keyword_names);
        match v {
            Value::Api(p) => self.ev.api(p, kind, extra, keywords, at),
            Value::Bound(p, inherited) => {
                let how = if *inherited {
                    UseKind::Inherited
                } else {
                    UseKind::Traced
                };
                self.ev.api(p, how, Some(kind), keywords, at)
            }
            _ => {}
        }
    }

    /// The value of an expression without recording a top-level attribute chain: used for the
    /// base of an attribute and the callee of a call, whose parent records the whole.
    pub(crate) fn resolve(&mut self, expr: &Expr) -> Value {
        if self.depth >= MAX_DEPTH {
            self.too_deep = true;
            return Value::Unknown;
        }
        self.depth += 1;
        let v = self.resolve_inner(expr);
        self.depth -= 1;
        v
    }

    fn resolve_inner(&mut self, expr: &Expr) -> Value {
        match expr {
            Expr::Name(n) => self.name(n).0,
            Expr::Attribute(a) => {
                let base = self.resolve(&a.value);
                self.attribute(base, a, None)
            }
            Expr::Call(c) => self.call(c, UseKind::Call),
            Expr::Subscript(s) => {
                let v = self.eval(&s.value);
                self.eval(&s.slice);
                v.element()
            }
            Expr::Named(n) => {
                let v = self.eval(&n.value);
                self.bind_target(&n.target, v.clone());
                v
            }
            Expr::BinOp(b) => {
                if b.op == Operator::MatMult {
                    self.feature("`@` operator", 5, b.start());
                }
                let l = self.eval(&b.left);
                let r = self.eval(&b.right);
                combine(l, r)
            }
            Expr::UnaryOp(u) => {
                let v = self.eval(&u.operand);
                match v.library_origin() {
                    Some(o) => Value::Derived(o.clone()),
                    None => v,
                }
            }
            Expr::BoolOp(b) => {
                let mut out = Value::Local;
                for e in &b.values {
                    let v = self.eval(e);
                    out = combine(out, v);
                }
                out
            }
            Expr::If(i) => {
                self.eval(&i.test);
                let a = self.eval(&i.body);
                let b = self.eval(&i.orelse);
                combine(a, b)
            }
            Expr::Lambda(l) => {
                if let Some(p) = &l.parameters {
                    self.parameter_defaults(p);
                }
                self.scopes.push(FrameKind::Function, None);
                if let Some(p) = &l.parameters {
                    self.bind_parameters(p, None);
                }
                let in_async_def = std::mem::replace(&mut self.in_async_def, false);
                let v = self.eval(&l.body);
                self.in_async_def = in_async_def;
                self.scopes.pop();
                Value::Function((v.is_library() || v == Value::Unknown).then(|| Rc::new(v)))
            }
            Expr::ListComp(c) => {
                self.comprehension(&c.generators, |t| {
                    t.eval(&c.elt);
                });
                Value::Local
            }
            Expr::SetComp(c) => {
                self.comprehension(&c.generators, |t| {
                    t.eval(&c.elt);
                });
                Value::Local
            }
            Expr::Generator(c) => {
                self.comprehension(&c.generators, |t| {
                    t.eval(&c.elt);
                });
                Value::Local
            }
            Expr::DictComp(c) => {
                self.comprehension(&c.generators, |t| {
                    if let Some(key) = &c.key {
                        t.eval(key);
                    }
                    t.eval(&c.value);
                });
                Value::Local
            }
            Expr::Await(a) => {
                self.feature("`await`", 5, a.start());
                self.eval(&a.value);
                Value::Unknown
            }
            Expr::Yield(y) => {
                if self.in_async_def {
                    self.feature("async generator", 6, y.start());
                }
                walk_children(self, expr);
                Value::Local
            }
            Expr::List(_) | Expr::Tuple(_) | Expr::Set(_) | Expr::Dict(_) => {
                if unpacks_in_display(expr) {
                    self.feature("`*`/`**` unpacking in a display", 5, expr.start());
                }
                walk_children(self, expr);
                Value::Local
            }
            Expr::YieldFrom(y) => {
                self.feature("`yield from`", 3, y.start());
                self.eval(&y.value);
                Value::Unknown
            }
            Expr::Starred(s) => {
                self.eval(&s.value);
                Value::Local
            }
            Expr::FString(_) => {
                self.feature("f-string", 6, expr.start());
                walk_children(self, expr);
                Value::Local
            }
            Expr::IpyEscapeCommand(c) => {
                let at = self.at(c.start());
                self.escape(c.kind, &c.value, at);
                Value::Local
            }
            Expr::StringLiteral(s) => {
                let text = s.value.to_str();
                if external::is_url(text) {
                    let at = self.at(s.start());
                    self.ev.network.push(NetworkUse {
                        kind: NetworkKind::Url,
                        detail: text.trim().to_string(),
                        at,
                    });
                }
                Value::Local
            }
            Expr::BytesLiteral(_)
            | Expr::NumberLiteral(_)
            | Expr::BooleanLiteral(_)
            | Expr::NoneLiteral(_)
            | Expr::EllipsisLiteral(_) => Value::Local,
            other => {
                walk_children(self, other);
                Value::Local
            }
        }
    }

    fn comprehension(
        &mut self,
        generators: &[ruff_python_ast::Comprehension],
        body: impl FnOnce(&mut Self),
    ) {
        self.scopes.push(FrameKind::Comprehension, None);
        for g in generators {
            if g.is_async {
                self.feature("async comprehension", 6, g.start());
            }
            let iter = self.eval(&g.iter);
            self.bind_target(&g.target, iter.element());
            for cond in &g.ifs {
                self.eval(cond);
            }
        }
        body(self);
        self.scopes.pop();
    }

    /// Records `m.name` for every star-imported module `m`: any of them may define the bare
    /// name, and only the API bank can tell which.
    fn star_candidates(&mut self, n: &ExprName, extra: Option<UseKind>, args: Option<&Arguments>) {
        let at = self.at(n.start());
        let modules = std::mem::take(&mut self.star_modules);
        for m in self.later_star().iter().chain(modules.iter().rev()) {
            let path = self.join(m, &n.id);
            let keywords = args.into_iter().flat_map(keyword_names);
            self.ev.api(&path, UseKind::Star, extra, keywords, at);
        }
        self.star_modules = modules;
    }

    /// A name's value, and whether it was guessed through a star import.
    fn name(&mut self, n: &ExprName) -> (Value, bool) {
        let id = n.id.as_str();
        if let Some(v) = self.scopes.lookup(id) {
            return (v.clone(), false);
        }
        if builtins::is_builtin(id) {
            if builtins::is_python2_builtin(id) {
                let at = self.at(n.start());
                let weak = self.optional() || self.elsewhere;
                self.ev.hint(
                    HintReason::Python2Name,
                    id,
                    PythonRange::at_most(PythonVersion::new(2, 7)),
                    weak,
                    Some(at),
                );
            }
            return (Value::Local, false);
        }
        if id.is_empty() {
            return (Value::Unknown, false);
        }
        if let Some(module) = self
            .later_star()
            .or_else(|| self.star_modules.last().cloned())
        {
            return (Value::Api(self.join(&module, id)), true);
        }
        (Value::Unknown, false)
    }

    /// In a function body, the notebook's last star-imported module when it is not among
    /// those imported so far: the body runs when called, and a later cell's `from pylab
    /// import *` binds names (`np`) the star imports before the `def` may not.
    fn later_star(&self) -> Option<Rc<str>> {
        let last = self.last_star_module.as_ref()?;
        (self.scopes.in_function() && !self.star_modules.contains(last)).then(|| last.clone())
    }

    /// `base.attr`: extends a module path, traces an instance member, or records member
    /// evidence on a value of unknown type. `call` holds the arguments when the attribute is
    /// called right away.
    pub(crate) fn attribute(
        &mut self,
        base: Value,
        a: &ExprAttribute,
        call: Option<&Arguments>,
    ) -> Value {
        let attr = a.attr.as_str();
        if attr.is_empty() {
            return Value::Unknown;
        }
        match base {
            Value::Api(p) => {
                if attr == "__version__" {
                    self.ev.version_probes.push((self.cell, p.clone()));
                }
                Value::Api(self.join(&p, attr))
            }
            Value::Instance(c) => Value::Bound(self.join(&c, attr), false),
            Value::Bound(p, inherited) => {
                let bound = Value::Bound(p.clone(), inherited);
                self.record(&bound, UseKind::Attribute, None, a.value.start(), None);
                self.member(Some(&p), a, call);
                Value::Derived(p)
            }
            Value::Derived(o) => {
                self.member(Some(&o), a, call);
                Value::Derived(o)
            }
            Value::LocalInstance(k) | Value::LocalClass(k) => self.local_member(k, attr),
            Value::Unknown => {
                self.python2_member(attr, a);
                self.member(None, a, call);
                Value::Unknown
            }
            Value::Local | Value::Function(_) => {
                self.python2_member(attr, a);
                Value::Local
            }
        }
    }

    fn member(&mut self, origin: Option<&Rc<str>>, a: &ExprAttribute, call: Option<&Arguments>) {
        let at = self.at(a.attr.start());
        let keywords = call.into_iter().flat_map(keyword_names);
        let receiver = &a.value;
        let attr = a.attr.as_str();
        self.ev.member(
            attr,
            origin,
            call.is_some(),
            keywords,
            || example(receiver, attr),
            at,
        );
    }

    fn python2_member(&mut self, attr: &str, a: &ExprAttribute) {
        if attr == "has_key" {
            let at = self.at(a.start());
            self.ev.hint(
                HintReason::Python2Name,
                "dict.has_key",
                PythonRange::at_most(PythonVersion::new(2, 7)),
                true,
                Some(at),
            );
        }
    }

    /// A member of a notebook class: its own (or a notebook base's) binding, else what its
    /// library base class provides.
    fn local_member(&mut self, class: u32, attr: &str) -> Value {
        let mut current = Some(class);
        let mut depth = 0;
        while let Some(k) = current {
            let Some(c) = self.classes.get(k as usize) else {
                break;
            };
            if let Some(v) = c.members.get(attr) {
                return v.clone();
            }
            current = c.local_base;
            depth += 1;
            if depth > 16 {
                break;
            }
        }
        match self
            .classes
            .get(class as usize)
            .and_then(|c| c.library_base.clone())
        {
            Some(base) if !attr.starts_with("__") => Value::Bound(self.join(&base, attr), true),
            _ => Value::Local,
        }
    }

    pub(crate) fn call(&mut self, c: &ExprCall, kind: UseKind) -> Value {
        if self.ipython_call(c) {
            return Value::Local;
        }
        let (callee, star) = match &*c.func {
            Expr::Attribute(a) => {
                let base = self.resolve(&a.value);
                (self.attribute(base, a, Some(&c.arguments)), false)
            }
            Expr::Name(n) => self.name(n),
            other => (self.eval(other), false),
        };
        if unpacks_in_call(&c.arguments) {
            self.feature("several `*`/`**` unpackings in a call", 5, c.start());
        }
        let mut first_arg = None;
        for (i, arg) in c.arguments.args.iter().enumerate() {
            let v = self.eval(arg);
            if i == 0 {
                first_arg = Some(v);
            }
        }
        for kw in &c.arguments.keywords {
            self.eval(&kw.value);
        }
        let kinds = if kind == UseKind::Call {
            (UseKind::Call, None)
        } else {
            (kind, Some(UseKind::Call))
        };
        if let Expr::Attribute(a) = &*c.func {
            if !matches!(callee, Value::Api(_)) {
                if let Some((access, path)) =
                    external::member_file_call(a.attr.as_str(), &c.arguments)
                {
                    let call = format!(".{}", a.attr.as_str());
                    self.file_use(access, path, call, c.start());
                }
            }
        }
        match callee {
            Value::Api(p) => {
                match &*c.func {
                    Expr::Name(n) if star => {
                        self.star_candidates(n, Some(UseKind::Call), Some(&c.arguments));
                    }
                    _ => self.record(
                        &Value::Api(p.clone()),
                        kinds.0,
                        kinds.1,
                        c.start(),
                        Some(&c.arguments),
                    ),
                }
                self.special_call(&p, c);
                self.external_call(&p, c);
                if is_class_name(&p) {
                    Value::Instance(p)
                } else {
                    Value::Derived(p)
                }
            }
            Value::Bound(p, inherited) => {
                let bound = Value::Bound(p.clone(), inherited);
                self.record(&bound, UseKind::Call, None, c.start(), Some(&c.arguments));
                Value::Derived(p)
            }
            Value::Instance(p) | Value::Derived(p) => Value::Derived(p),
            Value::LocalClass(k) => Value::LocalInstance(k),
            Value::Function(ret) => ret.map_or(Value::Local, |r| (*r).clone()),
            Value::LocalInstance(_) => Value::Local,
            Value::Unknown => Value::Unknown,
            Value::Local => {
                let Expr::Name(n) = &*c.func else {
                    return Value::Local;
                };
                if n.id == "open" {
                    self.external_call("open", c);
                }
                if builtins::passes_through(&n.id) {
                    return first_arg.map_or(Value::Local, |v| match v.library_origin() {
                        Some(o) => Value::Derived(o.clone()),
                        None => v,
                    });
                }
                if n.id == "print" && !self.print_function {
                    let py3_keyword = c
                        .arguments
                        .keywords
                        .iter()
                        .filter_map(|k| k.arg.as_ref())
                        .any(|a| matches!(a.as_str(), "end" | "sep" | "file" | "flush"));
                    if py3_keyword {
                        self.feature("print() with keyword arguments", 0, c.start());
                    }
                }
                Value::Local
            }
        }
    }

    /// Calls with side effects nbenv cares about: `sys.path.append('lib')`, model and data
    /// downloads.
    fn special_call(&mut self, path: &str, c: &ExprCall) {
        let first_string = || c.arguments.args.iter().find_map(string_literal);
        match path {
            "sys.path.append" | "sys.path.insert" => {
                if let Some(dir) = c.arguments.args.last().and_then(string_literal) {
                    let at = self.at(c.start());
                    self.ev.sys_path_dirs.push((dir.to_string(), at));
                    self.note(NoteKind::SysPath, format!("{path}({dir:?})"), at);
                }
            }
            "nltk.download"
            | "spacy.cli.download"
            | "spacy.load"
            | "stanza.download"
            | "gensim.downloader.load"
            | "nltk.downloader.download" => {
                let at = self.at(c.start());
                let detail = match first_string() {
                    Some(arg) => format!("{path}({arg:?})"),
                    None => format!("{path}(…)"),
                };
                self.note(NoteKind::ModelDownload, detail, at);
            }
            _ => self.download_call(path, c),
        }
    }

    /// Calls that fetch pretrained models or data sets when they run: the environment needs
    /// the network (or a cache) as well as the packages.
    fn download_call(&mut self, path: &str, c: &ExprCall) {
        let keyword = |name: &str| {
            c.arguments
                .keywords
                .iter()
                .find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == name))
                .map(|k| &k.value)
        };
        let is_true = |e: Option<&Expr>| matches!(e, Some(Expr::BooleanLiteral(b)) if b.value);
        let shown = |args: String| format!("{path}({args})");
        let first = c.arguments.args.first().and_then(string_literal);
        let under = |prefixes: &[&str]| prefixes.iter().any(|p| path.starts_with(p));
        let found = if path.ends_with(".from_pretrained") {
            Some((
                NoteKind::ModelDownload,
                shown(first.map_or("…".into(), |a| format!("{a:?}"))),
            ))
        } else if is_true(keyword("pretrained")) {
            Some((NoteKind::ModelDownload, shown("pretrained=True".into())))
        } else if under(&[
            "torchvision.models.",
            "keras.applications.",
            "tensorflow.keras.applications.",
        ]) && keyword("weights").is_some_and(|w| !matches!(w, Expr::NoneLiteral(_)))
        {
            let weights = keyword("weights").and_then(string_literal);
            Some((
                NoteKind::ModelDownload,
                shown(format!(
                    "weights={}",
                    weights.map_or("…".into(), |w| format!("{w:?}"))
                )),
            ))
        } else if is_true(keyword("download")) {
            Some((NoteKind::DataDownload, shown("download=True".into())))
        } else if under(&["keras.datasets.", "tensorflow.keras.datasets."])
            && path.ends_with(".load_data")
        {
            Some((NoteKind::DataDownload, shown(String::new())))
        } else if path.ends_with(".get_file") || path.ends_with(".urlretrieve") {
            Some((
                NoteKind::DataDownload,
                shown(first.map_or("…".into(), |a| format!("{a:?}"))),
            ))
        } else {
            None
        };
        if let Some((kind, detail)) = found {
            let at = self.at(c.start());
            self.note(kind, detail, at);
        }
    }

    /// Files a call opens by a literal path, and its use of the network.
    fn external_call(&mut self, path: &str, c: &ExprCall) {
        if let Some((access, file)) = external::file_call(path, &c.arguments) {
            self.file_use(access, file, path.to_string(), c.start());
        }
        if let Some(kind) = external::network_call(path) {
            let at = self.at(c.start());
            self.ev.network.push(NetworkUse {
                kind,
                detail: path.to_string(),
                at,
            });
        }
    }

    pub(crate) fn file_use(
        &mut self,
        access: FileAccess,
        path: String,
        call: String,
        offset: ruff_text_size::TextSize,
    ) {
        let at = self.at(offset);
        self.ev.files.push(FileUse {
            path,
            access,
            call,
            at,
        });
    }

    /// nbconvert writes magics as `get_ipython().run_line_magic('matplotlib', 'inline')`.
    fn ipython_call(&mut self, c: &ExprCall) -> bool {
        let Expr::Attribute(a) = &*c.func else {
            return false;
        };
        let Expr::Call(inner) = &*a.value else {
            return false;
        };
        if !matches!(&*inner.func, Expr::Name(n) if n.id == "get_ipython") {
            return false;
        }
        let args: Vec<&str> = c.arguments.args.iter().filter_map(string_literal).collect();
        let at = self.at(c.start());
        match (a.attr.as_str(), args.as_slice()) {
            ("run_line_magic", [name, line, ..]) => {
                let value = format!("{name} {line}");
                self.line_magic(&value, at);
            }
            ("magic", [value, ..]) => self.line_magic(value, at),
            ("system" | "getoutput", [command, ..]) => self.shell(command, at),
            ("run_cell_magic", [name, line, body, ..]) => {
                let saved = self.cell;
                self.cell_magic(saved, name, line, at.line, body, true);
                self.cell = saved;
            }
            _ => return false,
        }
        true
    }
}

/// The value of an operation on two values: a library operand wins (`X / 255.0` is still
/// what `X` was derived from), then an unknown one.
fn combine(a: Value, b: Value) -> Value {
    if let Some(o) = a.library_origin() {
        return Value::Derived(o.clone());
    }
    if let Some(o) = b.library_origin() {
        return Value::Derived(o.clone());
    }
    if a == Value::Unknown || b == Value::Unknown {
        Value::Unknown
    } else {
        Value::Local
    }
}

#[cfg(test)]
mod tests {
    use super::super::collect::kinds_of;
    use super::super::usage::NoteKind;
    use super::*;

    fn trace(source: &str) -> Tracer {
        let mut t = Tracer::new();
        t.python(1, source, 0);
        t
    }

    /// Every recorded API with its kinds, sorted by path.
    fn apis(t: &Tracer) -> Vec<(String, Vec<UseKind>)> {
        let mut out: Vec<_> =
            t.ev.apis
                .iter()
                .map(|(p, acc)| (p.to_string(), kinds_of(acc.kinds)))
                .collect();
        out.sort();
        out
    }

    fn api(t: &Tracer, path: &str) -> Vec<UseKind> {
        let acc = t.ev.apis.get(path);
        kinds_of(
            acc.unwrap_or_else(|| panic!("{path} not recorded: {:?}", apis(t)))
                .kinds,
        )
    }

    /// (member, origin) of every member use on a value nbenv cannot type.
    fn members(t: &Tracer) -> Vec<(String, Option<String>)> {
        let mut out: Vec<_> =
            t.ev.members
                .iter()
                .flat_map(|(m, accs)| {
                    accs.iter()
                        .map(|a| (m.to_string(), a.origin.as_deref().map(str::to_string)))
                })
                .collect();
        out.sort();
        out
    }

    #[test]
    fn attribute_chains_are_recorded_once_whole() {
        let t = trace("import numpy as np\nx = np.random.RandomState(0)\ny = np.pi\n");
        assert_eq!(
            apis(&t),
            [
                ("numpy.pi".to_string(), vec![UseKind::Attribute]),
                ("numpy.random.RandomState".to_string(), vec![UseKind::Call]),
            ]
        );
    }

    #[test]
    fn calls_keep_their_keywords() {
        let t = trace("import pandas as pd\npd.read_csv('a.csv', sep=';', header=None)\n");
        let acc = &t.ev.apis["pandas.read_csv"];
        let mut keywords: Vec<&str> = acc.keywords.iter().map(|k| &**k).collect();
        keywords.sort();
        assert_eq!(keywords, ["header", "sep"]);
        assert_eq!(acc.count, 1);
    }

    #[test]
    fn instances_of_library_classes_are_traced() {
        let t = trace(
            "from sklearn.linear_model import LinearRegression\n\
             m = LinearRegression(fit_intercept=False)\n\
             m.fit(X, y)\n\
             m.coef_\n",
        );
        assert_eq!(
            api(&t, "sklearn.linear_model.LinearRegression.fit"),
            [UseKind::Call, UseKind::Traced]
        );
        assert_eq!(
            api(&t, "sklearn.linear_model.LinearRegression.coef_"),
            [UseKind::Attribute, UseKind::Traced]
        );
    }

    #[test]
    fn derived_values_keep_their_library_origin() {
        // A function's result is not an instance: its members are evidence about the function.
        let t = trace(
            "import numpy as np\n\
             X = -np.zeros(3) / 255.0\n\
             X.reshape(1, 3)\n\
             f = lambda: np.ones(2)\n\
             f().sum()\n\
             z = unknown.thing\n\
             z.ix\n",
        );
        assert_eq!(
            members(&t),
            [
                ("ix".into(), None),
                ("reshape".into(), Some("numpy.zeros".into())),
                ("sum".into(), Some("numpy.ones".into())),
                ("thing".into(), None),
            ]
        );
    }

    #[test]
    fn star_imports_make_bare_names_candidates() {
        let t = trace("from pylab import *\nplot(x, linewidth=2)\n");
        assert_eq!(api(&t, "pylab.plot"), [UseKind::Call, UseKind::Star]);
        assert_eq!(t.ev.apis["pylab.plot"].keywords.len(), 1);
    }

    #[test]
    fn python_2_names_and_newer_syntax_are_version_hints() {
        let t = trace("r = xrange(3)\nd.has_key('a')\ns = f'{a}'\nm = a @ b\n");
        let hints: Vec<(&str, String, bool)> =
            t.ev.hints
                .iter()
                .map(|h| (h.detail.as_str(), h.range.to_string(), h.weak))
                .collect();
        // `d.has_key` may be a method of any class: weak evidence; `xrange` is a builtin.
        assert_eq!(
            hints,
            [
                ("xrange", "<=2.7".into(), false),
                ("dict.has_key", "<=2.7".into(), true),
                ("f-string", ">=3.6".into(), false),
                ("`@` operator", ">=3.5".into(), false),
            ]
        );
    }

    /// The syntax hints of `source`, as (detail, range).
    fn syntax_hints(source: &str) -> Vec<(String, String)> {
        trace(source)
            .ev
            .hints
            .iter()
            .filter(|h| h.reason == HintReason::SyntaxFeature)
            .map(|h| (h.detail.clone(), h.range.to_string()))
            .collect()
    }

    #[test]
    fn syntax_of_python_3_3_to_3_6_is_a_version_hint() {
        let one = |source: &str, detail: &str, range: &str| {
            assert_eq!(
                syntax_hints(source),
                [(detail.to_string(), range.to_string())],
                "{source}"
            );
        };
        one("def g():\n    yield from h()\n", "`yield from`", ">=3.3");
        one(
            "raise ValueError() from None\n",
            "`raise ... from None`",
            ">=3.3",
        );
        one(
            "raise ValueError() from e\n",
            "`raise ... from ...`",
            ">=3.0",
        );
        one("a @= b\n", "`@=` operator", ">=3.5");
        for display in [
            "x = [*a, *b]\n",
            "x = (*a, 1)\n",
            "x = {*a}\n",
            "x = {**a, 'k': 1}\n",
        ] {
            one(display, "`*`/`**` unpacking in a display", ">=3.5");
        }
        for call in [
            "f(*a, *b)\n",
            "f(*a, b)\n",
            "f(**a, **b)\n",
            "f(**a, k=1)\n",
        ] {
            one(call, "several `*`/`**` unpackings in a call", ">=3.5");
        }
        let async_with = syntax_hints("async def f():\n    async with a:\n        pass\n");
        assert!(async_with.contains(&("async with".into(), ">=3.5".into())));
        let agen = syntax_hints("async def f():\n    yield 1\n");
        assert!(
            agen.contains(&("async generator".into(), ">=3.6".into())),
            "{agen:?}"
        );
        let acomp = syntax_hints("async def f():\n    return [x async for x in a]\n");
        assert!(acomp.contains(&("async comprehension".into(), ">=3.6".into())));
        one("n = 1_000_000\n", "underscore in a number", ">=3.6");
        one("n = 0x_FF + 1_0.5j\n", "underscore in a number", ">=3.6");
        one("x: int = 1\n", "variable annotation", ">=3.6");
        // What Python 3.0–3.4 already accepted says nothing more.
        for old in [
            "f(*a, **k)\n",
            "f(a, *b, c=1)\n",
            "f(c=1, *b)\n",
            "f(c=1, **k)\n",
            "[a, *b] = x\n",
            "for a, *b in x:\n    pass\n",
            "x = [a, b], {'k': 1}, {1}\n",
            "n = 1000 + 1.5e3 + 0xFF + 2j\n",
            "async def f():\n    def g():\n        yield 1\n    return g\n",
            "async def f():\n    return lambda: (yield)\n",
        ] {
            let hints = syntax_hints(old);
            assert!(
                hints
                    .iter()
                    .all(|(d, _)| d == "async def" || d == "starred assignment target"),
                "{old}: {hints:?}"
            );
        }
    }

    #[test]
    fn calls_with_side_effects_are_noted() {
        let t = trace(
            "import sys, nltk\nsys.path.append('lib')\nnltk.download('punkt')\n\
             import torch\nprint(torch.__version__)\n",
        );
        assert_eq!(t.ev.sys_path_dirs.len(), 1);
        assert_eq!(t.ev.sys_path_dirs[0].0, "lib");
        let notes: Vec<(NoteKind, &str)> =
            t.ev.notes
                .iter()
                .map(|n| (n.kind, n.detail.as_str()))
                .collect();
        assert_eq!(
            notes,
            [
                (NoteKind::SysPath, "sys.path.append(\"lib\")"),
                (NoteKind::ModelDownload, "nltk.download(\"punkt\")"),
            ]
        );
        assert_eq!(t.ev.version_probes, [(1, "torch".into())]);
    }

    #[test]
    fn nbconvert_magic_calls_are_followed() {
        let t = trace(
            "get_ipython().run_line_magic('matplotlib', 'inline')\n\
             get_ipython().system('pip install seaborn==0.9.0')\n",
        );
        let modules: Vec<&str> = t.ev.imports.iter().map(|i| i.module.as_str()).collect();
        assert_eq!(modules, ["matplotlib"]);
        assert_eq!(
            t.ev.requirements[0].requirement.to_string(),
            "seaborn==0.9.0"
        );
        assert!(t.ev.apis.keys().all(|k| !k.contains("get_ipython")));
    }

    #[test]
    fn generated_deep_expressions_stop_at_the_bound() {
        // `np.pi + 1 + 1 …` nests `np.pi` 1000 deep on the left: past the bound, not followed
        // (and the tree is dropped on a big stack, not overflowing this one).
        let source = format!(
            "import numpy as np\nx = np.pi{}\ny = np.e\n",
            " + 1".repeat(1000)
        );
        let t = trace(&source);
        assert!(!t.ev.apis.contains_key("numpy.pi"));
        assert_eq!(api(&t, "numpy.e"), [UseKind::Attribute]);
        // Shallow code is followed.
        let t = trace("import numpy as np\nx = np.pi + 1 + 2\n");
        assert_eq!(api(&t, "numpy.pi"), [UseKind::Attribute]);
    }

    #[test]
    fn member_examples_are_short() {
        let parsed = ruff_python_parser::parse_expression("pd.read_csv(x).groupby(a)[0]").unwrap();
        assert_eq!(
            example(parsed.expr(), "ix"),
            "pd.read_csv(…).groupby(…)[…].ix"
        );
        let deep = ruff_python_parser::parse_expression("a.b.c.d.e.f.g.h.i").unwrap();
        assert_eq!(example(deep.expr(), "x"), "….c.d.e.f.g.h.i.x");
    }
}
