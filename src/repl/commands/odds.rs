//! Odds from the REPL: `:sim` and `:exact` of an expression, and
//! `:transcript` (the session as a spec file).

use super::*;

impl Session {
    /// `:sim EXPR [--trials N] [--vs-set M.P=V]... [--vs-variant NAME]` and
    /// `:exact EXPR [--vs-...]`: the odds of an expression
    /// run as a trial from the current battlefield, which it leaves alone.
    ///
    /// The battlefield is written as a scenario (as `:save` does) and the
    /// expression wrapped in a trial script, both in a temporary folder; the
    /// result (a number, a boolean, or a table whose number and boolean
    /// fields become the metrics) is reported as `sandtable sim`/`exact` do.
    /// Globals defined at the prompt are not part of the battlefield and are
    /// not seen by the trial.
    pub(super) fn odds(&mut self, exact: bool, rest: &str) -> Result<(), CmdError> {
        let name = if exact { "exact" } else { "sim" };
        let OddsArgs { expr, trials, explain, vs_set, vs_variant, epsilon } =
            odds_args(rest, exact).map_err(CmdError::Text)?;
        let expr = expr.as_str();
        if expr.is_empty() {
            return Err(Self::usage(name));
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
        let vs =
            (!vs_set.is_empty() || vs_variant.is_some()).then(|| setup.with_changes(&vs_set, vs_variant.as_deref()));
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
                vs,
                seed,
                threads,
                max_leaves: crate::analysis::exact::DEFAULT_MAX_LEAVES,
                progress: false,
                epsilon,
            };
            match crate::analysis::exact::run(&cfg) {
                Ok(crate::analysis::exact::ExactOutcome::Done { result, .. }) => {
                    Ok(crate::analysis::report::exact_text(&result))
                }
                Ok(crate::analysis::exact::ExactOutcome::TooBig { reason }) => Err(format!(
                    "too many outcomes to enumerate: {reason}; use :sim instead{}",
                    if epsilon.is_none() {
                        ", or, if trials can repeat without end, --epsilon E for intervals (e.g. --epsilon 1e-6)"
                    } else {
                        ", or raise --epsilon"
                    }
                )),
                Err(e) => Err(e.render(self.color)),
            }
        } else {
            let cfg =
                crate::analysis::sim::SimConfig { setup, vs, trials, seed, threads, shard: None, progress: false };
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
            Err(t) => {
                let mut t = t.replace(&script.display().to_string(), &format!(":{name} input"));
                if t.contains("nil value") {
                    t.push_str(&format!(
                        "\nnote: :{name} runs the expression in fresh Lua states on a copy of the battlefield: \
                         globals defined at the prompt are not there. Define what it needs inside the expression \
                         (`:{name} (function() local function f() ... end return f() end)()`) or in a module of \
                         the ruleset."
                    ));
                }
                Err(CmdError::Text(t))
            }
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

/// What `:sim`/`:exact` were given.
#[derive(Debug, Default, PartialEq)]
struct OddsArgs {
    expr: String,
    trials: u64,
    /// `--trial I`: that one trial, explained.
    explain: Option<u64>,
    vs_set: Vec<String>,
    vs_variant: Option<String>,
    /// `:exact --epsilon E`: intervals, E unexplored at most.
    epsilon: Option<f64>,
}

/// Splits `EXPR [--trials N] [--vs-set M.P=V]... [--vs-variant NAME]`: the
/// options come after the expression, as on the command line. An option is
/// a word that starts with `--` and a letter; `-- text` stays a Lua comment.
fn odds_args(rest: &str, exact: bool) -> Result<OddsArgs, String> {
    let name = if exact { "exact" } else { "sim" };
    let takes = if exact {
        "--epsilon E, --vs-set MODULE.PARAM=V and --vs-variant NAME"
    } else {
        "--trials N, --trial I, --vs-set MODULE.PARAM=V and --vs-variant NAME"
    };
    let is_option = |w: &str| w.strip_prefix("--").is_some_and(|o| o.starts_with(|c: char| c.is_ascii_alphabetic()));
    // The expression is the text before the first option, as typed.
    let (mut cut, mut pos) = (rest.len(), 0);
    for w in rest.split_whitespace() {
        let at = rest[pos..].find(w).map_or(pos, |i| pos + i);
        if is_option(w) {
            cut = at;
            break;
        }
        pos = at + w.len();
    }
    let mut args = OddsArgs { expr: rest[..cut].trim().to_string(), trials: 10_000, ..OddsArgs::default() };
    let words: Vec<&str> = rest[cut..].split_whitespace().collect();
    let mut it = words.iter();
    while let Some(opt) = it.next() {
        let mut value =
            |what: &str| it.next().map(|v| (*v).to_string()).ok_or_else(|| format!("{opt} wants {what} after it"));
        match *opt {
            "--trials" if !exact => {
                let n = value("a whole number")?;
                args.trials = crate::analysis::cli::parse_positive(&n).map_err(|e| format!("--trials: {e}"))?;
            }
            "--trial" if !exact => {
                let n = value("a trial number")?;
                let i = n.parse().map_err(|_| format!("--trial: '{n}' is not a trial number (0, 1, 2, ...)"))?;
                args.explain = Some(i);
            }
            "--epsilon" if exact => {
                let e = value("a probability (e.g. 1e-6)")?;
                args.epsilon = Some(crate::analysis::cli::parse_epsilon(&e).map_err(|e| format!("--epsilon: {e}"))?);
            }
            "--vs-set" => args.vs_set.push(value("MODULE.PARAM=VALUE")?),
            "--vs-variant" => args.vs_variant = Some(value("a variant's name")?),
            other => {
                return Err(format!(
                    ":{name} takes {takes}, after the expression; '{other}' is none of them \
                     (e.g. `:{name} EXPR --vs-set module.param=2`)"
                ))
            }
        }
    }
    if args.epsilon.is_some() && (!args.vs_set.is_empty() || args.vs_variant.is_some()) {
        return Err(":exact --epsilon does not take --vs-set or --vs-variant yet (its figures are intervals)".into());
    }
    Ok(args)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_after_the_expression_work_as_on_the_command_line() {
        let a = odds_args("ranged.fire{ unit = 'g1' }.hits --trials 2000 --vs-set ranged.x=1", false).unwrap();
        assert_eq!(a.expr, "ranged.fire{ unit = 'g1' }.hits");
        assert_eq!((a.trials, a.vs_set.as_slice()), (2000, ["ranged.x=1".to_string()].as_slice()));
        let a = odds_args("f() --vs-variant heavy", true).unwrap();
        assert_eq!((a.expr.as_str(), a.vs_variant.as_deref()), ("f()", Some("heavy")));
        assert_eq!(odds_args("1 + 1 -- a comment", false).unwrap().expr, "1 + 1 -- a comment");
        assert!(odds_args("f() --trials 10", true).unwrap_err().contains("'--trials' is none of them"));
        assert!(odds_args("f() --trials x", false).unwrap_err().starts_with("--trials: "));
        assert!(odds_args("f() --trials 0", false).unwrap_err().starts_with("--trials: "));
        assert!(odds_args("f() --vs-set", false).unwrap_err().contains("wants MODULE.PARAM=VALUE"));
        assert!(odds_args("f() --vs x", false).unwrap_err().contains("'--vs' is none of them"));
        let a = odds_args("f() --trial 7 --trials 20", false).unwrap();
        assert_eq!((a.expr.as_str(), a.explain, a.trials), ("f()", Some(7), 20));
        assert!(odds_args("f() --trial x", false).unwrap_err().starts_with("--trial: "));
        assert!(odds_args("f() --trial 1", true).unwrap_err().contains("'--trial' is none of them"));
    }
}
