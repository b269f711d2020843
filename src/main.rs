//! The `sandtable` command line.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};

use sandtable::lua::{render_error, DecisionMode, Host, HostOptions, ScenarioOverrides, ScriptError};
use sandtable::ruleset::Ruleset;
use sandtable::spec::SpecFile;

/// A scriptable rules sandbox for wargames: hexes, units, dice and
/// measurement in Rust, rules in Luau, driven from a REPL, scripts, specs and
/// analysis commands.
#[derive(Parser)]
#[command(name = "sandtable", version, about, long_about = None, args_conflicts_with_subcommands = true, after_help = "\
Examples (each runs as shown, from any folder; tests/docs_commands.rs runs them):
  sandtable                           open the REPL on the default battlefield
  sandtable --seed 7                  the same, with the dice seeded (REPL options work without `repl`)
  sandtable repl --scenario scripts/great_war/bombardment.yaml --seed 7
  sandtable view great_war/bombardment   (not run unattended: the live board in a browser, until Ctrl-C)
  sandtable run scripts/examples/hello.lua --scenario great_war/bombardment --seed 7 --show-log
  sandtable test                      run every spec (rulesets/*/spec and tests/)
  sandtable test rulesets/great_war   run one ruleset's specs
  sandtable exact scripts/great_war/crater_odds.lua
  sandtable test --coverage rulesets/great_war   which lines of its Lua the specs run
  sandtable sim scripts/great_war/crater_odds.lua --trials 20000 --set reserve_artillery.crater_at=4
  sandtable rulesets                  every ruleset there is, and where each comes from

Paths: a scenario, script, spec path or ruleset is looked up as given, then in each layer
of the search path: the project folder (--project, $SANDTABLE_PROJECT, or the nearest
folder upward with a sandtable.toml), the folders on $SANDTABLE_PATH, then the rulesets
and scripts built into sandtable; in each, the folder itself, its scripts/ and its
rulesets/ (a name without extension also tries .yaml). See docs/variants.md.")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// The project folder: its rulesets/ and scripts/ come first (default:
    /// $SANDTABLE_PROJECT, else the nearest folder upward holding a sandtable.toml).
    #[arg(long, global = true, value_name = "DIR")]
    project: Option<PathBuf>,
    /// With no command: the REPL's options (as for `sandtable repl`).
    #[command(flatten)]
    setup: Setup,
    /// History file of the REPL (see `sandtable repl --help`).
    #[arg(long, value_name = "FILE")]
    history: Option<PathBuf>,
    #[command(flatten)]
    journal: JournalArgs,
}

/// The REPL's session journal.
#[derive(Args, Clone, Default)]
struct JournalArgs {
    /// Journal the session to FILE (default: one file per interactive session in
    /// `journals/` beside the history file; piped sessions only with this option).
    #[arg(long, value_name = "FILE")]
    journal: Option<PathBuf>,
    /// Replay the last session that did not end cleanly (or --journal FILE's) and go on from there.
    #[arg(long)]
    resume: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Open the REPL on a battlefield (the default scenario unless told otherwise).
    #[command(after_help = "\
Examples:
  sandtable repl --scenario great_war/bombardment --seed 7
  sandtable repl --scenario tricorne/prestonpans --set cc_turn.victory_banners=4   a param changed")]
    Repl {
        #[command(flatten)]
        setup: Setup,
        /// History file (default: $SANDTABLE_HISTORY, else ~/.local/state/sandtable/history).
        #[arg(long, value_name = "FILE")]
        history: Option<PathBuf>,
        #[command(flatten)]
        journal: JournalArgs,
    },
    /// Show a scenario's battlefield live in a browser; it redraws when the scenario or its ruleset's files change.
    #[command(after_help = "\
Prints the page's address (http://127.0.0.1:PORT/TOKEN/) and serves it until
Ctrl-C: loopback only, read-only, a random token in the address. In the REPL,
:view shows the session's battlefield the same way, following every input.

Examples:
  sandtable view great_war/bombardment            (not run unattended: serves until Ctrl-C)
  sandtable view republique/grand_battery --seed 3   (not run unattended: serves until Ctrl-C)")]
    View {
        /// The scenario YAML to show (looked up as for --scenario).
        scenario: PathBuf,
        #[command(flatten)]
        rules: RulesArgs,
        #[command(flatten)]
        limits: LimitArgs,
    },
    /// Monte Carlo: run a trial script's `trial()` N times and report every metric.
    #[command(after_help = "\
Examples:
  sandtable sim scripts/great_war/crater_odds.lua --trials 2000 --seed 7
  sandtable sim scripts/great_war/crater_odds.lua --trials 2000 --set reserve_artillery.crater_at=4 --json
  sandtable sim scripts/great_war/crater_odds.lua --trials 2000 --seed 7 --trial 3   replay trial 3 alone
  sandtable sim scripts/analysis/ra_open.lua --seed 1 --trial 79 --explain   its rolls, decisions and notes
  sandtable sim scripts/analysis/ra_bombard.lua --trials 2000 --sweep reserve_artillery.crater_at=2..5   one row per value
  sandtable sim scripts/analysis/sixes.lua --trials 2000 --arg dice=1..6 --csv   the script's args.dice, as CSV")]
    Sim(sandtable::analysis::cli::SimArgs),
    /// Exact odds: enumerate every roll of `trial()` (falls back to sim past --max-leaves).
    #[command(after_help = "\
Examples:
  sandtable exact scripts/great_war/crater_odds.lua
  sandtable exact scripts/great_war/crater_odds.lua --vs-variant four_for_crater   the variant's difference
  sandtable exact scripts/analysis/sixes.lua --arg dice=1..6   exact odds at each value of args.dice
  sandtable exact scripts/analysis/until_six.lua --epsilon 1e-6   no last leaf: intervals that leave < 1e-6 unexplored")]
    Exact(sandtable::analysis::cli::ExactArgs),
    /// Combine the JSON outputs of `sim --shard K/N --json` (a run's or a sweep's) into one result.
    Merge(sandtable::analysis::cli::MergeArgs),
    /// Run a Lua script against the API (exit code 1 when it errors).
    #[command(after_help = "\
Examples:
  sandtable run scripts/examples/hello.lua --scenario great_war/bombardment --seed 7
  sandtable run scripts/examples/hello.lua --scenario great_war/bombardment --show-log   the event log after")]
    Run {
        /// The script to run.
        script: PathBuf,
        #[command(flatten)]
        setup: Setup,
        /// Write the event log as JSON Lines to FILE.
        #[arg(long, value_name = "FILE")]
        log: Option<PathBuf>,
        /// Print the readable event log after the script.
        #[arg(long)]
        show_log: bool,
    },
    /// Make a ruleset folder to start from: a variant of a ruleset, or a new ruleset.
    #[command(subcommand)]
    New(NewCommand),
    /// List every ruleset of the search path: name, title, where it comes from.
    #[command(after_help = "\
The search path: the project folder (--project, $SANDTABLE_PROJECT, or the nearest
folder upward holding a sandtable.toml), then the folders on $SANDTABLE_PATH, then
the rulesets built into sandtable. A name is taken from the first layer that has it:
a user's ruleset named like a bundled one shadows it (the list says so).

Examples:
  sandtable rulesets
  sandtable rulesets --project /tmp   the same, with another project folder")]
    Rulesets,
    /// Run spec files and report `N passed, M failed`; measure how strong they are.
    #[command(after_help = "\
How strong are the specs?
  --coverage  runs the specs with Luau's line coverage on and prints, per Lua
              file of the ruleset (every .lua file of its folder outside
              spec/, and the lib/ modules it or its specs load; a file no
              spec loads counts at 0%) and per function not fully run, how many
              statement lines ran, then every line no spec runs (file:line).
              A rule on a line no spec runs is a rule no spec checks.
              --coverage-out FILE also writes lcov for editors and CI.
  --mutate    mutation testing: makes one small change at a time to the
              ruleset and runs the specs against each change in a fresh Lua
              state, in memory (the files are never written), on every core.
              Code: an operator flipped (`<` to `<=` and `>`, `+` to `-`, `%`,
              `^`, `..`, `#`, unary minus), a number one off (decimals to 0
              and doubled), a compared string changed, true/false, and/or,
              math.min/max swapped, a `not`, a guard's `return`, a call or an
              assignment removed. Data (ruleset.yaml): every number of a table
              one off and 0, every die face made another face, every chart
              cell given its neighbour's value, names and booleans swapped,
              every param one step each way. A change no spec notices
              *survives*: each is printed, grouped by file and kind (code,
              data, message-only), as file:line:column with the change and
              the line as the mutant reads it, so you can write the spec that
              would catch it, or note why the change means the same rule.
              Score = killed / all mutants, also per kind.
              --min-score PCT makes a lower score exit with code 1 (for CI).
              --changed [REV] mutates only the lines changed since a git
              revision (default HEAD: your uncommitted edits).
  --specs DIR also runs the spec files under DIR against the one ruleset the
              paths name (a designer's own suite, or an independent one); a
              spec there may require a helper module beside it.

Examples (tests/docs_commands.rs runs them, but for those it says are not run unattended):
  sandtable test --coverage rulesets/great_war
  sandtable test --coverage rulesets/great_war --coverage-out /tmp/great_war.lcov
  sandtable test --mutate tests/fixtures/mini --min-score 10
  sandtable test --mutate tests/fixtures/mini --threads 1 --mutant-budget 10000
  sandtable test tests/fixtures/mini --specs tests/fixtures/mini_extra_specs
  sandtable test --mutate rulesets/great_war --changed   (not run unattended: needs edits to measure)
  sandtable test --mutate rulesets/great_war   (not run unattended: a minute of mutants)")]
    Test {
        /// Spec files, or folders searched for *.lua (default: rulesets/*/spec and tests/).
        paths: Vec<PathBuf>,
        #[command(flatten)]
        limits: LimitArgs,
        /// Apply a ruleset param override to every spec (module.param=value).
        #[arg(long = "set", value_name = "MODULE.PARAM=VALUE")]
        set: Vec<String>,
        /// Apply a ruleset variant to every spec.
        #[arg(long)]
        variant: Option<String>,
        /// Also run the specs of the rulesets a variant extends, against the
        /// variant, and list the base specs the variant breaks.
        #[arg(long, conflicts_with_all = ["mutate", "coverage", "coverage_out"])]
        with_base_specs: bool,
        #[command(flatten)]
        strength: StrengthArgs,
    },
}

