//! The result of a mutation run and the summary `sandtable test --mutate` prints.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

use super::{Kind, Mutant, Outcome};
use crate::spec::coverage::Coverage;

/// The result of a mutation run.
pub struct Report {
    pub results: Vec<(Mutant, Outcome)>,
    /// Coverage of the clean run the mutants were placed by.
    pub coverage: Coverage,
    pub elapsed: Duration,
    pub jobs: usize,
    /// With `--changed`: the revision the mutated lines changed since.
    pub since: Option<String>,
}

impl Report {
    pub fn killed(&self) -> usize {
        self.results.iter().filter(|r| r.1.killed()).count()
    }

    /// (killed, all) of one kind of mutant.
    pub fn counts(&self, kind: Kind) -> (usize, usize) {
        let of: Vec<_> = self.results.iter().filter(|r| r.0.kind == kind).collect();
        (of.iter().filter(|r| r.1.killed()).count(), of.len())
    }

    /// Killed mutants over all mutants, in percent.
    pub fn score(&self) -> f64 {
        percent(self.killed(), self.results.len())
    }

    /// Killed mutants of one kind over all of that kind, in percent.
    pub fn score_of(&self, kind: Kind) -> f64 {
        let (k, n) = self.counts(kind);
        percent(k, n)
    }

    /// The summary `sandtable test --mutate` prints: the scores by kind, then
    /// every survivor grouped by file and kind, with the line as the mutant
    /// reads it.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let timed_out = self.results.iter().filter(|r| matches!(r.1, Outcome::TimedOut(_))).count();
        let not_run = self.results.iter().filter(|r| r.1 == Outcome::NotRun).count();
        let undecided = self.results.iter().filter(|r| matches!(r.1, Outcome::Undecided(_))).count();
        let survivors = self.results.len() - self.killed();
        let _ = writeln!(
            out,
            "mutants: {}{} in {:.1} s on {} thread{}",
            self.results.len(),
            self.since.as_ref().map_or(String::new(), |r| format!(" (on lines changed since {r})")),
            self.elapsed.as_secs_f64(),
            self.jobs,
            if self.jobs == 1 { "" } else { "s" }
        );
        for kind in [Kind::Code, Kind::Data, Kind::Message] {
            let (k, n) = self.counts(kind);
            if n > 0 {
                let _ = writeln!(out, "  {:<13} {k:>5} of {n:>5} killed  {:>5.1}%", kind.name(), percent(k, n));
            }
        }
        let _ = writeln!(
            out,
            "killed {} ({timed_out} by the time budget), survived {survivors} ({not_run} on lines no spec runs{}): score {:.1}%",
            self.killed(),
            if undecided > 0 { format!(", {undecided} timed out under load") } else { String::new() },
            self.score()
        );
        // Survivors by file, then kind, in source order.
        let mut groups: BTreeMap<(&str, Kind), Vec<&(Mutant, Outcome)>> = BTreeMap::new();
        for r in self.results.iter().filter(|r| !r.1.killed()) {
            groups.entry((r.0.file.as_str(), r.0.kind)).or_default().push(r);
        }
        if !groups.is_empty() {
            let _ = writeln!(out, "surviving mutants, by file and kind (every spec that runs the line passes):");
        }
        for ((file, kind), list) in &groups {
            let _ = writeln!(out, "{file}, {} ({}):", kind.name(), list.len());
            for (m, o) in list {
                let note = match o {
                    Outcome::NotRun => "  [not covered: no spec runs the line]".to_string(),
                    Outcome::Undecided(f) => format!(
                        "  [timed out in {f}, where the part that timed out took over a quarter of its budget clean: not counted; raise --mutant-budget]"
                    ),
                    _ => String::new(),
                };
                let _ = writeln!(out, "  {}:{}:{}  {}{note}", m.file, m.line, m.col, m.change);
                let _ = writeln!(out, "      | {}", m.shown);
            }
        }
        out
    }
}

fn percent(k: usize, n: usize) -> f64 {
    if n == 0 {
        100.0
    } else {
        100.0 * k as f64 / n as f64
    }
}
