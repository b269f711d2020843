//! Analysis benchmarks (a plain `main`, no harness): the reserve artillery
//! trial through `sim` on 1 thread and on every thread, the same rule written
//! natively in Rust (the speed of light), `exact` on the Lua rule, and the
//! native rule enumerated the same way.
//!
//!   cargo bench --bench analysis                # everything
//!   cargo bench --bench analysis -- native sim  # some parts
//!   cargo bench --bench analysis -- --trials 2000000
//!   cargo bench --bench analysis -- native sim --runs 7   # best of 7 (a noisy machine)
//!   cargo bench --bench analysis -- dice --trials 200000  # the dice trial three ways
//!   cargo bench --bench analysis -- rulesets              # one trial per ruleset
//!   cargo bench --bench analysis -- sweep                 # a 10-point sweep against one plain run
//!
//! Figures and how to read them: docs/PERFORMANCE.md.

#[path = "native_ra.rs"]
mod native_ra;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use sandtable::analysis::exact::{ExactConfig, ExactOutcome};
use sandtable::analysis::sim::SimConfig;
use sandtable::analysis::{trial_seed, Setup};
use sandtable::dice::{Enumeration, Source};
use sandtable::hex::Hex;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// How many times each measurement runs (`--runs`, default 3); the best counts.
static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(3);

/// The best of `--runs` runs of `f`.
fn best<T>(f: impl FnMut() -> T) -> (Duration, T) {
    best_of(RUNS.load(std::sync::atomic::Ordering::Relaxed).max(1), f)
}

fn best_of<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = None;
    let mut out = None;
    for _ in 0..runs {
        let t = Instant::now();
        let r = f();
        let d = t.elapsed();
        if best.is_none_or(|b| d < b) {
            best = Some(d);
        }
        out = Some(r);
    }
    (best.unwrap_or_default(), out.expect("at least one run"))
}

fn native(trials: u64) -> f64 {
    let (template, rule) =
        native_ra::setup(&root().join("scripts/great_war/bombardment.yaml"), native_ra::Params::default());
    let mut w = template.clone();
    let target = Hex::new(6, 3);
    let (d, lost) = best(|| {
        let mut lost = 0i64;
        for i in 0..trials {
            w.reset_from(&template);
            w.dice.seed(trial_seed(1, i));
            lost += rule.fire(&mut w, "allies", target, 4).figures_lost as i64;
        }
        lost
    });
    let rate = trials as f64 / d.as_secs_f64();
    println!(
        "native Rust rule, 1 thread:      {trials} resolutions in {:.3} s = {:>10.0} /s  (mean figures lost {:.4})",
        d.as_secs_f64(),
        rate,
        lost as f64 / trials as f64
    );
    rate
}

fn native_exact() {
    let (template, rule) =
        native_ra::setup(&root().join("scripts/great_war/bombardment.yaml"), native_ra::Params::default());
    let mut w = template.clone();
    let target = Hex::new(6, 3);
    let (d, (leaves, mean)) = best(|| {
        let mut walk = Enumeration::default();
        let mut leaves = 0u64;
        let mut mean = 0f64;
        loop {
            walk.restart();
            w.reset_from(&template);
            w.dice.set_source(Source::Enumerate(walk));
            let rec = rule.fire(&mut w, "allies", target, 4);
            let Source::Enumerate(back) =
                std::mem::replace(w.dice.source_mut(), Source::Enumerate(Enumeration::default()))
            else {
                unreachable!()
            };
            walk = back;
            let p: f64 = walk.weight_num.iter().zip(&walk.weight_den).map(|(&n, &d)| n as f64 / d as f64).product();
            mean += p * rec.figures_lost as f64;
            leaves += 1;
            if !walk.advance() {
                break;
            }
        }
        (leaves, mean)
    });
    println!(
        "native Rust rule, enumerated:    {leaves} leaves in {:.3} s (mean figures lost {mean:.6})",
        d.as_secs_f64()
    );
}

fn setup() -> Setup {
    Setup { script: root().join("scripts/analysis/ra_bombard.lua"), ..Setup::default() }
}

fn sim(trials: u64, threads: usize, no_jit: bool) -> f64 {
    sim_with(trials, threads, no_jit, false)
}

fn sim_with(trials: u64, threads: usize, no_jit: bool, no_fast_paths: bool) -> f64 {
    let cfg = SimConfig {
        setup: Setup { no_jit, no_fast_paths, ..setup() },
        vs: None,
        trials,
        seed: 1,
        threads,
        shard: None,
        progress: false,
    };
    // Wall clock of the whole run, building one Luau state per worker included.
    let (d, run) = best(|| sandtable::analysis::sim::run(&cfg).expect("sim"));
    let rate = trials as f64 / d.as_secs_f64();
    let lost = run.result.metrics.get("figures_lost").map(|a| a.mean()).unwrap_or(f64::NAN);
    let how = match (no_jit, no_fast_paths) {
        (true, _) => ", no JIT",
        (_, true) => ", no fast paths",
        _ => "",
    };
    println!(
        "sim (Luau rule{how}), {threads} thread{}:{:pad$} {trials} trials in {:.3} s = {:>10.0} /s  (mean figures lost {:.4})",
        if threads == 1 { " " } else { "s" },
        "",
        d.as_secs_f64(),
        rate,
        lost,
        pad = 15 - how.len(),
    );
    rate
}

