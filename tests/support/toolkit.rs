//! The `toolkit` index the restore tests share.

use super::archives::WheelBuilder;
use super::server::{FixtureFile, PageMode, TestServer};

/// An index with `toolkit` 1.0, which defines `old_api`, and 2.0, which defines it only under
/// Python 2: static reading believes 2.0 has it, a run on Python 3 shows it does not.
pub fn python2_only_api_index() -> TestServer {
    let server = TestServer::start(PageMode::Json);
    let wheels = [
        WheelBuilder::new("toolkit", "1.0")
            .file("toolkit/__init__.py", "def old_api():\n    return 41\n"),
        WheelBuilder::new("toolkit", "2.0").file(
            "toolkit/__init__.py",
            "import sys\nif sys.version_info[0] == 2:\n    def old_api():\n        return 41\n",
        ),
    ];
    let files: Vec<FixtureFile> = wheels
        .iter()
        .map(|w| FixtureFile {
            upload_time: Some("2020-01-01T00:00:00Z".into()),
            ..FixtureFile::new(&w.filename(), w.build())
        })
        .collect();
    server.publish("toolkit", &files);
    server
}
