//! The session journal: nothing is lost when the REPL dies.
//!
//! As a session goes, every input is written to a journal file before it
//! runs, each decision's answer as it is given, and after the input whether
//! it succeeded and the dice seed it left (a `:load` without a seed picks a
//! random one). The first line holds the setup (scenario, ruleset, variant,
//! seed, `--set`s, limits, working folder) and the hashes of the files the
//! battlefield came from. Each line is written straight to the file (no
//! buffer), so a killed process loses nothing it had finished.
//!
//! Where: `--journal FILE`, else `journals/` beside the history file
//! (`~/.local/state/sandtable/journals/` on Linux), one file per session.
//! Interactive sessions always keep one; piped sessions only with
//! `--journal`. A clean end (`:quit`, Ctrl-D, end of piped input) marks the
//! journal closed: in the `journals/` folder a closed journal is deleted,
//! a `--journal FILE` is kept with a closing line.
//!
//! `sandtable --resume` (or `sandtable repl --resume`, with `--journal FILE`
//! for a given file) takes the newest journal that was not closed and whose
//! process is gone, sets up the same battlefield, and replays its inputs
//! with their answers and seeds: the battlefield ends as it was. It skips
//! the input that was running when the session died (it may be what killed
//! it) and commands that only look or write files (`:map`, `:units`, `:log`,
//! `:help`, `:save`, `:transcript`, `:sim`, `:exact`), says what it
//! replayed, and warns when an input's outcome differs from the first time
//! or a file changed since. The resumed session keeps journaling (to a new
//! file that starts with the replayed inputs); the old journal is removed
//! once the replay is done. A ruleset reload after a file edit is not
//! journaled: the replay runs against the files as they are now.
//!
//! A journal is only ever shortened by being replayed whole. A damaged line
//! (not a journal record, not text, past [`crate::files::LINE_LIMIT`]) ends
//! what is replayed; then, or when an input's outcome differs, the old
//! journal is kept beside the new one as `NAME.before-resume` (a number
//! added if that is taken), and the report says where. `--journal FILE`
//! writes only a new file or one of our own journals whose session has
//! ended, through a symbolic link to its target, and never a FIFO, a device
//! or a read-only file (see [`crate::files::writable`]).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use serde_json::{json, Value};

use super::{setup, ReplOptions, Session};
use crate::lua::{Asker, DecisionRequest, Output, ScriptError};

/// Commands a replay leaves out: they only look, or write files.
const NOT_REPLAYED: &[&str] = &["help", "map", "view", "units", "log", "save", "transcript", "sim", "exact", "quit"];

/// How many journals of sessions that did not end cleanly the folder keeps.
const KEEP: usize = 20;

/// An open journal.
pub struct Journal {
    file: File,
    path: PathBuf,
    /// Given with `--journal` (kept and marked closed at the end) rather than
    /// made in the journals folder (deleted at a clean end).
    explicit: bool,
    /// A write failed (warned once; the session goes on).
    failed: bool,
    /// The file hashes last recorded.
    files: BTreeMap<String, String>,
}

/// The session's journal, shared with the decision asker.
pub type Shared = Rc<RefCell<Option<Journal>>>;

impl Journal {
    fn write(&mut self, v: &Value) {
        let mut line = v.to_string();
        line.push('\n');
        if let Err(e) = self.file.write_all(line.as_bytes()).and_then(|()| self.file.flush()) {
            if !self.failed {
                eprintln!(
                    "warning: cannot write the session journal {}: {e} (--resume may miss what follows)",
                    self.path.display()
                );
                self.failed = true;
            }
        }
    }