/// A sweep of 10 points (crater_at 2..6 × on_target_at 2, 3) of `trials /
/// 10` trials each against one plain run of `trials` trials, on the same
/// threads: a sweep moves each worker's one Luau state from point to point
/// (no process or state started per point), so the two should take about
/// the same time.
fn sweep(trials: u64, threads: usize) {
    use sandtable::analysis::sweep::{self, Axis, AxisKind, SweepConfig};
    let plain = SimConfig { setup: setup(), vs: None, trials, seed: 1, threads, shard: None, progress: false };
    let param = |name: &str, values: &[&str]| Axis {
        name: name.to_string(),
        kind: AxisKind::Param,
        values: values.iter().map(|v| v.to_string()).collect(),
    };
    let cfg = SweepConfig {
        setup: setup(),
        axes: vec![
            param("reserve_artillery.crater_at", &["2", "3", "4", "5", "6"]),
            param("reserve_artillery.on_target_at", &["2", "3"]),
        ],
        trials: trials / 10,
        seed: 1,
        threads,
        shard: None,
        progress: false,
    };
    // Interleaved, so that a change in the machine's load hits both.
    let (mut dp, mut ds) = (Duration::MAX, Duration::MAX);
    for _ in 0..RUNS.load(std::sync::atomic::Ordering::Relaxed).max(1) {
        dp = dp.min(best_of(1, || sandtable::analysis::sim::run(&plain).expect("sim")).0);
        ds = ds.min(best_of(1, || sweep::run(&cfg).expect("sweep")).0);
    }
    let s = if threads == 1 { " " } else { "s" };
    println!("sim, {threads} thread{s}:   {trials} trials in {:.3} s", dp.as_secs_f64());
    println!("sweep, {threads} thread{s}: 10 points × {} trials in {:.3} s", trials / 10, ds.as_secs_f64());
    println!("  -> sweep / plain run = {:.2}x", ds.as_secs_f64() / dp.as_secs_f64());
}

fn exact(threads: usize) {
    let cfg = ExactConfig {
        setup: setup(),
        vs: None,
        seed: 1,
        threads,
        max_leaves: u64::MAX,
        progress: false,
        epsilon: None,
    };
    let (d, out) = best(|| sandtable::analysis::exact::run(&cfg).expect("exact"));
    if let ExactOutcome::Done { result, .. } = out {
        let m = &result.metrics["figures_lost"];
        println!(
            "exact (Luau rule), {threads} thread{}:     {} leaves in {:.3} s  (mean figures lost {} ≈ {:.6})",
            if threads == 1 { " " } else { "s" },
            result.leaves,
            d.as_secs_f64(),
            sandtable::analysis::exact::ratio_str(&m.mean()),
            sandtable::analysis::exact::ratio_f64(&m.mean())
        );
    }
}

/// The reserve artillery's dice written three ways (roll objects,
/// `dice.counts`, plain `math.random`; scripts/analysis/ra_dice_*.lua):
/// `sim` per trial on 1 thread, runs interleaved (the minimum of each counts),
/// then `exact` leaves and time on every core for the two that can be enumerated.
fn dice_ways(trials: u64) {
    let ways = [
        ("roll objects", "scripts/analysis/ra_dice_roll.lua"),
        ("dice.counts", "scripts/analysis/ra_dice_counts.lua"),
        ("math.random", "scripts/analysis/ra_dice_random.lua"),
    ];
    let runs = RUNS.load(std::sync::atomic::Ordering::Relaxed).max(1);
    let mut best = [f64::INFINITY; 3];
    for _ in 0..runs {
        for (i, (_, path)) in ways.iter().enumerate() {
            let cfg = SimConfig {
                setup: Setup { script: root().join(path), ..Setup::default() },
                vs: None,
                trials,
                seed: 1,
                threads: 1,
                shard: None,
                progress: false,
            };
            let t = Instant::now();
            sandtable::analysis::sim::run(&cfg).expect("sim");
            best[i] = best[i].min(t.elapsed().as_secs_f64());
        }
    }
    for (i, (name, _)) in ways.iter().enumerate() {
        println!(
            "sim, dice trial with {name:<13} 1 thread: {trials} trials in {:.3} s = {:.3} µs/trial  ({:.2}x math.random)",
            best[i],
            best[i] / trials as f64 * 1e6,
            best[i] / best[2]
        );
    }
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    for (name, path) in &ways[..2] {
        let cfg = ExactConfig {
            setup: Setup { script: root().join(path), ..Setup::default() },
            vs: None,
            seed: 1,
            threads: cores,
            max_leaves: u64::MAX,
            progress: false,
            epsilon: None,
        };
        let (d, out) = best_of(runs, || sandtable::analysis::exact::run(&cfg).expect("exact"));
        if let ExactOutcome::Done { result, .. } = out {
            let m = &result.metrics["hits_around"];
            println!(
                "exact, dice trial with {name:<13} {cores} threads: {:>7} leaves in {:.3} s  (mean hits around {})",
                result.leaves,
                d.as_secs_f64(),
                sandtable::analysis::exact::ratio_str(&m.mean())
            );
        }
    }
}

