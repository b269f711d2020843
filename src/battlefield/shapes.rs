//! The world's tabletop shapes: each unit's bases as they stand, laid out
//! once and kept until the unit moves, turns, changes formation or loses
//! bases (`World::unit_shape`).
//!
//! An entry remembers everything its layout was made from (the unit's place,
//! facing, type, formation, strength and base ids, and the board's base
//! sizes) and is used only while all of it is unchanged. So no mutation
//! point has to remember to clear it: whatever changes a unit (a rule,
//! `World::reset_from` between trials, an undo) makes its old entry miss,
//! and a unit put back where it stood finds its entry again (each unit keeps
//! its last few layouts, so the same `Rc`: answers kept for that shape, in
//! `lua::raw::tabletop::memo`, hold again after a trial). The cache is no
//! part of the world's state (`same_as` ignores it; a clone starts empty).

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use super::{Board, World};
use crate::tabletop::UnitShape;
use crate::unit::{Position, Prop, Unit};

/// What a layout was made from.
struct Made {
    /// The board whose base sizes it used (weak: a board changed in place
    /// moves to a new allocation, so the pointer tells).
    board: Weak<Board>,
    at: (u64, u64),
    facing: u64,
    kind: Rc<str>,
    formation: Option<Rc<str>>,
    strength: i32,
    bases: Vec<u16>,
}

impl Made {
    fn new(board: &Rc<Board>, unit: &Unit) -> Option<Made> {
        let Position::Table { at, facing } = unit.pos else {
            return None;
        };
        Some(Made {
            board: Rc::downgrade(board),
            at: (at.x.to_bits(), at.y.to_bits()),
            facing: facing.to_bits(),
            kind: unit.kind.clone(),
            formation: formation(unit).cloned(),
            strength: unit.strength,
            bases: unit.bases.clone(),
        })
    }

    fn same(&self, board: &Rc<Board>, unit: &Unit) -> bool {
        let Position::Table { at, facing } = unit.pos else {
            return false;
        };
        std::ptr::eq(self.board.as_ptr(), Rc::as_ptr(board))
            && self.at == (at.x.to_bits(), at.y.to_bits())
            && self.facing == facing.to_bits()
            && self.strength == unit.strength
            && (Rc::ptr_eq(&self.kind, &unit.kind) || crate::battlefield::same_name(&self.kind, &unit.kind))
            && same_formation(self.formation.as_ref(), formation(unit))
            && same_bases(&self.bases, &unit.bases)
    }
}

// The checks run for every unit a tabletop call names, several hundred a
// fire, nearly always on equal values: `==` on slices and strings calls
// memcmp even for empty ones (about a tenth of a republique trial's time).

fn same_formation(a: Option<&Rc<str>>, b: Option<&Rc<str>>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => Rc::ptr_eq(a, b) || crate::battlefield::same_name(a, b),
        _ => false,
    }
}

fn same_bases(a: &[u16], b: &[u16]) -> bool {
    // Empty for nearly every unit (the default bases): no call then.
    a.len() == b.len() && (a.is_empty() || a == b)
}

fn formation(unit: &Unit) -> Option<&Rc<str>> {
    match unit.prop("formation") {
        Some(Prop::Str(s)) => Some(s),
        _ => None,
    }
}

/// A unit's laid-out bases and what they were made from.
type Entry = (Made, Rc<UnitShape>);

/// How many layouts each unit keeps: the unit as it stands at a trial's
/// start and a few it took since (a fire's losses), so that `reset_from`
/// finds the first again and the answers kept for its shape still hold.
const KEEP: usize = 4;

/// Each unit slot's latest layouts, the one used last first (see the module doc).
#[derive(Default)]
pub struct ShapeCache(RefCell<Vec<Vec<Entry>>>);

impl Clone for ShapeCache {
    /// A copy starts empty (the entries are only a cache).
    fn clone(&self) -> ShapeCache {
        ShapeCache::default()
    }
}

impl std::fmt::Debug for ShapeCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ShapeCache({} entries)", self.0.borrow().iter().map(Vec::len).sum::<usize>())
    }
}

impl World {
    /// Where unit `i`'s bases stand now (see `tabletop::Layout::unit_bases`),
    /// laid out again only when something it depends on changed. A unit
    /// back where it stood gets the same `Rc` again (while it is kept).
    pub fn unit_shape(&self, i: usize) -> Result<Rc<UnitShape>, String> {
        let unit = &self.units[i];
        {
            let mut cache = self.shapes.0.borrow_mut();
            if let Some(kept) = cache.get_mut(i) {
                if let Some(n) = kept.iter().position(|(made, _)| made.same(&self.board, unit)) {
                    kept[..=n].rotate_right(1);
                    return Ok(kept[0].1.clone());
                }
            }
        }
        let (bases, footprint) = self.board.tabletop.unit_bases(unit)?;
        let ids = unit.base_ids().map(|(_, id)| id).collect();
        let shape = Rc::new(UnitShape::new(bases, ids, footprint));
        if let Some(made) = Made::new(&self.board, unit) {
            let mut cache = self.shapes.0.borrow_mut();
            if cache.len() <= i {
                cache.resize_with(i + 1, Vec::new);
            }
            let kept = &mut cache[i];
            kept.truncate(KEEP - 1);
            kept.insert(0, (made, shape.clone()));
        }
        Ok(shape)
    }
}
