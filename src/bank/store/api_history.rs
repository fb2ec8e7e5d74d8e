//! Two questions about an API's history that a crash raises, beyond whether a release has a
//! name: does a class of a given name have a member in some release (an error message names
//! the type of the value, `'DataFrame' object has no attribute 'concat'`, not its module), and
//! how did an API's signature go from release to release.

use super::presence::Presence;
use super::resolve::Resolver;
use super::{DistId, ReleaseSet, Store, StoreError};
use crate::bank::flow::ApiKind;

/// At most this many classes of one name are followed (a class is re-exported by many
/// modules; each path leads to the same definition).
const MAX_CLASSES: usize = 64;

/// An API's signatures over the releases of its distribution.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SignatureHistory {
    /// Where the API is present, unknown, absent, not indexed.
    pub presence: Presence,
    /// Each signature text of its definitions, with the releases in which it is the API's.
    /// Present releases without one (a class inheriting `__init__`) have no recorded
    /// signature.
    pub signatures: Vec<(String, ReleaseSet)>,
}

impl SignatureHistory {
    /// The signature in release `slot`, if one is recorded.
    pub fn signature_at(&self, slot: super::Slot) -> Option<&str> {
        self.signatures
            .iter()
            .find(|(_, set)| set.contains(slot))
            .map(|(text, _)| text.as_str())
    }

    /// The releases other than `slot` whose only signature is `slot`'s only one, text for
    /// text; none when `slot` has several (definitions under conditions) or none.
    pub fn alike(&self, slot: super::Slot) -> ReleaseSet {
        let only = |s: super::Slot| {
            let mut texts = self.signatures.iter().filter(|(_, set)| set.contains(s));
            match (texts.next(), texts.next()) {
                (Some((text, _)), None) => Some(text),
                _ => None,
            }
        };
        let Some(text) = only(slot) else {
            return ReleaseSet::new();
        };
        let mut same = self
            .signatures
            .iter()
            .filter(|(t, _)| t == text)
            .fold(ReleaseSet::new(), |all, (_, set)| all.union(set));
        same.remove(slot);
        same.iter().filter(|s| only(*s) == Some(text)).collect()
    }
}

impl Store {
    /// Where some class named `class` (the last part of its path) has a member `member`,
    /// through aliases and base classes. `None` when no class of that name is in any release
    /// of the distribution: the question is then not about it.
    pub fn class_member_presence(
        &self,
        dist_id: DistId,
        class: &str,
        member: &str,
    ) -> Result<Option<Presence>, StoreError> {
        let classes = self.classes_named(dist_id, class)?;
        if classes.is_empty() {
            return Ok(None);
        }
        let mut resolver = Resolver::new(self, dist_id);
        let (mut present, mut unknown) = (ReleaseSet::new(), ReleaseSet::new());
        for class in classes.iter().take(MAX_CLASSES) {
            let found = resolver.resolve(&format!("{class}.{member}"))?;
            present = present.union(&found.presence());
            unknown = unknown.union(&found.unknown());
        }
        let catalog = self.catalog(dist_id)?;
        Ok(Some(Presence::split(
            &catalog.registered(),
            &catalog.indexed(),
            &present,
            &unknown,
        )))
    }

    /// The paths `{class}.{member}` that some release has, for the classes named `class`
    /// (the last part of their path): where a member named only by its type's short name
    /// (`'Series' object has no attribute 'order'`) lived.
    pub fn class_member_paths(
        &self,
        dist_id: DistId,
        class: &str,
        member: &str,
    ) -> Result<Vec<String>, StoreError> {
        let mut resolver = Resolver::new(self, dist_id);
        let mut out = Vec::new();
        for class in self.classes_named(dist_id, class)?.iter().take(MAX_CLASSES) {
            let path = format!("{class}.{member}");
            if !resolver.resolve(&path)?.presence().is_empty() {
                out.push(path);
            }
        }
        Ok(out)
    }

    /// The paths of the classes named `class` in any release, sorted, each once.
    fn classes_named(&self, dist_id: DistId, class: &str) -> Result<Vec<String>, StoreError> {
        let index = self.path_index(dist_id)?;
        let named: Vec<i64> = index
            .members_named(self, class)?
            .into_iter()
            .map(|(_, id)| id)
            .collect();
        let rows = self.api_rows(&named)?;
        let mut classes: Vec<String> = Vec::new();
        for id in named {
            if rows.get(&id).is_some_and(|r| r.kind == ApiKind::Class) {
                if let Some(path) = index.path(self, id)? {
                    classes.push(path);
                }
            }
        }
        classes.sort();
        classes.dedup();
        Ok(classes)
    }

    /// API `path`'s presence and its signatures, release by release.
    pub fn signature_history(
        &self,
        dist_id: DistId,
        path: &str,
    ) -> Result<SignatureHistory, StoreError> {
        let presence = self
            .api_presence(dist_id, &[path])?
            .pop()
            .unwrap_or_default();
        let resolved = Resolver::new(self, dist_id).resolve(path)?;
        let signatures = self
            .definition_signatures(&resolved)?
            .into_iter()
            .map(|(text, set)| (text, set.intersection(&presence.present)))
            .filter(|(_, set)| !set.is_empty())
            .collect();
        Ok(SignatureHistory {
            presence,
            signatures,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bank::store::Slot;

    fn set(slots: &[u32]) -> ReleaseSet {
        slots.iter().map(|s| Slot(*s)).collect()
    }

    #[test]
    fn alike_releases_have_the_same_only_signature() {
        let history = SignatureHistory {
            presence: Presence::default(),
            signatures: vec![
                ("(x, normed=False, **kwargs)".into(), set(&[0, 1])),
                ("(x, **kwargs)".into(), set(&[2, 3, 4, 5])),
                // Release 5 also defines it otherwise (under a condition): not alike.
                ("(x, *args)".into(), set(&[5])),
            ],
        };
        assert_eq!(history.alike(Slot(3)), set(&[2, 4]));
        assert_eq!(history.alike(Slot(0)), set(&[1]));
        assert!(history.alike(Slot(5)).is_empty());
        assert!(history.alike(Slot(9)).is_empty());
    }
}
