//! Stage infer: the usage stage, then the environment resolved as `nbenv infer` resolves it
//! (lazily indexing what the bank lacks, unless the batch never indexes), within the
//! notebook's time limit.

use std::time::Instant;

use super::{Batch, Job};
use crate::measure::record::{millis, Environment, Record, Requirement, Stage};
use crate::measure::triage::add_resolution;
use crate::measure::usage_stage::analyse;
use crate::notebook::failure::ApiHistory;
use crate::resolve::infer::Inference;
use crate::resolve::interpreter::Reach;
use crate::resolve::session::{infer_usages_with, InferRun};
use crate::resolve::solver::{Catalog, Pin, RequiredBy};

pub(super) fn measure_infer(batch: &Batch<'_>, job: &Job<'_>) -> Option<Record> {
    let analysed = match analyse(
        job.input,
        &job.bytes,
        job.sha256.clone(),
        Stage::Infer,
        &batch.analyze,
        batch.infer.declarations,
        batch.history().as_ref().map(|h| h as &dyn ApiHistory),
    ) {
        Ok(a) => a,
        Err(record) => return Some(*record),
    };
    let mut record = analysed.record;
    let session = batch.session.expect("opened for stage infer");
    let started = Instant::now();
    let usages = job.with_local_imports(&batch.analyze, analysed.usage);
    let result = infer_usages_with(
        &batch.infer_options(&job.input.file),
        session,
        &usages,
        &[],
        InferRun {
            deadline: Some(job.deadline),
            catalog: batch.catalog.as_ref().map(|c| c as &dyn Catalog),
            bank: batch.remembered(),
            failed: &[],
            reach: Reach::Known,
            skip_pythons: &[],
            steer: &[],
        },
        batch.reporter,
    );
    record.timings.infer_ms = Some(millis(started.elapsed()));
    match result {
        Ok(found) => {
            if let Some(t) = record.triage.as_mut() {
                add_resolution(t, &found.inference.evidence.imports);
            }
            record.environment = Some(environment(&found.inference));
        }
        Err(e) => batch.failed(&mut record, e.into())?,
    }
    Some(record)
}

/// The resolution as the record keeps it: what the notebook asks for, and the rest.
pub fn environment(inference: &Inference) -> Environment {
    let (roots, rest): (Vec<_>, Vec<_>) = inference.solution.pins.iter().partition(|p| {
        p.required_by
            .iter()
            .any(|r| matches!(r, RequiredBy::Root { .. }))
    });
    let requirement = |p: &&Pin| Requirement {
        dist: p.dist.clone(),
        version: p.version.clone(),
    };
    Environment {
        python: inference.python.version,
        python_installed: inference.python.installed.is_some(),
        requirements: roots.iter().map(requirement).collect(),
        dependencies: rest.iter().map(requirement).collect(),
        built_from_sdist: inference
            .pure_sdists
            .iter()
            .chain(inference.sdist_fallback.iter().flat_map(|f| &f.built))
            .map(|(dist, version)| Requirement {
                dist: dist.clone(),
                version: version.clone(),
            })
            .collect(),
    }
}
