//! The event log: every roll, move, hit, retreat, elimination, decision and
//! note, as structured data with a readable text form and JSON Lines export.

use std::fmt;
use std::io::Write;

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

use crate::hex::Hex;
use crate::tabletop::Point;
use crate::unit::Position;

/// One thing that happened on the battlefield.
///
/// Hexes and places are kept as values: `world:events()` gives them to Lua
/// as hex values (a tabletop place as `{x=, y=, facing=}`), and the JSON
/// form writes a hex as `{"q":..,"r":..}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    Roll {
        kind: String,
        n: u32,
        faces: Vec<String>,
        reason: String,
        forced: bool,
    },
    Move {
        unit: String,
        #[serde(serialize_with = "place_json")]
        from: Position,
        #[serde(serialize_with = "place_json")]
        to: Position,
    },
    Retreat {
        unit: String,
        #[serde(serialize_with = "place_json")]
        from: Position,
        #[serde(serialize_with = "place_json")]
        to: Position,
    },
    Hit {
        unit: String,
        hits: i32,
        strength: i32,
        reason: String,
    },
    Eliminate {
        unit: String,
        reason: String,
    },
    /// A decision: its `id` (none when the rule gave none), the side that
    /// decides, the prompt, the options and the default as labels, the
    /// choice, who made it (`answer`, `person`, `policy`, `default`), and the
    /// request's own fields (everything `decide{...}` was given besides
    /// side, prompt, options, default and id).
    Decision {
        #[serde(skip_serializing_if = "Option::is_none")]
        id: Option<String>,
        side: String,
        prompt: String,
        options: Vec<String>,
        default: String,
        choice: String,
        by: String,
        #[serde(serialize_with = "fields_json")]
        request: Vec<(String, Field)>,
    },
    Token {
        #[serde(serialize_with = "hex_json")]
        hex: Hex,
        token: String,
        placed: bool,
    },
    Pool {
        side: String,
        pool: String,
        change: i64,
        value: i64,
        reason: String,
    },
    Note {
        text: String,
    },
}

/// A value a decision's request carried, as the log keeps it.
#[derive(Clone, Debug, PartialEq)]
pub enum Field {
    Bool(bool),
    Int(i64),
    Num(f64),
    Text(String),
    Hex(Hex),
    /// A unit, by id.
    Unit(String),
    List(Vec<Field>),
    /// A table with keys that are not a list, sorted by key.
    Map(Vec<(String, Field)>),
}

impl Serialize for Field {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Field::Bool(b) => s.serialize_bool(*b),
            Field::Int(i) => s.serialize_i64(*i),
            Field::Num(n) => s.serialize_f64(*n),
            Field::Text(t) | Field::Unit(t) => s.serialize_str(t),
            Field::Hex(h) => hex_json(h, s),
            Field::List(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for x in items {
                    seq.serialize_element(x)?;
                }
                seq.end()
            }
            Field::Map(fields) => fields_json(fields, s),
        }
    }
}

fn hex_json<S: Serializer>(h: &Hex, s: S) -> Result<S::Ok, S::Error> {
    let mut m = s.serialize_map(Some(2))?;
    m.serialize_entry("q", &h.q)?;
    m.serialize_entry("r", &h.r)?;
    m.end()
}

fn place_json<S: Serializer>(p: &Position, s: S) -> Result<S::Ok, S::Error> {
    match p {
        Position::Off => s.serialize_none(),
        Position::Hex(h) => hex_json(h, s),
        Position::Table { at: Point { x, y }, facing } => {
            let mut m = s.serialize_map(Some(3))?;
            m.serialize_entry("x", x)?;
            m.serialize_entry("y", y)?;
            m.serialize_entry("facing", facing)?;
            m.end()
        }
    }
}

fn fields_json<S: Serializer>(fields: &[(String, Field)], s: S) -> Result<S::Ok, S::Error> {
    let mut m = s.serialize_map(Some(fields.len()))?;
    for (k, v) in fields {
        m.serialize_entry(k, v)?;
    }
    m.end()
}

