//! Units: an id, a side, a type, a strength out of a maximum (figures, blocks
//! or bases, as the ruleset names them), an attached leader, a position, and
//! free-form properties the ruleset owns (`morale`, `saved_fire`, ...).
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
        self.props.iter().find(|(k, _)| &**k == name).map(|(_, v)| v)
    }

    /// Sets (or with `None`, removes) a property.
    pub fn set_prop(&mut self, name: &str, value: Option<Prop>) {
        let at = self.props.iter().position(|(k, _)| &**k == name);
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
        Ok(())
    }
}