/// `sandtable new`'s two kinds.
#[derive(Subcommand)]
enum NewCommand {
    /// A variant of a ruleset: a folder with `ruleset.yaml` (`extends: BASE`,
    /// nothing changed yet), a scenario copied from the base's, a passing
    /// spec that loads this ruleset, and a README saying what to do next.
    #[command(after_help = "\
The folder is made in --dir DIR, else in the project's rulesets/, else (outside any
project) in rulesets/ of the current folder, which becomes a project (a sandtable.toml
is written). An existing folder or file is never overwritten.

Examples:
  sandtable new variant tricorne_carbine --from tricorne --dir \"$(mktemp -d)\"   in a new folder
  sandtable new variant tricorne_carbine --from tricorne   (not run unattended: writes into the project's rulesets/)")]
    Variant {
        /// The variant's name (letters, digits, '_'): its folder's and its `name:`.
        name: String,
        /// The ruleset it extends (a name on the search path, or a folder).
        #[arg(long, value_name = "BASE")]
        from: String,
        /// The folder to make it in.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// A ruleset from nothing: a die, terrain, one unit type, one rule with a
    /// param, a scenario, one spec that forces the dice, and a README.
    #[command(after_help = "\
The folder is made as for `sandtable new variant` (see its --help).

Examples:
  sandtable new ruleset skirmish --dir \"$(mktemp -d)\"   a ruleset folder to grow from, in a new folder")]
    Ruleset {
        /// The ruleset's name (letters, digits, '_').
        name: String,
        /// The folder to make it in.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

/// `sandtable new ...`.
fn new(cmd: &NewCommand) -> ExitCode {
    let made = match cmd {
        NewCommand::Variant { name, from, dir } => sandtable::ruleset::new::variant(name, from, dir.as_deref()),
        NewCommand::Ruleset { name, dir } => sandtable::ruleset::new::ruleset(name, dir.as_deref()),
    };
    match made {
        Ok(m) => {
            print!("{}", m.report);
            ExitCode::SUCCESS
        }
        Err(e) => {
            report(&ScriptError::plain(e));
            ExitCode::from(2)
        }
    }
}

/// `sandtable test`'s measures of spec strength.
#[derive(Args, Clone, Default)]
struct StrengthArgs {
    /// Report line coverage of the ruleset's Lua per file and function, and the lines no spec runs.
    #[arg(long)]
    coverage: bool,
    /// With --coverage or --mutate on a variant: measure the files of the
    /// rulesets it extends and lib/ too (by default only the variant's own).
    #[arg(long)]
    with_base: bool,
    /// Write the coverage as an lcov tracefile to FILE (implies --coverage).
    #[arg(long, value_name = "FILE")]
    coverage_out: Option<PathBuf>,
    /// Mutation testing: run the specs against small changes to the ruleset and list the changes no spec notices.
    #[arg(long, conflicts_with_all = ["coverage", "coverage_out"])]
    mutate: bool,
    /// With --mutate: exit with code 1 when the mutation score is below PCT (0 to 100, for CI).
    #[arg(long, value_name = "PCT", requires = "mutate", value_parser = parse_score)]
    min_score: Option<f64>,
    /// Threads for --mutate (default: every core; 1 or more).
    #[arg(long, visible_alias = "threads", value_name = "N", requires = "mutate",
          value_parser = sandtable::analysis::cli::parse_positive::<usize>)]
    jobs: Option<usize>,
    /// Time budget of one spec case under one mutant, in milliseconds (--mutate;
    /// default: ten times what the case took in the clean run, at least a second;
    /// 1 or more). A mutant past it counts as killed only when that case took at most a
    /// quarter of it.
    #[arg(long, value_name = "MS", requires = "mutate", value_parser = sandtable::analysis::cli::parse_positive::<u64>)]
    mutant_budget: Option<u64>,
    /// With --mutate: mutate only the lines changed since git revision REV
    /// (default HEAD, the edits not yet committed); runs `git`.
    #[arg(long, value_name = "REV", num_args = 0..=1, default_missing_value = "HEAD")]
    changed: Option<String>,
    /// Also run the spec files under DIR against the one ruleset the paths name
    /// (with --coverage and --mutate too: score the ruleset against them).
    #[arg(long, value_name = "DIR")]
    specs: Vec<PathBuf>,
}