    /// The file the journal is written to.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Records an input before it runs.
pub fn input(j: &Shared, text: &str) {
    if let Some(j) = j.borrow_mut().as_mut() {
        j.write(&json!({ "input": text }));
    }
}

/// Records how an input ended, the seed it left and any change in the files the battlefield came from.
pub fn done(j: &Shared, session: &Session, ok: bool) {
    if let Some(j) = j.borrow_mut().as_mut() {
        let files = crate::analysis::sources(&session.host, None);
        let mut rec = json!({ "done": ok, "seed": session.seed });
        if files != j.files {
            rec["files"] = json!(files);
            j.files = files;
        }
        j.write(&rec);
    }
}

/// Marks a clean end: a journal in the journals folder is deleted, a `--journal FILE` gets a closing line.
pub fn close(j: &Shared) {
    if let Some(mut j) = j.borrow_mut().take() {
        if j.explicit {
            j.write(&json!({ "closed": true }));
        } else {
            let _ = std::fs::remove_file(&j.path);
        }
    }
}

/// Wraps the asker of a session: every answer given is journaled as it is given.
pub struct JournalAsker {
    pub inner: Box<dyn Asker>,
    pub journal: Shared,
}

impl Asker for JournalAsker {
    fn ask(&mut self, req: &DecisionRequest) -> Result<usize, String> {
        let r = self.inner.ask(req);
        if let Ok(i) = r {
            if let Some(j) = self.journal.borrow_mut().as_mut() {
                j.write(&json!({ "answer": i }));
            }
        }
        r
    }
}

/// Gives the journaled answers of one input, in order.
struct ReplayAsker {
    answers: std::collections::VecDeque<usize>,
}

impl Asker for ReplayAsker {
    fn ask(&mut self, req: &DecisionRequest) -> Result<usize, String> {
        match self.answers.pop_front() {
            Some(i) if i < req.options.len() => Ok(i),
            Some(i) => {
                Err(format!("the journal answered option {} but '{}' now has {}", i + 1, req.prompt, req.options.len()))
            }
            None => Err(format!("the journal has no answer for '{}' (this input asks more than it did)", req.prompt)),
        }
    }
}

/// `journals/` beside the history file.
pub fn folder(opts: &ReplOptions) -> Option<PathBuf> {
    super::history_path(opts.history.as_deref()).and_then(|h| h.parent().map(|p| p.join("journals")))
}

fn now_secs() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// The setup as the journal's first line records it.
fn setup_record(opts: &ReplOptions, session: &Session) -> Value {
    let scenario = opts.scenario.as_ref().map(|p| {
        let found = super::resolve_scenario(&p.to_string_lossy()).unwrap_or_else(|| p.clone());
        std::fs::canonicalize(&found).unwrap_or(found).display().to_string()
    });
    let cwd = std::env::current_dir().map(|d| d.display().to_string()).unwrap_or_default();
    json!({
        "journal": 1,
        "started": now_secs(),
        "pid": std::process::id(),
        "cwd": cwd,
        "setup": {
            "scenario": scenario,
            "ruleset": opts.ruleset,
            "variant": opts.variant,
            "seed": session.seed,
            "set": opts.set,
            "time_ms": opts.time_ms,
            "memory_mb": opts.memory_mb,
        },
        "files": crate::analysis::sources(&session.host, None),
    })
}

/// Opens a journal file (creating its folder), through a symbolic link to
/// its target; the callers have checked that what is there may be replaced.
fn create(path: &Path, explicit: bool) -> Result<Journal, String> {
    if let Some(dir) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
    }
    let cannot = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
    let target = crate::files::writable(path).map_err(cannot)?;
    let file = File::create(target).map_err(cannot)?;
    Ok(Journal { file, path: path.to_path_buf(), explicit, failed: false, files: BTreeMap::new() })
}

/// One input of a journal, as read back.
struct Entry {
    input: String,
    answers: Vec<usize>,
    /// Whether it succeeded and the seed it left; `None` when the session died during it.
    done: Option<(bool, Option<u64>)>,
}

/// A journal read back.
struct Past {
    head: Value,
    entries: Vec<Entry>,
    closed: bool,
    /// The latest hash of each file, as recorded.
    files: BTreeMap<String, String>,
    /// The first damaged line and what is wrong with it: reading stopped there.
    damage: Option<(usize, String)>,
    /// Inputs recorded after the damaged line (or cut off by it): not replayed.
    lost: usize,
}

