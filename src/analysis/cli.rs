//! The `sim`, `exact` and `merge` subcommands (argument structs and drivers;
//! `main.rs` only dispatches to them).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

use super::exact::{ExactConfig, ExactOutcome, DEFAULT_MAX_LEAVES};
use super::sim::{parse_shard, SimConfig};
use super::sweep::{parse_sweep, Axis, SweepConfig};
use super::{report, AnalysisError, Setup};

/// Where the trial's world comes from (shared by `sim` and `exact`).
#[derive(Args, Clone, Debug, Default)]
pub struct SetupArgs {
    /// The trial script: defines `function trial()` returning a number or a table of named numbers.
    pub file: PathBuf,
    /// Scenario YAML to load before the script's top level runs.
    #[arg(long, value_name = "FILE")]
    pub scenario: Option<PathBuf>,
    /// Ruleset to load (a name on the search path, or a path); overrides the scenario's.
    #[arg(long, value_name = "NAME")]
    pub ruleset: Option<String>,
    /// Ruleset variant to apply.
    #[arg(long, value_name = "NAME")]
    pub variant: Option<String>,
    /// Override a ruleset param, e.g. --set reserve_artillery.crater_at=4 (repeatable).
    #[arg(long = "set", value_name = "MODULE.PARAM=VALUE")]
    pub set: Vec<String>,
    /// Sweep a ruleset param over values: 1,2,3 or 1..4 or 0..90:15 (repeatable: a grid of every combination).
    #[arg(long = "sweep", value_name = "MODULE.PARAM=VALUES", value_parser = parse_sweep)]
    pub sweep: Vec<Axis>,
    /// An input of the trial script, read as args.NAME: one value, or values to sweep like --sweep (angle=0..90:15) (repeatable).
    #[arg(long = "arg", value_name = "NAME=VALUE(S)")]
    pub arg: Vec<String>,
    /// Compare with a second variant: these overrides on top of the first's (repeatable).
    #[arg(long = "vs-set", value_name = "MODULE.PARAM=VALUE")]
    pub vs_set: Vec<String>,
    /// Compare with a second variant: this ruleset variant (with the first's --set too).
    #[arg(long = "vs-variant", value_name = "NAME")]
    pub vs_variant: Option<String>,
    /// Compare with another trial script (e.g. the same attack on a unit in woods), on the same dice.
    #[arg(long = "vs-script", value_name = "FILE")]
    pub vs_script: Option<PathBuf>,
    /// Compare with another scenario, on the same dice.
    #[arg(long = "vs-scenario", value_name = "FILE")]
    pub vs_scenario: Option<PathBuf>,
    /// Seed (trial i rolls from splitmix64(seed) ^ i; see docs/analysis.md; decimal or 0x hex).
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = parse_seed)]
    pub seed: u64,
    /// Worker threads, each with its own Luau state (default: every core; at most 256, and no more than trials).
    #[arg(long, value_name = "T", value_parser = parse_positive::<usize>)]
    pub threads: Option<usize>,
    /// Time budget of each trial, in milliseconds (default: the ruleset's, else 1000; 1 or more).
    #[arg(long, value_name = "MS", value_parser = parse_positive::<u64>)]
    pub time_limit: Option<u64>,
    /// Memory limit of each Luau state, in MiB (default: the ruleset's, else 256; 1 or more).
    #[arg(long, value_name = "MIB", value_parser = parse_positive::<u64>)]
    pub memory_limit: Option<u64>,
    /// Print one JSON object instead of the readable report.
    #[arg(long)]
    pub json: bool,
    /// Draw the distributions to an SVG file.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// Write the figures as CSV (one row per metric, and per point of a sweep) to FILE, or to standard output with no FILE.
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-")]
    pub csv: Option<PathBuf>,
    /// Run Luau without its native code generator (for speed comparisons).
    #[arg(long, hide = true)]
    pub no_jit: bool,
    /// Every API call through its full function (for speed comparisons).
    #[arg(long, hide = true)]
    pub no_fast_paths: bool,
}