/// One representative trial per ruleset, each exercising that ruleset's hot
/// rule, through `sim` on 1 thread, runs interleaved (the minimum of each
/// counts). Each ruleset runs twice: `sim --trials 1` (start-up: the host,
/// the ruleset, the scenario and the script's top level, and one trial) and
/// a long run; the steady state is the difference per trial, native code
/// generation included (it starts once the trials have run for a while,
/// see `lua::hot_after`). Trials per run differ because the trials do: each
/// long run takes a second or so on an idle core. Shared by every ruleset:
/// a change to the core shows here for all of them.
const RULESET_TRIALS: [(&str, &str, u64); 4] = [
    // the reserve artillery's Artillery Bombard on the trench line
    ("great_war", "scripts/analysis/ra_bombard.lua", 300_000),
    // a line's volley at 2 hexes, with rally checks and retreats
    ("tricorne", "scripts/tricorne/volley.lua", 60_000),
    // the mountain pass played through, overwatch firing at once
    ("viktory", "scripts/viktory/overwatch_at_once.lua", 4_000),
    // the grand battery's massed fire (tabletop geometry)
    ("republique", "scripts/republique/grand_battery_odds.lua", 4_000),
];

fn rulesets() {
    let runs = RUNS.load(std::sync::atomic::Ordering::Relaxed).max(1);
    let mut short = [f64::INFINITY; RULESET_TRIALS.len()];
    let mut long = [f64::INFINITY; RULESET_TRIALS.len()];
    let timed = |path: &str, trials: u64| {
        let cfg = SimConfig {
            setup: Setup { script: root().join(path), ..Setup::default() },
            vs: None,
            trials,
            seed: 1,
            threads: 1,
            shard: None,
            progress: false,
        };
        let t = Instant::now();
        sandtable::analysis::sim::run(&cfg).expect("sim");
        t.elapsed().as_secs_f64()
    };
    for _ in 0..runs {
        for (i, (_, path, trials)) in RULESET_TRIALS.iter().enumerate() {
            short[i] = short[i].min(timed(path, 1));
            long[i] = long[i].min(timed(path, *trials));
        }
    }
    for (i, (name, path, trials)) in RULESET_TRIALS.iter().enumerate() {
        println!(
            "sim, {name:<11} 1 thread: start-up {:>6.2} ms; steady state {:>9.2} µs/trial ({trials} trials in {:.3} s)  ({path})",
            short[i] * 1e3,
            (long[i] - short[i]).max(0.0) / (*trials - 1) as f64 * 1e6,
            long[i],
        );
    }
}

fn startup() {
    let empty = std::env::temp_dir().join("sandtable_bench_empty.lua");
    std::fs::write(&empty, "").expect("temp file");
    let (d, _) = best_of(20, || {
        let host = sandtable::lua::Host::new(Default::default()).expect("host");
        host.exec_file(Path::new(&empty)).expect("run");
    });
    println!("Host::new + empty script:        {:.2} ms (in process, best of 20)", d.as_secs_f64() * 1e3);
}

