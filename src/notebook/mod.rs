//! Reading notebooks and extracting the evidence they hold about their environment.
//!
//! [`read`] turns an `.ipynb` (nbformat 3 or 4), a jupytext percent script or a plain `.py` into
//! a [`Notebook`]; [`analyze`] traces its code cells in order and returns a [`Usage`]: imports,
//! fully qualified APIs (with object tracing across cells), member evidence on values of unknown
//! type, explicit `pip`/`conda` installs, Python-version evidence, stored-output evidence and
//! warnings. [`read_declarations`] reads what the repository around the notebook declares
//! (requirements files, `environment.yml`, `setup.py`, `pyproject.toml`, `runtime.txt`).
//!
//! Locations are 1-based: the cell number counts every cell of the file (markdown and raw
//! included) in file order, and the line counts lines of that cell's source.

mod analyze;
mod binding;
mod builtins;
pub(crate) mod cell;
mod cell_order;
mod collect;
mod commit_date;
mod declarations;
mod error;
mod escape;
mod evaluate;
mod external;
pub mod failure;
mod finish;
mod format;
mod ipynb;
mod local_imports;
mod local_modules;
mod location;
mod magic;
mod nesting;
mod outputs;
mod overrides;
mod python2;
pub(crate) use python2::begins_statement_after;
mod python_version;
mod read;
mod refusal;
mod repository;
mod requirement;
mod runtime_needs;
mod script;
mod shell;
mod stdlib;
mod syntax_version;
mod tracing;
mod usage;

pub use analyze::{analyze, AnalyzeOptions};
pub use cell_order::CellOrder;
pub use commit_date::last_commit_date;
pub use declarations::{
    read_declarations, repository_root, DeclarationKind, DeclarationProblem, Declarations,
    DeclaredAt, DeclaredPython, DeclaredRequirement, PythonDeclaration, MAX_LEVELS_UP,
    WRITTEN_BY_NBENV,
};
pub use error::NotebookError;
pub use external::{is_url, FileAccess, FileUse, NetworkKind, NetworkUse};
pub use format::{Cell, CellKind, Kernel, Notebook, Output, SourceFormat, StreamName};
pub use local_imports::{local_imports, with_local_imports};
pub use location::Location;
pub use outputs::classify_stored_errors;
pub use overrides::{with_overrides, FileOverride};
pub use python_version::{HintReason, VersionHint, KNOWN_VERSIONS};
pub use read::{from_bytes, read, read_with_bytes};
pub use refusal::{Lacked, Refusal};
pub use repository::{Project, RepositoryPlace};
pub use requirement::{pip_requirement, InstallRequirement, Installer};
pub use runtime_needs::{ipython_bound, IPythonBound};
pub use stdlib::{
    api_range as stdlib_api_range, is_stdlib, version_range as stdlib_range, VersionSet,
};
pub use usage::{
    ApiUse, Import, ImportVia, LocalModule, LocalSource, MemberUse, Note, NoteKind, NotebookInfo,
    Origin, OutputEvidence, PythonEvidence, Receiver, ThirdPartyImport, Usage, UseKind, Warning,
};
