//! The event log: every roll, move, hit, retreat, elimination, decision and
//! note, as structured data with a readable text form and JSON Lines export.

use std::fmt;
use std::io::Write;

use serde::Serialize;

/// One thing that happened on the battlefield.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    Roll { kind: String, n: u32, faces: Vec<String>, reason: String, forced: bool },
    Move { unit: String, from: String, to: String },
    Retreat { unit: String, from: String, to: String },
    Hit { unit: String, hits: i32, strength: i32, reason: String },
    Eliminate { unit: String, reason: String },
    Decision { side: String, prompt: String, options: Vec<String>, choice: String, by: String },
    Token { hex: String, token: String, placed: bool },
    Pool { side: String, pool: String, change: i64, value: i64, reason: String },
    Note { text: String },
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
    fn switched_off_log_records_nothing() {
        let mut log = EventLog { events: vec![], recording: false };
        log.push_with(|| Event::Note { text: "x".into() });
        assert!(log.events.is_empty());
    }
}
