//! Pins that hinge on unknown answers. Where static reading cannot tell whether a release has
//! an API (pandas 0.x makes `DataFrame.ix` with `setattr` under computed names; compiled
//! modules hide theirs), the answer is "unknown" and rules nothing out. The searches of
//! [`super::plan`] introspect releases where they need an answer; a pin can still land on an
//! unknown release no search needed (between two that have it): it is introspected before it
//! is trusted.

use super::probe::{Action, Probe, ProbeReason};
use super::{from_bank, settles, what, Known};
use crate::bank::store::IndexStatus;
use crate::resolve::evidence::{BankReadError, BankView, ReleaseState};
use crate::resolve::infer::Inference;

/// A pin whose evidence the bank cannot answer there.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Hinging {
    pub pin: Probe,
    /// The evidence unknown at the pin (`.ix`, `pandas.DataFrame.ix`).
    pub unknown: Vec<String>,
}

/// The pins that hinge on unknown answers introspection can settle (names, not keywords).
pub fn hinging<B: BankView + ?Sized>(
    inference: &Inference,
    bank: &B,
) -> Result<Vec<Hinging>, BankReadError> {
    let mut out = Vec::new();
    for pin in inference.solution.roots() {
        let Some(d) = inference
            .evidence
            .distributions
            .iter()
            .find(|d| d.dist == pin.dist)
        else {
            continue;
        };
        let Some(catalog) = bank.catalog(&pin.dist)? else {
            continue;
        };
        let Some(at) = catalog.find(&pin.version) else {
            continue;
        };
        if at.index != IndexStatus::Indexed {
            continue;
        }
        let unknown: Vec<String> = d
            .records
            .iter()
            .filter(|r| from_bank(r) && settles(r))
            .filter(|r| Known::of(&catalog, r).state(at.slot) == Some(ReleaseState::Unknown))
            .map(what)
            .collect();
        if unknown.is_empty() {
            continue;
        }
        out.push(Hinging {
            pin: Probe {
                dist: pin.dist.clone(),
                version: Some(pin.version.clone()),
                reason: ProbeReason::Unknown {
                    what: unknown.join(", "),
                },
                action: Action::Introspect,
            },
            unknown,
        });
    }
    Ok(out)
}

/// The hinging pins, to introspect: not those an earlier run could not introspect here.
pub fn unsettled_pins<B: BankView + ?Sized>(
    inference: &Inference,
    bank: &B,
) -> Result<Vec<Probe>, BankReadError> {
    let mut out = Vec::new();
    for h in hinging(inference, bank)? {
        let gap = match (&h.pin.version, bank.catalog(&h.pin.dist)?) {
            (Some(v), Some(catalog)) => catalog.find(v).is_some_and(|r| r.runtime_gap),
            _ => false,
        };
        if !gap {
            out.push(h.pin);
        }
    }
    Ok(out)
}
