//! One restoration's rounds for a [`Target`]: its usages read, then `restore`'s rounds.

use std::time::Instant;

use crate::modernize::forward::ForwardFrom;
use crate::modernize::restoring::Attempt;
use crate::notebook::AnalyzeOptions;
use crate::reporter::Reporter;
use crate::resolve::session::read_usages_of;
use crate::restore::{restore, RoundsSpec};

use super::super::CommandError;
use super::{RestoreSettings, Rig, Target};

/// Runs restore's rounds for `target`.
pub fn attempt(
    rig: &Rig,
    settings: &RestoreSettings,
    target: Target,
    reporter: &dyn Reporter,
) -> Result<Attempt, CommandError> {
    let options = settings.infer_options(&target);
    let analysed = Instant::now();
    let mut usages = read_usages_of(&options, Some(&target.nb), reporter)?;
    let analyze = AnalyzeOptions::default();
    let overrides = target.original.as_ref().map_or(Vec::new(), |o| {
        crate::modernize::modules::moved_texts(&o.modules, o.candidates)
    });
    crate::notebook::with_overrides(&mut usages, &overrides, &analyze);
    let analysis = analysed.elapsed();
    let restored = {
        let forward = target.original.as_ref().map(|o| ForwardFrom {
            original: &o.nb,
            bytes: &o.bytes,
            analyze: &analyze,
            name: target.notebook.display().to_string(),
            candidates: o.candidates,
            modules: &o.modules,
        });
        let spec = RoundsSpec {
            forward,
            overrides: &overrides,
            ..rig.spec(settings, &target.notebook, &target.nb)
        };
        restore(reporter, &options, &rig.session, &mut usages, &spec)?
    };
    Ok(Attempt {
        notebook: target.notebook,
        nb: target.nb,
        analysis,
        restored,
    })
}
