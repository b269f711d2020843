//! The `dice` area's fast path.

use super::fast::{self, fast_fn};
use super::roll::MOST_NAMED;

// `dice.counts` for simulation (see `fast`): a valid pool of a known kind with
// the log off; anything else goes to the full function in `dice_api`. Faces
// named after the reason are found by the address of their Lua strings,
// among the kind's kept face names (see `roll`); a kind whose names are not
// kept yet, or a face it does not have, goes to the full function, which
// keeps them or raises the error.
fast_fn!(counts, |l, st| {
    let n = fast::whole_arg(l, 1, 0, crate::dice::MAX_POOL as i64)?;
    reason_ok(l)?;
    let named = usize::try_from(l.top() - 3).unwrap_or(0);
    let mut w = st.world.try_borrow_mut().ok()?;
    if w.log.recording {
        return None;
    }
    let mut counts = [0u32; 16];
    if named == 0 {
        let k = w.dice.kind_index_bytes(name_bytes(l, 2)?)?;
        let nv = w.dice.kind(k).values.len();
        if nv > counts.len() {
            return None;
        }
        w.dice.roll_into(k, n as u32, &mut counts[..nv]).ok()?;
        for &c in &counts[..nv] {
            // SAFETY: a C function has `LUA_MINSTACK` (20) free slots and a
            // kind here has at most 16 values.
            unsafe { super::stack::raw::push_number(l.raw(), c as f64) };
        }
        return Some(fast::Out::Pushed(nv as std::os::raw::c_int));
    }
    // Named faces: a few, each a face of the kind (no roll before that is known).
    if named > MOST_NAMED {
        return None;
    }
    // SAFETY: argument indices of a C function's frame; 0 for anything but a string.
    let kind = unsafe { super::stack::raw::string_ptr(l.raw(), 2) };
    if kind == 0 {
        return None;
    }
    let k = super::roll::kind_by_name(st, &w, kind)?;
    let mut asked = [0usize; MOST_NAMED];
    for (j, p) in asked.iter_mut().enumerate().take(named) {
        // SAFETY: as above.
        *p = unsafe { super::stack::raw::string_ptr(l.raw(), 4 + j as std::os::raw::c_int) };
    }
    let mut picks = [0u8; MOST_NAMED];
    super::roll::face_positions(st, k, &asked, named, &mut picks)?;
    let nv = w.dice.kind(k).values.len();
    if nv > counts.len() {
        return None;
    }
    w.dice.roll_into(k, n as u32, &mut counts[..nv]).ok()?;
    for &i in &picks[..named] {
        // SAFETY: as above (at most 16 values).
        unsafe { super::stack::raw::push_number(l.raw(), counts[i as usize] as f64) };
    }
    Some(fast::Out::Pushed(named as std::os::raw::c_int))
});

// `dice.roll` for simulation (see `fast`): a valid pool of a known kind with
// at most 16 values, the log off, and the kind's face names kept (see
// `roll`); anything else goes to the full function. The kind is found by the
// address of its name (its Lua string is kept, and Luau interns strings).
fast_fn!(roll, |l, st| {
    let n = fast::whole_arg(l, 1, 0, crate::dice::MAX_POOL as i64)?;
    // SAFETY: 2 is an argument index of a C function's frame; 0 for
    // anything but a string.
    let kind = unsafe { super::stack::raw::string_ptr(l.raw(), 2) };
    if kind == 0 {
        return None;
    }
    reason_ok(l)?;
    let mut w = st.world.try_borrow_mut().ok()?;
    if w.log.recording {
        return None;
    }
    let k = super::roll::kind_by_name(st, &w, kind)?;
    // In a trial: a handle into the trial arena (nothing allocated).
    if super::roll::push_handle(l, st, &mut w, k, n as u32) {
        return Some(fast::Out::Pushed(1));
    }
    let nv = w.dice.kind(k).values.len();
    if nv > super::roll::INLINE {
        return None;
    }
    let mut counts = [0; super::roll::INLINE];
    let header = super::roll::roll_quick(&mut w, k, n as u32, &mut counts[..nv])?;
    Some(fast::Out::Roll(super::roll::NewRoll { header, counts }))
});

/// A string argument's bytes, unchecked as UTF-8 (a kind name compared byte
/// for byte: text that is not UTF-8 matches no kind and goes to the full
/// function, which reports it).
fn name_bytes<'call>(l: fast::Frame<'call>, i: std::os::raw::c_int) -> Option<&'call [u8]> {
    fast::string_bytes(l, i)
}

/// The optional reason (argument 3) is nil, absent or UTF-8 text, as the
/// full function requires. With the log off it is not otherwise read.
fn reason_ok(l: fast::Frame<'_>) -> Option<()> {
    match fast::string_bytes(l, 3) {
        Some(b) => fast::ascii_or_utf8(b).map(|_| ()),
        None => {
            let t = l.type_of(3);
            (t == mlua::ffi::LUA_TNONE || t == mlua::ffi::LUA_TNIL).then_some(())
        }
    }
}
