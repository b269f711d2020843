//! The live board: `:view` in the REPL (and `sandtable view SCENARIO`)
//! serves a page that shows the battlefield as it is, redrawn after every
//! input, beside a panel with the sides' pools, the last input's result and
//! events, the log's tail and a decision waiting for an answer.
//!
//! The parts: `server` (the web server, its token and Host checks, the event
//! stream), this file (a [`Frame`]: everything one picture of the session
//! shows, as JSON for the page, built on the REPL's thread from the world),
//! and `page/` (the page's HTML, script and style, plain files built into
//! the binary). The picture is the SVG map of `render::svg`, the same as
//! `:map --svg` writes, with the marks an earlier action left faded.

mod server;

use serde_json::{json, Map, Value};

pub use server::LiveBoard;

use crate::battlefield::{Map as BoardMap, World};
use crate::lua::DecisionRequest;
use crate::render::svg::{self, EarlierMarks, SvgOptions};
use crate::render::{off_map_note, side_index, Draw, LosLine, SIDE_SVG};
use crate::unit::Position;

/// One picture of the session: the JSON the page reads, and the SVG alone
/// (served at `board.svg`).
#[derive(Clone, Debug)]
pub struct Frame {
    pub json: String,
    pub svg: String,
}

/// How many log events the page's log shows.
const LOG_TAIL: usize = 40;

/// What a frame shows besides the world: the session's side of things.
#[derive(Clone, Debug, Default)]
pub struct Scene<'a> {
    /// Frames are numbered, so a page (or a test) can tell a new one.
    pub seq: u64,
    pub title: &'a str,
    pub draw: Draw,
    /// Marks already there before the last input (drawn faded).
    pub earlier: Option<EarlierMarks>,
    /// A line of sight `:map --los` drew in the last input.
    pub los: Option<LosLine>,
    /// The last input, and whether it succeeded (`None`: it is running,
    /// waiting for a decision).
    pub input: Option<(&'a str, Option<bool>)>,
    /// What the REPL showed as its result, what it printed, and the
    /// ruleset's own summary of the result (its `__tostring`).
    pub shown: Option<&'a str>,
    pub printed: Option<&'a str>,
    pub summary: Option<&'a str>,
    /// Where the last input's events start in the log.
    pub events_from: usize,
    /// A decision waiting for the person's answer.
    pub decision: Option<&'a DecisionRequest>,
    /// An error to show over the board (a scenario that no longer loads).
    pub error: Option<&'a str>,
}

impl Frame {
    /// Builds the frame of `world` as `scene` sees it.
    pub fn build(world: &World, scene: &Scene) -> Frame {
        let svg = svg::render(
            world,
            &SvgOptions {
                title: Some(scene.title.to_string()).filter(|t| !t.is_empty()),
                los: scene.los.clone(),
                draw: scene.draw.clone(),
                earlier: scene.earlier.clone(),
            },
        );
        let log = &world.log.events;
        let first = log.len().saturating_sub(LOG_TAIL);
        let tail: Vec<Value> =
            log.iter().enumerate().skip(first).map(|(i, e)| json!({ "n": i + 1, "text": e.to_string() })).collect();
        let events: Vec<String> = if scene.events_from <= log.len() {
            log[scene.events_from..].iter().map(ToString::to_string).collect()
        } else {
            Vec::new()
        };
        let decision = scene.decision.map(|d| {
            json!({
                "side": d.side,
                "prompt": d.prompt,
                "options": d.options,
                "default": d.default,
                "notes": d.notes,
            })
        });
        let value = json!({
            "seq": scene.seq,
            "title": scene.title,
            "summary": crate::repl::summary(world),
            "tabletop": matches!(world.map, BoardMap::Table { .. }),
            "sides": sides(world),
            "input": scene.input.map(|(text, ok)| json!({ "text": text, "ok": ok })),
            "shown": scene.shown,
            "printed": scene.printed,
            "record": scene.summary,
            "events": events,
            "log": tail,
            "log_total": log.len(),
            "decision": decision,
            "error": scene.error,
            "units": units(world, &scene.draw),
            "hexes": hexes(world, &scene.draw),
            "svg": svg,
        });
        Frame { json: value.to_string(), svg }
    }
}

/// Each side: its colour, whether it is to play, its units and its pools.
fn sides(world: &World) -> Vec<Value> {
    world
        .sides
        .iter()
        .map(|s| {
            let mine = || world.units.iter().filter(|u| u.side == s.name);
            json!({
                "name": &*s.name,
                "colour": SIDE_SVG[side_index(world, &s.name)],
                "to_play": world.current_side.as_deref() == Some(&*s.name),
                "units": mine().filter(|u| u.alive()).count(),
                "units_all": mine().count(),
                "pools": s.pools.iter().map(|(k, v)| json!([&**k, v])).collect::<Vec<_>>(),
            })
        })
        .collect()
}

/// Every unit by id, with what hovering it shows.
fn units(world: &World, draw: &Draw) -> Map<String, Value> {
    let pieces = crate::render::Pieces::of(world, draw);
    let mut out = Map::new();
    for u in &world.units {
        let at = match u.pos {
            Position::Off => off_map_note(world, draw, u),
            p => p.to_string(),
        };
        let props: Map<String, Value> = u.props.iter().map(|(k, v)| (k.to_string(), json!(v.to_string()))).collect();
        let mut v = json!({
            "side": &*u.side,
            "type": &*u.kind,
            "strength": u.strength,
            "max": u.max_strength,
            "at": at,
            "leader": u.leader.as_deref(),
            "props": props,
        });
        let cargo = pieces.cargo(u);
        if !cargo.is_empty() {
            v["cargo"] = json!(cargo.iter().map(|c| &*c.id).collect::<Vec<_>>());
        }
        out.insert(u.id.to_string(), v);
    }
    out
}

/// What is on each hex that holds anything (terrain, units, tokens), as
/// `hex_contents` says it (the units looked up once, not for each hex).
fn hexes(world: &World, draw: &Draw) -> Map<String, Value> {
    let mut out = Map::new();
    if let BoardMap::Hex { .. } = world.map {
        let pieces = crate::render::Pieces::of(world, draw);
        for h in world.hexes() {
            let c = crate::render::contents_of(world, h, pieces.stack(h));
            if c != "open" {
                out.insert(format!("{},{}", h.q, h.r), json!(c));
            }
        }
    }
    out
}

#[cfg(test)]
pub(crate) mod tests;
