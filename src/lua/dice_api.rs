//! `dice`: define kinds, roll pools, force results, seed.
//!
//! `dice.roll` returns a roll object (faces in canonical order, `count`,
//! `count_any`, `total`; see `roll`) and logs it; `dice.counts` returns the
//! count of each face value as plain numbers, no table.

use std::rc::Rc;

use mlua::{Lua, Table, Value};

use super::args::{Counts, Name};
use super::fast::{self, fast_fn};
use super::State;
use crate::dice::{DieKind, Face};
use crate::log::Event;

mod roll;

pub use roll::NewRoll;

/// Pushes a roll made on the fast path (for `fast::Out::Roll`).
///
/// # Safety
/// `l` is the running Lua state with room for one more value.
pub unsafe fn push_new_roll(l: *mut mlua::ffi::lua_State, r: &NewRoll) {
    roll::push_new(l, r)
}

/// A snapshot of a roll object, for the REPL (printing, completion).
pub struct LuaRoll {
    pub kind: Rc<str>,
    pub values: Vec<Face>,
    pub counts: Vec<u32>,
    pub numeric: bool,
}

impl LuaRoll {
    /// The roll behind `ud`, if it is one (a roll `exact` has not fully read
    /// shows its forced and observed dice only).
    pub fn from_userdata(lua: &Lua, world: &crate::battlefield::World, ud: &mlua::AnyUserData) -> Option<LuaRoll> {
        let (h, counts) = roll::read(lua, ud)?;
        let kind = world.dice.kinds().get(h.kind as usize)?;
        Some(LuaRoll { kind: kind.name.clone(), values: kind.values.clone(), counts, numeric: kind.numeric })
    }

    /// True when `ud` is a roll object.
    pub fn is_roll(lua: &Lua, ud: &mlua::AnyUserData) -> bool {
        roll::read(lua, ud).is_some()
    }
}

fn face_matches(face: &Face, v: &Value) -> bool {
    match (face, v) {
        (Face::Sym(s), Value::String(t)) => t.as_bytes().as_ref() == s.as_bytes(),
        (Face::Num(n), Value::Integer(i)) => *n == *i,
        (Face::Num(n), Value::Number(x)) => (*n as f64) == *x,
        (Face::Num(n), Value::String(t)) => t.to_str().ok().and_then(|s| s.parse::<i64>().ok()) == Some(*n),
        _ => false,
    }
}

fn face_value(lua: &Lua, f: &Face) -> mlua::Result<Value> {
    Ok(match f {
        Face::Num(n) => Value::Integer(*n as _),
        Face::Sym(s) => Value::String(lua.create_string(s.as_bytes())?),
    })
}

fn pool_size(n: f64) -> mlua::Result<u32> {
    if n.fract() != 0.0 || n < 0.0 || n > crate::dice::MAX_POOL as f64 {
        return Err(mlua::Error::runtime(format!(
            "cannot roll {n} dice: a pool is a whole number from 0 to {}",
            crate::dice::MAX_POOL
        )));
    }
    Ok(n as u32)
}

fn parse_faces(kind: &str, faces: Value) -> mlua::Result<DieKind> {
    let k = match faces {
        Value::Integer(n) if n > 0 => DieKind::numeric(kind, n as u32),
        Value::Number(n) if n > 0.0 && n.fract() == 0.0 => DieKind::numeric(kind, n as u32),
        Value::Table(t) => {
            let mut fs = Vec::new();
            for v in t.sequence_values::<Value>() {
                fs.push(match v? {
                    Value::Integer(i) => Face::Num(i),
                    Value::Number(x) if x.fract() == 0.0 => Face::Num(x as i64),
                    Value::String(s) => Face::Sym(s.to_str()?.as_ref().into()),
                    other => {
                        return Err(mlua::Error::runtime(format!(
                            "dice.define('{kind}'): a face is a whole number or a name, not {}",
                            other.type_name()
                        )))
                    }
                });
            }
            DieKind::new(kind, fs)
        }
        other => {
            return Err(mlua::Error::runtime(format!(
                "dice.define('{kind}', faces): faces is a number of sides or a list of faces, not {}",
                other.type_name()
            )))
        }
    };
    k.map_err(mlua::Error::external)
}

