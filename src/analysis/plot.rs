//! `--plot FILE.svg`: charts stacked one under another in one SVG.
//!
//! - a run: every metric's distribution as bars;
//! - a comparison (`--vs-*`): per metric, A's and B's distributions side by
//!   side, the "at least n" curves P(metric ≥ n) of both, and B − A with its
//!   interval; titles name both arms and both means;
//! - a sweep of one input: per metric, the mean against the swept value with
//!   its 95% interval as a band; of two inputs: a heat map of the mean.
//!
//! Value axes tick at round numbers (1, 2 or 5 × 10^k).

use std::fmt::Write;

use super::exact::{ratio_f64, ExactMetric, ExactResult};
use super::report::fmt_num;
use super::sim::SimResult;
use super::stats::{value_label, Acc};
use super::sweep::{ExactSweep, SweepResult};

/// One series of bars: a legend label and (category, probability) pairs.
pub struct Series {
    pub label: String,
    pub bars: Vec<(String, f64)>,
}

/// A value with its interval, if it has one: (value, (low, high)).
pub type Estimate = (f64, Option<(f64, f64)>);

/// A point of a line: x, y, and the interval around y.
pub type Point = (f64, f64, Option<(f64, f64)>);

/// A line: a legend label and points (x, y, and the interval around y).
pub struct Line {
    pub label: String,
    pub points: Vec<Point>,
}

/// What a panel draws.
pub enum Chart {
    /// Probabilities by category, the series side by side.
    Bars(Vec<Series>),
    /// Lines against a value axis; `x_ticks` labels the x axis (positions,
    /// text) when its values are categories, else it ticks at round numbers.
    Lines { x_label: String, y_label: String, x_ticks: Option<Vec<(f64, String)>>, percent: bool, lines: Vec<Line> },
    /// One interval per row on a shared axis (with 0 marked): (label, value, interval).
    Intervals(Vec<(String, Estimate)>),
    /// A grid of values: columns `xs`, rows `ys`, `cells[row][column]`.
    Heat { x_label: String, y_label: String, xs: Vec<String>, ys: Vec<String>, cells: Vec<Vec<Option<f64>>> },
}

/// One chart with its title.
pub struct Panel {
    pub title: String,
    pub chart: Chart,
}

const COLORS: [&str; 2] = ["#3b6ea8", "#d08a2e"];
const WIDTH: f64 = 760.0;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Round-number ticks covering `lo..=hi`: steps of 1, 2 or 5 × 10^k, the
/// smallest that makes at most `n + 1` steps, from a multiple of the step at
/// or below `lo` to one at or above `hi`.
pub fn nice_ticks(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    let (lo, hi) =
        if hi > lo { (lo, hi) } else { (lo - 0.5_f64.max(lo.abs() * 0.1), hi + 0.5_f64.max(hi.abs() * 0.1)) };
    let most = (n + 1) as f64;
    let mag = 10f64.powf(((hi - lo) / most).log10().floor());
    let span = |step: f64| ((lo / step + 1e-9).floor(), (hi / step - 1e-9).ceil());
    let step = [1.0, 2.0, 5.0, 10.0, 20.0, 50.0]
        .iter()
        .map(|m| m * mag)
        .find(|&st| {
            let (a, b) = span(st);
            b - a <= most
        })
        .unwrap_or(100.0 * mag);
    let (a, b) = span(step);
    (a as i64..=b as i64).map(|i| clean(i as f64 * step)).collect()
}

/// A tick value without binary noise (0.30000000000000004 → 0.3).
fn clean(v: f64) -> f64 {
    format!("{v:.10}").parse().unwrap_or(v)
}

fn tick_label(v: f64, percent: bool) -> String {
    if percent {
        format!("{}%", fmt_num(clean(v * 100.0)))
    } else {
        fmt_num(v)
    }
}

/// A plotting area: pixel box and the value ranges it shows.
struct Frame {
    left: f64,
    right: f64,
    top: f64,
    bottom: f64,
    x: (f64, f64),
    y: (f64, f64),
}

