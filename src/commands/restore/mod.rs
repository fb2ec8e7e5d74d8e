//! `restore`: infer, build the environment, run the notebook, and when it stops at an
//! environment error, turn the error into evidence and go again, a few rounds at most; with
//! `--prefer modern`, the modernized notebook first ([`modern`]). What is asked after the
//! rounds is done by [`finish`]: the caller prints the [`RestoreOutcome`].

mod attempt;
mod finish;
mod modern;
mod rig;
mod settings;
mod tried;

pub use attempt::attempt;
pub use finish::{finish, KeptEnvironment, RestoreOutcome};
pub use rig::Rig;
pub use settings::{Original, RestoreSettings, Target};
pub use tried::Tried;

use crate::modernize::prefer::Mode;
use crate::reporter::Reporter;

use super::{CommandError, GlobalSettings};

/// Restores `settings.notebook` as the settings say.
pub fn run(
    global: &GlobalSettings,
    settings: &RestoreSettings,
    reporter: &dyn Reporter,
) -> Result<RestoreOutcome, CommandError> {
    let (bytes, nb) = crate::notebook::read_with_bytes(&settings.notebook)?;
    let rig = Rig::open(global, settings)?;
    let (kept, tried) = match settings.prefer {
        Mode::Modern => {
            let (kept, tried) = modern::preferred(global, &rig, settings, &bytes, nb, reporter)?;
            (kept, Some(tried))
        }
        Mode::Era => (
            attempt(&rig, settings, Target::era(settings, nb), reporter)?,
            None,
        ),
    };
    finish(global, &rig, settings, kept, tried, reporter)
}
