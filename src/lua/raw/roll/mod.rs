//! Roll objects: what `dice.roll` returns, as cheap as `dice.counts`.
//!
//! A roll is a [`Header`] followed by one `u32` count per value of its die
//! kind, held in one of two ways:
//!
//! - a plain Luau userdata with the tag [`ROLL_TAG`] (its metatable
//!   registered once per Lua state for the tag, so making one sets nothing;
//!   `__type = "Roll"`). No Rust destructor, no registry reference, no table
//!   per roll. Rolls are userdata outside `sim` and `exact` trials (the REPL,
//!   `run`, `test`), from the full `dice.roll` function, and in a trial once
//!   its arena is full;
//! - inside a `sim` or `exact` trial, from the `dice.roll` fast path, a
//!   *handle*: a light userdata with the tag [`HANDLE_TAG`] whose bits say
//!   which trial made it and where its header lies in the state's trial
//!   arena ([`Rolls`]), which the first roll of each trial empties. Nothing
//!   is allocated or collected per roll. A handle kept from an earlier trial
//!   is refused with a clear error, never read (the trial number differs);
//!   scripts cannot make light userdata, and every C function here checks
//!   that a light userdata is a handle ([`HANDLE_BIT`]). Light userdata
//!   share one metatable (the same functions as the userdata's, without
//!   `__type`); `typeof` names their tag ([`HANDLE_TAG`], 0) "Roll".
//!
//! Both read the same through every method. The metatables hold C functions:
//! `__index` (`n`, `kind`, `total`, `faces`, and the methods `count` and
//! `count_any` as functions), `__namecall` (`r:count(v)` in one call),
//! `__len`, `__tostring`, `__newindex` (an error). Their hash parts are
//! four times what their keys need, `__namecall` and `__index` set first, so
//! the VM finds both at their first probe.
//!
//! `r:count("soldier")` compares addresses, not bytes: the face names of
//! each die kind are kept as Lua strings (registry key
//! [`keys::ROLL_NAMES`](crate::lua::keys::ROLL_NAMES), made by the full
//! `dice.roll` the first time a kind is rolled, which the fast path waits
//! for), and Luau interns every string, so a string with a face's bytes is
//! that very string while it is kept.
//!
//! `r.faces` builds its table once and keeps it in the *faces ring*, a Lua
//! table of the faces of the last `RING` rolls whose faces were read: the
//! roll remembers its slot i, and the state's [`Rolls`] which roll's header
//! (by address) owns each slot. Reading `faces` again returns the same table
//! while the roll still owns its slot, and builds it again otherwise. (A
//! weak table keyed by rolls cost more than building the table.)
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

use std::cell::{Cell, RefCell};
use std::ffi::CStr;
use std::os::raw::{c_int, c_void};
use std::rc::Rc;

use mlua::{ffi, AnyUserData, Function, Lua, Table};

use crate::battlefield::World;
use crate::dice::{DieKind, Face, Rolled};
use crate::log::Event;
use crate::lua::State;

mod methods;
use methods::*;

/// The userdata tag of roll objects (mlua uses tags 0 and 1).
pub const ROLL_TAG: c_int = 71;

/// The light userdata tag of roll handles: 0, the tag mlua gives every
/// light userdata it pushes, so a handle that passes through Rust (a global
/// set through the sandbox's `__newindex`, an event argument) comes back
/// the same. A handle is told from our other light userdata (the host
/// state's address, never seen by scripts) by [`HANDLE_BIT`].
pub const HANDLE_TAG: c_int = 0;

/// Words (`u32`) of a trial arena: about 300 rolls of a six-valued die per
/// trial; rolls beyond it are userdata.
const ARENA_WORDS: usize = 4096;

/// The top bit of a handle: never set in a user-space address, so a handle
/// is never mistaken for a real address (ours, or a userdata's in
/// `fast::unit_arg`), nor an address for a handle.
const HANDLE_BIT: usize = 1 << 63;

const _: () = assert!(usize::BITS == 64, "roll handles pack a trial and an offset into 64 bits");

