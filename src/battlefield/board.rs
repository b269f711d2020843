//! The board's parts: the map and its edges, sides and their pools, sections,
//! terrain and tokens. `World` (in the parent module) holds them.

use std::collections::BTreeMap;
use std::rc::Rc;

use crate::hex::{Hex, OffsetKind};

/// Whether two names are the same. Names are short (sides, pools, tokens, die
/// kinds, metrics), and the hot paths compare them many times per trial: a
/// loop over 8-byte words the compiler inlines beats a call to `memcmp`.
#[inline]
pub fn same_name(a: &str, b: &str) -> bool {
    same_bytes(a.as_bytes(), b.as_bytes())
}

/// [`same_name`] for names still in bytes (as read from Lua).
#[inline]
pub fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    // Whole-word reads, the last one overlapping the one before: a name's
    // tail is compared in one read, not byte by byte.
    let word = |s: &[u8], i: usize| u64::from_ne_bytes(s[i..i + 8].try_into().expect("8 bytes"));
    let half = |s: &[u8], i: usize| u32::from_ne_bytes(s[i..i + 4].try_into().expect("4 bytes"));
    match n {
        0 => true,
        // Bytes 0, n/2 and n-1 are every byte of a name this short.
        1..=3 => a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1],
        4..=7 => half(a, 0) == half(b, 0) && half(a, n - 4) == half(b, n - 4),
        8..=32 => {
            let mut i = 0;
            while i + 8 < n {
                if word(a, i) != word(b, i) {
                    return false;
                }
                i += 8;
            }
            word(a, n - 8) == word(b, n - 8)
        }
        _ => a == b,
    }
}

/// The playing surface.
#[derive(Clone, Debug, PartialEq)]
pub enum Map {
    /// A hex map of `cols` x `rows` in offset coordinates of `offset` kind
    /// (column 0..cols, row 0..rows).
    Hex { cols: i32, rows: i32, offset: OffsetKind },
    /// A tabletop, in centimetres.
    Table { width: f64, height: f64 },
}

impl Default for Map {
    fn default() -> Self {
        Map::Hex { cols: 13, rows: 9, offset: OffsetKind::OddR }
    }
}

/// Which edge of the map a side's baseline is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edge {
    Top,
    Bottom,
    Left,
    Right,
}

impl Edge {
    pub fn name(self) -> &'static str {
        match self {
            Edge::Top => "top",
            Edge::Bottom => "bottom",
            Edge::Left => "left",
            Edge::Right => "right",
        }
    }

    pub fn parse(s: &str) -> Option<Edge> {
        Some(match s {
            "top" => Edge::Top,
            "bottom" => Edge::Bottom,
            "left" => Edge::Left,
            "right" => Edge::Right,
            _ => return None,
        })
    }

    pub fn opposite(self) -> Edge {
        match self {
            Edge::Top => Edge::Bottom,
            Edge::Bottom => Edge::Top,
            Edge::Left => Edge::Right,
            Edge::Right => Edge::Left,
        }
    }
}

/// A side (army): its name, baseline and pools (HQ tokens, medals, reserve
/// artillery strength, ... as the ruleset names them).
#[derive(Debug, PartialEq)]
pub struct Side {
    pub name: Rc<str>,
    pub baseline: Option<Edge>,
    pub pools: Vec<(Rc<str>, i64)>,
}

impl Clone for Side {
    fn clone(&self) -> Side {
        Side { name: self.name.clone(), baseline: self.baseline, pools: self.pools.clone() }
    }

    /// Reuses the pool list's allocation and shares names already shared:
    /// `sim` and `exact` reset every side before every trial, and the derived
    /// `clone_from` allocated a new pool list each time.
    fn clone_from(&mut self, o: &Side) {
        let Side { name, baseline, pools } = o;
        share(&mut self.name, name);
        self.baseline = *baseline;
        if self.pools.len() == pools.len() {
            for ((k, v), (ok, ov)) in self.pools.iter_mut().zip(pools) {
                share(k, ok);
                *v = *ov;
            }
        } else {
            self.pools.clone_from(pools);
        }
    }
}

/// `*a = b.clone()`, skipping the reference counting when they already share.
#[inline]
pub fn share(a: &mut Rc<str>, b: &Rc<str>) {
    if !Rc::ptr_eq(a, b) {
        *a = b.clone();
    }
}

