//! Pins that hinge on unknown answers. Where static reading cannot tell whether a release has
//! an API (pandas 0.x makes `DataFrame.ix` with `setattr` under computed names; compiled
//! modules hide theirs), the answer is "unknown" and rules nothing out. The searches of
//! [`super::plan`] introspect releases where they need an answer; a pin can still land on an
//! unknown release no search needed (between two that have it): it is introspected before it
//! is trusted.

use super::probe::{Action, Probe, ProbeReason};
use super::{from_bank, may_move_pin, settles, what, Known};
use crate::bank::store::IndexStatus;
use crate::resolve::evidence::{BankReadError, BankView, ReleaseState};
use crate::resolve::infer::Inference;

/// A pin whose evidence the bank cannot answer there.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Hinging {
    pub pin: Probe,
    /// The evidence unknown at the pin (`.ix`, `pandas.DataFrame.ix`), each once.
    pub unknown: Vec<String>,
    /// Members unknown at the pin that classes of other libraries the notebook uses have:
    /// whatever introspection found, they could not move the pin (the value may be theirs).
    pub also_elsewhere: Vec<String>,
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
        let (mut unknown, mut also_elsewhere) = (Vec::new(), Vec::new());
        for r in d.records.iter().filter(|r| from_bank(r) && settles(r)) {
            if Known::of(&catalog, r).state(at.slot) != Some(ReleaseState::Unknown) {
                continue;
            }
            let list = if may_move_pin(r) {
                &mut unknown
            } else {
                &mut also_elsewhere
            };
            // Members used on several values read the same: each is said once.
            let said = what(r);
            if !list.contains(&said) {
                list.push(said);
            }
        }
        if unknown.is_empty() && also_elsewhere.is_empty() {
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
            also_elsewhere,
        });
    }
    Ok(out)
}

/// The hinging pins, to introspect: not those an earlier run could not introspect here, nor
/// those that hinge only on members other libraries have.
pub fn unsettled_pins<B: BankView + ?Sized>(
    inference: &Inference,
    bank: &B,
) -> Result<Vec<Probe>, BankReadError> {
    let mut out = Vec::new();
    for h in hinging(inference, bank)? {
        if h.unknown.is_empty() {
            continue;
        }
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