/// Roll storage of one Lua state (a field of [`State`]).
#[derive(Default)]
pub struct Rolls {
    arena: RefCell<Arena>,
    /// Per die kind (by index): its face names' Lua string addresses.
    names: RefCell<Vec<Option<KindNames>>>,
    /// The kind `dice.roll`'s fast path found last: (its name's address, its index).
    last_kind: std::cell::Cell<(usize, usize)>,
    /// Which roll's faces each slot of the faces ring holds.
    ring: RefCell<Ring>,
}

/// The Rust side of the faces ring (see the module notes).
#[derive(Default)]
struct Ring {
    /// The slot used last (1..=RING; 0 before the first).
    last: u32,
    /// Per slot (index 1..=RING, 0 unused): the address of the header of the
    /// roll whose faces the slot holds (0: none).
    owner: Vec<usize>,
}

impl Rolls {
    /// Takes the next ring slot for the roll with header `h`; its index.
    fn ring_take(&self, h: *mut Header) -> u32 {
        let mut r = self.ring.borrow_mut();
        if r.owner.is_empty() {
            r.owner = vec![0; RING as usize + 1];
        }
        let i = r.last % RING + 1;
        r.last = i;
        r.owner[i as usize] = h as usize;
        // SAFETY: `h` is a live roll's header (the callers' contract).
        unsafe { (*h).faces_at = i };
        i
    }

    /// The ring slot holding the faces of the roll with header `h`, if any:
    /// the slot the header names, still owned by this header. A new roll
    /// starts with `faces_at` 0, so a roll made at the address of an older
    /// one (a reused arena place or userdata) never finds the older faces.
    fn ring_slot(&self, h: *mut Header) -> Option<u32> {
        // SAFETY: `h` is a live roll's header (the callers' contract).
        let at = unsafe { (*h).faces_at };
        let r = self.ring.try_borrow().ok()?;
        (at != 0 && r.owner.get(at as usize) == Some(&(h as usize))).then_some(at)
    }
}

/// The face names of a kind as kept Lua strings (see the module notes).
struct KindNames {
    generation: u32,
    /// The kind's name as the dice box holds it: the entry is for this very
    /// kind (a world loaded again makes new kinds), checked by identity.
    kind: Rc<str>,
    /// The address of the kept string of the kind's name (`dice.roll`'s
    /// fast path finds the kind by it).
    name_ptr: usize,
    /// The address of each value's kept string (0 for a numeric value).
    ptrs: Box<[usize]>,
    /// Some value is numeric (a string asked of it is parsed, elsewhere).
    numeric: bool,
    /// The faces `dice.counts` was last asked for by name (string
    /// addresses) and where they come among the values: rules ask for the
    /// same faces again and again.
    last_asked: Cell<LastAsked>,
}

/// Most faces `dice.counts`'s fast path takes by name (more go to the full function).
pub const MOST_NAMED: usize = 8;

/// See [`KindNames::last_asked`].
#[derive(Clone, Copy, Default)]
struct LastAsked {
    len: usize,
    asked: [usize; MOST_NAMED],
    picks: [u8; MOST_NAMED],
}

/// The rolls of the current trial: headers and counts, one after another.
#[derive(Default)]
struct Arena {
    /// The trial its rolls belong to (`DiceBox::trial`).
    trial: u32,
    len: usize,
    /// `ARENA_WORDS` long once used, never resized (headers' addresses stay put).
    words: Vec<u32>,
}

const HEADER_WORDS: usize = HEADER / 4;

impl Rolls {
    /// The header a handle's bits point to, if the handle was made in the
    /// trial `trial` (the world's current one) and the arena holds it.
    fn header(&self, trial: u32, bits: usize) -> Option<*mut Header> {
        let mut a = self.arena.try_borrow_mut().ok()?;
        let off = bits & 0xffff_ffff;
        if bits & HANDLE_BIT == 0 || (bits >> 32) as u32 & 0x7fff_ffff != trial || a.trial != trial {
            return None;
        }
        if off + HEADER_WORDS > a.len {
            return None;
        }
        // SAFETY: `off` is the start of a roll stored this trial (handles are
        // made only by `push_handle`), within `len`; the words never move.
        let h = unsafe { a.words.as_mut_ptr().add(off) } as *mut Header;
        // SAFETY: as above: a header written by `push_handle`.
        let nv = unsafe { (*h).nv } as usize;
        (off + HEADER_WORDS + nv <= a.len).then_some(h)
    }