/// What one call from Luau into Rust costs, by how the function is made.
fn callcost() {
    use mlua::{ffi, Lua, LuaString, Value};
    unsafe extern "C-unwind" fn raw_add(l: *mut ffi::lua_State) -> std::os::raw::c_int {
        // SAFETY: reads two numbers the caller passed, pushes one.
        unsafe {
            let a = ffi::lua_tonumberx(l, 1, std::ptr::null_mut());
            let b = ffi::lua_tonumberx(l, 2, std::ptr::null_mut());
            ffi::lua_pushnumber(l, a + b);
        }
        1
    }
    let lua = Lua::new();
    let g = lua.globals();
    g.set("f_nums", lua.create_function(|_, (a, b): (f64, f64)| Ok(a + b)).unwrap()).unwrap();
    g.set("f_str", lua.create_function(|_, (a, s): (f64, String)| Ok(a + s.len() as f64)).unwrap()).unwrap();
    g.set("f_luastr", lua.create_function(|_, (a, s): (f64, LuaString)| Ok(a + s.as_bytes().len() as f64)).unwrap())
        .unwrap();
    g.set("f_ret_str", lua.create_function(|_, ()| Ok("allies".to_string())).unwrap()).unwrap();
    g.set(
        "f_multi",
        lua.create_function(|_, ()| Ok((1..=6).map(Value::Integer).collect::<mlua::MultiValue>())).unwrap(),
    )
    .unwrap();
    // SAFETY: `raw_add` is a C function that reads two numbers and pushes one.
    g.set("f_raw", unsafe { lua.create_c_function(raw_add) }.unwrap()).unwrap();
    let src = r#"
local N = 2000000
local function bench(name, f)
  local t0 = os.clock()
  for i = 1, N do f() end
  print(string.format("  %-40s %6.0f ns", name, (os.clock() - t0) / N * 1e9))
end
bench("empty Lua function", function() end)
bench("raw C function (2 numbers)", function() f_raw(1, 2) end)
bench("mlua function (2 numbers)", function() f_nums(1, 2) end)
bench("mlua function (number, String)", function() f_str(1, "battle") end)
bench("mlua function (number, LuaString)", function() f_luastr(1, "battle") end)
bench("mlua function returning a String", function() f_ret_str() end)
bench("mlua function returning 6 integers", function() f_multi() end)
"#;
    println!("Luau -> Rust call costs (no interrupt):");
    sandtable::lua::load_text(&lua, src, "=bench").unwrap().call::<()>(()).unwrap();
}

/// Each API call the reserve artillery uses, timed from Luau in a host set up
/// like an analysis worker (bench/api_calls.lua).
fn apicost() {
    let host = sandtable::lua::Host::new(sandtable::lua::HostOptions { time_ms: Some(600_000), ..Default::default() })
        .expect("host");
    // The analysis workers' setting: no interrupt until a trial overruns.
    let _dog = sandtable::lua::raw::trial::install_interrupt(&host.lua).expect("watchdog");
    host.state.world.borrow_mut().log.recording = false;
    println!("API call costs from Luau (bench/api_calls.lua):");
    if let Err(e) = host.exec_file(&root().join("bench/api_calls.lua")) {
        println!("  failed: {e}");
    }
}

fn main() {
    let mut parts: Vec<String> = Vec::new();
    let mut trials = 1_000_000u64;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--trials" => trials = args.next().and_then(|t| t.parse().ok()).unwrap_or(trials),
            "--runs" => {
                let n = args.next().and_then(|t| t.parse().ok()).unwrap_or(3);
                RUNS.store(n, std::sync::atomic::Ordering::Relaxed);
            }
            "--bench" => {}
            other if other.starts_with('-') => {}
            other => parts.push(other.to_string()),
        }
    }
    let all = parts.is_empty();
    let want = |p: &str| all || parts.iter().any(|x| x == p);
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let runs = RUNS.load(std::sync::atomic::Ordering::Relaxed);
    println!("machine: {cores} cores; trials per sim/native run: {trials}; best of {runs} runs\n");
    let mut nat = None;
    if want("native") {
        nat = Some(native(trials));
    }
    if want("sim1") && !want("sim") {
        // Only the 1-thread figure (for interleaved comparisons with `native`).
        let one = sim(trials, 1, false);
        if let Some(n) = nat {
            println!("  -> native / sim on 1 thread = {:.1}x", n / one);
        }
    }
    if want("sim") {
        let one = sim(trials, 1, false);
        if let Some(n) = nat {
            println!("  -> native / sim on 1 thread = {:.1}x", n / one);
        }
        if cores > 1 {
            let many = sim(trials, cores, false);
            println!("  -> {cores} threads / 1 thread = {:.2}x", many / one);
        }
        let interp = sim(trials, 1, true);
        println!("  -> JIT / no JIT on 1 thread = {:.2}x", one / interp);
        let full = sim_with(trials, 1, false, true);
        println!("  -> fast paths / full functions on 1 thread = {:.2}x", one / full);
    }
    if want("exact") {
        exact(1);
        if cores > 1 {
            exact(cores);
        }
        native_exact();
    }
    if want("dice") {
        dice_ways(trials);
    }
    if want("rulesets") {
        rulesets();
    }
    if want("sweep") {
        // 100 000 trials unless --trials says otherwise (the default 10^6 is for `sim`).
        let n = if parts.iter().any(|p| p == "sweep") && std::env::args().any(|a| a == "--trials") {
            trials
        } else {
            100_000
        };
        sweep(n, 1);
        if cores > 1 {
            sweep(n, cores);
        }
    }
    if want("apicost") {
        apicost();
    }
    if want("callcost") {
        callcost();
    }
    if want("startup") {
        startup();
    }
}
