//! Watching the ruleset's files so the REPL reloads a rule the moment the
//! designer saves it.
//!
//! notify reports raw file events from its own thread; editors write a save
//! as several of them (a temporary file, a rename, a chmod), so a debounce
//! thread gathers events until the folder has been quiet for a moment and
//! then hands over one batch. The REPL owns the Lua state and the world,
//! which must stay on its thread, so the reload itself happens there,
//! between two inputs; the watcher only says that one is due (and, while the
//! prompt waits, prints a one-line notice through rustyline's external
//! printer).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::Duration;

use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};

/// How long the folder must be quiet before a batch of changes is reported.
const QUIET: Duration = Duration::from_millis(250);

/// Something that can show a line while the prompt waits.
pub type Notify = Box<dyn FnMut(String) + Send>;

/// Watches a ruleset's folder and the shared `lib/` folder.
pub struct RulesetWatcher {
    _watcher: RecommendedWatcher,
    batches: Receiver<Vec<PathBuf>>,
    pub dirs: Vec<PathBuf>,
}

/// True for the files a reload reads: Lua modules and YAML manifests (not
/// editor backups, swap files or specs' scratch files).
fn relevant(p: &Path) -> bool {
    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if name.starts_with('.') || name.ends_with('~') {
        return false;
    }
    matches!(p.extension().and_then(|e| e.to_str()), Some("lua" | "luau" | "yaml" | "yml"))
}

impl RulesetWatcher {
    /// Starts watching `dirs` (those that exist; not their subfolders, so
    /// editing a spec does not reload the rules). `notify` is told about each
    /// batch as it settles.
    pub fn new(dirs: &[PathBuf], mut notify: Option<Notify>) -> notify::Result<RulesetWatcher> {
        let (raw_tx, raw_rx) = channel::<PathBuf>();
        let mut watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
            if let Ok(ev) = res {
                if matches!(ev.kind, EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_)) {
                    for p in ev.paths {
                        if relevant(&p) {
                            let _ = raw_tx.send(p);
                        }
                    }
                }
            }
        })?;
        let mut watched = Vec::new();
        for d in dirs {
            if d.is_dir() && !watched.contains(d) {
                watcher.watch(d, RecursiveMode::NonRecursive)?;
                watched.push(d.clone());
            }
        }
        let (batch_tx, batch_rx) = channel();
        std::thread::Builder::new()
            .name("sandtable-watch".into())
            .spawn(move || {
                // Ends when the watcher (and with it `raw_tx`) is dropped.
                while let Ok(first) = raw_rx.recv() {
                    let mut batch = BTreeSet::from([first]);
                    loop {
                        match raw_rx.recv_timeout(QUIET) {
                            Ok(p) => {
                                batch.insert(p);
                            }
                            Err(RecvTimeoutError::Timeout) => break,
                            Err(RecvTimeoutError::Disconnected) => return,
                        }
                    }
                    let batch: Vec<PathBuf> = batch.into_iter().collect();
                    if let Some(n) = notify.as_mut() {
                        n(format!("{} changed; the ruleset reloads before your next command", names(&batch)));
                    }
                    if batch_tx.send(batch).is_err() {
                        return;
                    }
                }
            })
            .map_err(|e| notify::Error::generic(&e.to_string()))?;
        Ok(RulesetWatcher { _watcher: watcher, batches: batch_rx, dirs: watched })
    }

    /// The files changed since the last call, if any batch has settled.
    pub fn changed(&self) -> Option<Vec<PathBuf>> {
        let mut all: BTreeSet<PathBuf> = BTreeSet::new();
        while let Ok(batch) = self.batches.try_recv() {
            all.extend(batch);
        }
        (!all.is_empty()).then(|| all.into_iter().collect())
    }

    /// Waits up to `timeout` for a batch (tests that edit files).
    #[cfg(test)]
    pub fn wait(&self, timeout: Duration) -> Option<Vec<PathBuf>> {
        self.batches.recv_timeout(timeout).ok()
    }
}

/// File names of a batch, for one line of text.
pub fn names(paths: &[PathBuf]) -> String {
    let mut v: Vec<String> =
        paths.iter().filter_map(|p| p.file_name().map(|n| n.to_string_lossy().to_string())).collect();
    v.dedup();
    v.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_a_settled_batch_of_relevant_files() {
        let dir = tempfile::tempdir().unwrap();
        let w = RulesetWatcher::new(&[dir.path().to_path_buf()], None).unwrap();
        std::fs::write(dir.path().join("notes.txt"), "x").unwrap();
        std::fs::write(dir.path().join("rule.lua"), "return {}").unwrap();
        std::fs::write(dir.path().join("rule.lua"), "return {1}").unwrap();
        let batch = w.wait(Duration::from_secs(20)).expect("a batch");
        assert_eq!(names(&batch), "rule.lua");
        assert!(w.changed().is_none());
    }

    #[test]
    fn ignores_backups() {
        assert!(!relevant(Path::new("/a/.rule.lua.swp")));
        assert!(!relevant(Path::new("/a/rule.lua~")));
        assert!(relevant(Path::new("/a/ruleset.yaml")));
    }
}
