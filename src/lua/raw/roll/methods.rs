//! The C functions of a roll's metatable (see the module notes of `roll`).

use std::ffi::CStr;
use std::os::raw::c_int;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;

use mlua::ffi;

use super::*;
use crate::dice::{DieKind, Face};
use crate::lua::raw::stack;
use crate::lua::State;

/// Reads a face argument; `None` for anything but a string or a number.
///
/// # Safety
/// `l` is the running Lua state of a roll method call (see `register`), with room for the values pushed.
unsafe fn arg<'a>(l: *mut ffi::lua_State, _call: Call<'a>, i: c_int) -> Option<Arg<'a>> {
    // SAFETY: the function's `# Safety` contract.
    unsafe {
        match ffi::lua_type(l, i) {
            ffi::LUA_TNUMBER => Some(Arg::Num(ffi::lua_tonumberx(l, i, std::ptr::null_mut()))),
            ffi::LUA_TSTRING => {
                let mut len = 0usize;
                let p = ffi::lua_tolstring(l, i, &mut len) as *const u8;
                Some(Arg::Str(std::slice::from_raw_parts(p, len)))
            }
            _ => None,
        }
    }
}

/// What a function here returns, pushed once every borrow has ended.
enum Reply {
    Nil,
    Num(f64),
    Text(String),
    Name(Rc<str>),
    /// Upvalue `i` (a method function).
    Upvalue(c_int),
    /// The faces table: from the cache, or built from these counts.
    Faces(Rc<Vec<DieKind>>, *mut Header),
    /// Already on the stack.
    Cached,
}

/// One call of a roll method: strings read off its stack borrow them for its lifetime.
#[derive(Clone, Copy)]
struct Call<'a>(std::marker::PhantomData<&'a ()>);

type Body = for<'a> unsafe fn(l: *mut ffi::lua_State, st: &State, call: Call<'a>) -> Result<Reply, String>;

///
/// # Safety
/// `l` is the running Lua state of a roll method call (see `register`), with room for the values pushed.
unsafe fn state<'a>(l: *mut ffi::lua_State) -> &'a State {
    // SAFETY: the function's `# Safety` contract. The main thread's data is
    // the host state when set (see `fast::run`), and quicker to read than
    // the upvalue, which a coroutine's thread reads instead.
    unsafe {
        let st = stack::thread_data(l) as *const State;
        if !st.is_null() {
            return &*st;
        }
        &*(ffi::lua_touserdata(l, ffi::lua_upvalueindex(1)) as *const State)
    }
}

/// Byte equality without a call to `memcmp` (face names are short).
#[inline(always)]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// The roll at stack index 1 when it is a userdata roll or a handle of the
/// world's current trial; `None` for anything else (a handle from an
/// earlier trial, or not a roll), which `this` then reports.
///
/// # Safety
/// `l` is the running Lua state of a roll method call (see `register`).
#[inline(always)]
unsafe fn header_here(l: *mut ffi::lua_State, st: &State, w: &World) -> Option<*mut Header> {
    // SAFETY: the function's `# Safety` contract; index 1 is an argument.
    unsafe {
        // Handles first: the common case in `sim` and `exact`.
        let bits = stack::light(l, 1, HANDLE_TAG);
        if bits & HANDLE_BIT != 0 {
            return st.rolls.header(w.dice.trial(), bits);
        }
        let h = ffi::lua_touserdatatagged(l, 1, ROLL_TAG) as *mut Header;
        (!h.is_null() && in_its_trial(&*h, w)).then_some(h)
    }
}

/// Whether a userdata roll may be read: made outside trials, or in the
/// world's current trial.
#[inline(always)]
fn in_its_trial(h: &Header, w: &World) -> bool {
    h.trial == 0 || h.trial == w.dice.trial()
}