impl Frame {
    fn px(&self, x: f64) -> f64 {
        self.left + (x - self.x.0) / (self.x.1 - self.x.0).max(1e-300) * (self.right - self.left)
    }

    fn py(&self, y: f64) -> f64 {
        self.bottom - (y - self.y.0) / (self.y.1 - self.y.0).max(1e-300) * (self.bottom - self.top)
    }
}

/// Horizontal grid lines with labels at the y ticks.
fn y_axis(s: &mut String, f: &Frame, ticks: &[f64], percent: bool) {
    for &t in ticks {
        let y = f.py(t);
        let _ = writeln!(
            s,
            r##"<line class="grid" x1="{}" x2="{}" y1="{y:.1}" y2="{y:.1}" stroke="#ddd"/>"##,
            f.left, f.right
        );
        let _ = writeln!(
            s,
            r#"<text class="ytick" x="{}" y="{:.1}" text-anchor="end">{}</text>"#,
            f.left - 4.0,
            y + 4.0,
            tick_label(t, percent)
        );
    }
}

fn x_tick(s: &mut String, f: &Frame, x: f64, label: &str) {
    let px = f.px(x);
    let _ =
        writeln!(s, r##"<line x1="{px:.1}" x2="{px:.1}" y1="{}" y2="{}" stroke="#333"/>"##, f.bottom, f.bottom + 4.0);
    let _ = writeln!(
        s,
        r#"<text class="xtick" x="{px:.1}" y="{}" text-anchor="middle">{}</text>"#,
        f.bottom + 15.0,
        esc(label)
    );
}

fn axis_labels(s: &mut String, f: &Frame, x_label: &str, y_label: &str) {
    let _ =
        writeln!(s, r##"<line x1="{}" x2="{}" y1="{}" y2="{}" stroke="#333"/>"##, f.left, f.right, f.bottom, f.bottom);
    if !x_label.is_empty() {
        let _ = writeln!(
            s,
            r#"<text class="xlabel" x="{}" y="{}" text-anchor="middle">{}</text>"#,
            (f.left + f.right) / 2.0,
            f.bottom + 30.0,
            esc(x_label)
        );
    }
    if !y_label.is_empty() {
        let (x, y) = (f.left - 46.0, (f.top + f.bottom) / 2.0);
        let _ = writeln!(
            s,
            r#"<text class="ylabel" x="{x}" y="{y}" text-anchor="middle" transform="rotate(-90 {x} {y})">{}</text>"#,
            esc(y_label)
        );
    }
}

fn legend(s: &mut String, labels: &[&str], x0: f64, y: f64) {
    for (i, label) in labels.iter().enumerate() {
        let x = x0 + i as f64 * 340.0;
        let _ = writeln!(s, r#"<rect x="{x}" y="{}" width="10" height="10" fill="{}"/>"#, y - 9.0, COLORS[i % 2]);
        let _ = writeln!(s, r#"<text class="legend" x="{}" y="{y}">{}</text>"#, x + 14.0, esc(label));
    }
}

/// The height a chart takes (title included).
fn height(c: &Chart) -> f64 {
    match c {
        Chart::Intervals(rows) => 70.0 + 24.0 * rows.len() as f64,
        Chart::Heat { ys, .. } => 100.0 + 26.0 * ys.len().max(1) as f64,
        _ => 250.0,
    }
}

/// Draws panels stacked vertically under `title`.
pub fn svg(title: &str, panels: &[Panel]) -> String {
    let top = 40.0;
    let h = top + panels.iter().map(|p| height(&p.chart)).sum::<f64>() + 10.0;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{h}" viewBox="0 0 {WIDTH} {h}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text class="title" x="{}" y="24" font-size="15" text-anchor="middle">{}</text>"#,
        WIDTH / 2.0,
        esc(title)
    );
    let mut y0 = top;
    for p in panels {
        let ph = height(&p.chart);
        let _ = writeln!(s, r#"<g class="panel">"#);
        let _ = writeln!(
            s,
            r#"<text class="panel-title" x="60" y="{}" font-size="13" font-weight="bold">{}</text>"#,
            y0 + 16.0,
            esc(&p.title)
        );
        match &p.chart {
            Chart::Bars(series) => bars(&mut s, series, y0, ph),
            Chart::Lines { x_label, y_label, x_ticks, percent, lines: ls } => {
                lines(&mut s, (x_label, y_label), x_ticks.as_deref(), *percent, ls, y0, ph);
            }
            Chart::Intervals(rows) => intervals(&mut s, rows, y0, ph),
            Chart::Heat { x_label, y_label, xs, ys, cells } => heat(&mut s, (x_label, y_label), xs, ys, cells, y0),
        }
        let _ = writeln!(s, "</g>");
        y0 += ph;
    }
    s.push_str("</svg>\n");
    s
}

fn bars(s: &mut String, series: &[Series], y0: f64, ph: f64) {
    let mut cats: Vec<&String> = Vec::new();
    for se in series {
        for (c, _) in &se.bars {
            if !cats.contains(&c) {
                cats.push(c);
            }
        }
    }
    let maxp = series.iter().flat_map(|se| se.bars.iter().map(|b| b.1)).fold(0.0, f64::max);
    let ticks = nice_ticks(0.0, maxp.max(1e-9), 4);
    let f = Frame {
        left: 60.0,
        right: WIDTH - 20.0,
        top: y0 + 28.0,
        bottom: y0 + ph - 50.0,
        x: (0.0, 1.0),
        y: (0.0, *ticks.last().unwrap_or(&1.0)),
    };
    y_axis(s, &f, &ticks, true);
    let slot = (f.right - f.left) / cats.len().max(1) as f64;
    let bw = (slot * 0.8 / series.len().max(1) as f64).max(1.0);
    for (si, se) in series.iter().enumerate() {
        for (c, v) in &se.bars {
            let ci = cats.iter().position(|x| *x == c).unwrap_or(0) as f64;
            let x = f.left + ci * slot + slot * 0.1 + si as f64 * bw;
            let top = f.py(*v);
            let _ = writeln!(
                s,
                r#"<rect class="bar" x="{x:.1}" y="{top:.1}" width="{bw:.1}" height="{:.1}" fill="{}"><title>{}: {} = {:.4}%</title></rect>"#,
                f.bottom - top,
                COLORS[si % 2],
                esc(&se.label),
                esc(c),
                v * 100.0
            );
        }
    }
    let every = (cats.len() / 25).max(1);
    for (ci, c) in cats.iter().enumerate().filter(|(i, _)| i % every == 0) {
        let x = f.left + (ci as f64 + 0.5) * slot;
        let _ = writeln!(
            s,
            r#"<text class="xtick" x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            f.bottom + 14.0,
            esc(c)
        );
    }
    axis_labels(s, &f, "", "");
    if series.len() > 1 {
        let labels: Vec<&str> = series.iter().map(|se| se.label.as_str()).collect();
        legend(s, &labels, f.left, f.bottom + 34.0);
    }
}

fn lines(
    s: &mut String,
    (x_label, y_label): (&str, &str),
    x_ticks: Option<&[(f64, String)]>,
    percent: bool,
    ls: &[Line],
    y0: f64,
    ph: f64,
) {
    let pts = || ls.iter().flat_map(|l| l.points.iter());
    let xs = pts().map(|p| p.0);
    let (xlo, xhi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| (a.min(x), b.max(x)));
    let ys = pts().flat_map(|&(_, y, band)| [y, band.map_or(y, |b| b.0), band.map_or(y, |b| b.1)]);
    let (ylo, yhi) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), y| (a.min(y), b.max(y)));
    if !xlo.is_finite() || !ylo.is_finite() {
        return;
    }
    let yticks = nice_ticks(if percent { ylo.min(0.0) } else { ylo }, yhi, 5);
    let (x, xticks): ((f64, f64), Vec<(f64, String)>) = match x_ticks {
        Some(t) => ((xlo - 0.5, xhi + 0.5), t.to_vec()),
        None => {
            // Whole-number values (counts, n) tick at whole numbers.
            let whole = pts().all(|p| p.0.fract() == 0.0);
            let n = if whole { ((xhi - xlo) as usize).clamp(1, 8) } else { 8 };
            let t = nice_ticks(xlo, xhi, n);
            let range = (xlo.min(t[0]), xhi.max(*t.last().unwrap_or(&xhi)));
            (range, t.into_iter().map(|v| (v, fmt_num(v))).collect())
        }
    };
    let f = Frame {
        left: 70.0,
        right: WIDTH - 20.0,
        top: y0 + 28.0,
        bottom: y0 + ph - 58.0,
        x,
        y: (yticks[0], *yticks.last().unwrap_or(&yhi)),
    };
    y_axis(s, &f, &yticks, percent);
    for (v, label) in &xticks {
        x_tick(s, &f, *v, label);
    }
    for (i, l) in ls.iter().enumerate() {
        let color = COLORS[i % 2];
        let band: Vec<(f64, (f64, f64))> = l.points.iter().filter_map(|&(x, _, b)| b.map(|b| (x, b))).collect();
        if band.len() == l.points.len() && !band.is_empty() {
            let upper = band.iter().map(|(x, b)| format!("{:.1},{:.1}", f.px(*x), f.py(b.1)));
            let lower = band.iter().rev().map(|(x, b)| format!("{:.1},{:.1}", f.px(*x), f.py(b.0)));
            let points: Vec<String> = upper.chain(lower).collect();
            let _ = writeln!(
                s,
                r#"<polygon class="band" points="{}" fill="{color}" fill-opacity="0.2" stroke="none"><title>{}: 95% interval</title></polygon>"#,
                points.join(" "),
                esc(&l.label)
            );
        }
        let path: Vec<String> = l.points.iter().map(|&(x, y, _)| format!("{:.1},{:.1}", f.px(x), f.py(y))).collect();
        let _ = writeln!(
            s,
            r#"<polyline class="line" points="{}" fill="none" stroke="{color}" stroke-width="2"/>"#,
            path.join(" ")
        );
        for &(x, y, b) in &l.points {
            let tip = match b {
                Some((lo, hi)) => {
                    format!("{} [{}, {}]", tick_label(y, percent), tick_label(lo, percent), tick_label(hi, percent))
                }
                None => tick_label(y, percent),
            };
            let _ = writeln!(
                s,
                r#"<circle class="point" cx="{:.1}" cy="{:.1}" r="3" fill="{color}"><title>{}: {}</title></circle>"#,
                f.px(x),
                f.py(y),
                esc(&l.label),
                tip
            );
        }
    }
    axis_labels(s, &f, x_label, y_label);
    if ls.len() > 1 {
        let labels: Vec<&str> = ls.iter().map(|l| l.label.as_str()).collect();
        legend(s, &labels, f.left, f.bottom + 48.0);
    }
}

fn intervals(s: &mut String, rows: &[(String, Estimate)], y0: f64, ph: f64) {
    let vals = rows.iter().flat_map(|(_, (v, b))| [*v, b.map_or(*v, |b| b.0), b.map_or(*v, |b| b.1), 0.0]);
    let (lo, hi) = vals.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(v), b.max(v)));
    let ticks = nice_ticks(lo, hi, 6);
    let f = Frame {
        left: 170.0,
        right: WIDTH - 30.0,
        top: y0 + 26.0,
        bottom: y0 + ph - 30.0,
        x: (ticks[0], *ticks.last().unwrap_or(&hi)),
        y: (0.0, rows.len().max(1) as f64),
    };
    for &t in &ticks {
        let x = f.px(t);
        let _ = writeln!(
            s,
            r##"<line class="grid" x1="{x:.1}" x2="{x:.1}" y1="{}" y2="{}" stroke="#ddd"/>"##,
            f.top, f.bottom
        );
        x_tick(s, &f, t, &fmt_num(t));
    }
    let zero = f.px(0.0);
    let _ = writeln!(
        s,
        r##"<line class="zero" x1="{zero:.1}" x2="{zero:.1}" y1="{}" y2="{}" stroke="#333" stroke-dasharray="4 3"/>"##,
        f.top, f.bottom
    );
    for (i, (label, (v, b))) in rows.iter().enumerate() {
        let y = f.py(rows.len() as f64 - i as f64 - 0.5);
        let _ = writeln!(
            s,
            r#"<text class="row" x="{}" y="{:.1}" text-anchor="end">{}</text>"#,
            f.left - 8.0,
            y + 4.0,
            esc(label)
        );
        let tip = match b {
            Some((lo, hi)) => {
                let _ = writeln!(
                    s,
                    r#"<line class="interval" x1="{:.1}" x2="{:.1}" y1="{y:.1}" y2="{y:.1}" stroke="{}" stroke-width="3"/>"#,
                    f.px(*lo),
                    f.px(*hi),
                    COLORS[1]
                );
                format!("{} [{}, {}]", fmt_num(*v), fmt_num(*lo), fmt_num(*hi))
            }
            None => fmt_num(*v),
        };
        let _ = writeln!(
            s,
            r#"<circle class="point" cx="{:.1}" cy="{y:.1}" r="4" fill="{}"><title>{}: {tip}</title></circle>"#,
            f.px(*v),
            COLORS[0],
            esc(label)
        );
    }
    let _ =
        writeln!(s, r##"<line x1="{}" x2="{}" y1="{}" y2="{}" stroke="#333"/>"##, f.left, f.right, f.bottom, f.bottom);
}

/// A colour from light to dark blue for `t` in 0..=1.
fn shade(t: f64) -> String {
    let t = t.clamp(0.0, 1.0);
    let mix = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
    format!("#{:02x}{:02x}{:02x}", mix(239.0, 33.0), mix(243.0, 84.0), mix(255.0, 140.0))
}

fn heat(
    s: &mut String,
    (x_label, y_label): (&str, &str),
    xs: &[String],
    ys: &[String],
    cells: &[Vec<Option<f64>>],
    y0: f64,
) {
    let vals = cells.iter().flatten().flatten();
    let (lo, hi) = vals.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| (a.min(v), b.max(v)));
    let (left, top) = (110.0, y0 + 44.0);
    let cw = ((WIDTH - left - 130.0) / xs.len().max(1) as f64).min(90.0);
    let ch = 26.0;
    for (r, row) in cells.iter().enumerate() {
        let y = top + r as f64 * ch;
        let _ = writeln!(
            s,
            r#"<text class="ytick" x="{}" y="{:.1}" text-anchor="end">{}</text>"#,
            left - 6.0,
            y + ch / 2.0 + 4.0,
            esc(&ys[r])
        );
        for (c, v) in row.iter().enumerate() {
            let x = left + c as f64 * cw;
            let (fill, text) = match v {
                Some(v) => (shade(if hi > lo { (v - lo) / (hi - lo) } else { 0.5 }), fmt_num(*v)),
                None => ("#ffffff".to_string(), "-".to_string()),
            };
            let dark = v.is_some_and(|v| hi > lo && (v - lo) / (hi - lo) > 0.55);
            let _ = writeln!(
                s,
                r##"<rect class="cell" x="{x:.1}" y="{y:.1}" width="{cw:.1}" height="{ch}" fill="{fill}" stroke="#fff"><title>{} = {}, {} = {}: {text}</title></rect>"##,
                esc(x_label),
                esc(&xs[c]),
                esc(y_label),
                esc(&ys[r])
            );
            let _ = writeln!(
                s,
                r#"<text class="cell-value" x="{:.1}" y="{:.1}" text-anchor="middle" fill="{}">{text}</text>"#,
                x + cw / 2.0,
                y + ch / 2.0 + 4.0,
                if dark { "white" } else { "black" }
            );
        }
    }
    let bottom = top + cells.len() as f64 * ch;
    for (c, x) in xs.iter().enumerate() {
        let _ = writeln!(
            s,
            r#"<text class="xtick" x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            left + (c as f64 + 0.5) * cw,
            bottom + 14.0,
            esc(x)
        );
    }
    let _ = writeln!(
        s,
        r#"<text class="xlabel" x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
        left + cw * xs.len() as f64 / 2.0,
        bottom + 30.0,
        esc(x_label)
    );
    // The rows' name above their labels (upright: a name rotated along a few rows would not fit).
    let _ = writeln!(s, r#"<text class="ylabel" x="10" y="{}" font-style="italic">{}</text>"#, top - 6.0, esc(y_label));
    // The key: the colours from the lowest mean to the highest.
    let kx = left + cw * xs.len() as f64 + 20.0;
    for i in 0..10 {
        let _ = writeln!(
            s,
            r#"<rect class="key" x="{kx}" y="{:.1}" width="14" height="{:.1}" fill="{}"/>"#,
            top + i as f64 * (bottom - top) / 10.0,
            (bottom - top) / 10.0 + 0.5,
            shade(1.0 - i as f64 / 9.0)
        );
    }
    if lo.is_finite() {
        let _ = writeln!(s, r#"<text class="key-label" x="{}" y="{}">{}</text>"#, kx + 18.0, top + 10.0, fmt_num(hi));
        let _ = writeln!(s, r#"<text class="key-label" x="{}" y="{}">{}</text>"#, kx + 18.0, bottom, fmt_num(lo));
    }
}

fn acc_bars(a: &Acc) -> Vec<(String, f64)> {
    match a.distribution() {
        Some(d) if d.len() <= 200 => d.into_iter().map(|(v, c)| (value_label(v), c as f64 / a.n as f64)).collect(),
        _ => Vec::new(),
    }
}

/// P(metric ≥ n) for each value n of a distribution (value, probability).
fn at_least(dist: &[(f64, f64)]) -> Vec<Point> {
    let mut left = dist.iter().map(|d| d.1).sum::<f64>();
    dist.iter()
        .map(|&(v, p)| {
            let point = (v, left.clamp(0.0, 1.0), None);
            left -= p;
            point
        })
        .collect()
}

fn acc_dist(a: &Acc) -> Vec<(f64, f64)> {
    a.distribution().map(|d| d.into_iter().map(|(v, c)| (v, c as f64 / a.n as f64)).collect()).unwrap_or_default()
}

fn exact_dist(m: &ExactMetric) -> Vec<(f64, f64)> {
    m.dist.iter().map(|(&k, p)| (super::stats::value_of(k), ratio_f64(p))).collect()
}

/// The panels of a comparison's metric: distributions side by side, the
/// "at least n" curves, and B − A with its interval.
fn comparison_panels(
    name: &str,
    (a_label, b_label): (&str, &str),
    (ma, mb): (f64, f64),
    bars: [Vec<(String, f64)>; 2],
    dists: [Vec<(f64, f64)>; 2],
    diff: (f64, Option<(f64, f64)>),
) -> Vec<Panel> {
    let [bars_a, bars_b] = bars;
    let mut out = vec![Panel {
        title: format!("{name}: A mean {}, B mean {}", fmt_num(ma), fmt_num(mb)),
        chart: Chart::Bars(vec![
            Series { label: a_label.to_string(), bars: bars_a },
            Series { label: b_label.to_string(), bars: bars_b },
        ]),
    }];
    let [da, db] = dists;
    if da.len() > 2 || db.len() > 2 {
        out.push(Panel {
            title: format!("{name}: P({name} ≥ n), A and B"),
            chart: Chart::Lines {
                x_label: "n".into(),
                y_label: format!("P({name} ≥ n)"),
                x_ticks: None,
                percent: true,
                lines: vec![
                    Line { label: a_label.to_string(), points: at_least(&da) },
                    Line { label: b_label.to_string(), points: at_least(&db) },
                ],
            },
        });
    }
    let (d, ci) = diff;
    let title = match ci {
        Some((lo, hi)) => format!("{name}: B − A = {}, 95% CI [{}, {}]", fmt_num(d), fmt_num(lo), fmt_num(hi)),
        None => format!("{name}: B − A = {} (exact)", fmt_num(d)),
    };
    out.push(Panel { title, chart: Chart::Intervals(vec![(format!("B − A ({name})"), (d, ci))]) });
    out
}

/// Panels for a `sim` result.
pub fn sim_panels(r: &SimResult) -> Vec<Panel> {
    let a_label = format!("A: {}", r.setup.describe_changes());
    let mut out = Vec::new();
    for (name, a) in &r.metrics {
        let vs = r.vs.as_ref().zip(r.vs_metrics.as_ref().and_then(|m| m.get(name)));
        let diff = r.diff.as_ref().and_then(|d| d.get(name));
        match (vs, diff) {
            (Some((vs, b)), Some(d)) => out.extend(comparison_panels(
                name,
                (&a_label, &format!("B: {}", vs.describe_changes())),
                (a.mean(), b.mean()),
                [acc_bars(a), acc_bars(b)],
                [acc_dist(a), acc_dist(b)],
                (d.mean(), Some(d.ci95_normal())),
            )),
            _ => out.push(Panel {
                title: format!("{name} (mean {})", fmt_num(a.mean())),
                chart: Chart::Bars(vec![Series { label: a_label.clone(), bars: acc_bars(a) }]),
            }),
        }
    }
    out
}

/// Panels for an `exact` result.
pub fn exact_panels(r: &ExactResult) -> Vec<Panel> {
    let bars =
        |m: &ExactMetric| super::exact::labelled(m).into_iter().map(|(k, p)| (k, ratio_f64(p))).collect::<Vec<_>>();
    let a_label = format!("A: {}", r.setup.describe_changes());
    let mut out = Vec::new();
    for (name, m) in &r.metrics {
        match r.vs.as_ref().and_then(|vs| vs.metrics.get(name).map(|b| (vs, b))) {
            Some((vs, b)) => out.extend(comparison_panels(
                name,
                (&a_label, &format!("B: {}", vs.setup.describe_changes())),
                (ratio_f64(&m.mean()), ratio_f64(&b.mean())),
                [bars(m), bars(b)],
                [exact_dist(m), exact_dist(b)],
                (ratio_f64(&(b.mean() - m.mean())), None),
            )),
            None => out.push(Panel {
                title: format!("{name} (exact mean {})", fmt_num(ratio_f64(&m.mean()))),
                chart: Chart::Bars(vec![Series { label: a_label.clone(), bars: bars(m) }]),
            }),
        }
    }
    out
}

/// The x positions of an axis's values: the numbers themselves when every
/// value is one (no labels: round-number ticks), else evenly spaced
/// categories with their labels.
fn x_positions(values: &[String]) -> (Vec<f64>, Option<Vec<(f64, String)>>) {
    let nums: Option<Vec<f64>> = values.iter().map(|v| v.parse::<f64>().ok().filter(|x| x.is_finite())).collect();
    match nums {
        Some(n) => (n, None),
        None => {
            let pos: Vec<f64> = (0..values.len()).map(|i| i as f64).collect();
            let labels = pos.iter().zip(values).map(|(&p, v)| (p, v.clone())).collect();
            (pos, Some(labels))
        }
    }
}

/// The metric names of a sweep's points, each once, in order.
fn names<'a>(all: impl Iterator<Item = &'a String>) -> Vec<&'a String> {
    let mut v: Vec<&String> = all.collect();
    v.sort();
    v.dedup();
    v
}

/// Panels for a sweep (of one or two inputs; `Err` for more).
/// `mean(point, metric)` gives a point's mean and interval.
fn sweep_panels_with(
    axes: &[super::sweep::Axis],
    ats: &[&[usize]],
    metric_names: &[&String],
    value: impl Fn(usize, &str) -> Option<(f64, Option<(f64, f64)>)>,
    binary: impl Fn(&str) -> bool,
    interval_word: &str,
) -> Result<Vec<Panel>, String> {
    match axes {
        [x] => {
            let (pos, x_ticks) = x_positions(&x.values);
            Ok(metric_names
                .iter()
                .map(|name| {
                    let points = ats
                        .iter()
                        .enumerate()
                        .filter_map(|(i, at)| value(i, name).map(|(m, b)| (pos[at[0]], m, b)))
                        .collect();
                    Panel {
                        title: format!("{name}: mean{interval_word} against {}", x.short()),
                        chart: Chart::Lines {
                            x_label: x.name.clone(),
                            y_label: if binary(name) { format!("P({name})") } else { format!("mean {name}") },
                            x_ticks: x_ticks.clone(),
                            percent: binary(name),
                            lines: vec![Line { label: (*name).clone(), points }],
                        },
                    }
                })
                .collect())
        }
        [x, y] => Ok(metric_names
            .iter()
            .map(|name| {
                let mut cells = vec![vec![None; x.values.len()]; y.values.len()];
                for (i, at) in ats.iter().enumerate() {
                    cells[at[1]][at[0]] = value(i, name).map(|v| v.0);
                }
                Panel {
                    title: format!("{name}: mean by {} (across) and {} (down)", x.short(), y.short()),
                    chart: Chart::Heat {
                        x_label: x.name.clone(),
                        y_label: y.name.clone(),
                        xs: x.values.clone(),
                        ys: y.values.clone(),
                        cells,
                    },
                }
            })
            .collect()),
        _ => Err(format!(
            "--plot draws a sweep of one input (lines) or two (a heat map); this one has {}: use --csv or --json",
            axes.len()
        )),
    }
}

/// Panels for a `sim` sweep: the mean against the swept value with its 95%
/// interval as a band, or a heat map of the means for a grid of two inputs.
pub fn sweep_panels(r: &SweepResult) -> Result<Vec<Panel>, String> {
    let ats: Vec<&[usize]> = r.points.iter().map(|p| p.at.as_slice()).collect();
    let metric_names = names(r.points.iter().flat_map(|p| p.metrics.keys()));
    sweep_panels_with(
        &r.axes,
        &ats,
        &metric_names,
        |i, name| r.points[i].metrics.get(name).map(|a| (a.mean(), Some(a.ci95()))),
        |name| r.points.iter().filter_map(|p| p.metrics.get(name)).all(Acc::is_binary),
        " and 95% interval",
    )
}

/// Panels for an `exact` sweep: the exact mean against the swept value, or
/// a heat map of the means for a grid of two inputs.
pub fn exact_sweep_panels(s: &ExactSweep) -> Result<Vec<Panel>, String> {
    let ats: Vec<&[usize]> = s.points.iter().map(|(at, _)| at.as_slice()).collect();
    let metric_names = names(s.points.iter().flat_map(|(_, r)| r.metrics.keys()));
    let binary = |name: &str| {
        s.points.iter().filter_map(|(_, r)| r.metrics.get(name)).all(|m| {
            m.dist.keys().all(|&k| {
                let v = super::stats::value_of(k);
                v == 0.0 || v == 1.0
            })
        })
    };
    sweep_panels_with(
        &s.axes,
        &ats,
        &metric_names,
        |i, name| s.points[i].1.metrics.get(name).map(|m| (ratio_f64(&m.mean()), None)),
        binary,
        " (exact)",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_fall_on_round_numbers() {
        assert_eq!(nice_ticks(0.0, 0.972, 4), [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]);
        assert_eq!(nice_ticks(0.0, 0.729, 4), [0.0, 0.2, 0.4, 0.6, 0.8]);
        assert_eq!(nice_ticks(0.81, 1.43, 5), [0.8, 1.0, 1.2, 1.4, 1.6]);
        assert_eq!(nice_ticks(0.0, 90.0, 8), [0.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0]);
        assert_eq!(nice_ticks(-0.3666, 0.0, 6), [-0.4, -0.3, -0.2, -0.1, 0.0]);
        assert_eq!(nice_ticks(3.0, 3.0, 4), [2.5, 3.0, 3.5]);
        assert_eq!(tick_label(0.6000000000000001, true), "60%");
    }

    #[test]
    fn at_least_curves_start_at_one_and_fall() {
        let c = at_least(&[(0.0, 0.5), (1.0, 0.3), (2.0, 0.2)]);
        let ys: Vec<f64> = c.iter().map(|p| (p.1 * 100.0).round() / 100.0).collect();
        assert_eq!(ys, [1.0, 0.5, 0.2]);
    }
}