impl SetupArgs {
    /// The setup (with the `--arg`s of one value) and the sweep's axes
    /// (`--sweep`s, then the `--arg`s of several values).
    fn plan(&self) -> Result<(Setup, Vec<Axis>), String> {
        let (args, arg_axes) = super::sweep::split_args(&self.arg)?;
        let mut axes = self.sweep.clone();
        axes.extend(arg_axes);
        if !axes.is_empty() && self.vs().is_some() {
            return Err("--sweep (or an --arg of several values) and --vs-* do not go together: a sweep compares every point with its first one; sweep the value you would compare instead".into());
        }
        Ok((Setup { args, ..self.setup() }, axes))
    }

    fn setup(&self) -> Setup {
        Setup {
            script: self.file.clone(),
            scenario: self.scenario.clone(),
            ruleset: self.ruleset.clone(),
            variant: self.variant.clone(),
            set: self.set.clone(),
            args: Vec::new(),
            time_ms: self.time_limit,
            memory_mb: self.memory_limit,
            no_jit: self.no_jit,
            no_fast_paths: self.no_fast_paths,
        }
    }

    fn vs(&self) -> Option<Setup> {
        let any = !self.vs_set.is_empty()
            || self.vs_variant.is_some()
            || self.vs_script.is_some()
            || self.vs_scenario.is_some();
        any.then(|| {
            let (args, _) = super::sweep::split_args(&self.arg).unwrap_or_default();
            let mut b = Setup { args, ..self.setup() }.with_changes(&self.vs_set, self.vs_variant.as_deref());
            if let Some(s) = &self.vs_script {
                b.script = s.clone();
            }
            if let Some(s) = &self.vs_scenario {
                b.scenario = Some(s.clone());
            }
            b
        })
    }

    fn threads(&self) -> usize {
        self.threads.unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)).max(1)
    }
}

/// Parses a count that must be 1 or more (`--trials`, `--threads`,
/// `--memory-limit`): 0 would mean an empty run, or no limit at all.
pub fn parse_positive<T: std::str::FromStr + PartialOrd + From<u8>>(s: &str) -> Result<T, String> {
    match s.trim().replace('_', "").parse::<T>() {
        Ok(n) if n >= T::from(1) => Ok(n),
        Ok(_) => Err(format!("'{s}' is too small: give 1 or more")),
        Err(_) => Err(format!("'{s}' is not a whole number: give 1 or more")),
    }
}

/// Parses a seed: decimal, or hexadecimal with `0x` (as error reports print dice seeds).
pub fn parse_seed(s: &str) -> Result<u64, String> {
    let t = s.trim().replace('_', "");
    let r = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => t.parse::<u64>(),
    };
    r.map_err(|_| format!("'{s}' is not a seed: give a whole number (e.g. 7) or hex (e.g. 0x910a2dec89025cc6)"))
}

/// The command that reruns trial `i` alone: this process's arguments with
/// `--trial i` instead of `--trials`/`--shard`/`--threads`/`--json`/`--plot`;
/// in a sweep, `point` (options and values: `--set`, `m.p=4`, `--arg`,
/// `n=3`) instead of the `--sweep`s and the swept `--arg`s.
pub fn replay_command(i: u64, point: &[String]) -> String {
    let args: Vec<String> = std::env::args().collect();
    let mut out = vec!["sandtable".to_string()];
    let mut it = args.iter().skip(1).peekable();
    let mut has_seed = false;
    while let Some(a) = it.next() {
        let (name, inline) = match a.split_once('=') {
            Some((n, _)) if n.starts_with("--") => (n, true),
            _ => (a.as_str(), false),
        };
        match name {
            "--trials" | "--shard" | "--threads" | "--plot" | "--trial" | "--max-leaves" | "--epsilon" | "--sweep" => {
                if !inline {
                    it.next();
                }
                continue;
            }
            "--arg" if !point.is_empty() => {
                let value = if inline { a.split_once('=').map(|(_, v)| v) } else { it.next().map(String::as_str) };
                let swept = value.and_then(|v| super::sweep::split_args(&[v.to_string()]).ok());
                if let (Some(v), Some((fixed, _))) = (value, swept) {
                    if !fixed.is_empty() {
                        out.extend(["--arg".to_string(), shell_quote(v)]);
                    }
                }
                continue;
            }
            "--json" => continue,
            "exact" if out.len() == 1 => {
                out.push("sim".into());
                continue;
            }
            "--seed" => has_seed = true,
            _ => {}
        }
        out.push(shell_quote(a));
    }
    if !has_seed {
        out.push("--seed 1".into());
    }
    out.extend(point.iter().map(|a| shell_quote(a)));
    out.push(format!("--trial {i}"));
    out.join(" ")
}