fn file_map(v: &Value) -> BTreeMap<String, String> {
    v.as_object()
        .map(|m| m.iter().filter_map(|(k, h)| h.as_str().map(|h| (k.clone(), h.to_string()))).collect())
        .unwrap_or_default()
}

/// Reads a journal back, each line bounded ([`crate::files::lines`]). A
/// last line without its line end was cut short by the kill: the end of
/// what was written. Any other line that is not a record is damage.
fn read(path: &Path) -> Result<Past, String> {
    let f = crate::files::open_regular(path).map_err(|e| format!("cannot read the journal {}: {e}", path.display()))?;
    let mut lines = crate::files::lines(std::io::BufReader::new(f), crate::files::LINE_LIMIT);
    let not_ours = |why: &str| format!("{} is not a sandtable session journal{why}", path.display());
    let head: Value = match lines.next() {
        Some(Ok(l)) => serde_json::from_str(&l.text).ok().filter(|v: &Value| v.get("journal").is_some()),
        Some(Err(e)) => return Err(not_ours(&format!(" ({e})"))),
        None => None,
    }
    .ok_or_else(|| not_ours(""))?;
    let mut past =
        Past { files: file_map(&head["files"]), head, entries: Vec::new(), closed: false, damage: None, lost: 0 };
    while let Some(line) = lines.next() {
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                past.damage.get_or_insert((lines.line_number(), e.to_string()));
                break;
            }
        };
        let v = serde_json::from_str::<Value>(&line.text).unwrap_or(Value::Null);
        if past.damage.is_some() {
            past.lost += usize::from(v.get("input").is_some_and(Value::is_string));
            continue;
        }
        if let Some(text) = v.get("input").and_then(Value::as_str) {
            past.entries.push(Entry { input: text.to_string(), answers: Vec::new(), done: None });
            continue;
        }
        let last = past.entries.last_mut();
        match (v.get("answer").and_then(Value::as_u64), v.get("done").and_then(Value::as_bool), last) {
            (Some(i), None, Some(e)) if e.done.is_none() => e.answers.push(i as usize),
            (None, Some(ok), Some(e)) if e.done.is_none() => {
                e.done = Some((ok, v.get("seed").and_then(Value::as_u64)));
                if let Some(f) = v.get("files") {
                    past.files = file_map(f);
                }
            }
            _ if v.get("closed").is_some() => past.closed = true,
            // A line cut short by the kill is the end of what was written.
            _ if !line.ended && v.is_null() => break,
            _ => {
                let why = if v.is_null() { "not JSON" } else { "not a record in its place" };
                past.damage = Some((line.number, why.to_string()));
            }
        }
    }
    // The input the damage cut off was not running when the session ended.
    if past.damage.is_some() && past.entries.last().is_some_and(|e| e.done.is_none()) {
        past.entries.pop();
        past.lost += 1;
    }
    Ok(past)
}

/// A name beside `path` that is free: `NAME.SUFFIX`, else `NAME.SUFFIX.2`, ...
fn free_name(path: &Path, suffix: &str) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    (1..)
        .map(|n| match n {
            1 => path.with_file_name(format!("{name}.{suffix}")),
            n => path.with_file_name(format!("{name}.{suffix}.{n}")),
        })
        .find(|p| std::fs::symlink_metadata(p).is_err())
        .unwrap_or_else(|| path.with_file_name(format!("{name}.{suffix}")))
}

/// Whether process `pid` still runs (Linux; elsewhere assumed gone).
fn running(pid: u64) -> bool {
    let proc = Path::new("/proc");
    pid != u64::from(std::process::id()) && proc.is_dir() && proc.join(pid.to_string()).is_dir()
}

