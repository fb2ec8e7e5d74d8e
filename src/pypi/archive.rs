use serde::Serialize;

/// Bounds on what nbenv will read out of an archive, so that a zip bomb, a corrupt header or
/// a tarball of a million files is refused with a message instead of exhausting the machine.
#[derive(Debug, Clone, Copy)]
pub struct ArchiveLimits {
    /// Members an archive may list.
    pub max_members: usize,
    /// Uncompressed size of any one member read.
    pub max_member_size: u64,
    /// Uncompressed bytes read or skipped over in one archive.
    pub max_total_size: u64,
    /// Size of an archive that must be read whole, front to back (a tarball sdist): past it
    /// the file is refused, so a release whose only file bundles a huge jar is skipped with
    /// that reason instead of costing its download. Range-read files (wheels, zip sdists)
    /// fetch only their Python and have no such limit.
    pub max_streamed_size: u64,
}

impl Default for ArchiveLimits {
    fn default() -> Self {
        Self {
            max_members: 200_000,
            max_member_size: 64 << 20,
            max_total_size: 4 << 30,
            max_streamed_size: 1 << 30,
        }
    }
}

/// One member an archive lists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EntryInfo {
    pub name: String,
    /// Uncompressed size as the archive declares it.
    pub size: u64,
}

/// A member that was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    pub name: String,
    pub data: Vec<u8>,
}

/// How the bytes of an archive were obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReadMethod {
    /// HTTP Range requests for the central directory and the chosen members only.
    Ranges,
    /// The whole file: tarball sdists, streamed through (only the selected members are kept),
    /// or a server that ignores Range.
    Full,
}

/// What reading an archive cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Transfer {
    pub archive_size: u64,
    /// Bytes received over the network for this archive (0 when all came from the cache).
    pub bytes_fetched: u64,
    pub requests: u32,
    pub method: Option<ReadMethod>,
}

/// Every member an archive lists, and the contents of those that were selected.
#[derive(Debug, Clone)]
pub struct ArchiveContents {
    pub entries: Vec<EntryInfo>,
    pub members: Vec<Member>,
    pub transfer: Transfer,
}

impl ArchiveContents {
    pub fn member(&self, name: &str) -> Option<&Member> {
        self.members.iter().find(|m| m.name == name)
    }
}
