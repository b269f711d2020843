//! Roll objects: what `dice.roll` returns, as cheap as `dice.counts`.
//!
//! A roll is a plain Luau userdata with the tag [`ROLL_TAG`] (its metatable
//! registered once per Lua state for the tag, so making one sets nothing):
//! a [`Header`] followed by one `u32` count per value of its die kind. No
//! Rust destructor, no registry reference, no table per roll. Its metatable
//! holds C functions: `__index` (`n`, `kind`, `total`, `faces`, and the
//! methods `count` and `count_any` as functions), `__namecall` (`r:count(v)`
//! in one call), `__len`, `__tostring`, `__newindex` (an error) and
//! `__type = "Roll"`.
//!
//! `r.faces` builds its table once and keeps it in the *faces ring*, a table
//! of the last `RING` rolls whose faces were read: slot 2i holds the roll,
//! 2i+1 its faces table, and the roll remembers i. Reading `faces` again
//! returns the same table while the ring still holds the roll (checked by
//! identity), and builds it again otherwise. (A weak table keyed by rolls
//! cost more than building the table.)
//!
//! While `exact` enumerates, a roll may be *lazy*: its dice not forced are
//! undecided in the dice box ([`crate::dice::LazyRoll`]) until the rule looks
//! at them. `count`/`count_any` observe only what they ask; `faces`, `total`
//! and `tostring` decide every die. Once every die is decided the counts are
//! copied into the userdata and the roll reads like any other.
//!
//! Errors: each C function works out its answer with the world borrowed and
//! nothing on the Lua stack, then drops every borrow; an error is then raised
//! by calling the `raise` function (an mlua function, upvalue 2) with the
//! message, so no Rust value is alive in the C frame when Lua unwinds it.
//! Upvalues of every function here: 1 the host `State` (a light userdata),
//! 2 `raise`, 3 the faces ring; `__index` and `__namecall`
//! also 4 the `count` function and 5 the `count_any` function.

use std::ffi::CStr;
use std::os::raw::{c_int, c_void};
use std::rc::Rc;

use mlua::{ffi, AnyUserData, Function, Lua};

use crate::battlefield::World;
use crate::dice::{DieKind, Face, Rolled};
use crate::log::Event;
use crate::lua::State;

mod methods;
use methods::*;

/// The userdata tag of roll objects (mlua uses tags 0 and 1).
pub const ROLL_TAG: c_int = 71;

/// How many rolls the faces ring holds.
const RING: u32 = 64;

thread_local! {
    /// The ring slot used last (shared by the Lua states of a thread: a slot
    /// is only trusted when it holds the very roll asking).
    static RING_NEXT: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// `Header::lazy` of a roll whose counts are final.
const CONCRETE: u32 = u32::MAX;

/// The start of a roll's userdata; `nv` counts follow.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Header {
    pub kind: u32,
    /// The kind's `generation` when rolled (a redefined kind is not read).
    pub generation: u32,
    pub n: u32,
    pub nv: u32,
    /// Index of the lazy roll in the enumeration, or `CONCRETE`.
    pub lazy: u32,
    pub epoch: u32,
    /// Where its faces table is cached in the faces ring (0: not built).
    pub faces_at: u32,
}

const HEADER: usize = std::mem::size_of::<Header>();

/// Most values a roll made on the fast path carries inline.
pub const INLINE: usize = 16;

/// A roll to push: made where no Lua call may happen, pushed afterwards.
pub struct NewRoll {
    pub header: Header,
    pub counts: [u32; INLINE],
}

/// The counts behind a roll's header.
///
/// # Safety
/// `l` is the running Lua state of a roll method call (see `register`), with room for the values pushed.
unsafe fn counts_of<'a>(h: *mut Header) -> &'a mut [u32] {
    // SAFETY: the function's `# Safety` contract.
    unsafe { std::slice::from_raw_parts_mut((h as *mut u8).add(HEADER) as *mut u32, (*h).nv as usize) }
}

/// Makes a roll userdata on top of the stack (may raise a memory error).
///
/// # Safety
/// `l` is the running Lua state of a roll method call (see `register`), with room for the values pushed.
unsafe fn push_roll(l: *mut ffi::lua_State, header: Header, counts: &[u32]) {
    // SAFETY: the function's `# Safety` contract.
    unsafe {
        let p = ffi::lua_newuserdatataggedwithmetatable(l, HEADER + 4 * counts.len(), ROLL_TAG) as *mut Header;
        p.write(header);
        counts_of(p).copy_from_slice(counts);
    }
}

/// Pushes a roll made by a fast path (see `fast::Out::Roll`).
///
/// # Safety
/// `l` is the running Lua state of a roll method call (see `register`), with room for the values pushed.
pub unsafe fn push_new(l: *mut ffi::lua_State, r: &NewRoll) {
    // SAFETY: the function's `# Safety` contract.
    unsafe {
        push_roll(l, r.header, &r.counts[..r.header.nv as usize]);
    }
}