pub fn register(lua: &Lua, state: &Rc<State>) -> mlua::Result<()> {
    let dice = lua.create_table()?;

    let st = state.clone();
    dice.set(
        "define",
        lua.create_function(move |_, (kind, faces): (String, Value)| {
            let k = parse_faces(&kind, faces)?;
            st.with_world(|w| {
                w.dice.define(k);
            })
        })?,
    )?;

    roll::register(lua, state)?;
    let st = state.clone();
    dice.set(
        "roll",
        lua.create_function(move |lua, (n, kind, reason): (f64, Name, Option<Name>)| {
            let n = pool_size(n)?;
            let (header, counts) = st.with_world(|w| {
                let k = w.dice.kind_index(&kind).map_err(mlua::Error::external)?;
                let mut counts = vec![0; w.dice.kind(k).values.len()];
                let reason = reason.as_deref().unwrap_or_default();
                let header = roll::roll(w, k, n, reason, &mut counts).map_err(mlua::Error::runtime)?;
                Ok::<_, mlua::Error>((header, counts))
            })??;
            roll::new_value(lua, header, &counts)
        })?,
    )?;
    fast::install(lua, state, &dice, c"roll", fast_roll)?;

    let st = state.clone();
    dice.set(
        "counts",
        lua.create_function(move |_, (n, kind, reason): (f64, Name, Option<Name>)| {
            // Arguments read in place and counts pushed straight back: nothing allocated.
            let n = pool_size(n)?;
            st.with_world(|w| {
                let k = w.dice.kind_index(&kind).map_err(mlua::Error::external)?;
                let nv = w.dice.kind(k).values.len();
                let mut out = Counts { counts: [0; 16], len: nv, more: Vec::new() };
                if nv > 16 {
                    out.more = vec![0; nv];
                }
                let slot: &mut [u32] = if nv <= 16 { &mut out.counts[..nv] } else { &mut out.more };
                let forced = w.dice.roll_into(k, n, slot).map_err(mlua::Error::external)?;
                if w.log.recording {
                    let die = w.dice.kind(k);
                    let mut faces = Vec::new();
                    for (v, &c) in die.values.iter().zip(slot.iter()) {
                        for _ in 0..c {
                            faces.push(v.to_string());
                        }
                    }
                    w.log.push_with(|| Event::Roll {
                        kind: kind.to_string(),
                        n,
                        faces,
                        reason: reason.map(|r| r.to_string()).unwrap_or_default(),
                        forced,
                    });
                }
                Ok(out)
            })?
        })?,
    )?;

    fast::install(lua, state, &dice, c"counts", fast_counts)?;

    let st = state.clone();
    dice.set(
        "force",
        lua.create_function(move |_, (kind, values): (String, Table)| {
            st.with_world(|w| {
                let k = w.dice.kind_index(&kind).map_err(mlua::Error::external)?;
                let die = w.dice.kind(k).clone();
                let mut idx = Vec::new();
                for v in values.sequence_values::<Value>() {
                    let v = v?;
                    let i = die.values.iter().position(|f| face_matches(f, &v)).ok_or_else(|| {
                        mlua::Error::runtime(format!(
                            "dice.force: die '{kind}' has no face {} (faces: {})",
                            super::display_value(&v),
                            die.describe_values()
                        ))
                    })?;
                    idx.push(i as u32);
                }
                w.dice.force(k, &idx);
                Ok(())
            })?
        })?,
    )?;

    let st = state.clone();
    dice.set(
        "seed",
        lua.create_function(move |_, seed: f64| {
            if seed.fract() != 0.0 || seed < 0.0 {
                return Err(mlua::Error::runtime("dice.seed(n): n is a whole number from 0"));
            }
            st.with_world(|w| w.dice.seed(seed as u64))
        })?,
    )?;

    let st = state.clone();
    dice.set(
        "faces",
        lua.create_function(move |lua, kind: String| {
            let values = st.with_world(|w| w.dice.kind_index(&kind).map(|k| w.dice.kind(k).values.clone()))?;
            let values = values.map_err(mlua::Error::external)?;
            let t = lua.create_table()?;
            for v in &values {
                t.push(face_value(lua, v)?)?;
            }
            Ok(t)
        })?,
    )?;

    let st = state.clone();
    dice.set(
        "kinds",
        lua.create_function(move |lua, ()| {
            let names = st.with_world(|w| w.dice.kinds().iter().map(|k| k.name.to_string()).collect::<Vec<_>>())?;
            lua.create_sequence_from(names)
        })?,
    )?;

    lua.globals().set("dice", dice)?;
    Ok(())
}

// `dice.roll` for simulation (see `fast`): a valid pool of a known kind with
// at most 16 values and the log off; anything else goes to the full function.
fast_fn!(fast_roll, |l, st| {
    let n = fast::whole_arg(l, 1, 0, crate::dice::MAX_POOL as i64)?;
    let kind = fast::str_arg(l, 2)?;
    fast::opt_str_arg(l, 3)?;
    let mut w = st.world.try_borrow_mut().ok()?;
    if w.log.recording {
        return None;
    }
    let k = w.dice.kind_index(kind).ok()?;
    if w.dice.kind(k).values.len() > roll::INLINE {
        return None;
    }
    let mut r = NewRoll {
        header: roll::Header { kind: 0, generation: 0, n: 0, nv: 0, lazy: 0, epoch: 0, faces_at: 0 },
        counts: [0; roll::INLINE],
    };
    let nv = w.dice.kind(k).values.len();
    r.header = roll::roll(&mut w, k, n as u32, "", &mut r.counts[..nv]).ok()?;
    Some(fast::Out::Roll(r))
});

// `dice.counts` for simulation (see `fast`): a valid pool of a known kind with
// the log off; anything else goes to the full function above.
fast_fn!(fast_counts, |l, st| {
    let n = fast::whole_arg(l, 1, 0, crate::dice::MAX_POOL as i64)?;
    let kind = fast::str_arg(l, 2)?;
    fast::opt_str_arg(l, 3)?;
    let mut w = st.world.try_borrow_mut().ok()?;
    if w.log.recording {
        return None;
    }
    let k = w.dice.kind_index(kind).ok()?;
    let mut counts = [0u32; 16];
    let nv = w.dice.kind(k).values.len();
    if nv > counts.len() {
        return None;
    }
    w.dice.roll_into(k, n as u32, &mut counts[..nv]).ok()?;
    // Numbers: pushing them allocates nothing (a C function has room for 20 values).
    for &c in &counts[..nv] {
        mlua::ffi::lua_pushnumber(l, c as f64);
    }
    Some(fast::Out::Pushed(nv as std::os::raw::c_int))
});