/// Parses `--min-score`: a percentage from 0 to 100 (`85`, `85.5` or `85%`).
fn parse_score(s: &str) -> Result<f64, String> {
    match s.trim().trim_end_matches('%').parse::<f64>() {
        Ok(p) if (0.0..=100.0).contains(&p) => Ok(p),
        _ => Err(format!("'{s}' is not a score: give a percentage from 0 to 100")),
    }
}

/// Where the world comes from.
#[derive(Args, Clone, Default)]
struct Setup {
    /// Scenario YAML to load before the script runs.
    #[arg(long, value_name = "FILE")]
    scenario: Option<PathBuf>,
    #[command(flatten)]
    rules: RulesArgs,
    #[command(flatten)]
    limits: LimitArgs,
}

/// The ruleset, its params and the dice a scenario is played with.
#[derive(Args, Clone, Default)]
struct RulesArgs {
    /// Ruleset to load (a name on the search path, or a path); overrides the scenario's.
    #[arg(long, value_name = "NAME")]
    ruleset: Option<String>,
    /// Ruleset variant to apply.
    #[arg(long, value_name = "NAME")]
    variant: Option<String>,
    /// Seed for the dice (the same seed replays exactly; decimal or 0x hex).
    #[arg(long, value_name = "N", value_parser = sandtable::analysis::cli::parse_seed)]
    seed: Option<u64>,
    /// Override a ruleset param, e.g. --set reserve_artillery.crater_at=4 (repeatable).
    #[arg(long = "set", value_name = "MODULE.PARAM=VALUE")]
    set: Vec<String>,
}

