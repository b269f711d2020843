//! The `dice` area's fast path.

use super::fast::{self, fast_fn};

// `dice.counts` for simulation (see `fast`): a valid pool of a known kind with
// the log off; anything else goes to the full function in `dice_api`.
fast_fn!(counts, |l, st| {
    let n = fast::whole_arg(l, 1, 0, crate::dice::MAX_POOL as i64)?;
    let kind = name_bytes(l, 2)?;
    reason_ok(l)?;
    let mut w = st.world.try_borrow_mut().ok()?;
    if w.log.recording {
        return None;
    }
    let k = w.dice.kind_index_bytes(kind)?;
    let mut counts = [0u32; 16];
    let nv = w.dice.kind(k).values.len();
    if nv > counts.len() {
        return None;
    }
    w.dice.roll_into(k, n as u32, &mut counts[..nv]).ok()?;
    // Numbers: pushing them allocates nothing (a C function has room for 20 values).
    for &c in &counts[..nv] {
        // SAFETY: a C function has `LUA_MINSTACK` (20) free slots and a
        // kind here has at most 16 values.
        unsafe { mlua::ffi::lua_pushnumber(l.raw(), c as f64) };
    }
    Some(fast::Out::Pushed(nv as std::os::raw::c_int))
});

// `dice.roll` for simulation (see `fast`): a valid pool of a known kind with
// at most 16 values and the log off; anything else goes to the full function.
fast_fn!(roll, |l, st| {
    let n = fast::whole_arg(l, 1, 0, crate::dice::MAX_POOL as i64)?;
    let kind = name_bytes(l, 2)?;
    reason_ok(l)?;
    let mut w = st.world.try_borrow_mut().ok()?;
    if w.log.recording {
        return None;
    }
    let k = w.dice.kind_index_bytes(kind)?;
    if w.dice.kind(k).values.len() > super::roll::INLINE {
        return None;
    }
    let mut r = super::roll::NewRoll {
        header: super::roll::Header { kind: 0, generation: 0, n: 0, nv: 0, lazy: 0, epoch: 0, faces_at: 0 },
        counts: [0; super::roll::INLINE],
    };
    let nv = w.dice.kind(k).values.len();
    r.header = super::roll::roll(&mut w, k, n as u32, "", &mut r.counts[..nv]).ok()?;
    Some(fast::Out::Roll(r))
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
    // SAFETY: 3 is an acceptable index of a C function's frame.
    let t = unsafe { mlua::ffi::lua_type(l.raw(), 3) };
    match t {
        mlua::ffi::LUA_TNONE | mlua::ffi::LUA_TNIL => Some(()),
        mlua::ffi::LUA_TSTRING => {
            let b = name_bytes(l, 3)?;
            (b.is_ascii() || std::str::from_utf8(b).is_ok()).then_some(())
        }
        _ => None,
    }
}
