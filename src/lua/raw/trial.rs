//! Analysis trials on the Luau C API: a time budget kept by a watchdog
//! thread, and a reader that takes `trial()`'s metrics straight off the stack.
//!
//! Both exist for speed and are measured (docs/PERFORMANCE.md). The host's
//! own interrupt goes through mlua's callback wrapper, which cost about 12% of
//! a reserve artillery trial; even a bare interrupt, called by Luau at every
//! function call and loop iteration, cost 6% (about 26 instructions a call).
//! So a worker runs its trials with no interrupt at all: its [`Watchdog`]
//! thread looks at the running trial every few milliseconds and installs the
//! interrupt only when that trial has run past its budget. Luau reads the
//! interrupt pointer afresh at every check and allows it to change under a
//! running script (its code generator notes that the update may race with
//! the check); the store is atomic.
//!
//! The reader follows the fast paths' rule: it only *declines*. When a result
//! is not a well-formed set of metrics it hands the value back, and the safe
//! reader (`analysis::Worker::read_metrics`) reads it again and writes the
//! error message. Every message about a trial's result is written there, once.
//!
//! Used by `crate::analysis`: [`install_interrupt`] once per worker (keep
//! the [`Watchdog`] it returns while the state lives), then [`run_batch`] for
//! a block of trials in one protected call (the budget started and stopped
//! around each trial inside it), or per trial [`Watchdog::start`],
//! [`call_and_read`], [`Watchdog::stop`].

use std::cell::Cell;
use std::os::raw::{c_int, c_void};
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use mlua::{ffi, Function, Lua, Value};

use super::stack::{self, Plain};
use crate::analysis::MetricNames;
use crate::lua::keys;

/// How often the watchdog looks at a worker between trials.
const IDLE_LOOK: Duration = Duration::from_millis(50);

thread_local! {
    /// When the running trial's budget runs out, for [`time_left`] (set at
    /// its first reading).
    static DEADLINE: Cell<Option<Instant>> = const { Cell::new(None) };
    /// The budget of the running trial, until the first [`time_left`]
    /// turns it into a deadline.
    static BUDGET: Cell<Option<Duration>> = const { Cell::new(None) };
    /// The watch of the trial running on this thread (null between trials).
    static CURRENT: Cell<*const Watch> = const { Cell::new(ptr::null()) };
    /// Whether the running trial has run out of time.
    static TRIPPED: Cell<bool> = const { Cell::new(false) };
    /// Where `put_raw` looks first for the next metric's name.
    static HINT: Cell<usize> = const { Cell::new(0) };
}

/// What a script that catches the budget error with `pcall` sees. People see
/// `ScriptError::TimeLimit` instead, which the caller of [`Watchdog::stop`]
/// returns when it reports a trip.
const TRIPPED_MESSAGE: &[u8] = b"time limit\0";

/// What a worker and its watchdog thread share.
struct Watch {
    /// Trials started on the worker: the running one's number.
    started: AtomicU64,
    /// The running trial's budget in ms; 0 between trials.
    budget_ms: AtomicU64,
    /// The number of the trial the watchdog found past its budget.
    over: AtomicU64,
    /// The worker state's interrupt (`lua_Callbacks::interrupt`).
    slot: Slot,
    /// Set when the worker goes: the watchdog thread ends.
    done: AtomicBool,
    /// Set by the watchdog once the worker has run trials for
    /// `crate::lua::hot_after` in all (seen at its looks); taken by the worker,
    /// which then gives its chunks native code.
    hot: AtomicBool,
}

/// The address of a Lua state's interrupt pointer.
struct Slot(*const AtomicPtr<c_void>);

// SAFETY: the slot is only stored to atomically, and the `Watchdog` that
// owns the thread holding it ends that thread before its Lua state can go
// (see `install_interrupt`).
unsafe impl Send for Slot {}
// SAFETY: as for Send: shared access is atomic stores only.
unsafe impl Sync for Slot {}