#[derive(Args, Clone, Default)]
struct LimitArgs {
    /// Time budget of each top-level Lua call, in milliseconds (default: the ruleset's, else 1000; 1 or more).
    #[arg(long, value_name = "MS", value_parser = sandtable::analysis::cli::parse_positive::<u64>)]
    time_limit: Option<u64>,
    /// Memory limit of the Lua state, in MiB (default: the ruleset's, else 256; 1 or more).
    #[arg(long, value_name = "MIB", value_parser = sandtable::analysis::cli::parse_positive::<u64>)]
    memory_limit: Option<u64>,
}

impl LimitArgs {
    fn options(&self) -> HostOptions {
        HostOptions { time_ms: self.time_limit, memory_mb: self.memory_limit, ..HostOptions::default() }
    }
}

impl RulesArgs {
    fn overrides(&self) -> ScenarioOverrides {
        ScenarioOverrides {
            ruleset: self.ruleset.clone(),
            variant: self.variant.clone(),
            seed: self.seed,
            set: self.set.clone(),
            ..ScenarioOverrides::default()
        }
    }
}

fn color() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

/// Prints an error; a closed stderr is not worth a panic.
fn report(e: &ScriptError) {
    use std::io::Write;
    let _ = write!(std::io::stderr(), "{}", render_error(e, color()));
}