    /// Whether the face names of kind `k`, `kind`, are kept.
    fn has_names(&self, k: usize, kind: &DieKind) -> bool {
        self.names.borrow().get(k).is_some_and(|e| e.as_ref().is_some_and(|e| e.is_for(kind)))
    }
}

impl KindNames {
    /// Whether this entry was made for `kind` as it is now.
    #[inline(always)]
    fn is_for(&self, kind: &DieKind) -> bool {
        self.generation == kind.generation && Rc::ptr_eq(&self.kind, &kind.name) && self.ptrs.len() == kind.values.len()
    }
}

/// The error for a handle from an earlier trial.
fn stale() -> String {
    "this roll was made in an earlier trial (in exact, an earlier execution of the trial); a roll \
     lasts as long as the trial that rolled it: keep rolls inside trial(), or keep what you read \
     from them (e.g. r:count(...))"
        .into()
}

/// Keeps the face names of the kind of `k` as Lua strings, if not yet kept
/// for its current generation (see the module notes).
pub fn keep_names(lua: &Lua, st: &State, k: usize) -> mlua::Result<()> {
    let (generation, name, faces) = {
        let w = st.world.try_borrow().map_err(|_| mlua::Error::runtime("the world is busy"))?;
        let kind = w.dice.kind(k);
        if st.rolls.has_names(k, kind) {
            return Ok(());
        }
        let faces: Vec<Option<Rc<str>>> =
            kind.values.iter().map(|f| if let Face::Sym(s) = f { Some(s.clone()) } else { None }).collect();
        (kind.generation, kind.name.clone(), faces)
    };
    let anchor = match lua.named_registry_value::<Option<Table>>(crate::lua::keys::ROLL_NAMES)? {
        Some(t) => t,
        None => {
            let t = lua.create_table()?;
            lua.set_named_registry_value(crate::lua::keys::ROLL_NAMES, &t)?;
            t
        }
    };
    let strings = lua.create_table_with_capacity(faces.len() + 1, 0)?;
    let kind_name = lua.create_string(name.as_bytes())?;
    let name_ptr = kind_name.as_bytes().as_ptr() as usize;
    strings.raw_set("kind", kind_name)?;
    let mut ptrs = Vec::with_capacity(faces.len());
    for f in &faces {
        match f {
            Some(s) => {
                let ls = lua.create_string(s.as_bytes())?;
                ptrs.push(ls.as_bytes().as_ptr() as usize);
                strings.raw_push(ls)?;
            }
            None => ptrs.push(0),
        }
    }
    // The strings are kept before their addresses are trusted, and replaced
    // together with them.
    anchor.raw_set(k + 1, strings)?;
    let mut names = st.rolls.names.borrow_mut();
    if names.len() <= k {
        names.resize_with(k + 1, || None);
    }
    let numeric = ptrs.contains(&0);
    names[k] = Some(KindNames {
        generation,
        kind: name,
        name_ptr,
        ptrs: ptrs.into_boxed_slice(),
        numeric,
        last_asked: Cell::default(),
    });
    Ok(())
}

/// Rolls `n` dice of kind `k` straight into the trial arena for the
/// `dice.roll` fast path and pushes its handle, when in a trial and the
/// arena has room; `false` (nothing pushed, nothing drawn) otherwise.
pub fn push_handle(l: crate::lua::raw::fast::Frame<'_>, st: &State, w: &mut World, k: usize, n: u32) -> bool {
    let trial = w.dice.trial();
    if trial == 0 {
        return false;
    }
    let Ok(mut a) = st.rolls.arena.try_borrow_mut() else { return false };
    if a.trial != trial {
        a.trial = trial;
        a.len = 0;
        if a.words.is_empty() {
            a.words = vec![0; ARENA_WORDS];
        }
    }
    let nv = w.dice.kind(k).values.len();
    let off = a.len;
    let end = off + HEADER_WORDS + nv;
    if end > a.words.len() {
        return false;
    }
    let (head, counts) = a.words[off..end].split_at_mut(HEADER_WORDS);
    let Some(header) = roll_quick(w, k, n, counts) else { return false };
    // SAFETY: `head` is `HEADER_WORDS` words of the arena; `Header` is
    // `repr(C)` of `u32`s, so `u32` alignment suffices.
    unsafe { (head.as_mut_ptr() as *mut Header).write(header) };
    a.len = end;
    // SAFETY: a fast function's frame has room for one value; pushing a
    // light userdata allocates nothing and cannot raise.
    unsafe { crate::lua::raw::stack::push_light(l.raw(), HANDLE_BIT | (trial as usize) << 32 | off, HANDLE_TAG) };
    true
}