impl Watch {
    /// Whether the running trial is the one the watchdog found over budget.
    fn running_over(&self) -> bool {
        self.budget_ms.load(Ordering::Relaxed) != 0
            && self.over.load(Ordering::Relaxed) == self.started.load(Ordering::Relaxed)
    }

    fn set_interrupt(&self, on: bool) {
        let f = if on { interrupt as *mut c_void } else { ptr::null_mut() };
        // SAFETY: the slot points into a live state's callbacks (see `Slot`).
        unsafe { (*self.slot.0).store(f, Ordering::Release) }
    }
}

/// The watchdog thread: each look, a trial seen running for its whole budget
/// gets the interrupt (again at every look, in case the worker's interrupt
/// cleared it in between for an older trial).
///
/// It also adds up the time between looks that found a trial running (about
/// the time the worker spent in trials) and marks the worker hot
/// ([`Watchdog::take_hot`]) when that reaches `crate::lua::hot_after`.
fn keep_watch(w: Arc<Watch>) {
    let mut seen: Option<(u64, Instant)> = None;
    let mut busy = Some(Duration::ZERO);
    let mut last_look = Instant::now();
    while !w.done.load(Ordering::Acquire) {
        let budget = w.budget_ms.load(Ordering::Relaxed);
        let now = Instant::now();
        if let Some(b) = busy {
            if budget != 0 {
                let b = b + now.duration_since(last_look);
                busy = Some(b);
                if b >= crate::lua::hot_after() {
                    w.hot.store(true, Ordering::Relaxed);
                    busy = None;
                }
            }
        }
        last_look = now;
        let look = if budget == 0 {
            seen = None;
            IDLE_LOOK
        } else {
            let n = w.started.load(Ordering::Relaxed);
            match seen {
                Some((m, since)) if m == n => {
                    if now.duration_since(since) >= Duration::from_millis(budget) {
                        w.over.store(n, Ordering::Relaxed);
                        w.set_interrupt(true);
                    }
                }
                _ => seen = Some((n, now)),
            }
            // First seen at most one look after it started, stopped at most
            // one look after its budget from then: at most 100 ms late.
            Duration::from_millis((budget / 10).clamp(1, 50))
        };
        thread::park_timeout(look);
    }
}

/// The interrupt the watchdog installs: raises the budget error when the
/// running trial is the one over budget (on every call from then on, so a
/// `pcall` cannot swallow it); otherwise the trial it was meant for has
/// ended, and it uninstalls itself.
///
/// # Safety
/// Luau calls it with the running state `l`, as its `interrupt` callback, and
/// nothing else may call it.
unsafe extern "C-unwind" fn interrupt(l: *mut ffi::lua_State, gc: c_int) {
    if gc >= 0 {
        return; // a GC step: raising an error here is not allowed
    }
    if !TRIPPED.with(Cell::get) {
        let w = CURRENT.with(Cell::get);
        // SAFETY: CURRENT is the watch of the trial running on this thread,
        // alive while it runs (its Watchdog outlives the trial).
        if w.is_null() || !unsafe { (*w).running_over() } {
            // SAFETY: `l` is a live state; its callbacks are never null. The
            // store is atomic, as the watchdog's (an `Option<extern fn>` is
            // one pointer).
            unsafe {
                let slot = ptr::addr_of_mut!((*ffi::lua_callbacks(l)).interrupt).cast::<AtomicPtr<c_void>>();
                (*slot).store(ptr::null_mut(), Ordering::Release);
            }
            return;
        }
        TRIPPED.with(|c| c.set(true));
    }
    // SAFETY: `l` is the running state outside a GC step; the message is a
    // NUL-terminated static; no Rust value with a destructor is alive in
    // this frame when lua_error unwinds out of it.
    unsafe {
        ffi::lua_pushstring(l, TRIPPED_MESSAGE.as_ptr().cast());
        ffi::lua_error(l);
    }
}

/// A worker's time keeper: a thread that installs the interrupt in the
/// worker's Lua state when a trial runs past its budget. Dropping it ends
/// the thread; it must go before the state does.
pub struct Watchdog {
    watch: Arc<Watch>,
    thread: Option<JoinHandle<()>>,
}