/// Rolls `n` dice of kind `k` for a roll object, logging it when the log
/// records. Returns the header and the counts so far.
pub fn roll(w: &mut World, k: usize, n: u32, reason: &str, counts: &mut [u32]) -> Result<Header, String> {
    let rolled = w.dice.roll_start(k, n, counts).map_err(|e| e.to_string())?;
    let die = w.dice.kind(k);
    let mut header = Header {
        kind: k as u32,
        generation: die.generation,
        n,
        nv: die.values.len() as u32,
        lazy: CONCRETE,
        epoch: 0,
        faces_at: 0,
    };
    let forced = match rolled {
        Rolled::Done { forced } => forced,
        Rolled::Lazy { index, epoch, forced } => {
            header.lazy = index;
            header.epoch = epoch;
            forced
        }
    };
    if w.log.recording {
        let at = w.log.events.len();
        let shown = match rolled {
            Rolled::Done { .. } => counts.to_vec(),
            Rolled::Lazy { index, epoch, .. } => {
                let (_, walk) = w.dice.walk_mut().ok_or("enumeration ended")?;
                walk.set_log_at(index, epoch, at).map_err(|e| e.to_string())?;
                walk.lazy(index, epoch).map_err(|e| e.to_string())?.representative()
            }
        };
        let faces = face_texts(w.dice.kind(k), &shown);
        w.log.push_with(|| Event::Roll {
            kind: w.dice.kind(k).name.to_string(),
            n,
            faces,
            reason: reason.into(),
            forced,
        });
    }
    Ok(header)
}

fn face_texts(kind: &DieKind, counts: &[u32]) -> Vec<String> {
    let mut faces = Vec::new();
    for (v, &c) in kind.values.iter().zip(counts) {
        for _ in 0..c {
            faces.push(v.to_string());
        }
    }
    faces
}

/// Keeps a lazy roll's log event in step with what has been observed.
fn relog(w: &mut World, h: &Header) {
    if !w.log.recording {
        return;
    }
    let Some((_, walk)) = w.dice.walk_mut() else { return };
    let Ok(lazy) = walk.lazy(h.lazy, h.epoch) else { return };
    let Some(at) = lazy.log_at else { return };
    let shown = lazy.representative();
    let faces = face_texts(w.dice.kind(h.kind as usize), &shown);
    if let Some(Event::Roll { faces: f, .. }) = w.log.events.get_mut(at) {
        *f = faces;
    }
}

fn kind_of<'w>(w: &'w World, h: &Header) -> Result<&'w DieKind, String> {
    match w.dice.kinds().get(h.kind as usize) {
        Some(k) if k.generation == h.generation && k.values.len() == h.nv as usize => Ok(k),
        _ => Err("this roll's die kind was redefined (dice.define) after it was rolled; read a roll before redefining its kind".into()),
    }
}

/// Decides every die of a lazy roll and writes the counts into the userdata.
///
/// # Safety
/// `h` points to the header of a live roll userdata (as `this` returns).
unsafe fn settle(w: &mut World, h: *mut Header) -> Result<(), String> {
    // SAFETY (all functions here): `h` points at a live roll userdata on the
    // stack of the running C function.
    // SAFETY: `h` is a live roll's header (this function's contract).
    let hd = unsafe { *h };
    if hd.lazy == CONCRETE {
        return Ok(());
    }
    let (kinds, walk) = w.dice.walk_mut().ok_or_else(|| crate::dice::DiceError::StaleRoll.to_string())?;
    // SAFETY: `h` is a live roll's header (this function's contract).
    walk.resolve(kinds, hd.lazy, hd.epoch, unsafe { counts_of(h) }).map_err(|e| e.to_string())?;
    relog(w, &hd);
    // SAFETY: `h` is a live roll's header (this function's contract).
    unsafe { (*h).lazy = CONCRETE };
    Ok(())
}

/// A face argument as read off the stack.
#[derive(Clone, Copy)]
enum Arg<'a> {
    Str(&'a [u8]),
    Num(f64),
}

fn matches(face: &Face, a: Arg) -> bool {
    match (face, a) {
        (Face::Sym(s), Arg::Str(t)) => s.as_bytes() == t,
        (Face::Num(n), Arg::Num(x)) => *n as f64 == x,
        (Face::Num(n), Arg::Str(t)) => std::str::from_utf8(t).ok().and_then(|s| s.parse::<i64>().ok()) == Some(*n),
        (Face::Sym(_), Arg::Num(_)) => false,
    }
}

/// A set of value indices (a die has at most 250 values).
#[derive(Clone, Copy, Default)]
struct Set([u64; 4]);

impl Set {
    fn add_matching(&mut self, kind: &DieKind, a: Arg) {
        for (i, f) in kind.values.iter().enumerate() {
            if matches(f, a) {
                self.0[i / 64] |= 1 << (i % 64);
            }
        }
    }
    fn has(&self, i: usize) -> bool {
        self.0[i / 64] & (1 << (i % 64)) != 0
    }
}