/// The newest journal in `dir` that was not closed and whose process is gone.
fn newest_unfinished(dir: &Path) -> Option<PathBuf> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    names.sort();
    names
        .into_iter()
        .rev()
        .find(|p| read(p).is_ok_and(|past| !past.closed && !running(past.head["pid"].as_u64().unwrap_or(0))))
}

/// Drops the oldest unfinished journals beyond [`KEEP`].
fn prune(dir: &Path) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut names: Vec<PathBuf> =
        rd.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "jsonl")).collect();
    names.sort();
    let extra = names.len().saturating_sub(KEEP);
    for p in names.into_iter().take(extra) {
        let _ = std::fs::remove_file(p);
    }
}

/// A byte buffer that can be shared and written to as a session's stream.
#[derive(Clone, Default)]
struct Buf(Rc<RefCell<Vec<u8>>>);

impl Write for Buf {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The first line of an input, shortened, for messages.
fn short(input: &str) -> String {
    let first = input.trim().lines().next().unwrap_or("");
    let s: String = first.chars().take(60).collect();
    if s.len() < input.trim().len() {
        format!("{s}…")
    } else {
        s
    }
}

fn replayed_command(input: &str) -> bool {
    let Some(body) = input.trim_start().strip_prefix(':') else { return true };
    let name = body.split_whitespace().next().unwrap_or("");
    match super::api::find_command(name) {
        Ok(c) => !NOT_REPLAYED.contains(&c.name),
        Err(_) => true,
    }
}

/// What `start` hands the run loop: the session, its journal, and a report to
/// print after the banner (what a resume replayed).
pub type Started = (Session, Shared, Option<String>);

/// Sets up the session the options ask for, and its journal: a new session
/// (journaled when interactive or given `--journal`), or, with `--resume`,
/// the session of the last journal replayed.
pub fn start(
    opts: &ReplOptions,
    out: Box<dyn Write>,
    err: Box<dyn Write>,
    interactive: bool,
    capture: bool,
) -> Result<Started, ScriptError> {
    if opts.resume {
        return resume(opts, out, err, interactive, capture);
    }
    if let Some(path) = &opts.journal {
        may_journal_to(path)?;
    }
    let session = setup(opts, out, err, interactive, capture)?;
    let target = match (&opts.journal, interactive) {
        (Some(p), _) => Some((p.clone(), true)),
        (None, true) => {
            folder(opts).map(|d| (d.join(format!("{:012}-{}.jsonl", now_secs(), std::process::id())), false))
        }
        (None, false) => None,
    };
    let journal: Shared = Rc::new(RefCell::new(None));
    if let Some((path, explicit)) = target {
        if !explicit {
            if let Some(dir) = path.parent() {
                prune(dir);
            }
        }
        match create(&path, explicit) {
            Ok(mut j) => {
                let head = setup_record(opts, &session);
                j.files = file_map(&head["files"]);
                j.write(&head);
                *journal.borrow_mut() = Some(j);
            }
            Err(e) => {
                eprintln!("warning: no session journal ({e}); `--resume` will not be able to restore this session")
            }
        }
    }
    Ok((session, journal, None))
}

/// Whether `--journal FILE` may be written: a new file, an empty one, or one
/// of our journals whose session ended cleanly; never a session to resume,
/// a running session's journal, or anything else.
fn may_journal_to(path: &Path) -> Result<(), ScriptError> {
    let p = path.display();
    let target = crate::files::writable(path).map_err(|e| ScriptError::plain(format!("cannot write {p}: {e}")))?;
    let Ok(meta) = std::fs::metadata(&target) else { return Ok(()) };
    if meta.len() == 0 {
        return Ok(());
    }
    let past = read(path).map_err(|e| {
        ScriptError::plain(format!(
            "{e}: --journal writes a new file or one of its own journals, and leaves this one as it is (choose another name)"
        ))
    })?;
    let pid = past.head["pid"].as_u64().unwrap_or(0);
    if past.closed {
        Ok(())
    } else if running(pid) {
        Err(ScriptError::plain(format!("the journal {p} is being written by a session still running (process {pid})")))
    } else {
        Err(ScriptError::plain(format!(
            "the journal {p} holds a session that did not end cleanly: `sandtable --resume --journal {p}` replays it (or delete the file to start afresh)"
        )))
    }
}

fn resume(
    opts: &ReplOptions,
    out: Box<dyn Write>,
    err: Box<dyn Write>,
    interactive: bool,
    capture: bool,
) -> Result<Started, ScriptError> {
    if opts.scenario.is_some()
        || opts.ruleset.is_some()
        || opts.variant.is_some()
        || opts.seed.is_some()
        || !opts.set.is_empty()
        || opts.time_ms.is_some()
        || opts.memory_mb.is_some()
    {
        return Err(ScriptError::plain(
            "--resume sets up the battlefield as the journaled session did: leave out --scenario, --ruleset, --variant, --seed, --set and the limits",
        ));
    }
    let (old, explicit) = match &opts.journal {
        Some(p) => (p.clone(), true),
        None => {
            let dir =
                folder(opts).ok_or_else(|| ScriptError::plain("no state folder for journals: give --journal FILE"))?;
            match newest_unfinished(&dir) {
                Some(p) => (p, false),
                None => {
                    return Err(ScriptError::plain(format!(
                    "nothing to resume: no session in {} ended without a clean exit (a clean exit removes its journal)",
                    dir.display()
                )))
                }
            }
        }
    };
    // Absolute before the working folder may change below.
    let old = std::path::absolute(&old).unwrap_or(old);
    let past = read(&old).map_err(ScriptError::plain)?;
    if past.closed {
        return Err(ScriptError::plain(format!(
            "nothing to resume: the session journaled in {} ended cleanly",
            old.display()
        )));
    }
    let pid = past.head["pid"].as_u64().unwrap_or(0);
    if running(pid) {
        return Err(ScriptError::plain(format!(
            "the session journaled in {} is still running (process {pid})",
            old.display()
        )));
    }
    let mut notes = Vec::new();
    if let Some(cwd) = past.head["cwd"].as_str().filter(|c| !c.is_empty()) {
        let here = std::env::current_dir().ok();
        if here.as_deref() != Some(Path::new(cwd)) {
            match std::env::set_current_dir(cwd) {
                Ok(()) => notes.push(format!("working folder: {cwd} (as in the session)")),
                Err(e) => {
                    notes.push(format!("cannot go back to the session's folder {cwd} ({e}); paths resolve from here"))
                }
            }
        }
    }
    let s = &past.head["setup"];
    let text = |k: &str| s[k].as_str().map(str::to_string);
    let mut setup_opts = opts.clone();
    setup_opts.resume = false;
    setup_opts.scenario = text("scenario").map(PathBuf::from);
    setup_opts.ruleset = text("ruleset");
    setup_opts.variant = text("variant");
    setup_opts.seed = s["seed"].as_u64();
    setup_opts.set = s["set"]
        .as_array()
        .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
        .unwrap_or_default();
    setup_opts.time_ms = s["time_ms"].as_u64();
    setup_opts.memory_mb = s["memory_mb"].as_u64();
    // The file the old journal is (through a symbolic link), which the new
    // one replaces: it must be ours to replace.
    let old_file = crate::files::writable(&old)
        .map_err(|e| ScriptError::plain(format!("cannot resume into the journal {}: {e}", old.display())))?;
    let mut session = setup(&setup_opts, out, err, interactive, capture)?;

    // The new journal: beside the old one, renamed over it (--journal FILE,
    // with the old one's permissions) or kept (the journals folder, where
    // the old one is then removed).
    let new_path = if explicit {
        let name = old_file.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
        old_file.with_file_name(format!("{name}.resuming"))
    } else {
        old.with_file_name(format!("{:012}-{}.jsonl", now_secs(), std::process::id()))
    };
    let journal: Shared = Rc::new(RefCell::new(None));
    let created = create_beside(&new_path, explicit, &old_file);
    match created {
        Ok(mut j) => {
            let head = setup_record(&setup_opts, &session);
            j.files = file_map(&head["files"]);
            j.write(&head);
            *journal.borrow_mut() = Some(j);
        }
        Err(e) => notes.push(format!("no new journal ({e}): a crash from here on cannot be resumed")),
    }

    let done_list = replay(&mut session, &past, &journal);

    let whole = past.damage.is_none() && done_list.differ.is_empty();
    settle(&Settle { old: &old, old_file: &old_file, new_path: &new_path, explicit, whole }, &journal, &mut notes);

    let now = crate::analysis::sources(&session.host, None);
    let report = report(&past, &old, &done_list, &now, &notes);
    Ok((session, journal, Some(report)))
}

/// The resumed session's journal, beside the old one: under `--journal
/// FILE` it will replace the old one, so it takes the old one's permissions.
fn create_beside(new_path: &Path, explicit: bool, old_file: &Path) -> Result<Journal, String> {
    let j = create(new_path, explicit)?;
    if explicit {
        let mode = std::fs::metadata(old_file).map(|m| m.permissions());
        mode.and_then(|m| std::fs::set_permissions(new_path, m)).map_err(|e| {
            format!("cannot give {} the permissions of {}: {e}", new_path.display(), old_file.display())
        })?;
    }
    Ok(j)
}

/// Where a resume's journals end up (see [`settle`]).
struct Settle<'a> {
    /// The journal resumed, as named, and the file it is (through a link).
    old: &'a Path,
    old_file: &'a Path,
    /// The new journal, written beside the old one.
    new_path: &'a Path,
    explicit: bool,
    /// Whether the old journal was replayed whole.
    whole: bool,
}