impl Watchdog {
    /// Starts the budget of one trial on this thread.
    pub fn start(&self, ms: u64) {
        BUDGET.with(|b| b.set(Some(Duration::from_millis(ms))));
        DEADLINE.with(|d| d.set(None));
        TRIPPED.with(|c| c.set(false));
        CURRENT.with(|c| c.set(Arc::as_ptr(&self.watch)));
        let w = &self.watch;
        // Only this thread writes `started`: a plain increment.
        w.started.store(w.started.load(Ordering::Relaxed).wrapping_add(1), Ordering::Relaxed);
        w.budget_ms.store(ms.max(1), Ordering::Relaxed);
    }

    /// Ends it; true if the trial ran out of time.
    pub fn stop(&self) -> bool {
        self.watch.budget_ms.store(0, Ordering::Relaxed);
        CURRENT.with(|c| c.set(ptr::null()));
        BUDGET.with(|b| b.set(None));
        DEADLINE.with(|d| d.set(None));
        TRIPPED.with(|c| c.replace(false))
    }

    /// Whether the worker has run hot since it last asked (see
    /// `crate::lua::hot_after`): true once.
    pub fn take_hot(&self) -> bool {
        self.watch.hot.load(Ordering::Relaxed) && self.watch.hot.swap(false, Ordering::Relaxed)
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.watch.done.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            let _ = t.join();
        }
        self.watch.set_interrupt(false);
    }
}

/// Takes the state's interrupt (the host's, through mlua's wrapper) away and
/// starts the watchdog that installs the budget interrupt when a trial runs
/// too long. Keep the returned [`Watchdog`] while the state lives, and drop
/// it first. The budget is per thread: each worker thread runs one trial at
/// a time.
pub fn install_interrupt(lua: &Lua) -> std::io::Result<Watchdog> {
    let mut slot: *const AtomicPtr<c_void> = ptr::null();
    // SAFETY: the closure clears the interrupt pointer of the state's
    // callbacks (lua_callbacks never returns null for a live state) and
    // takes its address, which lives as long as the state. An
    // `Option<extern fn>` is one pointer, as `AtomicPtr` is.
    let _ = unsafe {
        lua.exec_raw::<()>((), |l| {
            let cb = ffi::lua_callbacks(l);
            (*cb).interrupt = None;
            slot = ptr::addr_of_mut!((*cb).interrupt).cast::<AtomicPtr<c_void>>();
        })
    };
    if slot.is_null() {
        return Err(std::io::Error::other("could not reach the Luau state's interrupt"));
    }
    let watch = Arc::new(Watch {
        started: AtomicU64::new(0),
        budget_ms: AtomicU64::new(0),
        over: AtomicU64::new(u64::MAX),
        slot: Slot(slot),
        done: AtomicBool::new(false),
        hot: AtomicBool::new(false),
    });
    let w = watch.clone();
    let thread = thread::Builder::new().name("trial watchdog".into()).spawn(move || keep_watch(w))?;
    Ok(Watchdog { watch, thread: Some(thread) })
}

/// The time left of the running trial's budget on this thread, if a trial
/// is running (for calls that check their cost before they start). The
/// first reading starts the deadline.
pub fn time_left() -> Option<Duration> {
    if let Some(budget) = BUDGET.with(Cell::take) {
        DEADLINE.with(|d| d.set(Some(Instant::now() + budget)));
        return Some(budget);
    }
    DEADLINE.with(Cell::get).map(|d| d.saturating_duration_since(Instant::now()))
}