/// `r:count(v)` without the general method machinery, the hot case of
/// `sim` (a decided roll) and of `exact` (a lazy one, observed): the answer
/// or an error to raise, or `None` for everything else (a face that is
/// neither a string nor a number, a string asked of a die with numeric
/// faces, a busy world, a redefined kind), which `count_body` then answers
/// or rejects with its message. Nothing is decided before `None` is
/// returned, no Lua call and no allocation happen here, and nothing is
/// pushed.
///
/// # Safety
/// `l` is the running Lua state of a roll method call (see `register`).
#[inline(always)]
unsafe fn count_quick(l: *mut ffi::lua_State) -> Option<Result<u32, String>> {
    // SAFETY: the function's `# Safety` contract: index 1 is read only once
    // it is known to be a roll userdata, whose header and counts it holds.
    unsafe {
        let st = state(l);
        let mut w = st.world.try_borrow_mut().ok()?;
        let h = header_here(l, st, &w)?;
        let lazy = (*h).lazy != CONCRETE;
        let kind = w.dice.kinds().get((*h).kind as usize)?;
        if kind.generation != (*h).generation || kind.values.len() != (*h).nv as usize {
            return None;
        }
        // The values asked for, as a bit set (a die has at most 250 values),
        // and, for a decided roll, how many dice show them.
        let mut set = Set::default();
        let mut n = 0;
        let counts = counts_of(h);
        let p = stack::string_ptr(l, 2);
        if p != 0 {
            // A string: the kept face names by address (see the module notes).
            let names = st.rolls.names.borrow();
            let e = names.get((*h).kind as usize)?.as_ref()?;
            // "3" asked of a numeric face: the general path parses it.
            if e.generation != (*h).generation || e.numeric || e.ptrs.len() != counts.len() {
                return None;
            }
            for (i, (&q, &c)) in e.ptrs.iter().zip(counts.iter()).enumerate() {
                if q == p {
                    set.0[i / 64] |= 1 << (i % 64);
                    n += c;
                }
            }
        } else {
            match stack::number(l, 2) {
                Some(x) => {
                    for (i, (f, &c)) in kind.values.iter().zip(counts.iter()).enumerate() {
                        if matches!(f, Face::Num(v) if *v as f64 == x) {
                            set.0[i / 64] |= 1 << (i % 64);
                            n += c;
                        }
                    }
                }
                None => return None,
            }
        }
        if lazy {
            return Some(count_set(&mut w, h, set));
        }
        Some(Ok(n))
    }
}

/// `r:count(v)`: the common cases straight away, anything else through `run`.
///
/// # Safety
/// `l` is the running Lua state of a roll method call (see `register`).
#[inline(always)]
unsafe fn count_call(l: *mut ffi::lua_State) -> c_int {
    // SAFETY: the function's `# Safety` contract; a C function has room to
    // push one value.
    unsafe {
        match count_quick(l) {
            Some(Ok(n)) => {
                stack::push_number(l, n as f64);
                1
            }
            Some(Err(msg)) => raise(l, msg),
            None => run(l, count_body),
        }
    }
}

/// The roll at stack index 1.
///
/// # Safety
/// `l` is the running Lua state of a roll method call (see `register`), with room for the values pushed.
unsafe fn this(l: *mut ffi::lua_State, st: &State, what: &str) -> Result<*mut Header, String> {
    // SAFETY: the function's `# Safety` contract.
    unsafe {
        let p = ffi::lua_touserdatatagged(l, 1, ROLL_TAG) as *mut Header;
        if !p.is_null() {
            if (*p).trial != 0 && !in_its_trial(&*p, &*st.world.try_borrow().map_err(|_| busy())?) {
                return Err(stale());
            }
            return Ok(p);
        }
        let bits = ffi::lua_tolightuserdatatagged(l, 1, HANDLE_TAG) as usize;
        if bits & HANDLE_BIT != 0 {
            let trial = st.world.try_borrow().map_err(|_| busy())?.dice.trial();
            return st.rolls.header(trial, bits).ok_or_else(stale);
        }
        Err(format!("{what} needs a roll: call it as r:{what}(...)"))
    }
}