/// After a replay: an old journal replayed whole goes (replaced by the new
/// one under `--journal FILE`, removed in the journals folder); one that was
/// not is kept beside, whole, and a note says where.
fn settle(s: &Settle, journal: &Shared, notes: &mut Vec<String>) {
    let Settle { old, old_file, new_path, explicit, whole } = *s;
    let kept = if whole {
        None
    } else {
        let aside = free_name(old_file, "before-resume");
        match std::fs::rename(old_file, &aside) {
            Ok(()) => Some(aside),
            Err(e) => {
                notes.push(format!("the old journal could not be put aside ({e}): it stays {}", old.display()));
                None
            }
        }
    };
    let old_gone = whole || kept.is_some();
    if let Some(aside) = &kept {
        notes.push(format!("the journal as it was is kept whole in {}", crate::lua::display_path(aside)));
    }
    if explicit {
        if let Some(j) = journal.borrow_mut().as_mut() {
            let renamed = if old_gone {
                std::fs::rename(new_path, old_file)
            } else {
                Err(std::io::Error::other("the old journal is still there"))
            };
            match renamed {
                Ok(()) => j.path = old.to_path_buf(),
                Err(e) => notes.push(format!("the journal goes on in {} ({e})", new_path.display())),
            }
        }
    } else if whole {
        let _ = std::fs::remove_file(old);
    }
}