/// Calls `trial` with no arguments and reads its result as metrics into
/// `names` / `values` (by slot; new names are added in the order met).
///
/// - `Ok(None)`: read; every metric the trial returned is in `values`.
/// - `Ok(Some(v))`: declined; `v` is the trial's result, which is not a
///   well-formed set of metrics (or not one this reader handles). `values`
///   may be partly written: read `v` again with the safe reader, which
///   resets them and writes the error.
/// - `Err(e)`: the trial raised `e` (or ran out of time).
///
/// The call and the reading happen in one protected call on the Lua stack: no
/// registry references, no strings copied for metric names already seen.
pub fn call_and_read(
    lua: &Lua,
    trial: &Function,
    names: &mut MetricNames,
    values: &mut Vec<f64>,
) -> mlua::Result<Option<Value>> {
    let mut read = false;
    // SAFETY: exec_raw pushes `trial` and runs the closure in a protected
    // call with it on top of the stack, which is what `read_raw` requires;
    // `read_raw` leaves nothing (read) or the result (declined) on the stack,
    // which exec_raw converts into the returned value.
    let left = unsafe { lua.exec_raw::<Value>(trial, |l| read = read_raw(l, names, values)) }?;
    Ok((!read).then_some(left))
}

/// What a block of trials run by [`run_batch`] does around each trial: sets
/// up the next one (reset the world, seed or enumerate the dice) and takes
/// its metrics. Neither may call Lua: both run inside the block's protected
/// call, between two trials.
pub trait Trials {
    /// Sets up the next trial and returns its time budget in ms, or `None`
    /// when the block is over.
    fn before(&mut self) -> Option<u64>;
    /// Takes the metrics of the trial just run (by slot of `names`; NaN where
    /// a metric was absent); false ends the block.
    fn after(&mut self, names: &MetricNames, values: &[f64]) -> bool;
}

/// How a block of trials ([`run_batch`]) ended. The trial it ended on is the
/// last one [`Trials::before`] set up.
pub enum BatchEnd {
    /// `before` or `after` ended it.
    Finished,
    /// The worker has run hot ([`Watchdog::take_hot`]): the block goes on
    /// with the next trial after its chunks get native code.
    Hot,
    /// The trial's result is not a set of metrics this reader handles: it is
    /// handed back for the safe reader, and `after` was not called for it.
    Declined(Value),
    /// The trial raised an error; `tripped` when it ran out of time.
    Failed { error: mlua::Error, tripped: bool },
}

/// Runs trials one after another in one protected call until `trials` says
/// stop or one of them fails or returns something the raw reader declines:
/// per trial `before`, the budget, `trial()`, the metrics read off the stack,
/// `after`. One protected call per block instead of one per trial: mlua's
/// protected call makes two C closures and a `lua_pcall` each time, about a
/// sixth of a trial that does nothing.
///
/// A Lua error in a trial unwinds out of the whole block, so the state of
/// `trials` says which trial failed: the one its `before` set up last.
pub fn run_batch(
    lua: &Lua,
    dog: &Watchdog,
    trial: &Function,
    names: &mut MetricNames,
    values: &mut Vec<f64>,
    trials: &mut dyn Trials,
) -> BatchEnd {
    let mut declined = false;
    let mut hot = false;
    // SAFETY: exec_raw pushes `trial` (stack index 1 of the protected call)
    // and runs the closure in a protected call. Each round pushes a copy of
    // the function and `read_raw` pops it with its result (read) or leaves
    // the result on top (declined), which is the state `read_raw` needs
    // (room for its two slots: lua_checkstack below). On a decline the
    // function copy at index 1 is removed, so the result is the one value
    // exec_raw converts. A Lua error unwinds out of `read_raw` and this
    // closure; neither holds a value with a destructor across the call
    // (`before` and `after` have returned, their borrows ended). The
    // budget's thread-locals are reset by `dog.stop` below in every case.
    let r = unsafe {
        lua.exec_raw::<Value>(trial, |l| {
            ffi::lua_checkstack(l, 3);
            while let Some(ms) = trials.before() {
                values_unset(values);
                ffi::lua_pushvalue(l, 1);
                dog.start(ms);
                if !read_raw(l, names, values) {
                    dog.stop();
                    ffi::lua_remove(l, 1);
                    declined = true;
                    return;
                }
                dog.stop();
                if !trials.after(names, values) {
                    break;
                }
                if dog.take_hot() {
                    hot = true;
                    break;
                }
            }
            ffi::lua_settop(l, 0);
        })
    };
    let tripped = dog.stop();
    match r {
        Ok(v) if declined => BatchEnd::Declined(v),
        Ok(_) if hot => BatchEnd::Hot,
        Ok(_) => BatchEnd::Finished,
        Err(error) => BatchEnd::Failed { error, tripped },
    }
}

