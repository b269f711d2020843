//! Units: an id, a side, a type, a strength out of a maximum (figures, blocks
//! or bases, as the ruleset names them), an attached leader, a position, and
//! free-form properties the ruleset owns (`morale`, `saved_fire`, ...).
//!
//! On a tabletop a unit's strength is its bases, and each base has an id
//! (1, 2, ...) and a place in the unit's formation ([`Unit::bases`]): a loss
//! removes named bases and the others stay where they stood.
//!
//! Names are `Rc<str>` so that copying a world for a trial or an undo step
//! costs reference counts, not string copies.

use std::fmt;
use std::rc::Rc;

use crate::hex::Hex;
use crate::tabletop::Point;

/// Where a unit stands.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum Position {
    /// Not on the battlefield (eliminated, or waiting in reserve).
    #[default]
    Off,
    /// On a hex map.
    Hex(Hex),
    /// On a tabletop, in centimetres, facing in degrees (0 = east/right, clockwise,
    /// y grows down the table like a screen).
    Table { at: Point, facing: f64 },
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Position::Off => f.write_str("off"),
            Position::Hex(h) => write!(f, "{h}"),
            Position::Table { at, facing } => write!(f, "{at} facing {facing}"),
        }
    }
}

/// A free-form property value.
#[derive(Clone, Debug, PartialEq)]
pub enum Prop {
    Bool(bool),
    Num(f64),
    Str(Rc<str>),
}

impl fmt::Display for Prop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Prop::Bool(b) => write!(f, "{b}"),
            Prop::Num(n) => write!(f, "{n}"),
            Prop::Str(s) => f.write_str(s),
        }
    }
}

#[derive(Debug, PartialEq)]
pub struct Unit {
    pub id: Rc<str>,
    pub side: Rc<str>,
    /// The unit type from the ruleset (`infantry`, `cavalry`, ...).
    pub kind: Rc<str>,
    pub strength: i32,
    pub max_strength: i32,
    pub leader: Option<Rc<str>>,
    pub pos: Position,
    /// Small and usually empty, so a linear search beats a map.
    pub props: Vec<(Rc<str>, Prop)>,
    /// A tabletop unit's bases by identity, when they are not the default
    /// (bases 1 to `strength` in the first `strength` places of its
    /// formation): the id of the base in each place of its formation block,
    /// 0 for a place whose base was lost. Empty for the default, so hex
    /// units and whole tabletop units carry nothing. Change it only through
    /// `World` (`hit`, `remove_bases`, `set_strength`, `close_up`), which
    /// keep `strength` equal to the number of bases.
    pub bases: Vec<u16>,
}

impl Clone for Unit {
    fn clone(&self) -> Unit {
        Unit {
            id: self.id.clone(),
            side: self.side.clone(),
            kind: self.kind.clone(),
            strength: self.strength,
            max_strength: self.max_strength,
            leader: self.leader.clone(),
            pos: self.pos,
            props: self.props.clone(),
            bases: self.bases.clone(),
        }
    }

    /// Reuses the property list's allocation: simulation resets every unit
    /// before every trial.
    #[inline]
    fn clone_from(&mut self, o: &Unit) {
        share(&mut self.id, &o.id);
        share(&mut self.side, &o.side);
        share(&mut self.kind, &o.kind);
        self.strength = o.strength;
        self.max_strength = o.max_strength;
        match (&mut self.leader, &o.leader) {
            (Some(a), Some(b)) => share(a, b),
            (a, b) => a.clone_from(b),
        }
        self.pos = o.pos;
        if !(self.props.is_empty() && o.props.is_empty()) {
            self.props.clone_from(&o.props);
        }
        if !(self.bases.is_empty() && o.bases.is_empty()) {
            self.bases.clone_from(&o.bases);
        }
    }
}

/// `*a = b.clone()`, skipping the reference counting when they already share.
#[inline]
fn share(a: &mut Rc<str>, b: &Rc<str>) {
    if !Rc::ptr_eq(a, b) {
        *a = b.clone();
    }
}

impl Unit {
    pub fn prop(&self, name: &str) -> Option<&Prop> {
        // `same_name` compares in whole words: `==` calls memcmp for each
        // property tried, and rules read properties on every step of a move.
        self.props.iter().find(|(k, _)| crate::battlefield::same_name(k, name)).map(|(_, v)| v)
    }

    /// Sets (or with `None`, removes) a property.
    pub fn set_prop(&mut self, name: &str, value: Option<Prop>) {
        let at = self.props.iter().position(|(k, _)| crate::battlefield::same_name(k, name));
        match (at, value) {
            (Some(i), Some(v)) => self.props[i].1 = v,
            (Some(i), None) => {
                self.props.remove(i);
            }
            (None, Some(v)) => self.props.push((name.into(), v)),
            (None, None) => {}
        }
    }

    pub fn hex(&self) -> Option<Hex> {
        match self.pos {
            Position::Hex(h) => Some(h),
            _ => None,
        }
    }

    /// On the battlefield and with figures left.
    pub fn alive(&self) -> bool {
        self.strength > 0 && self.pos != Position::Off
    }

    // ---- bases by identity (tabletop) ----

    /// How many places the unit's formation block has (a lost base leaves
    /// its place empty until the unit closes up).
    pub fn places(&self) -> usize {
        if self.bases.is_empty() {
            self.strength.max(0) as usize
        } else {
            self.bases.len()
        }
    }

