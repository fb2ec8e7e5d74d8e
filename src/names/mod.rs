//! The vocabulary every stage shares: distribution names, module paths and API paths.
//!
//! They are types rather than strings so that a normalized name can never be compared with a
//! raw one, and a module path can never be confused with the API path it is a prefix of.

mod api_path;
mod dist_name;
mod module_path;
mod requirement;

pub use api_path::{ApiPath, InvalidApiPath};
pub use dist_name::{DistName, InvalidDistName};
pub use module_path::{is_identifier, InvalidModulePath, ModulePath};
pub use requirement::{parse_requirement, InvalidRequirement};