/// Marks every metric absent (NaN) before a trial's result is read.
pub fn values_unset(values: &mut [f64]) {
    values.iter_mut().for_each(|x| *x = f64::NAN);
}

/// Calls the function at the top of the stack with no arguments and reads
/// its result as metrics. Returns true when it read them (the function and
/// its result are then off the stack), false when it declined (the result is
/// left on top of the stack instead, in place of the function). Lua errors
/// from the call unwind to the caller's protected call; nothing with a
/// destructor is alive across it.
///
/// # Safety
/// `l` must be a state inside a protected call, with a function on top of
/// its stack and room for two more values above its result.
unsafe fn read_raw(l: *mut ffi::lua_State, names: &mut MetricNames, values: &mut Vec<f64>) -> bool {
    // SAFETY: the caller guarantees the function on top of the stack inside
    // a protected call; lua_call replaces it with one result.
    let top = unsafe {
        ffi::lua_call(l, 0, 1);
        ffi::lua_gettop(l)
    };
    // SAFETY: `top` is the index of the result.
    let kind = unsafe { ffi::lua_type(l, top) };
    match kind {
        ffi::LUA_TTABLE => {
            // SAFETY: the table is at `top`, walked in place (nothing changes
            // it meanwhile); the names to keep are kept while it is still on
            // the stack, so their strings are alive.
            unsafe {
                // Kept keys name metrics in the state that keeps them only.
                let owner = ffi::lua_mainthread(l) as usize;
                if names.keys_of != owner {
                    names.keys.clear();
                    names.keys_of = owner;
                }
                let mut keep = Vec::new();
                let walked = stack::table_entries(l, top, |e| match e.key {
                    Some((key, name)) => put(e.value, key, name, names, values, &mut keep),
                    None => false,
                });
                match walked {
                    Some(read) => {
                        if !read {
                            return false;
                        }
                        if !keep.is_empty() {
                            keep_keys(l, names, &keep);
                        }
                    }
                    None => {
                        if !read_by_api(l, top, names, values) {
                            return false;
                        }
                    }
                }
                stack::pop_to(l, top - 1);
            }
            true
        }
        // Nothing returned: the safe reader says what to return instead.
        ffi::LUA_TNIL => false,
        _ => {
            // SAFETY: the result is on top of the stack, at `top`.
            let value = unsafe {
                match (stack::number(l, top), stack::boolean(l, top)) {
                    (Some(x), _) => Plain::Num(x),
                    (_, Some(b)) => Plain::Bool(b),
                    _ => Plain::Other,
                }
            };
            let read = put(value, 0, b"value", names, values, &mut Vec::new());
            if read {
                // SAFETY: pops the result, which is at `top`.
                unsafe { stack::pop_to(l, top - 1) };
            }
            read
        }
    }
}

/// Reads the table at `top` with `lua_rawiter`, for when the direct
/// readers are off. True when every entry was a metric.
///
/// # Safety
/// As for [`read_raw`], with the result table at `top`.
unsafe fn read_by_api(l: *mut ffi::lua_State, top: c_int, names: &mut MetricNames, values: &mut Vec<f64>) -> bool {
    // SAFETY: each lua_rawiter pushes a key and a value (the two slots the
    // caller guarantees), both popped before the next call; they are read
    // through the API.
    unsafe {
        let mut at = 0;
        loop {
            at = ffi::lua_rawiter(l, top, at);
            if at < 0 {
                return true;
            }
            let value = match ffi::lua_type(l, top + 2) {
                ffi::LUA_TNUMBER => Plain::Num(ffi::lua_tonumberx(l, top + 2, ptr::null_mut())),
                ffi::LUA_TBOOLEAN => Plain::Bool(ffi::lua_toboolean(l, top + 2) != 0),
                _ => Plain::Other,
            };
            let read = match stack::string_bytes(l, top + 1) {
                Some((p, len)) => put(value, 0, std::slice::from_raw_parts(p, len), names, values, &mut Vec::new()),
                None => false,
            };
            stack::pop_to(l, top);
            if !read {
                return false;
            }
        }
    }
}