/// Runs `body` and pushes its reply, or raises its error.
///
/// # Safety
/// `l` is the running Lua state of a roll method call (see `register`), with room for the values pushed.
unsafe fn run(l: *mut ffi::lua_State, body: Body) -> c_int {
    // SAFETY: the function's `# Safety` contract.
    unsafe {
        let st = state(l);
        let call = Call(std::marker::PhantomData);
        let out = match catch_unwind(AssertUnwindSafe(|| body(l, st, call))) {
            Ok(r) => r,
            Err(_) => Err("internal error in a roll object".to_string()),
        };
        match out {
            Ok(reply) => push_reply(l, reply),
            Err(msg) => raise(l, msg),
        }
    }
}

#[cold]
#[inline(never)]
///
/// # Safety
/// `l` is the running Lua state of a roll method call (see `register`), with room for the values pushed.
unsafe fn raise(l: *mut ffi::lua_State, msg: String) -> c_int {
    // SAFETY: the function's `# Safety` contract.
    unsafe {
        ffi::lua_pushvalue(l, ffi::lua_upvalueindex(2));
        crate::lua::raw::fast::push_str(l, &msg);
        drop(msg);
        ffi::lua_call(l, 1, 0);
        0
    }
}

///
/// # Safety
/// `l` is the running Lua state of a roll method call (see `register`), with room for the values pushed.
unsafe fn push_reply(l: *mut ffi::lua_State, reply: Reply) -> c_int {
    // SAFETY: the function's `# Safety` contract.
    unsafe {
        match reply {
            Reply::Nil => ffi::lua_pushnil(l),
            Reply::Num(x) => ffi::lua_pushnumber(l, x),
            Reply::Text(s) => crate::lua::raw::fast::push_str(l, &s),
            Reply::Name(s) => crate::lua::raw::fast::push_str(l, &s),
            Reply::Upvalue(i) => ffi::lua_pushvalue(l, ffi::lua_upvalueindex(i)),
            Reply::Cached => {}
            Reply::Faces(kinds, h) => push_faces(l, state(l), &kinds, h),
        }
        1
    }
}

/// Builds the faces table of roll `h` (the roll at index 1, every die
/// decided), pushes it and keeps it in the faces ring.
///
/// # Safety
/// `l` is the running Lua state of a roll method call (see `register`), with
/// no borrow alive (pushing may allocate); `h` is the header of the roll at
/// index 1 and `kinds` the world's kinds.
unsafe fn push_faces(l: *mut ffi::lua_State, st: &State, kinds: &[DieKind], h: *mut Header) {
    // SAFETY: the function's `# Safety` contract.
    unsafe {
        let kind = &kinds[(*h).kind as usize];
        let counts = counts_of(h);
        ffi::lua_createtable(l, (*h).n as c_int, 0);
        let mut i = 0;
        for (v, &c) in kind.values.iter().zip(counts.iter()) {
            for _ in 0..c {
                i += 1;
                match v {
                    // One value pushed at a time: within the frame's room.
                    Face::Num(x) => stack::push_number(l, *x as f64),
                    Face::Sym(s) => crate::lua::raw::fast::push_str(l, s),
                }
                ffi::lua_rawseti(l, -2, i);
            }
        }
        let slot = st.rolls.ring_take(h);
        ffi::lua_pushvalue(l, -1);
        ffi::lua_rawseti(l, ffi::lua_upvalueindex(3), slot as ffi::lua_Integer);
    }
}

/// Pushes the faces table the ring keeps for the roll with header `h` and
/// returns true, or pushes nothing and returns false when the ring no longer
/// holds it. Reads of the ring's array part do not allocate.
///
/// # Safety
/// `l` is the running Lua state of a roll method call (see `register`), with
/// room for one value; `h` is the header of the roll at index 1.
unsafe fn push_cached_faces(l: *mut ffi::lua_State, st: &State, h: *mut Header) -> bool {
    // SAFETY: the function's `# Safety` contract; upvalue 3 is the ring.
    unsafe {
        let Some(slot) = st.rolls.ring_slot(h) else { return false };
        ffi::lua_rawgeti(l, ffi::lua_upvalueindex(3), slot as ffi::lua_Integer);
        true
    }
}