/// The command that reruns trial `i` of a run known only by its setup (a
/// merged JSON file, whose command line is not this process's): the script
/// and every option that shapes a trial, the `--vs-*` that make `vs` out of
/// `a`, then a sweep's `point` options.
fn replay_from_setup(a: &Setup, vs: Option<&Setup>, seed: u64, point: &[String], i: u64) -> String {
    let mut out = vec!["sandtable".to_string(), "sim".to_string(), a.script.display().to_string()];
    let mut opt = |name: &str, value: String| out.extend([name.to_string(), value]);
    if let Some(s) = &a.scenario {
        opt("--scenario", s.display().to_string());
    }
    if let Some(r) = &a.ruleset {
        opt("--ruleset", r.clone());
    }
    if let Some(v) = &a.variant {
        opt("--variant", v.clone());
    }
    a.set.iter().for_each(|s| opt("--set", s.clone()));
    a.args.iter().for_each(|x| opt("--arg", x.clone()));
    if let Some(ms) = a.time_ms {
        opt("--time-limit", ms.to_string());
    }
    if let Some(mb) = a.memory_mb {
        opt("--memory-limit", mb.to_string());
    }
    if let Some(b) = vs {
        if b.script != a.script {
            opt("--vs-script", b.script.display().to_string());
        }
        if b.scenario != a.scenario {
            if let Some(s) = &b.scenario {
                opt("--vs-scenario", s.display().to_string());
            }
        }
        if b.variant != a.variant {
            if let Some(v) = &b.variant {
                opt("--vs-variant", v.clone());
            }
        }
        // B's `--set`s are A's followed by the `--vs-set`s (`Setup::with_changes`).
        b.set.iter().skip(a.set.len()).for_each(|s| opt("--vs-set", s.clone()));
    }
    opt("--seed", seed.to_string());
    let mut out: Vec<String> = out.iter().map(|w| shell_quote(w)).collect();
    out.extend(point.iter().map(|p| shell_quote(p)));
    out.extend(["--trial".to_string(), i.to_string()]);
    for (flag, on) in [("--no-jit", a.no_jit), ("--no-fast-paths", a.no_fast_paths)] {
        if on {
            out.push(flag.to_string());
        }
    }
    out.join(" ")
}