/// The kind whose kept name string is at address `p` (the string a fast
/// path was given), if its names are kept for the kind as it is now (the
/// full `dice.roll` keeps them the first time it rolls a kind).
pub fn kind_by_name(st: &State, w: &World, p: usize) -> Option<usize> {
    let names = st.rolls.names.try_borrow().ok()?;
    let named = |k: usize| names.get(k).and_then(Option::as_ref).filter(|e| e.name_ptr == p);
    // The kind found last first: rules roll the same kind again and again.
    let (last_p, last_k) = st.rolls.last_kind.get();
    let (k, e) = match named(last_k) {
        Some(e) if last_p == p => (last_k, e),
        _ => {
            let k = (0..names.len()).find(|&k| named(k).is_some())?;
            st.rolls.last_kind.set((p, k));
            (k, named(k)?)
        }
    };
    e.is_for(w.dice.kinds().get(k)?).then_some(k)
}

/// Where each face named in `asked` (addresses of Lua strings; the first
/// `len` used, the rest 0) comes among the values of kind `k`, into `out`:
/// for `dice.counts`'s fast path. `None` when the kind's names are not kept,
/// it has a numeric value, or a name is not one of its kept face names.
pub fn face_positions(
    st: &State,
    k: usize,
    asked: &[usize; MOST_NAMED],
    len: usize,
    out: &mut [u8; MOST_NAMED],
) -> Option<()> {
    let names = st.rolls.names.try_borrow().ok()?;
    let e = names.get(k)?.as_ref()?;
    {
        // SAFETY: read in place (no copy of the cache): nothing sets the
        // cell while this shared reference lives, in this function's scope.
        let last = unsafe { &*e.last_asked.as_ptr() };
        // hot: whole fixed-size arrays, compared and copied inline (an
        // array or slice comparison calls memcmp, a slice copy memcpy).
        let differ = last.asked.iter().zip(asked).fold(0, |d, (a, b)| d | (a ^ b));
        if last.len == len && differ == 0 {
            *out = last.picks;
            return Some(());
        }
    }
    if e.numeric || e.ptrs.len() > u8::MAX as usize {
        return None;
    }
    for (&p, pos) in asked.iter().zip(out.iter_mut()).take(len) {
        if p == 0 {
            return None;
        }
        *pos = e.ptrs.iter().position(|&q| q == p)? as u8;
    }
    e.last_asked.set(LastAsked { len, asked: *asked, picks: *out });
    Some(())
}

/// Rolls `n` dice of kind `k` for the `dice.roll` fast path (the log off),
/// as [`roll`] does; `None` for anything unusual (the full function then
/// rolls instead, nothing having been drawn).
#[inline(always)]
pub fn roll_quick(w: &mut World, k: usize, n: u32, counts: &mut [u32]) -> Option<Header> {
    // `sim`'s case first: nothing forced, nothing to enumerate.
    let (lazy, epoch) = if w.dice.roll_plain(k, n, counts) {
        (CONCRETE, 0)
    } else {
        match w.dice.roll_start(k, n, counts).ok()? {
            Rolled::Done { .. } => (CONCRETE, 0),
            Rolled::Lazy { index, epoch, .. } => (index, epoch),
        }
    };
    let die = w.dice.kind(k);
    let trial = w.dice.trial();
    Some(Header {
        kind: k as u32,
        generation: die.generation,
        n,
        nv: counts.len() as u32,
        lazy,
        epoch,
        faces_at: 0,
        trial,
    })
}

