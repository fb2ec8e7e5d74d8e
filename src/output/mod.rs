//! What nbenv writes for other tools: requirements files, hashed locks and PEP 751
//! `pylock.toml` files from an inference, and every command's JSON document, written atomically (a temporary file beside the
//! target, then a rename), so an interrupted run never leaves half a file where a good one was.

mod atomic;
mod header;
mod json;
mod lock;
mod pylock;
mod requirements;

pub use atomic::{same_file, write_atomically, WriteError};
pub use header::{
    cells_moved, moved_cells, moved_cells_line, python_of, sdists_built, SdistBuilds,
    MOVED_CELLS_LINE, SDIST_LINE,
};
pub use json::{json_document, write_json, SCHEMA_VERSION};
pub use lock::lock_txt;
pub use pylock::{pylock_toml, PylockError};
pub use requirements::{
    installed_lines, pin_reason, pure_sdist_builds, python_line, recorded_elsewhere,
    requirements_txt, sdist_builds, unresolved_reason, without_local_paths,
};