fn shell_quote(s: &str) -> String {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:,+".contains(c)) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// `sandtable sim`: Monte Carlo.
#[derive(Args, Clone, Debug)]
pub struct SimArgs {
    #[command(flatten)]
    pub setup: SetupArgs,
    /// Number of trials (of the whole run, when sharded; 1 or more).
    #[arg(long, default_value_t = 10_000, value_name = "N", value_parser = parse_positive::<u64>)]
    pub trials: u64,
    /// Run only shard K of N (1 <= K <= N) of the trials; combine the JSON outputs with `sandtable merge`.
    #[arg(long, value_name = "K/N", value_parser = parse_shard)]
    pub shard: Option<(u64, u64)>,
    /// Run only trial I (numbered from 0) of a run with this seed: the replay a failing trial prints.
    #[arg(long, value_name = "I", conflicts_with = "shard")]
    pub trial: Option<u64>,
    /// With --trial I: print that trial's events (each roll with its reason, each decision with its options and
    /// answer, the rules' notes), what it printed and its metrics. The script sees `explaining == true`.
    /// One trial's story has no figures to chart or tabulate, hence no `--csv` or `--plot`.
    #[arg(long, requires = "trial", conflicts_with_all = ["csv", "plot"])]
    pub explain: bool,
}

/// `sandtable exact`: enumeration.
#[derive(Args, Clone, Debug)]
pub struct ExactArgs {
    #[command(flatten)]
    pub setup: SetupArgs,
    /// Give up past this many outcome leaves and run `sim` instead.
    #[arg(long, default_value_t = DEFAULT_MAX_LEAVES, value_name = "N")]
    pub max_leaves: u64,
    /// Trials of the `sim` fallback (1 or more).
    #[arg(long, default_value_t = 100_000, value_name = "N", value_parser = parse_positive::<u64>)]
    pub trials: u64,
    /// For trials that can repeat without end (a battle fought until one side is gone): leave unexplored the
    /// paths of least probability, E in all at most, and report each figure as an interval that contains the
    /// true value (exact fractions when the tree turns out small). E.g. `--epsilon 1e-6`.
    #[arg(long, value_name = "E", value_parser = parse_epsilon)]
    pub epsilon: Option<f64>,
}

/// `--epsilon`: a probability strictly between 0 and 1.
pub fn parse_epsilon(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(e) if e > 0.0 && e < 1.0 => Ok(e),
        Ok(_) => Err("the unexplored probability must lie strictly between 0 and 1 (e.g. 1e-6)".into()),
        Err(_) => Err(format!("'{s}' is not a number (e.g. 1e-6)")),
    }
}

/// What `exact` says on falling back to `sim` (`per_point`: "" or " at each
/// point"); returns the note the sim report carries (`exact_fallback`).
fn fall_back_note(a: &ExactArgs, reason: &str, per_point: &str) -> String {
    let hint = if a.epsilon.is_none() {
        "; or, if trials can repeat without end, --epsilon E bounds the odds by intervals (e.g. --epsilon 1e-6)"
    } else {
        ", or raise --epsilon"
    };
    eprintln!(
        "exact: {reason}.\n       Falling back to sim with {} trials{per_point} (seed {}); raise --max-leaves to insist on exact odds{hint}.",
        a.trials, a.setup.seed
    );
    format!("exact gave up: {reason}; these are sim estimates from {} trials{per_point}", a.trials)
}

/// `sandtable merge`: combine sharded `sim --json` outputs (of a run or of a sweep).
#[derive(Args, Clone, Debug)]
pub struct MergeArgs {
    /// JSON files written by `sandtable sim --shard K/N --json` (every shard of one run, or of one sweep).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Print one JSON object instead of the readable report.
    #[arg(long)]
    pub json: bool,
    /// Draw the distributions to an SVG file.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
}

fn color() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

fn fail(e: &AnalysisError) -> ExitCode {
    // Which layer the ruleset came from (a shadowed bundled one) explains many errors.
    crate::layers::print_notes();
    eprint!("{}", e.render(color()));
    if !e.render(false).ends_with('\n') {
        eprintln!();
    }
    ExitCode::FAILURE
}

/// Writes an output file (`--plot`, `--csv FILE`) and says so on stderr.
fn write_file(path: &Path, text: &str) -> Result<(), ExitCode> {
    crate::files::write(path, text.as_bytes()).map_err(|e| {
        eprintln!("error: cannot write {}: {e}", path.display());
        ExitCode::from(2)
    })?;
    eprintln!("wrote {}", path.display());
    Ok(())
}

fn write_plot(path: &Path, title: &str, panels: &[super::plot::Panel]) -> Result<(), ExitCode> {
    write_file(path, &super::plot::svg(title, panels))
}

/// `--csv`: to standard output (`-`, the value of a bare `--csv`) or a file.
/// A sweep's chart (lines or a heat map), its title ending in `note`.
fn write_sweep_plot(path: &Path, r: &super::sweep::SweepResult, note: &str) -> Result<(), ExitCode> {
    let title = format!("{} — {} trials at each point{note}", sweep_title(&r.setup, &r.axes), r.trials());
    let panels = super::plot::sweep_panels(r).map_err(|e| usage_error(&e))?;
    write_plot(path, &title, &panels)
}

