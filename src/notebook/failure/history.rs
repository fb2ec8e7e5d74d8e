//! What the classifier asks the bank: whether another release of the library a failure is
//! about would not fail the same way. A name the installed release lacks is the
//! environment's fault only when some release has it; when none ever had it (`pandas.dataframe`,
//! `numpy.asarry`), the notebook's code is at fault. Without a bank, or where the bank cannot
//! see, the answer is unknown, never a guess.
//!
//! The questions go through a trait so that the classifier stays a pure function: the bank's
//! store answers them in production ([`super::BankHistory`]), small fakes in tests.

use pep440_rs::Version;
use serde::Serialize;

use super::cause::FailureClass;
use crate::names::{ApiPath, DistName, ModulePath};

/// The bank's answer about the other releases of the distribution a failure is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "bank", rename_all = "snake_case")]
pub enum BankSays {
    /// Some release of `distribution` has what the installed one lacked: the name, the
    /// keyword, another signature. Another release is the repair.
    SomeRelease { distribution: DistName },
    /// No release of `distribution` has it (every release is indexed, none has it, and static
    /// reading saw all of them): the notebook's code is at fault.
    NoRelease { distribution: DistName },
    /// The bank cannot tell: there is none, it does not know the distribution, some releases
    /// are not indexed, or static reading cannot see the name.
    Unknown,
}

impl BankSays {
    /// The class of a failure the bank's answer decides.
    pub fn class(&self) -> FailureClass {
        match self {
            BankSays::SomeRelease { .. } => FailureClass::Environment,
            BankSays::NoRelease { .. } => FailureClass::Code,
            BankSays::Unknown => FailureClass::Unknown,
        }
    }

    /// Several distributions' answers to one question (those that install one import name):
    /// yes when one says yes, no when every one says no, else unknown.
    pub fn any(answers: impl IntoIterator<Item = BankSays>) -> BankSays {
        let mut no = None;
        let mut unknown = false;
        for answer in answers {
            match answer {
                BankSays::SomeRelease { .. } => return answer,
                BankSays::NoRelease { .. } => {
                    no.get_or_insert(answer);
                }
                BankSays::Unknown => unknown = true,
            }
        }
        match no {
            Some(no) if !unknown => no,
            _ => BankSays::Unknown,
        }
    }
}

/// The questions about a library's releases that decide a failure's class. Each is about the
/// distributions that install the top-level module of the name asked about.
pub trait ApiHistory {
    /// Whether some release has `api` (a module, a function, a class member, reached as
    /// Python reaches it: through aliases and base classes).
    fn api(&self, api: &ApiPath) -> BankSays;

    /// Whether in some release a class named `class` (the last part of its path, as error
    /// messages name types) has a member `member`. `module` is where the value came from: the
    /// distributions that install its top-level name are asked.
    fn member(&self, module: &ModulePath, class: &str, member: &str) -> BankSays;

    /// Where a class named `class` had the member `member` in some release, as an API path
    /// (`pandas.core.series.Series.order`): what the notebook needs, when its own reading
    /// could not say of which class the value was. `None` when no such class had it, or the
    /// bank cannot say.
    fn member_path(&self, _module: &ModulePath, _class: &str, _member: &str) -> Option<ApiPath> {
        None
    }

    /// Whether some release's `api` accepts keyword argument `keyword`.
    fn keyword(&self, api: &ApiPath, keyword: &str) -> BankSays;

    /// Whether `api` changed (its signature, or whether it is there at all) between the
    /// installed release and the releases next to it, or, when the installed release is not
    /// among `installed`, anywhere in the distribution's history.
    fn changed(&self, api: &ApiPath, installed: &[(DistName, Version)]) -> BankSays;
}