/// What a resume says it did.
fn report(past: &Past, old: &Path, done_list: &Replayed, now: &BTreeMap<String, String>, notes: &[String]) -> String {
    let changed: Vec<&String> =
        past.files.iter().filter(|(k, h)| now.get(*k).is_some_and(|n| n != *h)).map(|(k, _)| k).collect();

    let ago = now_secs().saturating_sub(past.head["started"].as_u64().unwrap_or(0));
    let mut report = format!(
        "resumed the session started {} ago from {}: replayed {} input{}",
        human_age(ago),
        crate::lua::display_path(old),
        done_list.replayed.len(),
        if done_list.replayed.len() == 1 { "" } else { "s" }
    );
    for r in &done_list.replayed {
        report.push_str(&format!("\n  {r}"));
    }
    if !done_list.skipped.is_empty() {
        report.push_str(&format!("\nnot replayed (they only look or write files): {}", done_list.skipped.join(", ")));
    }
    if let Some((line, why)) = &past.damage {
        let lost = match past.lost {
            0 => String::new(),
            1 => "; 1 input recorded after it is not replayed".to_string(),
            n => format!("; {n} inputs recorded after it are not replayed"),
        };
        report.push_str(&format!(
            "\nwarning: line {line} of the journal is damaged ({why}): replayed only what comes before it{lost}"
        ));
    }
    if let Some(u) = &done_list.unfinished {
        report.push_str(&format!(
            "\nnot replayed: `{u}`, which was running when the session ended (it may be what ended it)"
        ));
    }
    for d in &done_list.differ {
        report.push_str(&format!("\nwarning: {d}"));
    }
    if !changed.is_empty() {
        let list: Vec<&str> = changed.iter().map(|s| s.as_str()).collect();
        report.push_str(&format!(
            "\nwarning: changed since the session: {} (the replay used them as they are now)",
            list.join(", ")
        ));
    }
    for n in notes {
        report.push_str(&format!("\n{n}"));
    }
    report
}

