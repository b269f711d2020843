//! What the API functions share: the host `State` (the world, the
//! ruleset, budgets, output, decision mode, caches) and the host options.
use super::*;

/// Where `print` output goes.
pub enum Output {
    Stdout,
    Buffer(Vec<u8>),
    /// Standard output, with a copy kept (for the live board's panel).
    Tee(Vec<u8>),
}

/// The budget guard shared with the interrupt callback.
pub struct Guard {
    pub(super) deadline: Cell<Option<Instant>>,
    /// When the running top-level call started, until its chunks get native
    /// code (see `load::hot_after`).
    pub(super) started: Cell<Option<Instant>>,
    pub(super) ticks: Cell<u32>,
    pub(super) tripped: Cell<Option<Trip>>,
    /// Set from another thread (Ctrl-C) to stop the running script.
    pub cancel: Arc<AtomicBool>,
}

impl Guard {
    /// Moves the running call's deadline later by `by`: time a person spends
    /// answering a decision is not the script's time.
    pub fn extend_deadline(&self, by: Duration) {
        if let Some(d) = self.deadline.get() {
            self.deadline.set(Some(d + by));
        }
    }

    /// True once the running call ran out of time or was cancelled: its
    /// error is then the guard's, to pass on as it is.
    pub fn tripped(&self) -> bool {
        self.tripped.get().is_some()
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Trip {
    Time,
    Cancel,
}

/// How decisions are answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecisionMode {
    /// Queued answers, else policies and defaults (`run`, `sim`, `exact`).
    Auto,
    /// Every decision needs a queued answer or a policy for its id, never the
    /// default, and every answer must be used (specs).
    Strict,
}

/// Everything the API closures share.
pub struct State {
    pub world: RefCell<World>,
    pub ruleset: RefCell<Option<Ruleset>>,
    pub limits: Cell<Limits>,
    pub guard: Guard,
    pub output: RefCell<Output>,
    pub(super) output_written: Cell<usize>,
    pub decision_mode: Cell<DecisionMode>,
    pub asker: RefCell<Option<Box<dyn Asker>>>,
    /// The scenario file the world came from (for reloads and `:load`).
    pub scenario: RefCell<Option<PathBuf>>,
    /// Folder of the script being run, for relative `scenario(...)` paths.
    pub script_dir: RefCell<PathBuf>,
    /// Spec results of the current file.
    pub spec: RefCell<SpecReport>,
    /// Nesting of `describe` names.
    pub spec_path: RefCell<Vec<String>>,
    pub options: HostOptions,
    /// One Lua handle per unit slot, handed out again (see `world::unit_handle`).
    pub unit_handles: RefCell<Vec<Option<UnitHandle>>>,
    /// The slot of each cached handle by its userdata's address (for `fast`).
    pub unit_handle_slots: RefCell<rustc_hash::FxHashMap<usize, usize>>,
    /// A cache in front of `unit_handle_slots`: by a few bits of a cached
    /// handle's address, that address, its slot and where its id's text is
    /// (see `fast::unit_arg`; `world::unit_handle` clears a replaced
    /// handle's entry).
    pub unit_handle_cache: [Cell<(usize, usize, usize)>; crate::lua::raw::fast::HANDLE_CACHE],
    /// The point (its bits) of the read-only `u.pos` table kept for each
    /// unit slot in the handle table (see `fast::pos_out`).
    pub kept_pos: RefCell<Vec<Option<[u64; 2]>>>,
    /// Lua strings of the names the world hands out (sides, unit types,
    /// terrain): made once, because pushing a new string from Rust costs more
    /// than the rest of a small call.
    pub(super) names: RefCell<rustc_hash::FxHashMap<Box<str>, mlua::LuaString>>,
    /// False while no script has called `on` since the ruleset was (re)loaded:
    /// moves then skip building event arguments nobody would receive.
    pub subscribed: Cell<bool>,
    /// Names the fast paths keep as Lua strings (see `fast::push_name`),
    /// each with where its Lua string's bytes are (`stack::string_ptr`).
    pub name_slots: RefCell<Vec<(Rc<str>, usize)>>,
    /// A cache in front of `name_slots`: by a few bits of a name's address,
    /// that address and its Lua string's bytes (see `fast::push_name_ref`).
    pub name_cache: [Cell<(usize, usize)>; crate::lua::raw::fast::NAME_CACHE],
    /// Calls a fast path handed to its full function (tests check that
    /// simulation's hot calls stay on the fast paths).
    pub fast_misses: Cell<u64>,
    /// Roll objects' per-state storage: the trial arena of roll handles and
    /// the face names as Lua strings (see `raw::roll`).
    pub rolls: crate::lua::raw::roll::Rolls,
    /// The traceback runner `call_with_traceback` calls through, once made.
    pub(super) traceback_runner: std::cell::OnceCell<Function>,
    /// Each event's handlers, read once (see `world::events::HandlerLists`).
    pub handler_lists: RefCell<crate::lua::world::HandlerLists>,
    /// Tabletop answers kept between calls, frozen (see `raw::tabletop::memo`).
    pub tabletop_memo: RefCell<crate::lua::raw::tabletop::Memo>,
    /// Where the Lua strings of the tabletop's keys (`x`, `width`, ...) keep
    /// their bytes (0 until the tabletop is installed), for the fast paths'
    /// field reads in place, and the templates answers are copied from
    /// (see `raw::tabletop`).
    pub tabletop_keys: crate::lua::raw::tabletop::Keys,
    /// Module chunks `require` loaded, by display path (kept only with
    /// [`HostOptions::coverage`]).
    pub chunks: RefCell<Vec<(String, Function)>>,
    /// Every ruleset loaded, in order (the spec runner warns about a spec
    /// that tests another ruleset than the one it sits in).
    pub loads: RefCell<Vec<RulesetLoad>>,
    /// With [`HostOptions::track_data`], the ruleset's data read since the
    /// current spec case began (or outside any case): `terrain`,
    /// `unit_types`, `charts` and `params.MODULE`, by Lua or by Rust.
    pub data_reads: RefCell<Option<std::collections::BTreeSet<String>>>,
}

/// A ruleset a host loaded, and the scenario that named it, if one did.
#[derive(Clone, Debug, PartialEq)]
pub struct RulesetLoad {
    pub name: String,
    pub dir: PathBuf,
    pub origin: crate::layers::Origin,
    pub scenario: Option<PathBuf>,
}

/// A cached unit handle and the id it was made for.
pub type UnitHandle = (Rc<str>, mlua::AnyUserData);

/// Most output one top-level call may print.
pub const OUTPUT_LIMIT: usize = 1 << 20;

/// What the battlefield's own records cost against the memory limit, per
/// item: an event in the log (a logged roll, a move, a note), a hex mark, a
/// tabletop mark (at most [`MAX_MARK_POINTS`] points), a unit. Rough sizes,
/// on the high side, so that a loop that makes them stops at the limit.
pub const EVENT_BYTES: usize = 320;
pub const MARK_BYTES: usize = 64;
pub const TABLE_MARK_BYTES: usize = 64 + 16 * MAX_MARK_POINTS;
pub const UNIT_BYTES: usize = 512;

/// Work of at most this many items is never checked (see [`State::check_work`]).
const SMALL_WORK: u64 = 4096;

/// Most points one tabletop mark may have.
pub const MAX_MARK_POINTS: usize = 4096;

/// Longest text a note or a mark label may have, in bytes.
pub const MAX_TEXT: usize = 64 * 1024;

/// `bytes` for people: `12 MiB`, `3.2 GiB`.
fn human_bytes(bytes: u64) -> String {
    let mib = bytes as f64 / f64::from(1 << 20);
    if mib >= 1024.0 {
        format!("{:.1} GiB", mib / 1024.0)
    } else if mib >= 10.0 {
        format!("{mib:.0} MiB")
    } else {
        format!("{mib:.1} MiB")
    }
}

impl State {
    /// Notes a read of the ruleset's datum `key` (see [`State::data_reads`]).
    pub fn note_read(&self, key: &str) {
        if let Some(reads) = self.data_reads.borrow_mut().as_mut() {
            if !reads.contains(key) {
                reads.insert(key.to_string());
            }
        }
    }

