//! The ids the store hands out, as types: a distribution's id, a release's id and a release's
//! slot travel side by side, and bare integers would swap silently.

use rusqlite::types::{FromSql, FromSqlResult, ToSql, ToSqlOutput, ValueRef};
use serde::Serialize;

/// A distribution's row id, so it cannot be passed where a release's is expected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct DistId(pub i64);

/// A release's row id, so it cannot be passed where a distribution's is expected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct ReleaseId(pub i64);

/// A release's bit in its distribution's [`super::ReleaseSet`]s, which is not its row id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Slot(pub u32);

macro_rules! sql_as_inner {
    ($id:ident, $inner:ty) => {
        impl ToSql for $id {
            fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
                self.0.to_sql()
            }
        }

        impl FromSql for $id {
            fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
                <$inner>::column_result(value).map(Self)
            }
        }
    };
}

sql_as_inner!(DistId, i64);
sql_as_inner!(ReleaseId, i64);
sql_as_inner!(Slot, u32);