impl Side {
    pub fn pool(&self, name: &str) -> i64 {
        self.pools.iter().find(|(k, _)| same_name(k, name)).map_or(0, |(_, v)| *v)
    }

    /// Changes a pool by `change`, never below 0 (a new pool starts at 0);
    /// returns the new value.
    pub fn add_to_pool(&mut self, name: &str, change: i64) -> i64 {
        match self.pools.iter_mut().find(|(k, _)| same_name(k, name)) {
            Some((_, v)) => {
                *v = (*v + change).max(0);
                *v
            }
            None => {
                let value = change.max(0);
                self.pools.push((name.into(), value));
                value
            }
        }
    }

    pub fn set_pool(&mut self, name: &str, value: i64) {
        match self.pools.iter_mut().find(|(k, _)| same_name(k, name)) {
            Some((_, v)) => *v = value,
            None => self.pools.push((name.into(), value)),
        }
    }
}

/// A named section of a hex map: a range of offset columns. Sections may
/// overlap; a hex in two ranges (on a section line) belongs to both.
#[derive(Clone, Debug, PartialEq)]
pub struct Section {
    pub name: Rc<str>,
    pub first_col: i32,
    pub last_col: i32,
}

/// The board: terrain per hex. Set up once and rarely changed, so copies of
/// a world share it (see `World::board`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Board {
    pub terrain: BTreeMap<Hex, Rc<str>>,
    /// A tabletop's terrain areas and unit types' base sizes.
    pub tabletop: crate::tabletop::Layout,
}

/// Tokens on hexes (wire, shell craters, ...): a few, placed and removed by
/// many trials. A flat list sorted by hex (a hex's tokens in the order they
/// were placed) is copied into the next trial's world without allocating and
/// searched faster than a map.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tokens(Vec<(Hex, Rc<str>)>);

impl Tokens {
    /// The slice holding hex `h`'s tokens.
    fn run(&self, h: Hex) -> std::ops::Range<usize> {
        let start = self.0.partition_point(|(x, _)| *x < h);
        let len = self.0[start..].iter().take_while(|(x, _)| *x == h).count();
        start..start + len
    }

    /// The tokens on `h`, in the order they were placed.
    pub fn on(&self, h: Hex) -> impl Iterator<Item = &Rc<str>> {
        self.0[self.run(h)].iter().map(|(_, t)| t)
    }

    pub fn has(&self, h: Hex, token: &str) -> bool {
        // A board holds a few tokens: one pass beats a binary search then a scan.
        if self.0.len() <= 16 {
            return self.0.iter().any(|(x, t)| *x == h && same_name(t, token));
        }
        self.on(h).any(|t| same_name(t, token))
    }

    pub fn add(&mut self, h: Hex, token: &str) {
        let end = self.run(h).end;
        self.0.insert(end, (h, token.into()));
    }

    /// Removes one token of that name; returns whether there was one.
    pub fn remove(&mut self, h: Hex, token: &str) -> bool {
        let run = self.run(h);
        match self.0[run.clone()].iter().position(|(_, t)| same_name(t, token)) {
            Some(i) => {
                self.0.remove(run.start + i);
                true
            }
            None => false,
        }
    }

    /// Every token with its hex, ordered by hex.
    pub fn iter(&self) -> impl Iterator<Item = (Hex, &Rc<str>)> {
        self.0.iter().map(|(h, t)| (*h, t))
    }

    /// Makes this list equal to `o`, reusing its allocation and sharing names.
    pub fn reset_from(&mut self, o: &Tokens) {
        if self.0.len() == o.0.len() && self.0.iter().zip(&o.0).all(|(a, b)| a.0 == b.0 && Rc::ptr_eq(&a.1, &b.1)) {
            return;
        }
        self.0.clone_from(&o.0);
    }
}

#[cfg(test)]
mod tests {
    use super::same_bytes;

    #[test]
    fn same_bytes_is_equality_at_every_length() {
        let text: Vec<u8> = (0..40u8).map(|i| b'a' + i % 26).collect();
        for n in 0..=text.len() {
            let a = &text[..n];
            assert!(same_bytes(a, a.to_vec().as_slice()), "{n}");
            for k in 0..n {
                let mut b = a.to_vec();
                b[k] ^= 1;
                assert!(!same_bytes(a, &b), "{n} differing at {k}");
            }
            assert!(n == 0 || !same_bytes(a, &text[..n - 1]), "{n} against a shorter one");
        }
    }
}
