//! Names of the values the host keeps in the Lua registry, in one place.
//!
//! The `_C` names are C strings, for code that reads the registry through
//! Luau's C API.

use std::ffi::CStr;

/// The queue of answers for the next decisions (`answers{...}`).
pub const ANSWERS: &str = "sandtable.answers";
/// The `answers.default` sentinel: an answer that takes the decision's default.
pub const ANSWER_DEFAULT: &str = "sandtable.answer_default";
/// Policies by decision id (`policy(id, fn)`).
pub const POLICIES: &str = "sandtable.policies";
/// Event subscribers: event name -> { [id] = fn }.
pub const HANDLERS: &str = "sandtable.handlers";
/// The id the next subscription gets.
pub const NEXT_HANDLER: &str = "sandtable.next_handler";
/// Modules `require` has loaded, by resolved path.
pub const LOADED: &str = "sandtable.loaded";
/// The ruleset's own line-of-sight obstruction test (`world:set_los_rule`).
/// Face names of each die kind as Lua strings, kept alive for `raw::roll`.
pub const ROLL_NAMES: &str = "sandtable.roll_names";

pub const LOS_RULE: &str = "sandtable.los_rule";
/// The `params` table scripts read.
pub const PARAMS: &str = "sandtable.params";
/// The `ruleset` table scripts read.
pub const RULESET: &str = "sandtable.ruleset";
/// The traceback-collecting call wrapper.
pub const TBCALL: &str = "sandtable.tbcall";
/// The end of a decision whose policy the `decide` fast path has called.
pub const POLICY_ANSWERED: &str = "sandtable.policy_answered";
/// `u:get(name)` and `u:set(name, v)`, handed out by a unit handle's `__index`.
pub const UNIT_GET: &str = "sandtable.unit_get";
pub const UNIT_SET: &str = "sandtable.unit_set";
/// Cached unit handles by slot (for the fast paths).
pub const UNIT_HANDLE_TABLE: &str = "sandtable.unit_handle_table";
/// Names the fast paths keep as Lua strings.
pub const NAME_TABLE: &str = "sandtable.name_table";
/// The Lua strings `trial()` results named their metrics with, kept alive at
/// their metric's slot so that their addresses identify the names
/// (`lua::raw::trial`).
pub const METRIC_KEYS_C: &CStr = c"sandtable.metric_keys";
