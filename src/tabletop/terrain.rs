//! Terrain areas on a tabletop (woods, towns, hills as polygons with a kind,
//! an elevation level and a cover class), what a tabletop world knows beside
//! its units ([`Layout`]), and the shapes rules draw on it ([`TableMark`]).

use std::collections::BTreeMap;
use std::rc::Rc;

use geo::Intersects;

use super::base::{Base, BaseSpec};
use super::{polygon, Point};

/// A terrain area: a simple polygon of a terrain kind from the ruleset.
#[derive(Clone, Debug, PartialEq)]
pub struct Area {
    pub kind: Rc<str>,
    /// The outline, in order (not closed: the last point joins the first).
    pub points: Vec<Point>,
    /// Elevation level (0 = the table; a hill is 1, its crest 2, ...).
    pub level: i32,
    /// Cover class (`light`, `solid`, `heavy`, ... as the ruleset names them).
    pub cover: Option<Rc<str>>,
    /// An optional name to show and to refer to it by.
    pub name: Option<Rc<str>>,
}

impl Area {
    pub fn polygon(&self) -> geo::Polygon<f64> {
        polygon(&self.points)
    }

    /// True when `p` lies inside or on the outline.
    pub fn contains(&self, p: Point) -> bool {
        self.polygon().intersects(&geo::Point::from(p.coord()))
    }

    /// The fraction (0..1) of a base inside the area.
    pub fn fraction_of(&self, base: &Base) -> f64 {
        base.fraction_in_outline(&self.points)
    }
}

/// A shape a rule draws on the table for people to see (an arc of fire, a
/// frontage zone, a centre line). It does not affect the rules.
#[derive(Clone, Debug, PartialEq)]
pub struct TableMark {
    pub label: Rc<str>,
    pub points: Vec<Point>,
    /// A closed outline (an arc, a zone) or an open line.
    pub closed: bool,
}

/// What a tabletop world holds beside its units: terrain areas and each unit
/// type's base size and formations (from the ruleset).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Layout {
    pub areas: Vec<Area>,
    pub bases: BTreeMap<Rc<str>, BaseSpec>,
}

impl Layout {
    /// The areas containing `p`, in scenario order.
    pub fn areas_at(&self, p: Point) -> impl Iterator<Item = &Area> {
        self.areas.iter().filter(move |a| a.contains(p))
    }

    /// The elevation level at `p`: the highest level of the areas holding
    /// it, 0 where none does.
    pub fn level_at(&self, p: Point) -> i32 {
        self.areas_at(p).map(|a| a.level).max().unwrap_or(0)
    }

    /// Every area overlapping some of the bases, with the fraction of their
    /// area (all together) inside it, in scenario order.
    pub fn cover(&self, bases: &[Base]) -> Vec<(usize, f64)> {
        let total: f64 = bases.iter().map(Base::area).sum::<f64>().max(1e-12);
        let mut acc = vec![0.0; self.areas.len()];
        for b in bases {
            for (i, f) in self.overlaps(b) {
                acc[i] += f * b.area() / total;
            }
        }
        acc.into_iter().enumerate().filter(|(_, f)| *f > 1e-9).collect()
    }

    /// Every area overlapping a base, with the fraction of the base inside it.
    pub fn overlaps(&self, base: &Base) -> Vec<(usize, f64)> {
        self.areas
            .iter()
            .enumerate()
            .filter_map(|(i, a)| {
                let f = a.fraction_of(base);
                (f > 1e-9).then_some((i, f))
            })
            .collect()
    }
}

