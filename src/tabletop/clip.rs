//! Clipping against convex polygons (a base, a zone), without the general
//! polygon machinery: the hot measurements (how much of a base lies in a
//! terrain area or an arc, where a zone or line meets a base) clip against a
//! rectangle, which Sutherland-Hodgman and Liang-Barsky do exactly, with no
//! allocation beyond the output.

use super::Point;

/// Twice the signed area of a polygon (positive when its points run
/// anticlockwise in x-right, y-up terms).
fn signed_area2(pts: &[Point]) -> f64 {
    let n = pts.len();
    (0..n)
        .map(|i| {
            let (a, b) = (pts[i], pts[(i + 1) % n]);
            a.x * b.y - b.x * a.y
        })
        .sum()
}

/// The unsigned area of a polygon given by its points (not closed).
pub fn area(pts: &[Point]) -> f64 {
    (signed_area2(pts) / 2.0).abs()
}

/// The part of `subject` (any simple polygon) inside the convex polygon
/// `clip` (its points in either order), by Sutherland-Hodgman. For a subject
/// that is not convex the result may hold zero-width bridges along the
/// clip's edges; its area is still the area of the intersection.
pub fn clip_convex(subject: &[Point], clip: &[Point]) -> Vec<Point> {
    let sign = if signed_area2(clip) < 0.0 { -1.0 } else { 1.0 };
    let mut out: Vec<Point> = subject.to_vec();
    let mut input: Vec<Point> = Vec::with_capacity(subject.len() + clip.len());
    for i in 0..clip.len() {
        if out.is_empty() {
            break;
        }
        std::mem::swap(&mut out, &mut input);
        out.clear();
        let (a, b) = (clip[i], clip[(i + 1) % clip.len()]);
        let e = b.minus(a);
        let side = |p: Point| sign * (e.x * (p.y - a.y) - e.y * (p.x - a.x));
        let n = input.len();
        for j in 0..n {
            let (p, q) = (input[j], input[(j + 1) % n]);
            let (sp, sq) = (side(p), side(q));
            if sp >= 0.0 {
                out.push(p);
            }
            if (sp >= 0.0) != (sq >= 0.0) {
                let t = sp / (sp - sq);
                out.push(Point::new(p.x + (q.x - p.x) * t, p.y + (q.y - p.y) * t));
            }
        }
    }
    out
}

/// The parameters `t0 < t1` (0..1 along a..b) of the part of segment a..b
/// inside the box `|u| <= hu, |v| <= hv` of a frame where a is at `(ua, va)`
/// and b at `(ub, vb)` (Liang-Barsky); `None` when no length of it is inside.
pub fn segment_in_box(ua: f64, va: f64, ub: f64, vb: f64, hu: f64, hv: f64) -> Option<(f64, f64)> {
    let (du, dv) = (ub - ua, vb - va);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (p, q) in [(-du, ua + hu), (du, hu - ua), (-dv, va + hv), (dv, hv - va)] {
        if p == 0.0 {
            if q < 0.0 {
                return None;
            }
        } else {
            let r = q / p;
            if p < 0.0 {
                t0 = t0.max(r);
            } else {
                t1 = t1.min(r);
            }
        }
    }
    (t1 > t0).then_some((t0, t1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(x0: f64, y0: f64, s: f64) -> Vec<Point> {
        vec![Point::new(x0, y0), Point::new(x0 + s, y0), Point::new(x0 + s, y0 + s), Point::new(x0, y0 + s)]
    }

    #[test]
    fn clipping_squares_gives_their_overlap() {
        let a = square(0.0, 0.0, 2.0);
        let b = square(1.0, 1.0, 2.0);
        assert!((area(&clip_convex(&a, &b)) - 1.0).abs() < 1e-12);
        let mut rev = b.clone();
        rev.reverse();
        assert!((area(&clip_convex(&a, &rev)) - 1.0).abs() < 1e-12);
        assert!(
            clip_convex(&a, &square(5.0, 5.0, 1.0)).len() < 3 || area(&clip_convex(&a, &square(5.0, 5.0, 1.0))) < 1e-12
        );
    }

    #[test]
    fn a_concave_subject_keeps_its_area() {
        // A U shape (area 5) clipped by a box over its two arms and the gap.
        let u = [(0.0, 0.0), (3.0, 0.0), (3.0, 3.0), (2.0, 3.0), (2.0, 1.0), (1.0, 1.0), (1.0, 3.0), (0.0, 3.0)]
            .map(|(x, y)| Point::new(x, y));
        let clip = [(0.0, 2.0), (3.0, 2.0), (3.0, 3.0), (0.0, 3.0)].map(|(x, y)| Point::new(x, y));
        assert!((area(&clip_convex(&u, &clip)) - 2.0).abs() < 1e-12);
    }

    #[test]
    fn a_segment_through_a_box() {
        assert_eq!(segment_in_box(-2.0, 0.0, 2.0, 0.0, 1.0, 1.0), Some((0.25, 0.75)));
        assert_eq!(segment_in_box(-2.0, 3.0, 2.0, 3.0, 1.0, 1.0), None);
    }
}
