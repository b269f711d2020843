//! The one module allowed unsafe code: Luau C-API fast paths and the raw
//! trial reader.

pub mod trial;
