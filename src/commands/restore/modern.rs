//! `restore --prefer modern`: the notebook modernized and restored on the newest installed
//! Python first; in its era when that does not run to the end. The order and the fallback
//! are [`crate::modernize::prefer::prefer`]'s, the steps [`Restoring`]'s; this writes the
//! modernized notebook beside the input when it is the one kept.

use std::time::Instant;

use crate::modernize::prefer::{modern_path, prefer, Mode};
use crate::modernize::restoring::{Attempt, Evidence, Restoring};
use crate::modernize::trial::CandidatesKept;
use crate::notebook::{AnalyzeOptions, Notebook};
use crate::output::write_atomically;
use crate::reporter::Reporter;
use crate::resolve::options::{EraChoice, InferOptions, PythonSource};
use crate::resolve::session::{read_usages_of, InferRun};

use super::super::{CommandError, GlobalSettings};
use super::{RestoreSettings, Rig, Target, Tried};
use crate::output::same_file;

/// The kept attempt (the modern one or the era's), and how the modern one fared.
pub fn preferred(
    global: &GlobalSettings,
    rig: &Rig,
    settings: &RestoreSettings,
    bytes: &[u8],
    nb: Notebook,
    reporter: &dyn Reporter,
) -> Result<(Attempt, Tried), CommandError> {
    let input = &settings.notebook;
    let written = modern_path(input);
    if same_file(&written, input) {
        return Err(CommandError::WouldOverwriteInput(written));
    }
    let analysed = Instant::now();
    // The era's own Python: `--python` chooses the modern attempt's.
    let era = Target {
        python: None,
        ..Target::era(settings, nb.clone())
    };
    let options = settings.infer_options(&era);
    let mut usages = read_usages_of(&options, Some(&nb), reporter)?;
    let analysis = analysed.elapsed();
    let spec = rig.spec(settings, input, &nb);
    let analyze = AnalyzeOptions::default();
    let mut steps = Restoring {
        reporter,
        session: &rig.session,
        input,
        nb: &nb,
        bytes,
        analyze: &analyze,
        options: &options,
        usages: &mut usages,
        spec: &spec,
        analysis,
        modern_python: settings
            .python
            .or_else(|| crate::modernize::newest(crate::python::found())),
        modern_source: if settings.python.is_some() {
            PythonSource::Asked
        } else {
            PythonSource::NewestInstalled
        },
        // What the moves need to be seen, indexed as `nbenv modernize` indexes it; the
        // moves are to today's releases, so the notebook's era does not steer it.
        evidence: (!global.offline()).then(|| Evidence {
            options: InferOptions {
                era: EraChoice::Off,
                ..options.clone()
            },
            run: InferRun::default(),
            within: settings.introspect_budget,
        }),
        bank: Some(&global.bank),
        ran_on: None,
    };
    let done = prefer(&mut steps, Mode::Modern);
    let mut tried = Tried::of(&done);
    if let Some(Ok(other)) = &done.set_aside {
        other.discard(&rig.envs);
    }
    let with_candidates = done.candidates.is_some_and(CandidatesKept::written);
    if tried.why.mode() == Mode::Modern {
        let (Some(Ok(m)), Some(Ok(kept))) = (done.modernized, done.modern) else {
            unreachable!("the modern mode is kept only when it ran");
        };
        // The code a run moved forward is the code that ran.
        let m = kept
            .restored
            .forwarded
            .as_ref()
            .map_or(&m, |f| &f.modernized);
        let kept_text = m.written(with_candidates);
        write_atomically(&written, &kept_text.notebook)?;
        if !kept_text.modules.is_empty() {
            let dir = crate::modernize::modules::modules_dir(&written);
            super::super::modernize::write_modules(&dir, &kept_text.modules)?;
            tried.modules_written = Some(dir);
        }
        tried.written = Some(written);
        return Ok((kept, tried));
    }
    if let Some(Ok(modern)) = &done.modern {
        modern.discard(&rig.envs);
    }
    let era = done
        .era
        .expect("the era is tried when the modern mode is not kept")?;
    Ok((era, tried))
}
