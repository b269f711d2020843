//! Traces: where a unit's bases stood at a moment a rule chose to remember
//! (Republique's leaders measure from where a unit stood when it was fired
//! upon, and from where each lost base stood). A trace is plain data kept on
//! the world beside the units, so copies, undo, saves and simulation trials
//! carry it like any other state.

use std::rc::Rc;

use super::base::Base;

/// The bases of one unit at one moment, under a rule's label.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    /// The rule's name for what it remembers (`fired_upon`, `lost`).
    pub label: Rc<str>,
    /// The unit's id.
    pub unit: Rc<str>,
    /// Each base's id and where it stood (shared: copying a world copies
    /// the pointer).
    pub bases: Rc<[(u16, Base)]>,
}

/// About what a trace keeps, in bytes, per base and per trace, for the
/// memory limit's count of the battlefield's records.
pub const TRACE_BYTES: usize = 96;
pub const TRACE_BASE_BYTES: usize = 48;
