//! The Python 3 rules a Python 2 rewrite rests on, each with the PEP or the language change
//! that makes it one meaning: the evidence of kind `python3`.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    PrintFunction,
    ExecFunction,
    ExceptAs,
    RaiseCall,
    Backticks,
    NotEqual,
    OctalLiteral,
    LongLiteral,
    UnicodeRawString,
    RenamedBuiltin,
    ReduceMoved,
    DictIteration,
    HasKey,
    NextBuiltin,
    RenamedModule,
    SplitModule,
    ItertoolsBuiltin,
    StringConstant,
    SysMaxint,
    GetcwdU,
    ListOfIterator,
    FloorDivision,
}

impl Rule {
    /// What was rewritten, as the report lists it.
    pub fn label(self) -> &'static str {
        match self {
            Rule::PrintFunction => "print statements -> print()",
            Rule::ExecFunction => "exec statements -> exec()",
            Rule::ExceptAs => "`except E, e` -> `except E as e`",
            Rule::RaiseCall => "`raise E, msg` -> `raise E(msg)`",
            Rule::Backticks => "backticks -> repr()",
            Rule::NotEqual => "`<>` -> `!=`",
            Rule::OctalLiteral => "`0777` -> `0o777`",
            Rule::LongLiteral => "`10L` -> `10`",
            Rule::UnicodeRawString => "`ur''` -> `r''`",
            Rule::RenamedBuiltin => {
                "xrange, raw_input, unicode, basestring, long, unichr -> their Python 3 names"
            }
            Rule::ReduceMoved => "`reduce` imported from functools",
            Rule::DictIteration => {
                "`iteritems()`, `itervalues()`, `iterkeys()` -> `items()`, `values()`, `keys()`"
            }
            Rule::HasKey => "`d.has_key(k)` -> `k in d`",
            Rule::NextBuiltin => "`it.next()` -> `next(it)`",
            Rule::RenamedModule => {
                "renamed standard-library modules (cPickle, StringIO, Queue, urlparse, ...)"
            }
            Rule::SplitModule => {
                "`urllib`, `urllib2` -> `urllib.request`, `urllib.parse`, `urllib.error`"
            }
            Rule::ItertoolsBuiltin => "`izip`, `imap`, `ifilter` -> `zip`, `map`, `filter`",
            Rule::StringConstant => "`string.letters` -> `string.ascii_letters`",
            Rule::SysMaxint => "`sys.maxint` -> `sys.maxsize`",
            Rule::GetcwdU => "`os.getcwdu()` -> `os.getcwd()`",
            Rule::ListOfIterator => "`list(...)` around an iterator used as a list",
            Rule::FloorDivision => "`/` between integers -> `//`",
        }
    }

    /// The rule, as the report cites it.
    pub fn citation(self) -> &'static str {
        match self {
            Rule::PrintFunction => "PEP 3105: print is a function",
            Rule::ExecFunction => "PEP 3100: exec is a function",
            Rule::ExceptAs => "PEP 3110: `except E as e`",
            Rule::RaiseCall => "PEP 3109: the exception is raised as an instance",
            Rule::Backticks => "PEP 3099: backticks are gone; `repr()`",
            Rule::NotEqual => "PEP 3099: `<>` is gone; `!=`",
            Rule::OctalLiteral => "PEP 3127: octal literals are written `0o`",
            Rule::LongLiteral => "PEP 237: one integer type, no `L` suffix",
            Rule::UnicodeRawString => "PEP 414: no `ur''` prefix; every string is text",
            Rule::RenamedBuiltin => "PEP 3100, 3111: builtins renamed in Python 3",
            Rule::ReduceMoved => "PEP 3100: `reduce` moved to `functools`",
            Rule::DictIteration => "PEP 3106: `keys`, `values` and `items` return views",
            Rule::HasKey => "PEP 3106: `dict.has_key` is gone; `in`",
            Rule::NextBuiltin => "PEP 3114: an iterator's `next` is `__next__`; `next(it)`",
            Rule::RenamedModule | Rule::SplitModule => {
                "PEP 3108: the standard library's modules renamed"
            }
            Rule::ItertoolsBuiltin => {
                "PEP 3100: `zip`, `map` and `filter` return iterators; `izip`, `imap`, `ifilter` are gone"
            }
            Rule::StringConstant => "`string.letters` and friends became `string.ascii_*`",
            Rule::SysMaxint => "PEP 237: `sys.maxint` is gone; `sys.maxsize`",
            Rule::GetcwdU => "PEP 3137: `os.getcwd` returns text",
            Rule::ListOfIterator => {
                "PEP 3100: `map`, `filter`, `zip` and dict views are no lists; used as one here"
            }
            Rule::FloorDivision => "PEP 238: `/` is true division; `//` between integers",
        }
    }
}

/// A line of Python 2 code whose meaning may change in Python 3, left as written: a reader
/// should check it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Caution {
    /// `/` with an integer operand: Python 2 floored it between integers.
    Division,
    /// `map`, `filter` or `zip` kept as a value: an iterator now, used up once.
    Iterator,
    /// A cell still not Python 3 after the rewrite: left as written.
    NotConverted,
    /// A module split in Python 3 whose member has no known place.
    UnknownMember,
    /// `print (a, b)`: Python 2 printed the tuple, Python 3 prints its items.
    PrintTuple,
}

impl Caution {
    pub fn says(self) -> &'static str {
        match self {
            Caution::Division => {
                "`/` with an integer operand: Python 2 floored it when both were integers"
            }
            Caution::Iterator => "an iterator in Python 3, not a list: it is used up once",
            Caution::NotConverted => "still not Python 3 after the rewrite; left as written",
            Caution::UnknownMember => "a member of a Python 2 module with no known Python 3 place",
            Caution::PrintTuple => {
                "Python 2 printed this as a tuple, `(a, b)`; Python 3 prints its items, `a b`"
            }
        }
    }
}