/// Takes `value` as metric `name`, whose Lua string's bytes start at `key`
/// (0 when not known). Declines (false) when the value is not a number or a
/// boolean, not finite within `±MAX_ABS_VALUE`, or a new name is empty or
/// not UTF-8. A name found by its text whose string is not the one kept for
/// its slot goes into `keep` (slot, key), for [`keep_keys`].
fn put(
    value: Plain,
    key: usize,
    name: &[u8],
    names: &mut MetricNames,
    values: &mut Vec<f64>,
    keep: &mut Vec<(usize, usize)>,
) -> bool {
    let x = match value {
        Plain::Num(x) => x,
        Plain::Bool(b) => f64::from(u8::from(b)),
        Plain::Other => return false,
    };
    if !x.is_finite() || x.abs() > crate::analysis::stats::MAX_ABS_VALUE {
        return false;
    }
    // Trials return their metrics in the same order every time: try the slot
    // after the last one found, by its kept string's address, then by text.
    let hint = HINT.with(Cell::get);
    let hint = if hint < names.len() { hint } else { 0 };
    let i = if key != 0 && names.keys.get(hint) == Some(&key) {
        hint
    } else {
        let found = match names.get(hint) {
            Some(n) if crate::battlefield::same_bytes(n.as_bytes(), name) => Some(hint),
            _ => names.find(name),
        };
        let i = match found {
            Some(i) => i,
            // Past the most metrics, the safe reader says so.
            None => match std::str::from_utf8(name).ok().filter(|s| !s.is_empty()).and_then(|s| names.add(s)) {
                Some(i) => {
                    values.push(f64::NAN);
                    i
                }
                None => return false,
            },
        };
        if key != 0 && names.keys.get(i) != Some(&key) {
            keep.push((i, key));
        }
        i
    };
    HINT.with(|h| h.set(i + 1));
    values[i] = x;
    true
}

/// Keeps the strings at `keep`'s addresses (slot, where the bytes start) in
/// the registry table [`keys::METRIC_KEYS_C`] at their slots, so that while
/// they live no other text has their address, and notes the addresses in
/// `names.keys` (which the caller has made this state's).
///
/// # Safety
/// `l` is a state inside a protected call with room for two more values;
/// each address is that of a live string's bytes (a key of the result table
/// still on the stack).
unsafe fn keep_keys(l: *mut ffi::lua_State, names: &mut MetricNames, keep: &[(usize, usize)]) {
    // SAFETY: the function's contract. The table is made once per state
    // (an allocation, which may raise a memory error: nothing with a
    // destructor is alive here but the caller's, which unwind normally).
    unsafe {
        if ffi::lua_rawgetfield(l, ffi::LUA_REGISTRYINDEX, keys::METRIC_KEYS_C.as_ptr()) != ffi::LUA_TTABLE {
            ffi::lua_pop(l, 1);
            ffi::lua_createtable(l, 0, 0);
            ffi::lua_pushvalue(l, -1);
            ffi::lua_rawsetfield(l, ffi::LUA_REGISTRYINDEX, keys::METRIC_KEYS_C.as_ptr());
        }
        for &(slot, key) in keep {
            if !stack::push_kept_string(l, key) {
                break;
            }
            ffi::lua_rawseti(l, -2, slot as ffi::lua_Integer + 1);
            if names.keys.len() <= slot {
                names.keys.resize(slot + 1, 0);
            }
            names.keys[slot] = key;
        }
        ffi::lua_pop(l, 1);
    }
}