    /// Runs `f` with the world borrowed mutably; API closures never call Lua while holding it.
    pub fn with_world<R>(&self, f: impl FnOnce(&mut World) -> R) -> mlua::Result<R> {
        let mut w = self
            .world
            .try_borrow_mut()
            .map_err(|_| mlua::Error::runtime("the world is busy (a rule called back into the API mid-update)"))?;
        Ok(f(&mut w))
    }

    /// Whether the world keeps its event log and marks (off in `sim` and
    /// `exact` trials, except `--explain`: nobody reads them there).
    pub fn recording(&self) -> bool {
        self.world.try_borrow().map_or(true, |w| w.log.recording)
    }

    /// The Lua string for a name, made once and reused.
    pub fn name(&self, lua: &Lua, name: &str) -> mlua::Result<mlua::LuaString> {
        if let Some(s) = self.names.borrow().get(name) {
            return Ok(s.clone());
        }
        let s = lua.create_string(name)?;
        let mut names = self.names.borrow_mut();
        // Names are few; a script minting endless new ones only loses the cache.
        if names.len() > 4096 {
            names.clear();
        }
        names.insert(name.into(), s.clone());
        Ok(s)
    }

    /// The memory limit in bytes (0: none).
    pub fn memory_limit_bytes(&self) -> usize {
        (self.limits.get().memory_mb as usize).saturating_mul(1 << 20)
    }