/// Builds a host with the world the setup asks for.
fn prepare(setup: &Setup) -> Result<Host, ScriptError> {
    let host = Host::new(setup.limits.options()).map_err(|e| ScriptError::from_lua(&e))?;
    let overrides = setup.rules.overrides();
    host.set_overrides(&overrides);
    if let Some(path) = &setup.scenario {
        host.load_scenario(path, &overrides)?;
    } else if let Some(name) = &setup.rules.ruleset {
        let mut rs = Ruleset::load(name).map_err(ScriptError::from)?;
        if let Some(v) = &setup.rules.variant {
            rs.apply_variant(v).map_err(ScriptError::from)?;
        }
        for s in &setup.rules.set {
            rs.set_param(s).map_err(ScriptError::from)?;
        }
        host.load_ruleset(rs)?;
        if let Some(seed) = setup.rules.seed {
            host.state.world.borrow_mut().dice.seed(seed);
        }
    } else {
        if !setup.rules.set.is_empty() || setup.rules.variant.is_some() {
            return Err(ScriptError::plain("--set and --variant need a ruleset: give --ruleset or --scenario"));
        }
        if let Some(seed) = setup.rules.seed {
            host.state.world.borrow_mut().dice.seed(seed);
        }
    }
    Ok(host)
}

fn run(script: &std::path::Path, setup: &Setup, log: Option<&PathBuf>, show_log: bool) -> ExitCode {
    let host = match prepare(setup) {
        Ok(h) => h,
        Err(e) => {
            report(&e);
            return ExitCode::from(2);
        }
    };
    sandtable::layers::print_notes();
    host.set_decision_mode(DecisionMode::Auto);
    let result = host.exec_file(script);
    let world = host.state.world.borrow();
    // Both can fail: the script's error is shown first, then what went wrong
    // with the output, and neither hides the other.
    let mut output_failed = Vec::new();
    if show_log {
        if let Err(e) = print_log(&world.log) {
            output_failed.push(format!("cannot print the event log: {e}"));
        }
    }
    if let Some(path) = log {
        if let Err(e) = write_log(path, &world.log) {
            output_failed.push(format!("cannot write the log to {}: {e}", path.display()));
        }
    }
    let code = match &result {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => {
            report(e);
            ExitCode::FAILURE
        }
    };
    if output_failed.is_empty() {
        return code;
    }
    for msg in &output_failed {
        report(&ScriptError::plain(msg.clone()));
    }
    ExitCode::from(2)
}

/// The readable event log on stdout (an error, not a panic, when stdout is full or closed).
fn print_log(log: &sandtable::log::EventLog) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    writeln!(out, "---- event log ({} events) ----", log.events.len())?;
    for e in &log.events {
        writeln!(out, "{e}")?;
    }
    out.flush()
}

/// The event log as JSON Lines in `path`, written whole or not at all
/// (`files::write`: a full disk is an error, not a silently short file).
fn write_log(path: &std::path::Path, log: &sandtable::log::EventLog) -> std::io::Result<()> {
    let mut bytes = Vec::new();
    log.write_jsonl(0, &mut bytes)?;
    sandtable::files::write(path, &bytes)
}