/// How many dice of the roll show a value in `set`: an observation when lazy.
///
/// # Safety
/// `h` points to the header of a live roll userdata (as `this` returns).
unsafe fn count_set(w: &mut World, h: *mut Header, set: Set) -> Result<u32, String> {
    // SAFETY: `h` is a live roll's header (this function's contract).
    let hd = unsafe { *h };
    if hd.lazy == CONCRETE {
        // SAFETY: `h` is a live roll's header (this function's contract).
        let counts = unsafe { counts_of(h) };
        return Ok(counts.iter().enumerate().filter(|(i, _)| set.has(*i)).map(|(_, &c)| c).sum());
    }
    let (kinds, walk) = w.dice.walk_mut().ok_or_else(|| crate::dice::DiceError::StaleRoll.to_string())?;
    let n = walk.observe(kinds, hd.lazy, hd.epoch, set.0[0]).map_err(|e| e.to_string())?;
    let lazy = walk.lazy(hd.lazy, hd.epoch).map_err(|e| e.to_string())?;
    if lazy.open.is_empty() {
        // Every die decided: the counts are final.
        // SAFETY: `h` is a live roll's header (this function's contract).
        unsafe { counts_of(h) }.copy_from_slice(&lazy.known);
        relog(w, &hd);
        // SAFETY: `h` is a live roll's header (this function's contract).
        unsafe { (*h).lazy = CONCRETE };
    } else {
        relog(w, &hd);
    }
    Ok(n)
}

/// Registers the roll metatable for [`ROLL_TAG`] in this Lua state.
pub fn register(lua: &Lua, st: &Rc<State>) -> mlua::Result<()> {
    let raise: Function =
        lua.create_function(|_, msg: String| -> mlua::Result<()> { Err(mlua::Error::runtime(msg)) })?;
    // The ring, its array part made up front (no allocation when used).
    let cache = lua.create_table_with_capacity(2 * RING as usize + 2, 0)?;
    for i in 1..=(2 * RING as usize + 1) {
        cache.raw_set(i, false)?;
    }
    let ptr = Rc::as_ptr(st) as *mut c_void;
    // SAFETY: builds C closures over the upvalues described in the module
    // notes and registers the metatable for a tag no one else uses.
    unsafe {
        lua.exec_raw::<()>((raise, cache), move |l| {
            // stack: raise, cache
            let push3 = |f: ffi::lua_CFunction, name: &'static CStr| {
                ffi::lua_pushlightuserdata(l, ptr);
                ffi::lua_pushvalue(l, 1);
                ffi::lua_pushvalue(l, 2);
                ffi::lua_pushcclosurek(l, f, name.as_ptr(), 3, None);
            };
            push3(roll_count, c"count"); // 3
            push3(roll_count_any, c"count_any"); // 4
            ffi::lua_createtable(l, 0, 8); // 5: the metatable
            let push5 = |f: ffi::lua_CFunction, name: &'static CStr| {
                ffi::lua_pushlightuserdata(l, ptr);
                ffi::lua_pushvalue(l, 1);
                ffi::lua_pushvalue(l, 2);
                ffi::lua_pushvalue(l, 3);
                ffi::lua_pushvalue(l, 4);
                ffi::lua_pushcclosurek(l, f, name.as_ptr(), 5, None);
            };
            push5(roll_index, c"__index");
            ffi::lua_setfield(l, 5, c"__index".as_ptr());
            push5(roll_namecall, c"__namecall");
            ffi::lua_setfield(l, 5, c"__namecall".as_ptr());
            push3(roll_len, c"__len");
            ffi::lua_setfield(l, 5, c"__len".as_ptr());
            push3(roll_tostring, c"__tostring");
            ffi::lua_setfield(l, 5, c"__tostring".as_ptr());
            push3(roll_newindex, c"__newindex");
            ffi::lua_setfield(l, 5, c"__newindex".as_ptr());
            ffi::lua_pushstring(l, c"Roll".as_ptr());
            ffi::lua_setfield(l, 5, c"__type".as_ptr());
            ffi::lua_pushboolean(l, 0);
            ffi::lua_setfield(l, 5, c"__metatable".as_ptr());
            ffi::lua_setuserdatametatable(l, ROLL_TAG);
            ffi::lua_settop(l, 0);
        })
    }
}

/// Makes a roll as a Lua value (for the full `dice.roll` function).
pub fn new_value(lua: &Lua, header: Header, counts: &[u32]) -> mlua::Result<mlua::Value> {
    let counts = counts.to_vec();
    // SAFETY: pushes one userdata of the roll tag, filled in at once.
    unsafe { lua.exec_raw::<mlua::Value>((), move |l| push_roll(l, header, &counts)) }
}

/// A roll's header and counts, if `ud` is a roll.
pub fn read(lua: &Lua, ud: &AnyUserData) -> Option<(Header, Vec<u32>)> {
    let mut out = None;
    // SAFETY: reads the userdata only after checking its tag.
    let _ = unsafe {
        lua.exec_raw::<()>(ud, |l| {
            let p = ffi::lua_touserdatatagged(l, -1, ROLL_TAG) as *mut Header;
            if !p.is_null() {
                out = Some((*p, counts_of(p).to_vec()));
            }
            ffi::lua_settop(l, 0);
        })
    };
    out
}
