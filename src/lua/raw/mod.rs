//! The one module allowed unsafe code: Luau C-API fast paths, the raw
//! trial reader and the chunk loader.

pub mod args;
pub mod decide;
pub mod dice;
pub mod fast;
pub mod hex;
pub mod load;
pub mod roll;
pub mod sequence;
pub mod stack;
pub mod tabletop;
pub mod trial;
pub mod world;
