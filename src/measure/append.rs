//! Appending records safely: one writer thread owns the output file, workers send it records,
//! and each record goes out as one line in a single `write` (then a flush). A batch killed at
//! any moment leaves every record already written whole, and at most its last line cut
//! short, which [`super::resume`] ignores and this writer cuts off before appending again.
//!
//! The file is locked (std's [`std::fs::File::try_lock`], `flock(2)` on Linux) while a batch writes it, so a second batch on the same output
//! is refused instead of interleaving lines.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Sender};
use std::thread::JoinHandle;

use super::record::Record;
use crate::disk_full::{DiskFull, Written};

#[derive(Debug, thiserror::Error)]
pub enum AppendError {
    #[error("cannot open {} for writing: {source}", path.display())]
    Open {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{} is being written by another nbenv batch", path.display())]
    Busy { path: PathBuf },
    #[error("cannot write to {}: {source}", path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The records written before are whole; the one cut short is cut off by the next run.
    #[error("{0}")]
    DiskFull(#[from] DiskFull),
}

impl AppendError {
    fn write(path: &Path, source: std::io::Error) -> Self {
        match DiskFull::of_io(path, Written::Output, &source) {
            Some(full) => AppendError::DiskFull(full),
            None => AppendError::Write {
                path: path.to_path_buf(),
                source,
            },
        }
    }
}

/// The writer of one output file.
pub struct Appender {
    sender: Option<Sender<Record>>,
    writer: JoinHandle<Result<usize, AppendError>>,
}

impl Appender {
    /// Opens `path` for appending (creating it), locked for this batch. `keep`: the length of
    /// its complete lines, when a last line was cut short (it is cut off).
    pub fn open(path: &Path, keep: Option<u64>) -> Result<Self, AppendError> {
        let open_error = |source| AppendError::Open {
            path: path.to_path_buf(),
            source,
        };
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(open_error)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(AppendError::Busy {
                    path: path.to_path_buf(),
                })
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(open_error(e)),
        }
        if let Some(len) = keep {
            file.set_len(len)
                .map_err(|source| AppendError::write(path, source))?;
        }
        let (sender, receiver) = channel::<Record>();
        let path = path.to_path_buf();
        let writer = std::thread::Builder::new()
            .name("nbenv-records".into())
            .spawn(move || write_all(file, &path, receiver.into_iter()))
            .map_err(open_error)?;
        Ok(Self {
            sender: Some(sender),
            writer,
        })
    }

    /// Where workers send records. A send fails once writing has failed.
    pub fn sink(&self) -> Sender<Record> {
        self.sender.clone().expect("open until finished")
    }

    /// Waits for every record sent to be written; how many were.
    pub fn finish(mut self) -> Result<usize, AppendError> {
        drop(self.sender.take());
        self.writer
            .join()
            .unwrap_or_else(|_| panic!("the records writer panicked"))
    }
}

fn write_all(
    mut file: File,
    path: &Path,
    records: impl Iterator<Item = Record>,
) -> Result<usize, AppendError> {
    let mut written = 0;
    let mut line = Vec::with_capacity(4096);
    for record in records {
        line.clear();
        serde_json::to_writer(&mut line, &record).expect("records serialize");
        line.push(b'\n');
        file.write_all(&line)
            .and_then(|()| file.flush())
            .map_err(|source| AppendError::write(path, source))?;
        written += 1;
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::jsonl::read_records;
    use crate::measure::record::Stage;

    #[test]
    fn records_are_lines_and_a_cut_line_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("r.jsonl");
        let first = Record::new("a.ipynb".into(), None, Stage::Usage);
        let whole = serde_json::to_string(&first).unwrap() + "\n";
        std::fs::write(&out, format!("{whole}{{\"sche")).unwrap();

        let appender = Appender::open(&out, Some(whole.len() as u64)).unwrap();
        // A second batch on the same output is refused while this one writes.
        assert!(matches!(
            Appender::open(&out, None),
            Err(AppendError::Busy { .. })
        ));
        let sink = appender.sink();
        let workers: Vec<_> = (0..4)
            .map(|i| {
                let sink = sink.clone();
                std::thread::spawn(move || {
                    for j in 0..25 {
                        let path = format!("{i}/{j}.ipynb");
                        sink.send(Record::new(path, None, Stage::Usage)).unwrap();
                    }
                })
            })
            .collect();
        for w in workers {
            w.join().unwrap();
        }
        drop(sink);
        assert_eq!(appender.finish().unwrap(), 100);
        let file = read_records(&out).unwrap();
        assert_eq!(file.records.len(), 101);
        assert!(file.truncated.is_none());
        assert!(file.malformed.is_empty());
    }
}