/// Prints a failed case: the line, where, and the error.
fn print_failure(marker: &str, shown: &str, name: &str, e: &ScriptError, note: &str) {
    println!("{marker}  {shown} :: {name}{note}");
    let where_ = e.location().map(|(f, l)| format!("{f}:{l}")).unwrap_or_else(|| shown.to_string());
    println!("      at {where_}: {}", e.message());
    report(e);
}

fn test(
    paths: &[PathBuf],
    limits: &LimitArgs,
    set: &[String],
    variant: &Option<String>,
    with_base_specs: bool,
    strength: &StrengthArgs,
) -> ExitCode {
    if strength.changed.is_some() && !strength.mutate {
        report(&ScriptError::plain("--changed limits --mutate to the lines changed since a revision: add --mutate"));
        return ExitCode::from(2);
    }
    let files = match sandtable::spec::suite(paths, &strength.specs) {
        Ok(f) => f,
        Err(e) => {
            report(&ScriptError::plain_diag(&e));
            return ExitCode::from(2);
        }
    };
    let overrides = ScenarioOverrides { variant: variant.clone(), set: set.to_vec(), ..Default::default() };
    if strength.mutate {
        return mutate(&files, limits, &overrides, strength);
    }
    if strength.coverage || strength.coverage_out.is_some() {
        return coverage(paths, &files, limits, &overrides, strength);
    }
    let base_of = match with_base_specs.then(|| sandtable::spec::base::variant_of(&files)).transpose() {
        Ok(v) => v,
        Err(e) => {
            report(&ScriptError::plain(e));
            return ExitCode::from(2);
        }
    };
    let (mut passed, mut failed) = (0, 0);
    for f in &files {
        let r = sandtable::spec::run_spec(f, &limits.options(), &overrides, |_| {});
        sandtable::layers::print_notes();
        let shown = sandtable::lua::display_path(&f.path);
        for n in &r.notes {
            eprintln!("warning: {shown}: {n}");
        }
        if r.cases.is_empty() {
            println!("skip  {shown} (no describe/it: not a spec)");
        }
        for (name, err) in &r.cases {
            match err {
                None => println!("ok    {shown} :: {name}"),
                Some(e) => print_failure("FAIL", &shown, name, e, ""),
            }
        }
        passed += r.passed();
        failed += r.failed();
    }
    if let Some(rs) = &base_of {
        base_specs(rs, limits, &overrides);
    }
    println!("{passed} passed, {failed} failed");
    if passed + failed == 0 {
        return no_specs(paths);
    }
    if failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// `sandtable test` found no spec cases: exit status 2, for `--coverage` too.
fn no_specs(paths: &[PathBuf]) -> ExitCode {
    let wher = if paths.is_empty() {
        "in the project (rulesets/*/spec and tests/)".to_string()
    } else {
        paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
    };
    report(&ScriptError::plain(format!("no specs found in {wher}: a spec file calls describe(...) and it(...)")));
    ExitCode::from(2)
}

/// `sandtable test VARIANT --with-base-specs`: the base's specs against the
/// variant, and the list of those it breaks. They do not change the exit
/// status: a variant is meant to change some rules.
fn base_specs(rs: &Ruleset, limits: &LimitArgs, overrides: &ScenarioOverrides) {
    use sandtable::spec::base::{base_spec_files, run_base_file, BaseCase};
    let (mut kept, mut changed, mut on_base) = (0, Vec::new(), 0);
    for (base, files) in base_spec_files(rs) {
        println!("-- the specs of {base}, with {} standing in for it --", rs.name);
        for f in &files {
            let r = run_base_file(rs, &base, f, &limits.options(), overrides);
            let shown = sandtable::lua::display_path(&r.path);
            for (name, case) in &r.cases {
                // Only what differs is shown: the report is "what did my change touch".
                let at = |e: &ScriptError| {
                    let where_ = e.location().map(|(f, l)| format!("{f}:{l}")).unwrap_or_else(|| shown.clone());
                    format!("      at {where_}: {}", e.message())
                };
                match case {
                    BaseCase::Passes => kept += 1,
                    BaseCase::Changed(e) => {
                        println!("CHANGED  {shown} :: {name}   [passes on {base}, fails on {}]", rs.name);
                        println!("{}", at(e));
                        changed.push(format!("{shown} :: {name}"));
                    }
                    BaseCase::FailsOnBase(e) => {
                        on_base += 1;
                        println!("FAIL     {shown} :: {name}   [fails on {base} too]");
                        println!("{}", at(e));
                    }
                }
            }
        }
    }
    let all = kept + changed.len() + on_base;
    if changed.is_empty() {
        println!("{} breaks none of the {all} base specs", rs.name);
    } else {
        println!(
            "{} breaks {} of the {all} base specs (they pass on the base): what the change touched",
            rs.name,
            changed.len()
        );
        for c in &changed {
            println!("  {c}");
        }
    }
    if on_base > 0 {
        println!("({on_base} base specs fail on the base itself too)");
    }
}

/// `sandtable test --coverage`.
fn coverage(
    paths: &[PathBuf],
    files: &[SpecFile],
    limits: &LimitArgs,
    overrides: &ScenarioOverrides,
    strength: &StrengthArgs,
) -> ExitCode {
    use sandtable::spec::coverage;
    // One ruleset's specs measure its scope (a file no spec loads at 0%);
    // the specs of several measure every module they load.
    let scope = coverage::scope_of(files, strength.with_base).ok().flatten();
    let cannot_write = |path: &std::path::Path, e: String| {
        report(&ScriptError::plain(format!("cannot write the lcov file {}: {e}", path.display())));
        ExitCode::from(2)
    };
    // Refused before the specs run, and again after (the modules they loaded).
    let read: Vec<PathBuf> = files
        .iter()
        .map(|f| f.path.clone())
        .chain(scope.iter().flat_map(|s| s.lua.iter().chain(&s.manifests).cloned()))
        .collect();
    if let Some(path) = &strength.coverage_out {
        if let Err(e) = coverage::lcov_target(path, &read) {
            return cannot_write(path, e);
        }
    }
    let runs = coverage::run_files(files, scope.as_ref(), &limits.options(), overrides);
    let (passed, failed) = runs.iter().fold((0, 0), |a, r| (a.0 + r.passed, a.1 + r.failed));
    if passed + failed == 0 {
        println!("0 passed, 0 failed");
        return no_specs(paths);
    }
    let total = coverage::total(&runs, scope.as_ref());
    print!("{}", total.table());
    if let Some(path) = &strength.coverage_out {
        let measured: Vec<PathBuf> = total.files.keys().map(PathBuf::from).chain(read).collect();
        let written = coverage::lcov_target(path, &measured)
            .and_then(|()| sandtable::files::write(path, total.lcov().as_bytes()).map_err(|e| e.to_string()));
        if let Err(e) = written {
            return cannot_write(path, e);
        }
        println!("lcov written to {}", path.display());
    }
    println!("{passed} passed, {failed} failed");
    if failed > 0 {
        println!("(some specs fail: run `sandtable test` without --coverage to see why)");
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// `sandtable test --mutate`.
fn mutate(files: &[SpecFile], limits: &LimitArgs, overrides: &ScenarioOverrides, strength: &StrengthArgs) -> ExitCode {
    use sandtable::spec::mutate;
    let mut settings = mutate::Settings {
        budget: strength.mutant_budget.map(std::time::Duration::from_millis),
        changed: strength.changed.clone(),
        with_base: strength.with_base,
        ..mutate::Settings::default()
    };
    if let Some(j) = strength.jobs {
        settings.jobs = j;
    }
    match mutate::run(files, &limits.options(), overrides, &settings) {
        Ok(report) => {
            print!("{}", report.text());
            match strength.min_score {
                Some(min) if report.score() < min => {
                    println!("score {:.1}% is below --min-score {min}", report.score());
                    ExitCode::FAILURE
                }
                _ => ExitCode::SUCCESS,
            }
        }
        Err(e) => {
            report(&ScriptError::plain_diag(&e));
            ExitCode::from(2)
        }
    }
}

/// A command-line error; a negative number given to a count or a limit
/// (`--trials -5`) is named as such instead of clap's tip to write `-- -5`.
fn usage_error(e: clap::Error) -> ExitCode {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let context = |kind| match e.get(kind) {
        Some(ContextValue::String(s)) => Some(s.clone()),
        _ => None,
    };
    let negative = |s: &str| s.starts_with('-') && s[1..].parse::<f64>().is_ok();
    let found = match e.kind() {
        ErrorKind::UnknownArgument => context(ContextKind::InvalidArg).filter(|v| negative(v)).and_then(|value| {
            let args: Vec<String> = std::env::args().collect();
            let at = args.iter().position(|a| *a == value)?;
            let flag = args[..at].last().filter(|f| f.starts_with("--"))?;
            Some((flag.clone(), value))
        }),
        ErrorKind::ValueValidation => context(ContextKind::InvalidValue)
            .filter(|v| negative(v))
            .zip(context(ContextKind::InvalidArg))
            .map(|(value, arg)| (arg.split_whitespace().next().unwrap_or_default().to_string(), value)),
        _ => None,
    };
    match found {
        Some((flag, value)) => {
            eprintln!("error: {flag} {value}: {flag} takes a number that is not negative\n\nFor more information, try '--help'.");
            ExitCode::from(2)
        }
        None => e.exit(),
    }
}

/// Takes `--project DIR` (which must be a folder) for the rest of the run,
/// and checks that `$SANDTABLE_PROJECT`, when set, names a folder too.
fn choose_project(dir: Option<&PathBuf>) -> Result<(), ScriptError> {
    use sandtable::layers;
    if let Some(d) = dir {
        if !d.is_dir() {
            return Err(ScriptError::plain(format!("--project {}: not a folder", d.display())));
        }
        layers::set_project(d.clone());
    } else if let Some(p) = layers::project().filter(|p| !p.is_dir()) {
        return Err(ScriptError::plain(format!(
            "${} names {}, which is not a folder (unset it, or give --project DIR)",
            layers::PROJECT_ENV,
            p.display()
        )));
    }
    Ok(())
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return usage_error(e),
    };
    if let Err(e) = choose_project(cli.project.as_ref()) {
        report(&e);
        return ExitCode::from(2);
    }
    match cli.command {
        Some(Command::New(cmd)) => new(&cmd),
        Some(Command::Rulesets) => {
            print!("{}", sandtable::ruleset::list::text());
            ExitCode::SUCCESS
        }
        Some(Command::Sim(a)) => sandtable::analysis::cli::sim(&a),
        Some(Command::Exact(a)) => sandtable::analysis::cli::exact(&a),
        Some(Command::Merge(a)) => sandtable::analysis::cli::merge(&a),
        Some(Command::Run { script, setup, log, show_log }) => run(&script, &setup, log.as_ref(), show_log),
        Some(Command::Test { paths, limits, set, variant, with_base_specs, strength }) => {
            test(&paths, &limits, &set, &variant, with_base_specs, &strength)
        }
        Some(Command::Repl { setup, history, journal }) => repl(&setup, history, journal),
        Some(Command::View { scenario, rules, limits }) => sandtable::repl::view_only(&sandtable::repl::ReplOptions {
            scenario: Some(scenario),
            ruleset: rules.ruleset,
            variant: rules.variant,
            seed: rules.seed,
            set: rules.set,
            time_ms: limits.time_limit,
            memory_mb: limits.memory_limit,
            ..Default::default()
        }),
        None => repl(&cli.setup, cli.history, cli.journal),
    }
}

/// The REPL with the command line's setup.
fn repl(setup: &Setup, history: Option<PathBuf>, journal: JournalArgs) -> ExitCode {
    sandtable::repl::run(sandtable::repl::ReplOptions {
        scenario: setup.scenario.clone(),
        ruleset: setup.rules.ruleset.clone(),
        variant: setup.rules.variant.clone(),
        seed: setup.rules.seed,
        set: setup.rules.set.clone(),
        time_ms: setup.limits.time_limit,
        memory_mb: setup.limits.memory_limit,
        history,
        journal: journal.journal,
        resume: journal.resume,
    })
}
