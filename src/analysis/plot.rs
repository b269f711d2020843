//! `--plot FILE.svg`: the distribution of every metric as a bar chart, one
//! panel per metric, with the `--vs` variant's bars beside the first's.

use std::fmt::Write;

use super::exact::{ratio_f64, ExactResult};
use super::sim::SimResult;
use super::stats::{value_label, Acc};

/// One series of bars: a legend label and (category, probability) pairs.
pub struct Series {
    pub label: String,
    pub bars: Vec<(String, f64)>,
}

/// One chart.
pub struct Panel {
    pub title: String,
    pub series: Vec<Series>,
}

const COLORS: [&str; 2] = ["#3b6ea8", "#d08a2e"];

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Draws panels stacked vertically.
pub fn svg(title: &str, panels: &[Panel]) -> String {
    let (w, ph, top) = (760.0, 240.0, 40.0);
    let h = top + ph * panels.len().max(1) as f64 + 10.0;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(s, r#"<text x="{}" y="24" font-size="15" text-anchor="middle">{}</text>"#, w / 2.0, esc(title));
    for (pi, p) in panels.iter().enumerate() {
        let y0 = top + pi as f64 * ph;
        let (left, right, ptop, pbot) = (60.0, w - 20.0, y0 + 28.0, y0 + ph - 36.0);
        let _ = writeln!(
            s,
            r#"<text x="{left}" y="{}" font-size="13" font-weight="bold">{}</text>"#,
            y0 + 16.0,
            esc(&p.title)
        );
        // categories in first-seen order across series
        let mut cats: Vec<String> = Vec::new();
        for se in &p.series {
            for (c, _) in &se.bars {
                if !cats.contains(c) {
                    cats.push(c.clone());
                }
            }
        }
        let maxp = p.series.iter().flat_map(|se| se.bars.iter().map(|b| b.1)).fold(0.0, f64::max).max(1e-12);
        // y axis: 0, max/2, max
        for t in 0..=4 {
            let v = maxp * t as f64 / 4.0;
            let y = pbot - (pbot - ptop) * t as f64 / 4.0;
            let _ = writeln!(s, r##"<line x1="{left}" x2="{right}" y1="{y:.1}" y2="{y:.1}" stroke="#ddd"/>"##);
            let _ = writeln!(
                s,
                r#"<text x="{}" y="{:.1}" text-anchor="end">{:.1}%</text>"#,
                left - 4.0,
                y + 4.0,
                v * 100.0
            );
        }
        let n = cats.len().max(1) as f64;
        let slot = (right - left) / n;
        let ns = p.series.len().max(1) as f64;
        let bw = (slot * 0.8 / ns).max(1.0);
        for (si, se) in p.series.iter().enumerate() {
            for (c, v) in &se.bars {
                let ci = cats.iter().position(|x| x == c).unwrap_or(0) as f64;
                let x = left + ci * slot + slot * 0.1 + si as f64 * bw;
                let bh = (pbot - ptop) * v / maxp;
                let _ = writeln!(
                    s,
                    r#"<rect x="{x:.1}" y="{:.1}" width="{bw:.1}" height="{bh:.1}" fill="{}"><title>{}: {} = {:.4}%</title></rect>"#,
                    pbot - bh,
                    COLORS[si % COLORS.len()],
                    esc(&se.label),
                    esc(c),
                    v * 100.0
                );
            }
        }
        let every = (cats.len() / 25).max(1);
        for (ci, c) in cats.iter().enumerate() {
            if ci % every == 0 {
                let x = left + (ci as f64 + 0.5) * slot;
                let _ =
                    writeln!(s, r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle">{}</text>"#, pbot + 14.0, esc(c));
            }
        }
        let _ = writeln!(s, r##"<line x1="{left}" x2="{right}" y1="{pbot}" y2="{pbot}" stroke="#333"/>"##);
        if p.series.len() > 1 {
            for (si, se) in p.series.iter().enumerate() {
                let lx = left + si as f64 * 300.0;
                let ly = pbot + 28.0;
                let _ = writeln!(
                    s,
                    r#"<rect x="{lx}" y="{}" width="10" height="10" fill="{}"/>"#,
                    ly - 9.0,
                    COLORS[si % COLORS.len()]
                );
                let _ = writeln!(s, r#"<text x="{}" y="{ly}">{}</text>"#, lx + 14.0, esc(&se.label));
            }
        }
    }
    s.push_str("</svg>\n");
    s
}

fn acc_bars(a: &Acc) -> Vec<(String, f64)> {
    match a.distribution() {
        Some(d) if d.len() <= 200 => d.into_iter().map(|(v, c)| (value_label(v), c as f64 / a.n as f64)).collect(),
        _ => Vec::new(),
    }
}

/// Panels for a `sim` result.
pub fn sim_panels(r: &SimResult) -> Vec<Panel> {
    r.metrics
        .iter()
        .map(|(name, a)| {
            let mut series = vec![Series { label: format!("A: {}", r.setup.describe_changes()), bars: acc_bars(a) }];
            if let (Some(vs), Some(vm)) = (&r.vs, &r.vs_metrics) {
                if let Some(b) = vm.get(name) {
                    series.push(Series { label: format!("B: {}", vs.describe_changes()), bars: acc_bars(b) });
                }
            }
            Panel { title: format!("{name} (mean {})", super::report::fmt_num(a.mean())), series }
        })
        .collect()
}

/// Panels for an `exact` result.
pub fn exact_panels(r: &ExactResult) -> Vec<Panel> {
    r.metrics
        .iter()
        .map(|(name, m)| {
            let bars = |m: &super::exact::ExactMetric| {
                super::exact::labelled(m).into_iter().map(|(k, p)| (k, ratio_f64(p))).collect::<Vec<_>>()
            };
            let mut series = vec![Series { label: format!("A: {}", r.setup.describe_changes()), bars: bars(m) }];
            if let Some(vs) = &r.vs {
                if let Some(b) = vs.metrics.get(name) {
                    series.push(Series { label: format!("B: {}", vs.setup.describe_changes()), bars: bars(b) });
                }
            }
            Panel { title: format!("{name} (exact mean {})", super::report::fmt_num(ratio_f64(&m.mean()))), series }
        })
        .collect()
}