    /// What the battlefield's own records (the event log, marks, units)
    /// take, roughly, in bytes (see [`EVENT_BYTES`]). Zero while the world is
    /// borrowed.
    pub fn host_bytes(&self) -> usize {
        let Ok(w) = self.world.try_borrow() else { return 0 };
        w.log.events.len() * EVENT_BYTES
            + w.marks.len() * MARK_BYTES
            + w.table_marks.len() * TABLE_MARK_BYTES
            + w.units.len() * UNIT_BYTES
            + w.traces
                .iter()
                .map(|t| crate::tabletop::trace::TRACE_BYTES + t.bases.len() * crate::tabletop::trace::TRACE_BASE_BYTES)
                .sum::<usize>()
    }

    /// Checks that the battlefield's own records and Lua's heap fit the
    /// memory limit together: what a script makes the host keep (logged
    /// rolls, marks, notes, units) counts against the limit as Lua's own
    /// tables do. Called by the interrupt and by the calls that add records.
    pub fn check_memory(&self, lua: &Lua) -> mlua::Result<()> {
        let limit = self.memory_limit_bytes();
        let host = self.host_bytes();
        let heap = lua.used_memory();
        if limit == 0 || host.saturating_add(heap) <= limit {
            return Ok(());
        }
        let (events, marks, table_marks, units, traces) = self
            .world
            .try_borrow()
            .map(|w| (w.log.events.len(), w.marks.len(), w.table_marks.len(), w.units.len(), w.traces.len()))
            .unwrap_or_default();
        Err(mlua::Error::runtime(format!(
            "memory limit: the battlefield's records ({events} events in the log, {marks} marks, {table_marks} \
             tabletop marks, {units} units, {traces} traces: about {}) and Lua's heap ({}) are over the {} limit \
             (--memory-limit); clear marks with world:clear_marks(), or raise the limit",
            human_bytes(host as u64),
            human_bytes(heap as u64),
            human_bytes(limit as u64)
        )))
    }

    /// The time left of the running call's budget, when it has one.
    fn time_left(&self) -> Option<Duration> {
        match self.guard.deadline.get() {
            Some(d) => Some(d.saturating_duration_since(Instant::now())),
            None => super::raw::trial::time_left(),
        }
    }

    /// Checks, before a call starts, that work which grows with its
    /// arguments fits the budgets: `items` things (named by `noun`, e.g.
    /// "hexes") of about `bytes_each` bytes, made at about `ns_each`
    /// nanoseconds each. The error names the limit; the API prefixes the call.
    pub fn check_work(&self, lua: &Lua, items: u64, noun: &str, bytes_each: u64, ns_each: u64) -> mlua::Result<()> {
        // Small work needs no check (and hot calls such as `world:los` between
        // near hexes should not pay for one).
        if items <= SMALL_WORK {
            return Ok(());
        }
        let limit = self.memory_limit_bytes() as u64;
        let need = items.saturating_mul(bytes_each);
        let used = (lua.used_memory() + self.host_bytes()) as u64;
        if limit > 0 && need > limit.saturating_sub(used) {
            return Err(mlua::Error::runtime(format!(
                "{items} {noun} need about {}, more than the {} left of the memory limit ({}, --memory-limit)",
                human_bytes(need),
                human_bytes(limit.saturating_sub(used)),
                human_bytes(limit)
            )));
        }
        let ms = items.saturating_mul(ns_each) / 1_000_000;
        if let Some(left) = self.time_left() {
            if ms > left.as_millis() as u64 {
                return Err(mlua::Error::runtime(format!(
                    "{items} {noun} would take about {ms} ms, more than the {} ms left of the time limit ({} ms, --time-limit)",
                    left.as_millis(),
                    self.limits.get().time_ms
                )));
            }
        }
        Ok(())
    }