impl Layout {
    /// A tabletop unit's bases (in place order: front rank first, left to
    /// right) and its footprint (the rectangle around them), from its
    /// position, its bases (one per strength point, each in its place of the
    /// formation block: see `Unit::bases`), its type's base size and its
    /// `formation` property. A unit that lost bases keeps the others where
    /// they stood, so its footprint is the rectangle around those left.
    pub fn unit_bases(&self, unit: &crate::unit::Unit) -> Result<(Vec<Base>, Base), String> {
        let crate::unit::Position::Table { at, facing } = unit.pos else {
            return Err(format!("unit '{}' is not on the tabletop", unit.id));
        };
        let Some(spec) = self.bases.get(&unit.kind) else {
            return Err(format!(
                "unit type '{}' has no base size (give it `base: {{ width, depth }}` in ruleset.yaml)",
                unit.kind
            ));
        };
        let formation = match unit.prop("formation") {
            Some(crate::unit::Prop::Str(s)) => Some(&**s),
            _ => None,
        };
        let files = spec.files(formation).ok_or_else(|| {
            format!(
                "unit '{}': type '{}' has no formation '{}' (formations: {})",
                unit.id,
                unit.kind,
                formation.unwrap_or(""),
                spec.formations.iter().map(|f| &*f.0).collect::<Vec<_>>().join(", ")
            )
        })?;
        let (places, block) = super::layout(at, facing, unit.places().max(1) as u32, files, spec.width, spec.depth);
        if unit.bases.is_empty() {
            return Ok((places, block));
        }
        let bases: Vec<Base> = unit.base_ids().filter_map(|(p, _)| places.get(p).copied()).collect();
        if bases.len() == places.len() || bases.is_empty() {
            return Ok((places, block));
        }
        let footprint = around(&bases, &block);
        Ok((bases, footprint))
    }

    /// Where a unit's bases stand now, with their ids: all of them, or
    /// those named (each must be one of the unit's bases).
    pub fn placed_bases(&self, unit: &crate::unit::Unit, ids: Option<&[u16]>) -> Result<Vec<(u16, Base)>, String> {
        if let Some(ids) = ids {
            if let Some(id) = ids.iter().find(|id| !unit.has_base(**id)) {
                return Err(format!("unit '{}' has no base {id} (its bases: {})", unit.id, unit.base_list()));
            }
        }
        let (bases, _) = self.unit_bases(unit)?;
        Ok(unit
            .base_ids()
            .zip(bases)
            .map(|((_, id), b)| (id, b))
            .filter(|(id, _)| ids.is_none_or(|want| want.contains(id)))
            .collect())
    }
}

/// The rectangle around bases that share the facing of `frame` (a unit's
/// bases around what is left of its block).
fn around(bases: &[Base], frame: &Base) -> Base {
    let (mut lo_a, mut hi_a, mut lo_r, mut hi_r) = (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY);
    for b in bases {
        let (ahead, right) = frame.local(b.centre);
        lo_a = lo_a.min(ahead - b.depth / 2.0);
        hi_a = hi_a.max(ahead + b.depth / 2.0);
        lo_r = lo_r.min(right - b.width / 2.0);
        hi_r = hi_r.max(right + b.width / 2.0);
    }
    Base::new(frame.at_local((lo_a + hi_a) / 2.0, (lo_r + hi_r) / 2.0), frame.facing, hi_r - lo_r, hi_a - lo_a)
}

/// Reads a unit type's `base: { width, depth }`, `formations: { name:
/// bases_per_rank }` and `formation: default` from ruleset data. `None`
/// when the type has no `base`.
pub fn base_spec(name: &str, ty: &serde_json::Value) -> Result<Option<BaseSpec>, String> {
    use serde_json::Value;
    let Some(base) = ty.get("base") else {
        return Ok(None);
    };
    let num = |k: &str| -> Result<f64, String> {
        match base.get(k).and_then(Value::as_f64) {
            Some(v) if v > 0.0 && v <= super::MAX_CM => Ok(v),
            _ => Err(format!("unit type '{name}': base needs a positive `{k}` in cm (at most {})", super::MAX_CM)),
        }
    };
    let (width, depth) = (num("width")?, num("depth")?);
    let mut formations: Vec<(Rc<str>, u32)> = Vec::new();
    if let Some(f) = ty.get("formations") {
        let Some(map) = f.as_object() else {
            return Err(format!("unit type '{name}': formations are `{{ name: bases per rank }}` (0 = one rank)"));
        };
        for (k, v) in map {
            let Some(n) = v.as_u64().filter(|n| *n <= 1000) else {
                return Err(format!("unit type '{name}': formation '{k}' needs a whole number of bases per rank"));
            };
            formations.push((k.as_str().into(), n as u32));
        }
    }
    if formations.is_empty() {
        formations.push(("line".into(), 0));
    }
    let default = ty
        .get("formation")
        .and_then(Value::as_str)
        .or_else(|| formations.iter().any(|f| &*f.0 == "line").then_some("line"));
    if let Some(d) = default {
        let Some(i) = formations.iter().position(|f| &*f.0 == d) else {
            return Err(format!("unit type '{name}': default formation '{d}' is not among its formations"));
        };
        let f = formations.remove(i);
        formations.insert(0, f);
    }
    Ok(Some(BaseSpec { width, depth, formations }))
}