fn write_csv(path: &Path, csv: &str) -> Result<(), ExitCode> {
    if path == Path::new("-") {
        print!("{csv}");
        Ok(())
    } else {
        write_file(path, csv)
    }
}

/// Whether the CSV goes to standard output (in place of the report).
fn csv_to_stdout(args: &SetupArgs) -> bool {
    args.csv.as_deref() == Some(Path::new("-"))
}

/// A mistake on the command line found after parsing: exit status 2, as clap's.
fn usage_error(msg: &str) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(2)
}

/// Checks what goes together before anything runs.
fn plan(args: &SetupArgs) -> Result<(Setup, Vec<Axis>), ExitCode> {
    if args.json && csv_to_stdout(args) {
        return Err(usage_error("--json and a bare --csv both print to standard output: give --csv a FILE"));
    }
    let (setup, axes) = args.plan().map_err(|e| usage_error(&e))?;
    if axes.len() > 2 && args.plot.is_some() {
        return Err(usage_error(&format!(
            "--plot draws a sweep of one input (lines) or two (a heat map); this one has {}: use --csv or --json",
            axes.len()
        )));
    }
    Ok((setup, axes))
}

/// Prints the JSON on stdout; a stdout that cannot take it all (a full disk
/// under `> part.json`, a closed pipe) is an error with exit status 2, not a
/// panic or a silently cut shard.
fn print_json(v: &serde_json::Value) {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    let written = writeln!(out, "{}", serde_json::to_string_pretty(v).unwrap_or_default()).and_then(|()| out.flush());
    if let Err(e) = written {
        eprintln!("error: cannot write the JSON to standard output: {e}");
        std::process::exit(2);
    }
}

fn show_top_output(out: &str) {
    if !out.is_empty() {
        eprint!("{out}");
    }
}

fn rate(n: u64, secs: f64) -> String {
    if secs <= 0.0 {
        return "-".into();
    }
    let r = n as f64 / secs;
    if r >= 1e6 {
        format!("{:.2} M", r / 1e6)
    } else if r >= 1e3 {
        format!("{:.1} k", r / 1e3)
    } else {
        format!("{r:.0}")
    }
}