fn busy() -> String {
    "the world is busy (a rule called back into the API mid-update)".into()
}

///
/// # Safety
/// `l` is the running Lua state of a roll method call (see `register`), with room for the values pushed.
unsafe fn key<'a>(l: *mut ffi::lua_State, _call: Call<'a>, i: c_int) -> Option<&'a [u8]> {
    // SAFETY: the function's `# Safety` contract.
    unsafe {
        if ffi::lua_type(l, i) != ffi::LUA_TSTRING {
            return None;
        }
        let mut len = 0usize;
        let p = ffi::lua_tolstring(l, i, &mut len) as *const u8;
        Some(std::slice::from_raw_parts(p, len))
    }
}

///
/// # Safety
/// `l` is the running Lua state of a roll method call (see `register`), with room for the values pushed.
unsafe fn index_body(l: *mut ffi::lua_State, st: &State, call: Call<'_>) -> Result<Reply, String> {
    // SAFETY: the function's `# Safety` contract.
    unsafe {
        let h = this(l, st, "index")?;
        let Some(k) = key(l, call, 2) else { return Ok(Reply::Nil) };
        match k {
            b"n" => Ok(Reply::Num((*h).n as f64)),
            b"count" => Ok(Reply::Upvalue(4)),
            b"count_any" => Ok(Reply::Upvalue(5)),
            b"kind" => {
                let w = st.world.try_borrow().map_err(|_| busy())?;
                Ok(Reply::Name(kind_of(&w, &*h)?.name.clone()))
            }
            b"total" => {
                let mut w = st.world.try_borrow_mut().map_err(|_| busy())?;
                if !kind_of(&w, &*h)?.numeric {
                    return Ok(Reply::Nil);
                }
                settle(&mut w, h)?;
                let kind = kind_of(&w, &*h)?;
                let total: i64 = kind
                    .values
                    .iter()
                    .zip(counts_of(h).iter())
                    .map(|(f, &c)| if let Face::Num(x) = f { x * c as i64 } else { 0 })
                    .sum();
                Ok(Reply::Num(total as f64))
            }
            b"faces" => {
                if push_cached_faces(l, st, h) {
                    return Ok(Reply::Cached);
                }
                let mut w = st.world.try_borrow_mut().map_err(|_| busy())?;
                kind_of(&w, &*h)?;
                settle(&mut w, h)?;
                Ok(Reply::Faces(w.dice.kinds_shared(), h))
            }
            _ => Ok(Reply::Nil),
        }
    }
}

///
/// # Safety
/// `l` is the running Lua state of a roll method call (see `register`), with room for the values pushed.
unsafe fn count_body(l: *mut ffi::lua_State, st: &State, call: Call<'_>) -> Result<Reply, String> {
    // SAFETY: the function's `# Safety` contract.
    unsafe {
        let h = this(l, st, "count")?;
        let Some(a) = arg(l, call, 2) else {
            let t = CStr::from_ptr(ffi::luaL_typename(l, 2)).to_string_lossy();
            return Err(format!("r:count(face): face is a face name or a number, not {t}"));
        };
        let mut set = Set::default();
        if (*h).lazy == CONCRETE {
            // Decided: a read of the kind is all it takes.
            let w = st.world.try_borrow().map_err(|_| busy())?;
            let kind = kind_of(&w, &*h)?;
            let counts = counts_of(h);
            let n: u32 = kind.values.iter().zip(counts.iter()).filter(|(f, _)| matches(f, a)).map(|(_, &c)| c).sum();
            return Ok(Reply::Num(n as f64));
        }
        let mut w = st.world.try_borrow_mut().map_err(|_| busy())?;
        set.add_matching(kind_of(&w, &*h)?, a);
        Ok(Reply::Num(count_set(&mut w, h, set)? as f64))
    }
}

