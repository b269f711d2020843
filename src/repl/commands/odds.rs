//! Odds from the REPL: `:sim` and `:exact` of an expression, and
//! `:transcript` (the session as a spec file).

use super::*;

impl Session {
    /// `:sim EXPR [--trials N]` and `:exact EXPR`: the odds of an expression
    /// run as a trial from the current battlefield, which it leaves alone.
    ///
    /// The battlefield is written as a scenario (as `:save` does) and the
    /// expression wrapped in a trial script, both in a temporary folder; the
    /// result (a number, a boolean, or a table whose number and boolean
    /// fields become the metrics) is reported as `sandtable sim`/`exact` do.
    /// Globals defined at the prompt are not part of the battlefield and are
    /// not seen by the trial.
    pub(super) fn odds(&mut self, exact: bool, rest: &str) -> Result<(), CmdError> {
        let mut expr = rest.trim().to_string();
        let mut trials: u64 = 10_000;
        // `--trials N` and `--trial I` (one trial explained), in either order, at the end.
        let mut explain: Option<u64> = None;
        loop {
            let mut words = expr.rsplitn(3, char::is_whitespace);
            let (Some(n), Some(option), Some(before)) = (words.next(), words.next(), words.next()) else { break };
            match option {
                "--trials" => {
                    trials = crate::analysis::cli::parse_positive(n)
                        .map_err(|e| CmdError::Text(format!("--trials: {e}")))?;
                }
                "--trial" if !exact => {
                    explain =
                        Some(n.parse().map_err(|_| {
                            CmdError::Text(format!("--trial: '{n}' is not a trial number (0, 1, 2, ...)"))
                        })?);
                }
                _ => break,
            }
            expr = before.trim_end().to_string();
        }
        let expr = expr.trim();
        if expr.is_empty() {
            return Err(Self::usage(if exact { "exact" } else { "sim" }));
        }
        super::super::save::check_savable(&self.host.state.world.borrow())
            .map_err(|e| CmdError::Text(format!("cannot copy the battlefield for the trials: {e}")))?;
        let dir = trial_dir().map_err(|e| CmdError::Text(format!("cannot make a folder for the trial: {e}")))?;
        let scenario = dir.join("battlefield.yaml");
        let script = dir.join("trial.lua");
        let yaml = { self.battlefield_yaml("battlefield", &scenario) };
        let trial = TRIAL_TEMPLATE.replace("KIND", if exact { "exact" } else { "sim" }).replace("EXPR", expr);
        let written = std::fs::write(&scenario, yaml).and_then(|_| std::fs::write(&script, trial));
        if let Err(e) = written {
            let _ = std::fs::remove_dir_all(&dir);
            return Err(CmdError::Text(format!("cannot write the trial: {e}")));
        }
        let limits = self.host.state.limits.get();
        let setup = crate::analysis::Setup {
            script: script.clone(),
            scenario: Some(scenario.clone()),
            time_ms: Some(limits.time_ms),
            ..Default::default()
        };
        let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
        let seed = self.seed.unwrap_or(1);
        let report = if let Some(i) = explain {
            match crate::analysis::explain::explain(&setup, seed, i) {
                Ok(x) => Ok(crate::analysis::explain::text(&x, &format!(":sim {expr}"))),
                Err(e) => Err(e.render(self.color)),
            }
        } else if exact {
            let cfg = crate::analysis::exact::ExactConfig {
                setup,
                vs: None,
                seed,
                threads,
                max_leaves: crate::analysis::exact::DEFAULT_MAX_LEAVES,
                progress: false,
            };
            match crate::analysis::exact::run(&cfg) {
                Ok(crate::analysis::exact::ExactOutcome::Done { result, .. }) => {
                    Ok(crate::analysis::report::exact_text(&result))
                }
                Ok(_) => Err("too many outcomes to enumerate: use :sim instead".to_string()),
                Err(e) => Err(e.render(self.color)),
            }
        } else {
            let cfg = crate::analysis::sim::SimConfig {
                setup,
                vs: None,
                trials,
                seed,
                threads,
                shard: None,
                progress: false,
            };
            match crate::analysis::sim::run(&cfg) {
                Ok(run) => {
                    let look = |i: u64| format!(":sim {expr} --trial {i}");
                    let r = &run.result;
                    Ok(crate::analysis::report::sim_text(r) + &crate::analysis::report::look_at_text(r, &look))
                }
                Err(e) => Err(e.render(self.color)),
            }
        };
        let _ = std::fs::remove_dir_all(&dir);
        // The report names the temporary script: name the expression instead.
        match report {
            Ok(text) => {
                let text = text.replace(&script.display().to_string(), expr);
                self.say(&text);
                Ok(())
            }
            Err(t) => Err(CmdError::Text(
                t.replace(&script.display().to_string(), &format!(":{} input", if exact { "exact" } else { "sim" })),
            )),
        }
    }

    /// `:transcript FILE`: the session so far as a spec that replays it.
    pub(super) fn write_transcript(&mut self, args: &[String]) -> Result<(), CmdError> {
        let [file] = args else { return Err(Self::usage("transcript")) };
        let path = PathBuf::from(file);
        let mut s = String::new();
        let _ = writeln!(s, "-- A REPL session written by :transcript: `sandtable test {file}` replays it.");
        let _ = writeln!(s, "-- Each input that succeeded, in order, with the dice forced (:force), the");
        let _ = writeln!(s, "-- decisions answered (answers{{...}}) and the plain values it showed as");
        let _ = writeln!(s, "-- expectations. Commands other than :force and :seed are not replayed.");
        let _ = writeln!(s, "describe(\"REPL session\", function()");
        let _ = writeln!(s, "  it(\"replays what was seen\", function()");
        if self.transcript.is_empty() {
            let _ = writeln!(s, "    -- (nothing yet: no scenario was loaded)");
        }
        for l in &self.transcript {
            for line in l.lines() {
                let _ = writeln!(s, "    {line}");
            }
        }
        let _ = writeln!(s, "  end)");
        let _ = writeln!(s, "end)");
        crate::files::write(&path, s.as_bytes()).map_err(|e| {
            CmdError::Text(format!("cannot write {}: {e} (a file already there is as it was)", path.display()))
        })?;
        self.say(&format!("wrote the session as a spec to {file}; `sandtable test {file}` replays it"));
        Ok(())
    }
}

/// A new folder of our own in the system's temporary folder for a trial's
/// files: made here (never one that already exists, which someone else
/// could have filled with links to the user's files).
fn trial_dir() -> std::io::Result<std::path::PathBuf> {
    static RUNS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let mut last = None;
    for _ in 0..100 {
        let n = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("sandtable-odds-{}-{n}", std::process::id()));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no free name")))
}

/// The trial script `:sim`/`:exact` write around the expression.
const TRIAL_TEMPLATE: &str = r#"-- :KIND from the REPL
local function metrics(v)
  if type(v) ~= "table" then return { value = v } end
  local m = {}
  for k, x in pairs(v) do
    if type(k) == "string" and (type(x) == "number" or type(x) == "boolean") then m[k] = x end
  end
  return m
end
function trial()
  return metrics((
EXPR
  ))
end
"#;