    /// The unit's bases as (place, id), in place order (front rank first,
    /// left to right).
    pub fn base_ids(&self) -> impl Iterator<Item = (usize, u16)> + '_ {
        let default = if self.bases.is_empty() { self.strength.max(0) as usize } else { 0 };
        (0..default)
            .map(|p| (p, (p + 1) as u16))
            .chain(self.bases.iter().enumerate().filter(|(_, id)| **id != 0).map(|(p, id)| (p, *id)))
    }

    /// True when the unit has a base with this id.
    pub fn has_base(&self, id: u16) -> bool {
        id != 0 && self.base_ids().any(|(_, b)| b == id)
    }

    /// The explicit form of `bases` (one entry per place), to change it.
    fn bases_mut(&mut self) -> &mut Vec<u16> {
        if self.bases.is_empty() {
            self.bases = (1..=self.strength.max(0) as u16).collect();
        }
        &mut self.bases
    }

    /// Back to the empty default when the bases are 1..=strength in order,
    /// none missing (so equal units compare equal however they got there).
    fn settle_bases(&mut self) {
        let n = self.strength.max(0) as usize;
        if self.bases.len() == n && self.bases.iter().enumerate().all(|(i, id)| *id as usize == i + 1) {
            self.bases.clear();
        }
        if n == 0 {
            self.bases.clear();
        }
    }

    /// Removes the named bases, leaving their places empty; the others
    /// stay where they stand. Checks every id first: a base the unit does
    /// not have, or one named twice, changes nothing.
    pub fn remove_bases(&mut self, ids: &[u16]) -> Result<(), String> {
        for (k, id) in ids.iter().enumerate() {
            if !self.has_base(*id) {
                return Err(format!("unit '{}' has no base {id} (its bases: {})", self.id, self.base_list()));
            }
            if ids[..k].contains(id) {
                return Err(format!("base {id} of unit '{}' is named twice", self.id));
            }
        }
        let places = self.bases_mut();
        for p in places.iter_mut() {
            if ids.contains(p) {
                *p = 0;
            }
        }
        self.strength -= ids.len() as i32;
        self.settle_bases();
        Ok(())
    }

    /// The ids of the `n` highest-numbered bases, highest first (what a
    /// loss takes when no rule names the bases).
    pub fn last_bases(&self, n: usize) -> Vec<u16> {
        let mut ids: Vec<u16> = self.base_ids().map(|(_, id)| id).collect();
        ids.sort_unstable_by(|a, b| b.cmp(a));
        ids.truncate(n);
        ids
    }

    /// Adds `n` bases with the lowest ids not in use: into empty places
    /// first, front rank first, then in new places at the back.
    pub fn add_bases(&mut self, n: usize) {
        if n == 0 {
            return;
        }
        let mut used: Vec<u16> = self.base_ids().map(|(_, id)| id).collect();
        let places = self.bases_mut();
        let mut next = 1u16;
        let mut fresh = || {
            while used.contains(&next) {
                next += 1;
            }
            used.push(next);
            next
        };
        let mut left = n;
        for p in places.iter_mut() {
            if left > 0 && *p == 0 {
                *p = fresh();
                left -= 1;
            }
        }
        for _ in 0..left {
            let id = fresh();
            places.push(id);
        }
        self.strength += n as i32;
        self.settle_bases();
    }

    /// Closes up: the bases take the first places of the block, in the
    /// order they stood, keeping their ids (a formation change does this).
    pub fn close_up(&mut self) {
        if !self.bases.is_empty() {
            self.bases.retain(|id| *id != 0);
            self.settle_bases();
        }
    }

    /// Sets the bases by place (0: an empty place), as a saved battlefield
    /// gives them: as many bases as the unit's strength, each id once, from
    /// 1 to its maximum strength.
    pub fn set_bases(&mut self, places: Vec<u16>) -> Result<(), String> {
        let living: Vec<u16> = places.iter().copied().filter(|id| *id != 0).collect();
        if living.len() != self.strength.max(0) as usize {
            return Err(format!(
                "unit '{}': {} bases given for a strength of {}",
                self.id,
                living.len(),
                self.strength
            ));
        }
        for (k, id) in living.iter().enumerate() {
            if *id as i32 > self.max_strength {
                return Err(format!("unit '{}': base {id} is past its {} bases", self.id, self.max_strength));
            }
            if living[..k].contains(id) {
                return Err(format!("unit '{}': base {id} is given twice", self.id));
            }
        }
        self.bases = places;
        self.settle_bases();
        Ok(())
    }

    /// The base ids as text, for messages.
    pub fn base_list(&self) -> String {
        let ids: Vec<String> = self.base_ids().map(|(_, id)| id.to_string()).collect();
        if ids.is_empty() {
            "none".into()
        } else {
            ids.join(", ")
        }
    }
}

impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} [{} {}] {}/{} at {}", self.id, self.side, self.kind, self.strength, self.max_strength, self.pos)?;
        if let Some(l) = &self.leader {
            write!(f, " with leader {l}")?;
        }
        for (k, v) in &self.props {
            write!(f, " {k}={v}")?;
        }
        if !self.bases.is_empty() {
            write!(f, " bases={}", self.base_list())?;
        }
        Ok(())
    }
}
