//! What names are bound to while the notebook runs, as far as static tracing can tell.
//! Bindings are replaced in execution order, so a later rebinding ends a trace; the module
//! scope lives across cells like a kernel's namespace does.

use std::collections::HashMap;
use std::rc::Rc;

use ruff_python_ast::name::Name;

/// The abstract value of an expression. Paths are shared (`Rc<str>`) because values are copied
/// on every assignment and lookup.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    /// A module or a name imported from one (`np`, `np.random`, `LinearRegression`):
    /// attributes extend the dotted path.
    Api(Rc<str>),
    /// An instance of a library class, from calling a CamelCase API (`LinearRegression()`):
    /// its attributes are members of that class.
    Instance(Rc<str>),
    /// A member of a library instance (`m.fit` → `…LinearRegression.fit`): a recorded API
    /// whose own attributes are no longer statically known. The flag says it was inherited by
    /// a notebook class rather than traced from a constructor.
    Bound(Rc<str>, bool),
    /// A value returned by (or derived from) a library API: its members are member evidence.
    Derived(Rc<str>),
    /// A class defined in the notebook (index into the tracer's class table).
    LocalClass(u32),
    LocalInstance(u32),
    /// A function defined in the notebook, with what it returns when that is a library value.
    Function(Option<Rc<Value>>),
    /// Known not to involve a library: literals, builtins' results, local functions' results.
    Local,
    /// Nothing is known (parameters, names bound by code that cannot be seen).
    Unknown,
}

impl Value {
    /// The library API a value comes from, if it comes from one.
    pub(crate) fn library_origin(&self) -> Option<&Rc<str>> {
        match self {
            Value::Api(p) | Value::Instance(p) | Value::Bound(p, _) | Value::Derived(p) => Some(p),
            _ => None,
        }
    }

    /// What iterating, indexing or unpacking this value yields.
    pub(crate) fn element(&self) -> Value {
        match self {
            Value::Instance(p) | Value::Bound(p, _) | Value::Derived(p) | Value::Api(p) => {
                Value::Derived(p.clone())
            }
            Value::Unknown => Value::Unknown,
            _ => Value::Local,
        }
    }

    /// Whether evaluation should prefer this value when two operands compete (`df * 2`).
    pub(crate) fn is_library(&self) -> bool {
        self.library_origin().is_some()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FrameKind {
    Module,
    Function,
    Class,
    Comprehension,
}

#[derive(Debug)]
pub(crate) struct Frame {
    pub(crate) kind: FrameKind,
    names: HashMap<Name, Value>,
    /// Names declared `global` in this function.
    globals: Vec<Name>,
    /// The library value a function returns (first `return` of one wins).
    pub(crate) returns: Option<Value>,
    /// The notebook class whose body or method this frame is.
    pub(crate) class: Option<u32>,
}

impl Frame {
    fn new(kind: FrameKind, class: Option<u32>) -> Self {
        Self {
            kind,
            names: HashMap::new(),
            globals: Vec::new(),
            returns: None,
            class,
        }
    }
}

/// The stack of scopes; frame 0 is the notebook's module namespace.
#[derive(Debug)]
pub(crate) struct Scopes {
    frames: Vec<Frame>,
}

impl Default for Scopes {
    fn default() -> Self {
        Self {
            frames: vec![Frame::new(FrameKind::Module, None)],
        }
    }
}

impl Scopes {
    pub(crate) fn push(&mut self, kind: FrameKind, class: Option<u32>) {
        self.frames.push(Frame::new(kind, class));
    }

    pub(crate) fn pop(&mut self) -> Frame {
        debug_assert!(self.frames.len() > 1, "the module frame is never popped");
        self.frames.pop().expect("module frame")
    }

    pub(crate) fn innermost(&mut self) -> &mut Frame {
        self.frames.last_mut().expect("module frame")
    }

    /// The nearest function frame (where `return` values go).
    pub(crate) fn function_frame(&mut self) -> Option<&mut Frame> {
        self.frames
            .iter_mut()
            .rev()
            .find(|f| f.kind == FrameKind::Function)
    }

    /// Whether code is inside a function or method body.
    pub(crate) fn in_function(&self) -> bool {
        self.frames.iter().any(|f| f.kind == FrameKind::Function)
    }

    /// The class whose body is the innermost frame (so a `def` there is a method).
    pub(crate) fn innermost_class_body(&self) -> Option<u32> {
        let frame = self.frames.last().expect("module frame");
        (frame.kind == FrameKind::Class)
            .then_some(frame.class)
            .flatten()
    }

    /// The class whose method is being analysed, if any.
    pub(crate) fn current_class(&self) -> Option<u32> {
        self.frames.iter().rev().find_map(|f| f.class)
    }

    /// Python's lookup: the innermost frame, then enclosing functions (class bodies are not
    /// visible from their methods), then the module.
    pub(crate) fn lookup(&self, name: &str) -> Option<&Value> {
        let last = self.frames.len() - 1;
        for (i, frame) in self.frames.iter().enumerate().rev() {
            if frame.kind == FrameKind::Class && i != last {
                continue;
            }
            if let Some(v) = frame.names.get(name) {
                return Some(v);
            }
        }
        None
    }

    pub(crate) fn bind(&mut self, name: &Name, value: Value) {
        let frame = self.frames.last_mut().expect("module frame");
        if frame.globals.iter().any(|g| g == name) {
            self.frames[0].names.insert(name.clone(), value);
        } else {
            frame.names.insert(name.clone(), value);
        }
    }

    pub(crate) fn bind_global(&mut self, name: &Name, value: Value) {
        self.frames[0].names.insert(name.clone(), value);
    }

    pub(crate) fn unbind(&mut self, name: &str) {
        if let Some(frame) = self.frames.last_mut() {
            frame.names.remove(name);
        }
    }

    pub(crate) fn declare_global(&mut self, name: &Name) {
        self.innermost().globals.push(name.clone());
    }

    /// The names a frame bound, for class bodies whose bindings become class members.
    pub(crate) fn into_names(frame: Frame) -> HashMap<Name, Value> {
        frame.names
    }
}

/// A class defined in the notebook.
#[derive(Debug, Default)]
pub(crate) struct LocalClass {
    /// The first base that is a library class, directly or through a notebook base class.
    pub(crate) library_base: Option<Rc<str>>,
    /// A notebook class this one derives from, for member lookup.
    pub(crate) local_base: Option<u32>,
    /// Class-body bindings and attributes assigned on `self` in its methods.
    pub(crate) members: HashMap<Name, Value>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rebinding_and_scopes() {
        let mut s = Scopes::default();
        let m = Name::new("m");
        s.bind(&m, Value::Instance("a.B".into()));
        s.push(FrameKind::Class, Some(0));
        s.bind(&Name::new("x"), Value::Local);
        s.push(FrameKind::Function, Some(0));
        // class-body names are invisible in methods, module names are visible
        assert_eq!(s.lookup("x"), None);
        assert_eq!(s.lookup("m"), Some(&Value::Instance("a.B".into())));
        s.declare_global(&m);
        s.bind(&m, Value::Local);
        s.pop();
        s.pop();
        assert_eq!(s.lookup("m"), Some(&Value::Local));
    }
}
