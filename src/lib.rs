//! sandtable: a scriptable rules sandbox for wargames.
//!
//! A Rust core owns the battlefield (hexes, units, dice, measurement) and
//! exposes it to sandboxed Luau scripts; each ruleset is Lua plus YAML. See
//! `docs/DESIGN.md` for the parts and their contracts.

#![deny(unsafe_code)]

pub mod analysis;
pub mod battlefield;
pub mod dice;
pub mod error;
pub mod files;
pub mod hex;
pub mod layers;
pub mod log;
pub mod lua;
pub mod paths;
pub mod render;
pub mod repl;
pub mod ruleset;
pub mod scenario;
pub mod spec;
pub mod tabletop;
pub mod unit;
pub mod web;