fn sim_with(cfg: SimConfig, args: &SetupArgs, note: Option<&str>) -> ExitCode {
    let run = match super::sim::run(&cfg) {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    crate::layers::print_notes();
    show_top_output(&run.top_output);
    let secs = run.elapsed.as_secs_f64();
    if args.json {
        let mut v = report::sim_json(&run.result);
        if let (Some(n), Some(o)) = (note, v.as_object_mut()) {
            o.insert("exact_fallback".into(), serde_json::json!(n));
        }
        report::seal(&mut v);
        print_json(&v);
    } else if !csv_to_stdout(args) {
        print!("{}", report::sim_text(&run.result));
        let runs = if cfg.vs.is_some() { 2 } else { 1 };
        println!(
            "\n{} trials{} on {} thread{} in {:.3} s ({} trials/s)",
            run.result.trials(),
            if runs == 2 { " × 2 variants" } else { "" },
            run.threads,
            if run.threads == 1 { "" } else { "s" },
            secs,
            rate(run.result.trials() * runs, secs)
        );
        print!("{}", report::look_at_text(&run.result, &|i| format!("{} --explain", replay_command(i, &[]))));
    }
    if let Some(p) = &args.csv {
        if let Err(c) = write_csv(p, &report::sim_csv(&run.result)) {
            return c;
        }
    }
    if let Some(p) = &args.plot {
        let title = format!("{} — {} trials", arms(&run.result.setup, run.result.vs.as_ref()), run.result.trials());
        if let Err(c) = write_plot(p, &title, &super::plot::sim_panels(&run.result)) {
            return c;
        }
    }
    ExitCode::SUCCESS
}

fn sweep_with(cfg: SweepConfig, args: &SetupArgs, note: Option<&str>) -> ExitCode {
    let run = match super::sweep::run(&cfg) {
        Ok(r) => r,
        Err(e) => return fail(&e),
    };
    crate::layers::print_notes();
    show_top_output(&run.top_output);
    let secs = run.elapsed.as_secs_f64();
    let r = &run.result;
    if args.json {
        let mut v = report::sweep_json(r);
        if let (Some(n), Some(o)) = (note, v.as_object_mut()) {
            o.insert("exact_fallback".into(), serde_json::json!(n));
        }
        report::seal(&mut v);
        print_json(&v);
    } else if !csv_to_stdout(args) {
        print!("{}", report::sweep_text(r));
        let all = r.trials() * r.points.len() as u64;
        println!(
            "\n{} points × {} trials on {} thread{} in {:.3} s ({} trials/s)",
            r.points.len(),
            r.trials(),
            run.threads,
            if run.threads == 1 { "" } else { "s" },
            secs,
            rate(all, secs)
        );
        let command = |i: u64, at: &[usize]| {
            format!("{} --explain", replay_command(i, &super::sweep::point_options(&r.axes, at)))
        };
        print!("{}", report::sweep_look_at_text(r, &command));
    }
    if let Some(p) = &args.csv {
        if let Err(c) = write_csv(p, &report::sweep_csv(r)) {
            return c;
        }
    }
    if let Some(p) = &args.plot {
        if let Err(c) = write_sweep_plot(p, r, "") {
            return c;
        }
    }
    ExitCode::SUCCESS
}

/// A chart's title for a comparison: both arms (`A: ... vs B: ...`), or the script.
fn arms(a: &Setup, b: Option<&Setup>) -> String {
    match b {
        Some(b) => format!("A: {} vs B: {}", a.describe_changes(), b.describe_changes()),
        None => a.describe_changes(),
    }
}

/// A sweep chart's title: the script and what is swept.
fn sweep_title(setup: &Setup, axes: &[Axis]) -> String {
    let names: Vec<&str> = axes.iter().map(super::sweep::Axis::short).collect();
    format!("{}, a sweep of {}", setup.describe_changes(), names.join(" × "))
}

/// Runs `sandtable sim`.
pub fn sim(a: &SimArgs) -> ExitCode {
    let (setup, axes) = match plan(&a.setup) {
        Ok(p) => p,
        Err(c) => return c,
    };
    // `--trial I` is the one-trial shard I+1 of I+1 trials: trial I's dice
    // depend only on the seed and I, so it replays exactly.
    let (trials, shard, threads) = match a.trial {
        Some(i) => (i + 1, Some((i + 1, i + 1)), 1),
        None => (a.trials, a.shard, a.setup.threads()),
    };
    if let (Some(i), true, true) = (a.trial, a.explain, axes.is_empty()) {
        return explain_trial(&setup, a.setup.vs().as_ref(), a.setup.seed, i, a.setup.json);
    }
    if !axes.is_empty() {
        if a.trial.is_some() {
            return usage_error(
                "--trial replays one trial of one run: give the point's values with --set and --arg instead of --sweep",
            );
        }
        let cfg = SweepConfig {
            setup,
            axes,
            trials,
            seed: a.setup.seed,
            threads,
            shard,
            progress: !a.setup.json || std::io::stderr().is_terminal(),
        };
        return sweep_with(cfg, &a.setup, None);
    }
    let cfg = SimConfig {
        setup,
        vs: a.setup.vs(),
        trials,
        seed: a.setup.seed,
        threads,
        shard,
        progress: !a.setup.json || std::io::stderr().is_terminal(),
    };
    sim_with(cfg, &a.setup, None)
}

/// `sim --trial I --explain`: the trial replayed with its events, on A
/// and, with `--vs`, on B.
fn explain_trial(setup: &Setup, vs: Option<&Setup>, seed: u64, i: u64, json: bool) -> ExitCode {
    let mut arms =
        vec![(setup, if vs.is_some() { format!("A ({})", setup.describe_changes()) } else { String::new() })];
    if let Some(b) = vs {
        arms.push((b, format!("B ({})", b.describe_changes())));
    }
    let mut failed = false;
    let mut out = Vec::new();
    for (s, name) in &arms {
        let x = match super::explain::explain(s, seed, i) {
            Ok(x) => x,
            Err(e) => return fail(&e),
        };
        failed |= x.error.is_some();
        if json {
            out.push(super::explain::json(&x));
        } else {
            let title = if name.is_empty() { s.script.display().to_string() } else { name.clone() };
            if !out.is_empty() {
                println!();
            }
            print!("{}", super::explain::text(&x, &title));
            out.push(serde_json::Value::Null);
        }
    }
    if json {
        let v = if out.len() == 1 { out.remove(0) } else { serde_json::json!({ "a": out[0], "b": out[1] }) };
        print_json(&v);
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// Runs `sandtable exact`, falling back to `sim` when the tree is too big.
pub fn exact(a: &ExactArgs) -> ExitCode {
    let (setup, axes) = match plan(&a.setup) {
        Ok(p) => p,
        Err(c) => return c,
    };
    let cfg = ExactConfig {
        setup,
        vs: a.setup.vs(),
        seed: a.setup.seed,
        threads: a.setup.threads(),
        max_leaves: a.max_leaves,
        progress: true,
        epsilon: a.epsilon,
    };
    if a.epsilon.is_some() {
        let with = if !axes.is_empty() {
            Some("--sweep")
        } else if cfg.vs.is_some() {
            Some("--vs-*")
        } else if a.setup.plot.is_some() {
            Some("--plot")
        } else {
            None
        };
        if let Some(with) = with {
            return usage_error(&format!(
                "exact --epsilon does not take {with} yet (its figures are intervals): run it alone, with --json for every bound or --csv for the means' bounds"
            ));
        }
    }
    if !axes.is_empty() {
        return exact_sweep(a, cfg, axes);
    }
    match super::exact::run(&cfg) {
        Err(e) => fail(&e),
        Ok(ExactOutcome::TooBig { reason }) => {
            let note = fall_back_note(a, &reason, "");
            let sim_cfg = SimConfig {
                setup: cfg.setup,
                vs: cfg.vs,
                trials: a.trials,
                seed: a.setup.seed,
                threads: cfg.threads,
                shard: None,
                progress: true,
            };
            sim_with(sim_cfg, &a.setup, Some(&note))
        }
        Ok(ExactOutcome::Done { result, elapsed, top_output }) => {
            crate::layers::print_notes();
            show_top_output(&top_output);
            if a.setup.json {
                print_json(&report::exact_json(&result));
            } else if !csv_to_stdout(&a.setup) {
                print!("{}", report::exact_text(&result));
                let leaves =
                    result.leaves + result.cut_paths + result.vs.as_ref().map_or(0, |v| v.leaves + v.cut_paths);
                println!(
                    "\n{} leaves on {} thread{} in {:.3} s ({} leaves/s)",
                    leaves,
                    cfg.threads,
                    if cfg.threads == 1 { "" } else { "s" },
                    elapsed.as_secs_f64(),
                    rate(leaves, elapsed.as_secs_f64())
                );
            }
            if let Some(p) = &a.setup.csv {
                if let Err(c) = write_csv(p, &report::exact_csv(&result)) {
                    return c;
                }
            }
            if let Some(p) = &a.setup.plot {
                let title = format!("{} — exact", arms(&result.setup, result.vs.as_ref().map(|v| &v.setup)));
                if let Err(c) = write_plot(p, &title, &super::plot::exact_panels(&result)) {
                    return c;
                }
            }
            ExitCode::SUCCESS
        }
    }
}

/// `exact --sweep`: every point enumerated, or `sim --sweep` when a point
/// has too many leaves.
fn exact_sweep(a: &ExactArgs, cfg: ExactConfig, axes: Vec<Axis>) -> ExitCode {
    use super::sweep::ExactSweepOutcome;
    match super::sweep::run_exact(&cfg, &axes) {
        Err(e) => fail(&e),
        Ok(ExactSweepOutcome::TooBig { reason }) => {
            let note = fall_back_note(a, &reason, " at each point");
            let sweep = SweepConfig {
                setup: cfg.setup,
                axes,
                trials: a.trials,
                seed: a.setup.seed,
                threads: cfg.threads,
                shard: None,
                progress: true,
            };
            sweep_with(sweep, &a.setup, Some(&note))
        }
        Ok(ExactSweepOutcome::Done { sweep, elapsed, top_output }) => {
            crate::layers::print_notes();
            show_top_output(&top_output);
            if a.setup.json {
                print_json(&report::exact_sweep_json(&sweep));
            } else if !csv_to_stdout(&a.setup) {
                print!("{}", report::exact_sweep_text(&sweep));
                println!(
                    "\n{} points, {} leaves on {} thread{} in {:.3} s",
                    sweep.points.len(),
                    sweep.leaves(),
                    cfg.threads,
                    if cfg.threads == 1 { "" } else { "s" },
                    elapsed.as_secs_f64()
                );
            }
            if let Some(p) = &a.setup.csv {
                if let Err(c) = write_csv(p, &report::exact_sweep_csv(&sweep)) {
                    return c;
                }
            }
            if let Some(p) = &a.setup.plot {
                let title = format!("{} — exact", sweep_title(&sweep.setup, &sweep.axes));
                let panels = match super::plot::exact_sweep_panels(&sweep) {
                    Ok(p) => p,
                    Err(e) => return usage_error(&e),
                };
                if let Err(c) = write_plot(p, &title, &panels) {
                    return c;
                }
            }
            ExitCode::SUCCESS
        }
    }
}

/// Runs `sandtable merge`.
pub fn merge(a: &MergeArgs) -> ExitCode {
    let merged = match super::merge::merge_any(&a.files) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let (ranges, total, per_point) = match &merged {
        super::merge::Merged::Run(r) => (&r.ranges, r.total_trials, ""),
        super::merge::Merged::Sweep(r) => (&r.ranges, r.total_trials, " at each point"),
    };
    let missing = super::merge::missing_of(ranges, total);
    if !missing.is_empty() {
        let list: Vec<String> = missing.iter().take(5).map(|(x, y)| format!("{x}..{y}")).collect();
        eprintln!(
            "note: the files cover {} of {total} trials{per_point} (missing {}{}); the figures are for the trials covered",
            ranges.iter().map(|(x, y)| y - x).sum::<u64>(),
            list.join(", "),
            if missing.len() > 5 { ", ..." } else { "" }
        );
    }
    let r = match merged {
        super::merge::Merged::Run(r) => r,
        super::merge::Merged::Sweep(r) => return merged_sweep(a, &r),
    };
    if a.json {
        let mut v = report::sim_json(&r);
        report::seal(&mut v);
        print_json(&v);
    } else {
        print!("{}", report::sim_text(&r));
        let command = |i: u64| format!("{} --explain", replay_from_setup(&r.setup, r.vs.as_ref(), r.seed, &[], i));
        print!("{}", report::look_at_text(&r, &command));
    }
    if let Some(p) = &a.plot {
        let title = format!("{} — {} trials (merged)", arms(&r.setup, r.vs.as_ref()), r.trials());
        if let Err(c) = write_plot(p, &title, &super::plot::sim_panels(&r)) {
            return c;
        }
    }
    ExitCode::SUCCESS
}

/// `merge` of a sweep's shards: the sweep's report, JSON or chart.
fn merged_sweep(a: &MergeArgs, r: &super::sweep::SweepResult) -> ExitCode {
    if a.json {
        let mut v = report::sweep_json(r);
        report::seal(&mut v);
        print_json(&v);
    } else {
        print!("{}", report::sweep_text(r));
        let command = |i: u64, at: &[usize]| {
            let point = super::sweep::point_options(&r.axes, at);
            format!("{} --explain", replay_from_setup(&r.setup, None, r.seed, &point, i))
        };
        print!("{}", report::sweep_look_at_text(r, &command));
    }
    if let Some(p) = &a.plot {
        if let Err(c) = write_sweep_plot(p, r, " (merged)") {
            return c;
        }
    }
    ExitCode::SUCCESS
}
