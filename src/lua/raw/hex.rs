//! The `hex` area's fast path.

use super::fast::{self, fast_fn};

// `hex.is_hex(v)` for a hex (see `fast`); anything else gets the full answer.
fast_fn!(is_hex, |l, _st| {
    // Out of range: the full function says false.
    fast::hex_arg(l, 1)?.in_range().then_some(())?;
    Some(fast::Out::Bool(true))
});
