//! Import names that no credible distribution provides. They are reported with the reason and
//! never become requirements: a PyPI namesake without the APIs the notebook uses is exactly
//! what must not be emitted.

use std::path::PathBuf;

use serde::Serialize;

use super::provider_list::{AvoidKind, Channel};
use crate::names::{ApiPath, DistName};
use crate::notebook::{LocalSource, Location, RepositoryPlace};

/// Why an import name gets no requirement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "reason")]
pub enum Unresolved {
    /// No distribution the bank, the lists or the index know installs it: most often a
    /// helper module of the notebook's repository that was not copied along.
    NoProvider,
    /// Distributions install a module of that name, but none has any of the APIs the notebook
    /// uses from it: namesakes, not the module the notebook was written against.
    ProvidersLackApis {
        /// Each candidate with the used APIs it lacks in every release.
        providers: Vec<(DistName, Vec<ApiPath>)>,
    },
    /// The only candidates are placeholders, stubs or lookalikes.
    OnlyAvoided { dists: Vec<(DistName, AvoidKind)> },
    /// A module beside the notebook (or written by it): not a requirement.
    LocalModule {
        source: LocalSource,
        file: Option<PathBuf>,
        /// Where in the repository, for a module above the notebook.
        #[serde(skip_serializing_if = "Option::is_none")]
        repository: Option<RepositoryPlace>,
    },
    /// Comes from conda or the system, not from PyPI.
    NotOnPyPi {
        channel: Channel,
        package: Option<String>,
        said_by: NotOnPyPiSource,
    },
}

/// What says an import name is not on PyPI.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum NotOnPyPiSource {
    /// `apibank/providers.txt`, with its note.
    ProviderList { line: usize, note: String },
    /// The notebook installs it with conda, or the system package manager, and nothing on
    /// PyPI provides it.
    Notebook { at: Location, command: String },
}