///
/// # Safety
/// `l` is the running Lua state of a roll method call (see `register`), with room for the values pushed.
unsafe fn count_any_body(l: *mut ffi::lua_State, st: &State, call: Call<'_>) -> Result<Reply, String> {
    // SAFETY: the function's `# Safety` contract.
    unsafe {
        let h = this(l, st, "count_any")?;
        if ffi::lua_type(l, 2) != ffi::LUA_TTABLE {
            let t = CStr::from_ptr(ffi::luaL_typename(l, 2)).to_string_lossy();
            return Err(format!(
                "r:count_any{{face, ...}}: give a list of faces, e.g. r:count_any{{\"burst\", \"deadly\"}}, not {t}"
            ));
        }
        let mut w = st.world.try_borrow_mut().map_err(|_| busy())?;
        let kind = kind_of(&w, &*h)?;
        let mut set = Set::default();
        let len = ffi::lua_objlen(l, 2) as c_int;
        for i in 1..=len {
            // Reading a table slot does not allocate.
            ffi::lua_rawgeti(l, 2, i as ffi::lua_Integer);
            let a = arg(l, call, -1);
            if let Some(a) = a {
                set.add_matching(kind, a);
            }
            ffi::lua_pop(l, 1);
            if a.is_none() {
                return Err(format!("r:count_any{{...}}: entry {i} is not a face name or a number"));
            }
        }
        Ok(Reply::Num(count_set(&mut w, h, set)? as f64))
    }
}

///
/// # Safety
/// `l` is the running Lua state of a roll method call (see `register`), with room for the values pushed.
unsafe fn len_body(l: *mut ffi::lua_State, st: &State, _call: Call<'_>) -> Result<Reply, String> {
    // SAFETY: the function's `# Safety` contract.
    unsafe { Ok(Reply::Num((*this(l, st, "len")?).n as f64)) }
}

///
/// # Safety
/// `l` is the running Lua state of a roll method call (see `register`), with room for the values pushed.
unsafe fn tostring_body(l: *mut ffi::lua_State, st: &State, _call: Call<'_>) -> Result<Reply, String> {
    // SAFETY: the function's `# Safety` contract.
    unsafe {
        let h = this(l, st, "tostring")?;
        let mut w = st.world.try_borrow_mut().map_err(|_| busy())?;
        kind_of(&w, &*h)?;
        settle(&mut w, h)?;
        let kind = kind_of(&w, &*h)?;
        Ok(Reply::Text(format!("{}: {}", kind.name, face_texts(kind, counts_of(h)).join(" "))))
    }
}

///
/// # Safety
/// `l` is the running Lua state of a roll method call (see `register`), with room for the values pushed.
unsafe fn newindex_body(l: *mut ffi::lua_State, _: &State, call: Call<'_>) -> Result<Reply, String> {
    // SAFETY: the function's `# Safety` contract.
    unsafe {
        let k = key(l, call, 2).map(|k| String::from_utf8_lossy(k).into_owned()).unwrap_or_else(|| "?".into());
        Err(format!("a roll cannot be changed (tried to set '{k}'); copy what you need into your own table"))
    }
}

/// # Safety
/// Called by Luau only, as a roll method registered by `register`.
pub(super) unsafe extern "C-unwind" fn roll_index(l: *mut ffi::lua_State) -> c_int {
    // SAFETY: the function's `# Safety` contract.
    unsafe {
        match index_quick(l) {
            Some(n) => n,
            None => run(l, index_body),
        }
    }
}