/// Checks a terrain outline: at least three points, some area, and no edge
/// crossing or touching another but where neighbours share a corner.
/// Repeated points in a row (the first given again at the end, say) count
/// once, as they draw nothing.
///
/// Edges are paired by `geo`'s sweep line ([`geo::algorithm::sweep`]), which
/// tries only edges whose spans overlap along the sweep (taken along x or y,
/// whichever the edges spread less over), so a 100 000-point outline loads in
/// a fraction of a second: `geo`'s validity check tries every pair, which
/// took 11 s for 40 000 points.
pub fn check_outline(points: &[Point]) -> Result<(), String> {
    use geo::algorithm::sweep::{Cross, Intersections};
    use geo::{Area as _, LineIntersection};

    /// An edge of the outline, from corner `from` (its index among the
    /// points given) to the next.
    #[derive(Clone, Copy)]
    struct OutlineEdge {
        at: usize,
        line: geo::Line<f64>,
    }
    impl Cross for OutlineEdge {
        type Scalar = f64;
        fn line(&self) -> geo::Line<f64> {
            self.line
        }
    }

    if let Some(p) = points.iter().find(|p| !(p.x.is_finite() && p.y.is_finite())) {
        return Err(format!("an outline's points must be finite numbers, got ({}, {})", p.x, p.y));
    }
    // The corners, by their index among the points given.
    let mut corners: Vec<(usize, Point)> = Vec::with_capacity(points.len());
    for (i, &p) in points.iter().enumerate() {
        if corners.last().is_none_or(|&(_, q)| q != p) {
            corners.push((i, p));
        }
    }
    while corners.len() > 1 && corners.first().map(|c| c.1) == corners.last().map(|c| c.1) {
        corners.pop();
    }
    let n = corners.len();
    if n < 3 {
        return Err(format!("an outline needs at least 3 points, got {n}"));
    }
    // Sweep along the axis the edges spread less over.
    let spread = |f: fn(&Point) -> f64| {
        let (lo, hi) =
            corners.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), (_, p)| (lo.min(f(p)), hi.max(f(p))));
        let length: f64 = (0..n).map(|i| (f(&corners[(i + 1) % n].1) - f(&corners[i].1)).abs()).sum();
        length / (hi - lo).max(f64::MIN_POSITIVE)
    };
    let across = spread(|p| p.y) < spread(|p| p.x);
    let coord = |p: Point| {
        if across {
            geo::coord! { x: p.y, y: p.x }
        } else {
            p.coord()
        }
    };
    let edges =
        (0..n).map(|i| OutlineEdge { at: i, line: geo::Line::new(coord(corners[i].1), coord(corners[(i + 1) % n].1)) });
    for (a, b, meet) in Intersections::from_iter(edges) {
        let (i, j) = (a.at.min(b.at), a.at.max(b.at));
        // Neighbours share a corner: they may meet there, and only there.
        let neighbours = j == i + 1 || (i == 0 && j == n - 1);
        if neighbours && matches!(meet, LineIntersection::SinglePoint { .. }) {
            continue;
        }
        let edge = |k: usize| {
            let ((from, p), (to, _)) = (corners[k], corners[(k + 1) % n]);
            format!("the edge from point {} ({}, {}) to point {}", from + 1, p.x, p.y, to + 1)
        };
        let how = if neighbours { "doubles back over" } else { "crosses or touches" };
        return Err(format!("the outline crosses itself: {} {how} {}", edge(i), edge(j)));
    }
    if polygon(points).unsigned_area() < 1e-9 {
        return Err("the outline encloses no area".into());
    }
    Ok(())
}
