//! The one module allowed unsafe code: Luau C-API fast paths and the raw
//! trial reader.

pub mod args;
pub mod decide;
pub mod dice;
pub mod fast;
pub mod hex;
pub mod roll;
pub mod sequence;
pub mod stack;
pub mod tabletop;
pub mod trial;
pub mod world;