/// `r.faces` and `r.n` of a decided roll without the general machinery:
/// the value pushed, or `None` for everything else (`index_body` answers).
///
/// # Safety
/// `l` is the running Lua state of a roll method call (see `register`).
#[inline(always)]
unsafe fn index_quick(l: *mut ffi::lua_State) -> Option<c_int> {
    // SAFETY: the function's `# Safety` contract; index 2 is the key, and
    // the ring (upvalue 3) is read without allocating while the world is
    // borrowed; the faces are built after the borrow ends.
    unsafe {
        let (p, len) = stack::string_bytes(l, 2)?;
        let key = std::slice::from_raw_parts(p, len);
        let st = state(l);
        let (kinds, h) = {
            let w = st.world.try_borrow().ok()?;
            let h = header_here(l, st, &w)?;
            if same_bytes(key, b"n") {
                ffi::lua_pushnumber(l, (*h).n as f64);
                return Some(1);
            }
            if !same_bytes(key, b"faces") || (*h).lazy != CONCRETE {
                return None;
            }
            kind_of(&w, &*h).ok()?;
            if push_cached_faces(l, st, h) {
                return Some(1);
            }
            (w.dice.kinds_shared(), h)
        };
        push_faces(l, st, &kinds, h);
        Some(1)
    }
}
/// # Safety
/// Called by Luau only, as a roll method registered by `register`.
pub(super) unsafe extern "C-unwind" fn roll_count(l: *mut ffi::lua_State) -> c_int {
    // SAFETY: the function's `# Safety` contract.
    unsafe { count_call(l) }
}
/// # Safety
/// Called by Luau only, as a roll method registered by `register`.
pub(super) unsafe extern "C-unwind" fn roll_count_any(l: *mut ffi::lua_State) -> c_int {
    // SAFETY: the function's `# Safety` contract.
    unsafe { run(l, count_any_body) }
}
/// # Safety
/// Called by Luau only, as a roll method registered by `register`.
pub(super) unsafe extern "C-unwind" fn roll_len(l: *mut ffi::lua_State) -> c_int {
    // SAFETY: the function's `# Safety` contract.
    unsafe { run(l, len_body) }
}
/// # Safety
/// Called by Luau only, as a roll method registered by `register`.
pub(super) unsafe extern "C-unwind" fn roll_tostring(l: *mut ffi::lua_State) -> c_int {
    // SAFETY: the function's `# Safety` contract.
    unsafe {
        // Handles share the metatable of every light userdata: any other
        // prints as Luau prints one.
        if ffi::lua_type(l, 1) == ffi::LUA_TLIGHTUSERDATA && ffi::lua_touserdata(l, 1) as usize & HANDLE_BIT == 0 {
            let text = format!("userdata: {:p}", ffi::lua_touserdata(l, 1));
            crate::lua::raw::fast::push_str(l, &text);
            return 1;
        }
        run(l, tostring_body)
    }
}
/// # Safety
/// Called by Luau only, as a roll method registered by `register`.
pub(super) unsafe extern "C-unwind" fn roll_newindex(l: *mut ffi::lua_State) -> c_int {
    // SAFETY: the function's `# Safety` contract.
    unsafe { run(l, newindex_body) }
}
/// # Safety
/// Called by Luau only, as a roll method registered by `register`.
pub(super) unsafe extern "C-unwind" fn roll_namecall(l: *mut ffi::lua_State) -> c_int {
    // SAFETY: the function's `# Safety` contract.
    unsafe {
        let p = stack::namecall(l);
        // "count" or "count_any", read byte by byte up to the first that
        // differs (the name ends with a NUL, so no read passes its end).
        if !p.is_null() && b"count".iter().enumerate().all(|(i, &b)| *p.add(i) == b) {
            match *p.add(5) {
                0 => return count_call(l),
                b'_' if CStr::from_ptr(p as *const _).to_bytes() == b"count_any" => return run(l, count_any_body),
                _ => {}
            }
        }
        let name = if p.is_null() { &b""[..] } else { CStr::from_ptr(p as *const _).to_bytes() };
        let msg = format!(
            "a roll has no method '{}' (its methods: count, count_any; fields: faces, total, n, kind)",
            String::from_utf8_lossy(name)
        );
        raise(l, msg)
    }
}