/// What a replay did.
#[derive(Default)]
struct Replayed {
    /// The inputs replayed (shortened).
    replayed: Vec<String>,
    /// Commands left out (they only look or write files).
    skipped: Vec<String>,
    /// Inputs whose outcome differs from the session's.
    differ: Vec<String>,
    /// The input that was running when the session ended.
    unfinished: Option<String>,
}

/// Replays a journal's finished inputs into `session` quietly (output,
/// errors and Lua's `print` go to buffers), journaling them again.
fn replay(session: &mut Session, past: &Past, journal: &Shared) -> Replayed {
    // Replay quietly: output, errors and Lua's print go to buffers.
    let errors = Buf::default();
    let saved_out = std::mem::replace(&mut session.out, Box::new(std::io::sink()));
    let saved_err = std::mem::replace(&mut session.err, Box::new(errors.clone()));
    let saved_print = std::mem::replace(&mut *session.host.state.output.borrow_mut(), Output::Buffer(Vec::new()));
    let mut r = Replayed::default();
    for e in &past.entries {
        let Some((ok_then, seed_then)) = e.done else {
            r.unfinished = Some(short(&e.input));
            continue;
        };
        if !replayed_command(&e.input) {
            r.skipped.push(short(&e.input));
            continue;
        }
        input(journal, &e.input);
        session.host.set_asker(Some(Box::new(JournalAsker {
            inner: Box::new(ReplayAsker { answers: e.answers.iter().copied().collect() }),
            journal: journal.clone(),
        })));
        errors.0.borrow_mut().clear();
        let ok = session.handle(&e.input);
        let _ = session.host.take_output();
        if ok != ok_then {
            let why = String::from_utf8_lossy(&errors.0.borrow()).lines().next().unwrap_or("").to_string();
            r.differ.push(if ok_then {
                format!("`{}` succeeded in the session but failed now: {why}", short(&e.input))
            } else {
                format!("`{}` failed in the session but succeeded now", short(&e.input))
            });
        }
        if let Some(seed) = seed_then {
            if session.seed != Some(seed) {
                // A `:load` without a seed picked a random one: use the session's.
                session.host.state.world.borrow_mut().dice.seed(seed);
                session.seed = Some(seed);
            }
        }
        done(journal, session, ok);
        r.replayed.push(short(&e.input));
    }
    session.host.set_asker(None);
    session.out = saved_out;
    session.err = saved_err;
    *session.host.state.output.borrow_mut() = saved_print;
    session.failures = 0;
    r
}

fn human_age(secs: u64) -> String {
    match secs {
        0..=89 => format!("{secs} s"),
        90..=5399 => format!("{} min", (secs + 30) / 60),
        5400..=172_799 => format!("{} h", (secs + 1800) / 3600),
        _ => format!("{} days", (secs + 43_200) / 86_400),
    }
}
