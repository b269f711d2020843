//! The Lua host: one sandboxed Luau state bound to one world.
//!
//! Rust owns all state; scripts hold values (hexes) and handles (units, rolls)
//! and act on the world through the API modules registered here, one module
//! per API area (`hex`, `dice`, `world`, `decide`, `tabletop`, `spec`).
//!
//! Safety: Luau sandbox mode (library tables read-only), no `io`, `os` only
//! for clocks, `debug` only for tracebacks, no bytecode loading (every chunk
//! is compiled from source text, see `chunk`), `require` only inside the
//! ruleset's folder and `rulesets/lib/`. Every top-level call runs under a time budget (checked from Luau's interrupt, which fires even
//! inside `pcall`, coroutines and pattern matching) and a memory limit.

pub mod api;
pub mod chunk;
mod decide_api;
mod dice_api;
mod error;
mod hex_api;
pub mod keys;
pub mod lexer;
pub mod pretty;
#[expect(
    unsafe_code,
    reason = "the one module allowed unsafe code: Luau C-API fast paths, the raw trial reader, the chunk loader"
)]
pub mod raw;
mod rules_api;
mod spec_api;
mod tabletop_api;
pub mod world;

mod convert;
mod host;
mod load;
mod require;
mod sandbox;
mod state;
mod trace;

pub use convert::{display_path, display_value, format_number, json_to_lua};
pub use host::{Checkpoint, Host};
use load::{apply_limits, set_compiler};
pub use load::{
    compile_chunk, compile_deferred, hot_after, load_named, load_ruleset_into, load_scenario_into, load_text,
    reload_into, ParseShare, ScenarioOverrides, StandIn,
};
pub use sandbox::sandbox_globals;
use state::Trip;
pub use state::{DecisionMode, Guard, HostOptions, Output, RulesetLoad, State, UnitHandle, OUTPUT_LIMIT};
pub use trace::{call_handler, call_with_traceback, trim_traceback};
use trace::{trip_error, trip_message};

use std::cell::{Cell, RefCell};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mlua::{Function, Lua, LuaOptions, MultiValue, StdLib, Table, Value, VmState};

pub use decide_api::{Asker, DecisionRequest};
pub use dice_api::LuaRoll;
pub use error::{render_error, ScriptError};
pub use hex_api::{hex_from_value, hex_value};
pub use spec_api::SpecReport;
pub(crate) use spec_api::{copy_registry, copy_table, leftovers};
pub use world::UnitRef;

use crate::battlefield::World;
use crate::ruleset::{Limits, Ruleset, RulesetError};
use crate::scenario::Scenario;