impl Event {
    /// The event's name as used in `on(...)` subscriptions and JSON.
    pub fn name(&self) -> &'static str {
        match self {
            Event::Roll { .. } => "roll",
            Event::Move { .. } => "move",
            Event::Retreat { .. } => "retreat",
            Event::Hit { .. } => "hit",
            Event::Eliminate { .. } => "eliminate",
            Event::Decision { .. } => "decision",
            Event::Token { .. } => "token",
            Event::Pool { .. } => "pool",
            Event::Note { .. } => "note",
        }
    }
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Event::Roll { kind, n, faces, reason, forced } => {
                write!(f, "roll {n} {kind}")?;
                if !reason.is_empty() {
                    write!(f, " for {reason}")?;
                }
                write!(f, ": {}", faces.join(" "))?;
                if *forced {
                    f.write_str(" (forced)")?;
                }
                Ok(())
            }
            Event::Move { unit, from, to } => write!(f, "{unit} moves {from} -> {to}"),
            Event::Retreat { unit, from, to } => write!(f, "{unit} retreats {from} -> {to}"),
            Event::Hit { unit, hits, strength, reason } => {
                write!(f, "{unit} takes {hits} hit{}", if *hits == 1 { "" } else { "s" })?;
                if !reason.is_empty() {
                    write!(f, " ({reason})")?;
                }
                write!(f, ", strength now {strength}")
            }
            Event::Eliminate { unit, reason } => {
                write!(f, "{unit} is eliminated")?;
                if !reason.is_empty() {
                    write!(f, " ({reason})")?;
                }
                Ok(())
            }
            Event::Decision { side, prompt, choice, by, .. } => {
                let who = if side.is_empty() { String::new() } else { format!("{side}: ") };
                write!(f, "{who}{prompt} -> {choice} [{by}]")
            }
            Event::Token { hex, token, placed } => {
                if *placed {
                    write!(f, "{token} placed on {hex}")
                } else {
                    write!(f, "{token} removed from {hex}")
                }
            }
            Event::Pool { side, pool, change, value, reason } => {
                write!(f, "{side} {pool} {change:+} -> {value}")?;
                if !reason.is_empty() {
                    write!(f, " ({reason})")?;
                }
                Ok(())
            }
            Event::Note { text } => f.write_str(text),
        }
    }
}

/// The log a world keeps. Recording can be switched off for simulation, where
/// nobody reads the events and building them would cost more than the rule.
#[derive(Clone, Debug, Default)]
pub struct EventLog {
    pub events: Vec<Event>,
    pub recording: bool,
}

impl EventLog {
    pub fn new() -> EventLog {
        EventLog { events: Vec::new(), recording: true }
    }

    /// Records an event built lazily, so a switched-off log costs nothing.
    #[inline]
    pub fn push_with(&mut self, make: impl FnOnce() -> Event) {
        if self.recording {
            self.events.push(make());
        }
    }

    /// The last `n` events.
    pub fn tail(&self, n: usize) -> &[Event] {
        &self.events[self.events.len().saturating_sub(n)..]
    }

    /// Writes the events from `from` on as JSON Lines.
    pub fn write_jsonl(&self, from: usize, out: &mut impl Write) -> std::io::Result<()> {
        for e in self.events.iter().skip(from) {
            serde_json::to_writer(&mut *out, e)?;
            out.write_all(b"\n")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_and_json_forms() {
        let e = Event::Hit { unit: "inf1".into(), hits: 2, strength: 2, reason: "bombard".into() };
        assert_eq!(e.to_string(), "inf1 takes 2 hits (bombard), strength now 2");
        let mut log = EventLog::new();
        log.push_with(|| e.clone());
        let mut buf = Vec::new();
        log.write_jsonl(0, &mut buf).unwrap();
        let line = String::from_utf8(buf).unwrap();
        assert!(line.starts_with("{\"event\":\"hit\",\"unit\":\"inf1\""), "{line}");
    }

    #[test]
    fn hexes_and_requests_in_json() {
        let mv =
            Event::Move { unit: "b1".into(), from: Position::Hex(Hex::new(1, 4)), to: Position::Hex(Hex::new(1, 3)) };
        assert_eq!(mv.to_string(), "b1 moves (1,4) -> (1,3)");
        let d = Event::Decision {
            id: Some("overwatch".into()),
            side: "A".into(),
            prompt: "fire?".into(),
            options: vec!["now".into(), "wait".into()],
            default: "now".into(),
            choice: "wait".into(),
            by: "answer".into(),
            request: vec![
                ("dice".into(), Field::Int(2)),
                ("hex".into(), Field::Hex(Hex::new(5, 3))),
                ("targets".into(), Field::List(vec![Field::Unit("b_art".into())])),
            ],
        };
        assert_eq!(d.to_string(), "A: fire? -> wait [answer]");
        let t = Event::Token { hex: Hex::new(2, -1), token: "crater".into(), placed: true };
        let mut log = EventLog::new();
        for e in [mv, d, t] {
            log.push_with(|| e);
        }
        let mut buf = Vec::new();
        log.write_jsonl(0, &mut buf).unwrap();
        let text = String::from_utf8(buf).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], r#"{"event":"move","unit":"b1","from":{"q":1,"r":4},"to":{"q":1,"r":3}}"#);
        assert_eq!(
            lines[1],
            r#"{"event":"decision","id":"overwatch","side":"A","prompt":"fire?","options":["now","wait"],"default":"now","choice":"wait","by":"answer","request":{"dice":2,"hex":{"q":5,"r":3},"targets":["b_art"]}}"#
        );
        assert_eq!(lines[2], r#"{"event":"token","hex":{"q":2,"r":-1},"token":"crater","placed":true}"#);
    }

    #[test]
    fn switched_off_log_records_nothing() {
        let mut log = EventLog { events: vec![], recording: false };
        log.push_with(|| Event::Note { text: "x".into() });
        assert!(log.events.is_empty());
    }
}