    /// Checks the length of a text the host keeps (a note, a mark's label).
    pub fn check_text(&self, text: &str, what: &str) -> mlua::Result<()> {
        if text.len() > MAX_TEXT {
            return Err(mlua::Error::runtime(format!(
                "{what} is {} long; the most the log and the maps keep is {} KiB",
                human_bytes(text.len() as u64),
                MAX_TEXT / 1024
            )));
        }
        Ok(())
    }

    pub fn write_output(&self, text: &str) -> mlua::Result<()> {
        let written = self.output_written.get() + text.len();
        if written > OUTPUT_LIMIT {
            return Err(mlua::Error::runtime(format!(
                "output limit: a command may print at most {} KiB",
                OUTPUT_LIMIT / 1024
            )));
        }
        self.output_written.set(written);
        match &mut *self.output.borrow_mut() {
            Output::Stdout => {
                let mut out = std::io::stdout().lock();
                out.write_all(text.as_bytes()).map_err(mlua::Error::external)?;
            }
            Output::Buffer(b) => b.extend_from_slice(text.as_bytes()),
            Output::Tee(copy) => {
                let mut out = std::io::stdout().lock();
                out.write_all(text.as_bytes()).map_err(mlua::Error::external)?;
                copy.extend_from_slice(text.as_bytes());
            }
        }
        Ok(())
    }
}

/// Options for a new host.
#[derive(Clone, Debug, Default)]
pub struct HostOptions {
    /// Overrides the ruleset's limits.
    pub time_ms: Option<u64>,
    pub memory_mb: Option<u64>,
    /// Capture `print` instead of writing to stdout.
    pub capture_output: bool,
    /// Turn the native code generator off (for comparisons).
    pub no_jit: bool,
    /// Leave out the API's fast paths (`fast`), so that every call takes the
    /// full function: for tests that compare the two, and for measuring them.
    pub no_fast_paths: bool,
    /// Compile with Luau's statement coverage and keep every module `require`
    /// loads, so `sandtable test --coverage` can read their line hits.
    pub coverage: bool,
    /// Module sources and manifests to use instead of the files, by canonical
    /// path: how `sandtable test --mutate` runs a mutant without writing to
    /// the ruleset.
    pub sources: Option<std::sync::Arc<crate::ruleset::Sources>>,
    /// Specs: once a case of the file has failed, skip the rest (a mutation
    /// run needs only the first failure).
    pub fail_fast: bool,
    /// Specs: run only the cases with these places among the file's `it`
    /// calls (0: the first); the others are skipped, not reported. How a
    /// mutant runs only the cases that ran its line.
    pub cases: Option<std::sync::Arc<std::collections::BTreeSet<usize>>>,
    /// Specs: the time budget of a case, in milliseconds, by its place
    /// among the file's `it` calls; a case not named here gets the limits'.
    /// A mutation run gives each case ten times what it took clean, so that
    /// a mutant looping in a quick case is stopped long before one slow
    /// case's budget.
    pub case_time_ms: Option<std::sync::Arc<std::collections::HashMap<usize, u64>>>,
    /// Rulesets and scenarios already parsed, shared by the hosts of a run
    /// whose files and `sources` stay as they are (a mutation run gives one
    /// share to every mutant of the Lua, and one of its own to each of the data).
    pub parsed: Option<super::load::ParseShare>,
    /// Specs: record which of the ruleset's data each case reads
    /// ([`State::data_reads`]), so that a mutation run runs a data mutant
    /// only in the cases that can see it.
    pub track_data: bool,
}
