//! `dice`: define kinds, roll pools, force results, seed.
//!
//! `dice.roll` returns a roll object (faces in canonical order, `count`,
//! `count_any`, `total`; see `roll`) and logs it; `dice.counts` returns the
//! count of each face value as plain numbers, no table.

use std::rc::Rc;

use mlua::{IntoLuaMulti, Lua, Table, Value, Variadic};

use super::api::{Api, Returns};
use super::raw::args::{Counts, Name};
use super::raw::{self, fast, roll};
use super::State;
use crate::dice::{DieKind, Face};
use crate::log::Event;

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

/// Where face `v` is among the values of `die` (named `kind`), or the error
/// `call` raises for a face the die does not have.
fn face_index(call: &str, kind: &str, die: &DieKind, v: &Value) -> mlua::Result<usize> {
    die.values.iter().position(|f| face_matches(f, v)).ok_or_else(|| {
        mlua::Error::runtime(format!(
            "{call}: die '{kind}' has no face {} (faces: {})",
            super::display_value(v),
            die.describe_values()
        ))
    })
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
        // Out-of-range counts saturate, so the die's own check refuses them.
        Value::Integer(n) if n > 0 => DieKind::numeric(kind, u32::try_from(n).unwrap_or(u32::MAX)),
        Value::Number(n) if n > 0.0 && n.fract() == 0.0 => DieKind::numeric(kind, n as u32),
        Value::Table(t) if t.raw_len() > crate::dice::MAX_FACES as usize => {
            return Err(mlua::Error::runtime(format!(
                "dice.define('{kind}'): {} faces; a die may have at most {}",
                t.raw_len(),
                crate::dice::MAX_FACES
            )))
        }
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

/// The `dice` area.
pub fn install(api: &mut Api) -> mlua::Result<()> {
    api.function("dice.define(kind, faces)", "define a die: a number of sides or a list of faces", define)?;

    roll::register(api.lua, api.st)?;
    api.function("dice.roll(n, kind, reason?)", "roll n dice of a kind; logged with its reason", roll_dice)?
        .returns(Returns::Roll);
    fast::install(api.lua, api.st, api.table(), c"roll", raw::dice::roll)?;

    api.function(
        "dice.counts(n, kind, reason?, face...)",
        "roll n dice, return the count of each face, or of the faces named, in that order (fast form)",
        counts,
    )?;

    fast::install(api.lua, api.st, api.table(), c"counts", raw::dice::counts)?;

    api.function(
        "dice.roll_until({n, ...}, kind, {face, ...}, reason?)",
        "roll the pools again until a die shows one of the faces: the last rolls, and how many times (nil under exact)",
        roll_until,
    )?;

    api.function("dice.force(kind, {faces})", "queue exact results for the next rolls of that kind", force)?;

    api.function("dice.seed(n)", "reseed the dice (a seed replays exactly)", seed)?;

    api.function("dice.faces(kind)", "the distinct faces of a kind, in canonical order", faces)?;

    api.function("dice.kinds()", "the names of every die kind", |lua, st, ()| {
        let names = st.with_world(|w| w.dice.kinds().iter().map(|k| k.name.to_string()).collect::<Vec<_>>())?;
        crate::lua::raw::sequence::sequence(lua, names)
    })?;
    Ok(())
}

/// `dice.define(kind, faces)`: define a die: a number of sides or a list of faces.
fn define(_lua: &Lua, st: &Rc<State>, (kind, faces): (String, Value)) -> mlua::Result<impl IntoLuaMulti> {
    let k = parse_faces(&kind, faces)?;
    st.with_world(|w| {
        w.dice.define(k);
    })
}

/// `dice.roll(n, kind, reason?)`: roll n dice of a kind; logged with its reason.
fn roll_dice(
    lua: &Lua,
    st: &Rc<State>,
    (n, kind, reason): (f64, Name, Option<Name>),
) -> mlua::Result<impl IntoLuaMulti> {
    let n = pool_size(n)?;
    let (header, counts) = st.with_world(|w| {
        let k = w.dice.kind_index(&kind).map_err(mlua::Error::external)?;
        let mut counts = vec![0; w.dice.kind(k).values.len()];
        let reason = reason.as_deref().unwrap_or_default();
        let header = roll::roll(w, k, n, reason, &mut counts).map_err(mlua::Error::runtime)?;
        Ok::<_, mlua::Error>((header, counts))
    })??;
    roll::new_value(lua, st, header, &counts)
}

/// `dice.counts(n, kind, reason?, face...)`: roll n dice, return the count of
/// each face (fast form): of every distinct face in canonical order, or of
/// the faces named, in the order named.
fn counts(
    lua: &Lua,
    st: &Rc<State>,
    (n, kind, reason, named): (f64, Name, Option<Name>, Variadic<Value>),
) -> mlua::Result<impl IntoLuaMulti> {
    // The full path (the fast one in `raw::dice` rolls without allocating).
    let n = pool_size(n)?;
    let (k, out) = st.with_world(|w| {
        let k = w.dice.kind_index(&kind).map_err(mlua::Error::external)?;
        let die = w.dice.kind(k);
        let nv = die.values.len();
        // The faces named, found before anything is rolled.
        let mut picks = Vec::with_capacity(named.len());
        for v in named.iter() {
            picks.push(face_index("dice.counts", &kind, die, v)?);
        }
        let mut all = vec![0; nv];
        let forced = w.dice.roll_into(k, n, &mut all).map_err(mlua::Error::external)?;
        if w.log.recording {
            let die = w.dice.kind(k);
            let mut faces = Vec::new();
            for (v, &c) in die.values.iter().zip(all.iter()) {
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
        let out: Vec<u32> = if picks.is_empty() { all } else { picks.iter().map(|&i| all[i]).collect() };
        Ok::<_, mlua::Error>((k, Counts::from_slice(&out)))
    })??;
    if !named.is_empty() {
        // The fast path finds named faces by the address of their Lua strings.
        roll::keep_names(lua, st, k)?;
    }
    Ok(out)
}

/// `dice.roll_until({n, ...}, kind, {face, ...}, reason?)`: rolls the pools
/// together, again while no die shows any of the faces (a round where
/// nothing happens, which the rules repeat). Returns the list of the last
/// rolls (one per pool) and how many times the pools were rolled.
///
/// Under `exact` the repeats are summed over (a geometric series): the
/// rolls are one choice point over how many dice of each pool show one of
/// the faces, weighted given that some do, and the count is nil (it has no
/// last value to enumerate); a rule must not let it change what a trial returns.
fn roll_until(
    lua: &Lua,
    st: &Rc<State>,
    (pools, kind, faces, reason): (Table, Name, Table, Value),
) -> mlua::Result<impl IntoLuaMulti> {
    const CALL: &str = "dice.roll_until";
    let mut ns = Vec::new();
    for n in pools.sequence_values::<f64>() {
        ns.push(pool_size(n?)?);
    }
    // The reason of each pool's roll at a try (counted from 1).
    let reasons = |try_no: u32| -> mlua::Result<Vec<String>> {
        match &reason {
            Value::Nil => Ok(vec![String::new(); ns.len()]),
            Value::String(s) => Ok(vec![s.to_str()?.to_string(); ns.len()]),
            Value::Table(t) if t.raw_len() == ns.len() => t.sequence_values::<String>().collect(),
            Value::Function(f) => (1..=ns.len()).map(|pool| f.call::<String>((try_no, pool))).collect(),
            other => Err(mlua::Error::runtime(format!(
                "{CALL}: reason is a text, a list of one text per pool ({} pools) or a function(try, pool) \
                 returning one, not {}",
                ns.len(),
                super::display_value(other)
            ))),
        }
    };
    let (k, nv, set, enumerating) = st.with_world(|w| {
        let k = w.dice.kind_index(&kind).map_err(mlua::Error::external)?;
        let die = w.dice.kind(k);
        let nv = die.values.len();
        if nv > 64 {
            return Err(mlua::Error::runtime(format!("{CALL}: die '{kind}' has {nv} values; at most 64")));
        }
        let mut set = 0u64;
        for v in faces.sequence_values::<Value>() {
            set |= 1 << face_index(CALL, &kind, die, &v?)?;
        }
        let named: Vec<String> = (0..nv).filter(|&v| set & (1 << v) != 0).map(|v| die.values[v].to_string()).collect();
        let showing: u32 = (0..nv).filter(|&v| set & (1 << v) != 0).map(|v| die.weights[v]).sum();
        if showing == 0 || ns.iter().all(|&n| n == 0) {
            return Err(mlua::Error::runtime(format!(
                "{CALL}: {} dice, faces named: {}; no die could ever show one, so the pools would be rolled forever \
                 (roll at least one die and name at least one face of '{kind}': {})",
                ns.iter().sum::<u32>(),
                if named.is_empty() { "none".to_string() } else { named.join(", ") },
                die.describe_values()
            )));
        }
        let enumerating = w.dice.walk_mut().is_some();
        if enumerating && w.dice.has_forced(k) {
            return Err(mlua::Error::runtime(format!(
                "{CALL}: dice of '{kind}' are forced (dice.force), and exact cannot sum over the repeats of forced \
                 dice; force them in a spec (not under exact), or roll them without dice.roll_until"
            )));
        }
        Ok((k, nv, set, enumerating))
    })??;
    let mut rolls = Vec::with_capacity(ns.len());
    let mut tries = None;
    if enumerating {
        // One choice point given that some die shows a face: the tries before are summed over.
        let reasons = reasons(1)?;
        st.with_world(|w| {
            let (kinds, walk) = w.dice.walk_mut().ok_or_else(|| mlua::Error::runtime("enumeration ended"))?;
            let indices = walk.roll_until(kinds, k, &ns, set).map_err(mlua::Error::external)?;
            let epoch = walk.epoch;
            for ((&n, index), reason) in ns.iter().zip(indices).zip(&reasons) {
                let header = roll::lazy_roll(w, k, n, (index, epoch), reason).map_err(mlua::Error::runtime)?;
                rolls.push((header, vec![0; nv]));
            }
            Ok::<_, mlua::Error>(())
        })??;
    } else {
        let mut try_no = 0u32;
        loop {
            try_no += 1;
            let reasons = reasons(try_no)?;
            rolls.clear();
            let shown = st.with_world(|w| {
                let mut shown = 0;
                for (&n, reason) in ns.iter().zip(&reasons) {
                    let mut counts = vec![0; nv];
                    let header = roll::roll(w, k, n, reason, &mut counts).map_err(mlua::Error::runtime)?;
                    shown += (0..nv).filter(|&v| set & (1 << v) != 0).map(|v| counts[v]).sum::<u32>();
                    rolls.push((header, counts));
                }
                Ok::<_, mlua::Error>(shown)
            })??;
            if shown > 0 {
                tries = Some(try_no);
                break;
            }
        }
    }
    let list = lua.create_table_with_capacity(rolls.len(), 0)?;
    for (header, counts) in rolls {
        list.raw_push(roll::new_value(lua, st, header, &counts)?)?;
    }
    Ok((list, tries))
}

/// `dice.force(kind, {faces})`: queue exact results for the next rolls of that kind.
fn force(_lua: &Lua, st: &Rc<State>, (kind, values): (String, Table)) -> mlua::Result<impl IntoLuaMulti> {
    st.with_world(|w| {
        let k = w.dice.kind_index(&kind).map_err(mlua::Error::external)?;
        let die = w.dice.kind(k).clone();
        let mut idx = Vec::new();
        for v in values.sequence_values::<Value>() {
            let v = v?;
            idx.push(face_index("dice.force", &kind, &die, &v)? as u32);
        }
        w.dice.force(k, &idx);
        Ok(())
    })?
}

/// `dice.seed(n)`: reseed the dice (a seed replays exactly).
fn seed(_lua: &Lua, st: &Rc<State>, seed: f64) -> mlua::Result<impl IntoLuaMulti> {
    if seed.fract() != 0.0 || seed < 0.0 {
        return Err(mlua::Error::runtime("dice.seed(n): n is a whole number from 0"));
    }
    st.with_world(|w| w.dice.seed(seed as u64))
}

/// `dice.faces(kind)`: the distinct faces of a kind, in canonical order.
fn faces(lua: &Lua, st: &Rc<State>, kind: String) -> mlua::Result<impl IntoLuaMulti> {
    let values = st.with_world(|w| w.dice.kind_index(&kind).map(|k| w.dice.kind(k).values.clone()))?;
    let values = values.map_err(mlua::Error::external)?;
    crate::lua::raw::sequence::sequence(
        lua,
        values.iter().map(|v| face_value(lua, v)).collect::<mlua::Result<Vec<_>>>()?,
    )
}

/// The `roll` area: what a roll object answers (its methods are C functions in `raw::roll`).
pub fn install_roll(api: &mut Api) -> mlua::Result<()> {
    api.member("r.faces", "the faces rolled, in canonical order");
    api.member("r:count(face)", "how many dice show that face");
    api.member("r:count_any{face, ...}", "how many dice show any of these faces");
    api.member("r.total", "the sum, for numeric dice (nil otherwise)");
    api.member("r.kind  r.n  #r", "the die kind and how many dice were rolled");
    Ok(())
}
