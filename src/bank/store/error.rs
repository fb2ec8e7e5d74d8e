use std::path::PathBuf;

/// Errors of the bank's SQLite store. Each names the bank file, because users keep several.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("bank {}: {source}", path.display())]
    Sqlite {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    #[error("bank {} has schema version {found}, newer than this nbenv understands ({supported}); upgrade nbenv", path.display())]
    TooNew {
        path: PathBuf,
        found: u32,
        supported: u32,
    },
    #[error("bank {} is not an nbenv bank: {detail}", path.display())]
    NotABank { path: PathBuf, detail: String },
    #[error("bank {}: corrupt {what}", path.display())]
    Corrupt { path: PathBuf, what: String },
    #[error("bank {} does not exist (build one with `nbenv bank add` or `nbenv bank build`)", path.display())]
    Missing { path: PathBuf },
    /// Another process holds the writer lock, and waiting was not wanted.
    #[error("bank {}: another nbenv is writing it; try again, or leave out --no-wait to wait for it", path.display())]
    Busy { path: PathBuf },
}