/// How many rolls the faces ring holds.
const RING: u32 = 64;

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
    /// The `sim`/`exact` trial it was rolled in (`DiceBox::trial`; 0 outside
    /// trials): a userdata roll kept past its trial is refused like a handle.
    pub trial: u32,
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
        trial: w.dice.trial(),
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

/// The roll object of lazy roll `index` of execution `epoch` (made by
/// [`crate::dice::Enumeration::roll_until`]), `n` dice of kind `k`, logged
/// when the log records (its representative faces, kept in step as it is read).
pub fn lazy_roll(w: &mut World, k: usize, n: u32, (index, epoch): (u32, u32), reason: &str) -> Result<Header, String> {
    let die = w.dice.kind(k);
    let header = Header {
        kind: k as u32,
        generation: die.generation,
        n,
        nv: die.values.len() as u32,
        lazy: index,
        epoch,
        faces_at: 0,
        trial: w.dice.trial(),
    };
    if w.log.recording {
        let at = w.log.events.len();
        let (_, walk) = w.dice.walk_mut().ok_or("enumeration ended")?;
        walk.set_log_at(index, epoch, at).map_err(|e| e.to_string())?;
        let shown = walk.lazy(index, epoch).map_err(|e| e.to_string())?.representative();
        let faces = face_texts(w.dice.kind(k), &shown);
        w.log.push_with(|| Event::Roll {
            kind: w.dice.kind(k).name.to_string(),
            n,
            faces,
            reason: reason.into(),
            forced: false,
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
    let cache = lua.create_table_with_capacity(RING as usize, 0)?;
    for i in 1..=RING as usize {
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
            let push5 = |f: ffi::lua_CFunction, name: &'static CStr| {
                ffi::lua_pushlightuserdata(l, ptr);
                ffi::lua_pushvalue(l, 1);
                ffi::lua_pushvalue(l, 2);
                ffi::lua_pushvalue(l, 3);
                ffi::lua_pushvalue(l, 4);
                ffi::lua_pushcclosurek(l, f, name.as_ptr(), 5, None);
            };
            push5(roll_namecall, c"__namecall"); // 5
            push5(roll_index, c"__index"); // 6
            push3(roll_len, c"__len"); // 7
            push3(roll_tostring, c"__tostring"); // 8
            push3(roll_newindex, c"__newindex"); // 9
                                                 // Two metatables (10: userdata, 11: handles), hash parts of 32
                                                 // slots for 6-7 keys, `__namecall` and `__index` set first: each
                                                 // at its main position, found at the first probe.
            for _ in 0..2 {
                ffi::lua_createtable(l, 0, 32);
                let t = ffi::lua_gettop(l);
                for (i, key) in [c"__namecall", c"__index", c"__len", c"__tostring", c"__newindex"].iter().enumerate() {
                    ffi::lua_pushvalue(l, 5 + i as c_int);
                    ffi::lua_setfield(l, t, key.as_ptr());
                }
                ffi::lua_pushboolean(l, 0);
                ffi::lua_setfield(l, t, c"__metatable".as_ptr());
            }
            ffi::lua_pushstring(l, c"Roll".as_ptr());
            ffi::lua_setfield(l, 10, c"__type".as_ptr());
            // Handles: one metatable for every light userdata (nothing else
            // of ours reaches scripts), named by tag for `typeof` (the name
            // of a tag is set once per Lua state).
            ffi::lua_pushlightuserdatatagged(l, std::ptr::null_mut(), HANDLE_TAG);
            ffi::lua_pushvalue(l, 11);
            ffi::lua_setmetatable(l, -2);
            ffi::lua_pop(l, 2);
            ffi::lua_setlightuserdataname(l, HANDLE_TAG, c"Roll".as_ptr());
            ffi::lua_setuserdatametatable(l, ROLL_TAG);
            ffi::lua_settop(l, 0);
        })
    }
}

/// Makes a roll as a Lua value (for the full `dice.roll` function), and
/// keeps its kind's face names for `count` and the fast path.
pub fn new_value(lua: &Lua, st: &State, header: Header, counts: &[u32]) -> mlua::Result<mlua::Value> {
    keep_names(lua, st, header.kind as usize)?;
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
