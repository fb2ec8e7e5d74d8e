//! `index`: what the package index says about a project: its releases, one release's files,
//! one release's core metadata. The caller prints what comes back.

use crate::names::DistName;
use crate::pypi::{CoreMetadata, DistFile, IndexClient, MetadataSource, ProjectPage, Version};

use super::{CommandError, GlobalSettings};

/// The project pages of `names`, fetched in parallel, each with its own outcome.
pub fn releases(
    global: &GlobalSettings,
    names: &[DistName],
) -> Result<Vec<Result<ProjectPage, CommandError>>, CommandError> {
    use rayon::prelude::*;
    let client = global.index_client()?;
    Ok(names.par_iter().map(|n| page(&client, n)).collect())
}

/// The project page of `name`, which has a release `version`.
pub fn release(
    global: &GlobalSettings,
    name: &DistName,
    version: &Version,
) -> Result<ProjectPage, CommandError> {
    release_page(&global.index_client()?, name, version)
}

fn release_page(
    client: &IndexClient,
    name: &DistName,
    version: &Version,
) -> Result<ProjectPage, CommandError> {
    let page = page(client, name)?;
    match page.release(version) {
        Some(_) => Ok(page),
        None => Err(CommandError::NoSuchRelease {
            name: name.clone(),
            version: version.clone(),
            url: page.url.clone(),
            recent: page
                .releases()
                .iter()
                .rev()
                .take(5)
                .map(|r| r.version.clone())
                .collect(),
        }),
    }
}

/// One release's core metadata, read from the file the index serves it for.
pub struct ReleaseMetadata {
    pub file: DistFile,
    pub metadata: CoreMetadata,
    pub source: MetadataSource,
}

pub fn metadata(
    global: &GlobalSettings,
    name: &DistName,
    version: &Version,
) -> Result<ReleaseMetadata, CommandError> {
    let client = global.index_client()?;
    let page = release_page(&client, name, version)?;
    let release = page.release(version).expect("release checked it");
    let file = release
        .preferred_file()
        .expect("a release has at least one file")
        .clone();
    let (metadata, source) =
        client
            .core_metadata(&file)
            .map_err(|source| CommandError::CoreMetadata {
                file: file.filename.clone(),
                source,
            })?;
    Ok(ReleaseMetadata {
        file,
        metadata,
        source,
    })
}

fn page(client: &IndexClient, name: &DistName) -> Result<ProjectPage, CommandError> {
    client
        .project(name)
        .map_err(|source| CommandError::Listing {
            name: name.clone(),
            url: client.index_url().to_string(),
            source,
        })
}
