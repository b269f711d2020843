//! Fuzzing as a standing check: every loader and the whole Lua API get
//! hostile input, and must answer with a located error in the user's terms
//! or a valid result — never a panic, an abort or a hang.
//!
//! - `scenario_yaml`, `ruleset_yaml`, `saves`: the repository's own files
//!   (and REPL saves made from its scenarios), mutated: byte flips,
//!   truncation, deletions, duplicated and swapped lines, key swaps, value
//!   swaps (types, huge numbers, NaN, infinities), stray brackets and quotes.
//!   An error must point into the file and use no Rust words ("i32",
//!   "DuplicateKeyPolicy", ...); a world that loads must be valid (units on
//!   the map, finite facings, sections on the board).
//! - `shards`: `sim --shard K/N --json` outputs, mutated, merged.
//! - `leading_bytes`: random leading bytes (control bytes above all) in
//!   front of Lua text or of compiled, damaged Luau bytecode, run as a
//!   script: a chunk that starts with a control byte is refused (never
//!   loaded as bytecode), and no error prints a control byte raw.
//! - `journal_damage`: a REPL session journal, damaged (the text mutations,
//!   leading control bytes) and resumed by the binary: it answers, and the
//!   journal is never lost (left as it was, kept whole beside and said
//!   where, or replaced by one holding every input it finished).
//! - `api`: generated Luau scripts calling every function of the API
//!   catalogue with random arguments (near limits, NaN, negative, huge, wrong
//!   types, nested tables, odd bytes), each run by the `sandtable` binary
//!   under small budgets (`--time-limit 200 --memory-limit 64`, 2 GB of
//!   address space, killed after 20 s). Exit 0, 1 or 2 is an answer;
//!   anything else (a panic's 101, an abort's signal, a hang) is a crash.
//!   Calls not yet bounded by the budgets get small arguments (`UNBOUNDED`).
//!
//! Seeded: each runs `SANDTABLE_FUZZ_SECS` seconds (default 2) from seed
//! `SANDTABLE_FUZZ_SEED` (default 14). A failure is shrunk, printed, and
//! written to `target/fuzz/<name>-failure.txt`; if the process itself dies,
//! `target/fuzz/<name>-last.txt` holds the input it was on. The long run is
//! in docs/DESIGN.md ("Fuzzing").

use std::fmt::Debug;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

use sandtable::battlefield::{Map, World};
use sandtable::lua::{render_error, ScriptError};
use sandtable::ruleset::{Ruleset, RulesetError};
use sandtable::scenario::Scenario;
use sandtable::unit::Position;

// ---- the driver ----

fn budget() -> Duration {
    let secs = std::env::var("SANDTABLE_FUZZ_SECS").ok().and_then(|s| s.parse::<f64>().ok()).unwrap_or(2.0);
    Duration::from_secs_f64(secs)
}

fn seed() -> u64 {
    std::env::var("SANDTABLE_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(14)
}

fn out_dir() -> PathBuf {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/fuzz");
    let _ = std::fs::create_dir_all(&d);
    d
}

/// Runs `check` on values of `strategy` for the time budget; on a failure,
/// shrinks it (as proptest does) and panics with the smallest input found.
fn fuzz<S: Strategy>(name: &str, strategy: S, mut check: impl FnMut(&S::Value) -> Result<(), String>)
where
    S::Value: Debug,
{
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed().to_le_bytes());
    bytes[8..8 + name.len().min(24)].copy_from_slice(&name.as_bytes()[..name.len().min(24)]);
    let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &bytes);
    let mut runner = TestRunner::new_with_rng(Config::default(), rng);
    let (start, budget) = (Instant::now(), budget());
    let last = out_dir().join(format!("{name}-last.txt"));
    let mut cases = 0u64;
    while cases == 0 || start.elapsed() < budget {
        let mut tree = strategy.new_tree(&mut runner).expect("a value");
        cases += 1;
        let _ = std::fs::write(&last, format!("{:#?}", tree.current()));
        let Err(first) = check(&tree.current()) else { continue };
        let mut best = (format!("{:#?}", tree.current()), first);
        let mut steps = 0;
        'shrink: while steps < 300 && tree.simplify() {
            loop {
                steps += 1;
                match check(&tree.current()) {
                    Err(e) => {
                        best = (format!("{:#?}", tree.current()), e);
                        break;
                    }
                    Ok(()) if !tree.complicate() => break,
                    Ok(()) => {}
                }
                if steps >= 300 {
                    break 'shrink;
                }
            }
        }
        let report = format!("fuzz {name}: case {cases} (seed {}) fails:\n{}\n\ninput:\n{}", seed(), best.1, best.0);
        let _ = std::fs::write(out_dir().join(format!("{name}-failure.txt")), &report);
        panic!("{}", report.chars().take(6000).collect::<String>());
    }
    let (loaded, refused) = TALLY.with(|t| t.replace((0, 0)));
    eprintln!(
        "fuzz {name}: {cases} cases in {:.1} s, no failure ({loaded} loaded or ran clean, {refused} refused with an error)",
        start.elapsed().as_secs_f64()
    );
}

thread_local! {
    /// How the current fuzzer's cases ended: (answered with a result, refused with an error).
    static TALLY: std::cell::Cell<(u64, u64)> = const { std::cell::Cell::new((0, 0)) };
}

/// Counts a case that loaded (`true`) or was refused with an error (`false`).
fn tally(loaded: bool) {
    TALLY.with(|t| {
        let (a, b) = t.get();
        t.set(if loaded { (a + 1, b) } else { (a, b + 1) });
    });
}

/// A panic's message.
fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<String>().cloned().or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default()
}

// ---- mutations of a text file ----

/// Values a mutation may put in place of a scalar: wrong types, limits, NaN.
const VALUES: &[&str] = &[
    "\"4\"",
    "[]",
    "{}",
    "-1",
    "0",
    ".nan",
    ".inf",
    "-.inf",
    "1e308",
    "-1e308",
    "99999999999999999999",
    "~",
    "true",
    "2147483648",
    "-2147483649",
    "4294967296",
    "[0, 999]",
    "[-50, -40]",
    "{ a: 1 }",
    "[[0, 0]]",
    "0.5",
    "\"\"",
    "x",
    "1e-320",
    "0x10",
    "&a [1]",
    "*a",
    "!!binary AAAA",
    "[[[[[[[[1]]]]]]]]",
];

/// Text a mutation may insert: YAML's structural characters and odd bytes.
const INSERTS: &[&str] =
    &["{", "[", "}", "]", "\"", "'", ": ", "\n", "- ", "#", "---\n", "\t", "\u{0}", "\u{feff}", "<<: ", "  ", ",", "|"];

#[derive(Clone, Debug)]
enum Mutation {
    FlipByte(Index, u8),
    Truncate(Index),
    Delete(Index, Index),
    DuplicateLine(Index),
    SwapLines(Index, Index),
    SwapKey(Index, Index),
    SwapValue(Index, Index),
    Insert(Index, Index),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<Index>(), any::<u8>()).prop_map(|(i, b)| Mutation::FlipByte(i, b)),
        any::<Index>().prop_map(Mutation::Truncate),
        (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Mutation::Delete(a, b)),
        any::<Index>().prop_map(Mutation::DuplicateLine),
        (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Mutation::SwapLines(a, b)),
        (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Mutation::SwapKey(a, b)),
        (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Mutation::SwapValue(a, b)),
        (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Mutation::Insert(a, b)),
    ]
}

/// Byte ranges of the scalars of a YAML text (runs of word characters).
fn tokens(text: &[u8]) -> Vec<(usize, usize)> {
    let word = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b'+');
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        if word(text[i]) {
            let start = i;
            while i < text.len() && word(text[i]) {
                i += 1;
            }
            out.push((start, i));
        } else {
            i += 1;
        }
    }
    out
}

/// Ranges of keys: scalars followed by `:`.
fn keys(text: &[u8]) -> Vec<(usize, usize)> {
    tokens(text).into_iter().filter(|&(_, e)| text.get(e) == Some(&b':')).collect()
}

fn lines(text: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, b) in text.iter().enumerate() {
        if *b == b'\n' {
            out.push((start, i + 1));
            start = i + 1;
        }
    }
    if start < text.len() {
        out.push((start, text.len()));
    }
    out
}

fn splice(text: &mut Vec<u8>, (a, b): (usize, usize), with: &[u8]) {
    text.splice(a..b, with.iter().copied());
}

fn apply(text: &mut Vec<u8>, m: &Mutation) {
    let n = text.len();
    match m {
        Mutation::FlipByte(i, b) if n > 0 => text[i.index(n)] = *b,
        Mutation::Truncate(i) => text.truncate(i.index(n + 1)),
        Mutation::Delete(a, len) if n > 0 => {
            let a = a.index(n);
            let b = (a + 1 + len.index(40)).min(n);
            text.drain(a..b);
        }
        Mutation::DuplicateLine(i) => {
            let ls = lines(text);
            if !ls.is_empty() {
                let (a, b) = ls[i.index(ls.len())];
                let line = text[a..b].to_vec();
                splice(text, (b, b), &line);
            }
        }
        Mutation::SwapLines(i, j) => {
            let ls = lines(text);
            if ls.len() > 1 {
                let (x, y) = (ls[i.index(ls.len())], ls[j.index(ls.len())]);
                let (first, second) = if x.0 < y.0 { (x, y) } else { (y, x) };
                if first != second {
                    let (l1, l2) = (text[first.0..first.1].to_vec(), text[second.0..second.1].to_vec());
                    splice(text, second, &l1);
                    splice(text, first, &l2);
                }
            }
        }
        Mutation::SwapKey(i, j) => {
            let ks = keys(text);
            if !ks.is_empty() {
                let (from, to) = (ks[i.index(ks.len())], ks[j.index(ks.len())]);
                let key = text[from.0..from.1].to_vec();
                splice(text, to, &key);
            }
        }
        Mutation::SwapValue(i, v) => {
            let ts = tokens(text);
            if !ts.is_empty() {
                let at = ts[i.index(ts.len())];
                splice(text, at, VALUES[v.index(VALUES.len())].as_bytes());
            }
        }
        Mutation::Insert(i, what) => {
            let at = i.index(n + 1);
            splice(text, (at, at), INSERTS[what.index(INSERTS.len())].as_bytes());
        }
        _ => {}
    }
}

fn mutated(original: &str, ms: &[Mutation]) -> Vec<u8> {
    let mut text = original.as_bytes().to_vec();
    for m in ms {
        apply(&mut text, m);
    }
    text
}

/// Words of Rust or of the YAML library that a person editing a file should
/// never have to read.
const RUST_WORDS: &[&str] = &[
    "i32",
    "i64",
    "u32",
    "u64",
    "usize",
    "f64",
    "DuplicateKeyPolicy",
    "from_str_multiple",
    "budget breached",
    "untagged enum",
    "struct Raw",
    "Spanned",
    "Nodes {",
    "Depth {",
    "variant of",
];

/// An error as the person sees it, checked: rendered without a panic, no
/// Rust words, and located inside its file.
fn check_error(e: &ScriptError) -> Result<(), String> {
    let shown = catch_unwind(AssertUnwindSafe(|| render_error(e, false)))
        .map_err(|p| format!("rendering the error panicked: {}\nerror: {e}", panic_text(&*p)))?;
    let message = e.message();
    if let Some(w) = RUST_WORDS.iter().find(|w| message.contains(*w)) {
        return Err(format!("the error speaks Rust ({w:?}): {message}\n{shown}"));
    }
    if message.trim().is_empty() {
        return Err(format!("an empty error message:\n{shown}"));
    }
    if let ScriptError::Located(l) = e {
        let lines = l.src.inner().lines().count() + 1;
        if l.line == 0 || l.column == 0 || l.line > lines {
            return Err(format!(
                "the error points outside its file ({}:{}, {lines} lines):\n{shown}",
                l.line, l.column
            ));
        }
    }
    Ok(())
}

/// What a loaded world must be: whatever loads is valid.
fn check_world(w: &World) -> Result<(), String> {
    match w.map {
        Map::Hex { cols, rows, .. } => {
            if !(1..=1000).contains(&cols) || !(1..=1000).contains(&rows) {
                return Err(format!("loaded a {cols}x{rows} map"));
            }
            for s in w.sections.iter() {
                if s.first_col < 0 || s.last_col >= cols || s.first_col > s.last_col {
                    return Err(format!("loaded section {} with columns {}..{}", s.name, s.first_col, s.last_col));
                }
            }
        }
        Map::Table { width, height } => {
            if !(width.is_finite() && height.is_finite() && width > 0.0 && height > 0.0) {
                return Err(format!("loaded a {width} x {height} table"));
            }
        }
    }
    for u in &w.units {
        let ok = match u.pos {
            Position::Off => true,
            Position::Hex(h) => w.on_map(h),
            Position::Table { at, facing } => w.on_table(at) && facing.is_finite(),
        };
        if !ok || u.strength < 0 || u.strength > u.max_strength {
            return Err(format!("loaded unit {} at {:?} with strength {}/{}", u.id, u.pos, u.strength, u.max_strength));
        }
    }
    Ok(())
}

/// Opens a scenario file as `--scenario` does, without Lua: parse, ruleset,
/// variant, params, build.
fn open_scenario(path: &Path) -> Result<World, ScriptError> {
    let sc = Scenario::load(path).map_err(ScriptError::Located)?;
    let mut rs = Ruleset::load_from(&sc.ruleset, path.parent()).map_err(|e| match e {
        RulesetError::Located(l) => ScriptError::Located(l),
        other => ScriptError::Located(sc.ruleset_error(other.to_string())),
    })?;
    if let Some(v) = sc.variant.clone() {
        rs.apply_variant(&v).map_err(|e| ScriptError::Located(sc.variant_error(e.to_string())))?;
    }
    sc.apply_params(&mut rs).map_err(ScriptError::Located)?;
    sc.build(&rs).map_err(ScriptError::Located)
}

/// Loads a mutated scenario (written where its original was found, so a
/// relative `ruleset:` still resolves) and checks the outcome.
fn check_scenario_text(dir: &Path, name: &str, text: &[u8]) -> Result<(), String> {
    let path = dir.join(name);
    std::fs::write(&path, text).map_err(|e| e.to_string())?;
    let r = catch_unwind(AssertUnwindSafe(|| open_scenario(&path)))
        .map_err(|p| format!("loading panicked: {}", panic_text(&*p)));
    let verdict = match r {
        Ok(Ok(w)) => {
            tally(true);
            check_world(&w)
        }
        Ok(Err(e)) => {
            tally(false);
            check_error(&e)
        }
        Err(e) => Err(e),
    };
    verdict.map_err(|e| format!("{e}\n--- file ---\n{}", String::from_utf8_lossy(text)))
}

// ---- the corpus ----

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every YAML file under `dir` (recursively) whose text contains `marker`.
fn yaml_files(dir: &Path, marker: &str) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(dir) else { return out };
    let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            out.extend(yaml_files(&p, marker));
        } else if p.extension().is_some_and(|e| e == "yaml") {
            if let Ok(t) = std::fs::read_to_string(&p) {
                if t.contains(marker) {
                    out.push((p, t));
                }
            }
        }
    }
    out
}

fn scenarios() -> Vec<(PathBuf, String)> {
    let mut all = yaml_files(&root().join("scripts"), "map:");
    all.extend(yaml_files(&root().join("tests/fixtures"), "map:"));
    all.into_iter().map(|(p, t)| (p.clone(), absolute_ruleset(&p, &t))).collect()
}

fn rulesets() -> Vec<(PathBuf, String)> {
    let mut all = yaml_files(&root().join("rulesets"), "name:");
    all.extend(yaml_files(&root().join("tests/fixtures"), "modules:"));
    all.retain(|(p, _)| p.file_name().is_some_and(|n| n == "ruleset.yaml"));
    all
}

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_sandtable")
}

/// REPL saves of the repository's scenarios (`:save` after a change), made once.
fn saves() -> &'static Vec<(PathBuf, String)> {
    static SAVES: OnceLock<Vec<(PathBuf, String)>> = OnceLock::new();
    SAVES.get_or_init(|| {
        let dir = scratch();
        let mut out = Vec::new();
        for (i, (path, _)) in scenarios().iter().enumerate() {
            let file = dir.join(format!("save{i}.yaml"));
            let input = format!("world:set_turn(3)\n:save {}\n", file.display());
            let mut child = Command::new(bin())
                .args(["repl", "--scenario"])
                .arg(path)
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("sandtable runs");
            if let Some(mut stdin) = child.stdin.take() {
                use std::io::Write;
                let _ = stdin.write_all(input.as_bytes());
            }
            let _ = child.wait();
            if let Ok(t) = std::fs::read_to_string(&file) {
                out.push((file, t));
            }
        }
        assert!(!out.is_empty(), "no REPL save could be made");
        out
    })
}

fn file_and_mutations() -> impl Strategy<Value = (Index, Vec<Mutation>)> {
    (any::<Index>(), prop::collection::vec(mutation(), 1..4))
}

/// This process's scratch folder for the REPL saves made once (under the
/// system's temp folder; small, left for inspection).
fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sandtable-fuzz-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    dir
}

/// A scenario's text with a relative `ruleset:` (`.`, `../x`) made absolute,
/// so the mutated copy in the scratch folder finds the same ruleset.
fn absolute_ruleset(path: &Path, text: &str) -> String {
    let dir = path.parent().unwrap_or(Path::new("."));
    text.lines()
        .map(|l| match l.strip_prefix("ruleset:") {
            Some(v) => {
                let v = v.split('#').next().unwrap_or("").trim();
                if v.starts_with('.') || v.contains('/') {
                    format!("ruleset: {}", dir.join(v).display())
                } else {
                    l.to_string()
                }
            }
            None => l.to_string(),
        })
        .map(|l| l + "\n")
        .collect()
}

// ---- the fuzz targets ----

#[test]
fn scenario_yaml() {
    let corpus = scenarios();
    assert!(corpus.len() >= 5, "scenario corpus: {}", corpus.len());
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    fuzz("scenario_yaml", file_and_mutations(), |(i, ms)| {
        let (_, text) = &corpus[i.index(corpus.len())];
        check_scenario_text(dir, "scenario.yaml", &mutated(text, ms))
    });
}

#[test]
fn saves_yaml() {
    let corpus = saves();
    let dir = tempfile::tempdir().expect("temp dir");
    let dir = dir.path();
    fuzz("saves", file_and_mutations(), |(i, ms)| {
        let (_, text) = &corpus[i.index(corpus.len())];
        check_scenario_text(dir, "save.yaml", &mutated(text, ms))
    });
}

#[test]
fn ruleset_yaml() {
    let corpus = rulesets();
    assert!(corpus.len() >= 4, "ruleset corpus: {}", corpus.len());
    fuzz("ruleset_yaml", file_and_mutations(), |(i, ms)| {
        let (path, text) = &corpus[i.index(corpus.len())];
        // Parsed as the original file (its modules are looked up beside it);
        // the text itself never touches the disk.
        let text = String::from_utf8_lossy(&mutated(text, ms)).into_owned();
        let with_text = |e: String| format!("{e}\n--- file ---\n{text}");
        let r = catch_unwind(AssertUnwindSafe(|| Ruleset::parse(path, &text)))
            .map_err(|p| with_text(format!("parsing panicked: {}", panic_text(&*p))))?;
        tally(r.is_ok());
        let verdict = match r {
            Ok(rs) => {
                for d in &rs.dice {
                    let n = d.values.len();
                    if !(1..=250).contains(&n) {
                        return Err(format!("loaded die '{}' with {n} distinct faces", d.name));
                    }
                }
                for (name, v) in rs.terrain.iter().chain(rs.unit_types.iter()) {
                    if !v.is_object() {
                        return Err(format!("loaded entry '{name}' that is not a mapping: {v}"));
                    }
                }
                Ok(())
            }
            Err(RulesetError::Located(l)) => check_error(&ScriptError::Located(l)),
            Err(other) => check_error(&ScriptError::plain_diag(other)),
        };
        verdict.map_err(with_text)
    });
}

/// Two shards of a small `sim --json` run, made once.
fn shards() -> &'static (String, String) {
    static SHARDS: OnceLock<(String, String)> = OnceLock::new();
    SHARDS.get_or_init(|| {
        let shard = |k: &str| {
            let out = Command::new(bin())
                .args(["sim", "scripts/great_war/crater_odds.lua", "--trials", "200", "--threads", "1", "--json"])
                .args(["--shard", k])
                .current_dir(root())
                .output()
                .expect("sandtable runs");
            assert!(out.status.success(), "sim --shard {k}: {}", String::from_utf8_lossy(&out.stderr));
            String::from_utf8_lossy(&out.stdout).into_owned()
        };
        (shard("1/2"), shard("2/2"))
    })
}

#[test]
fn shard_json() {
    let (a, b) = shards();
    let dir = tempfile::tempdir().expect("temp dir");
    let strategy = (any::<bool>(), prop::collection::vec(mutation(), 1..4), any::<bool>());
    fuzz("shards", strategy, |(which, ms, both)| {
        let (keep, change) = if *which { (a, b) } else { (b, a) };
        let (fa, fb) = (dir.path().join("a.json"), dir.path().join("b.json"));
        std::fs::write(&fa, if *both { mutated(keep, ms) } else { keep.as_bytes().to_vec() })
            .map_err(|e| e.to_string())?;
        std::fs::write(&fb, mutated(change, ms)).map_err(|e| e.to_string())?;
        let r = catch_unwind(AssertUnwindSafe(|| {
            sandtable::analysis::merge::merge_files(&[&fa, &fb]).map(|r| {
                let _ = sandtable::analysis::merge::missing(&r);
                (sandtable::analysis::report::sim_text(&r), sandtable::analysis::report::sim_json(&r))
            })
        }))
        .map_err(|p| format!("merging panicked: {}", panic_text(&*p)))?;
        tally(r.is_ok());
        match r {
            Ok(_) => Ok(()),
            Err(e) if e.trim().is_empty() => Err("an empty error".into()),
            Err(e) => match RUST_WORDS.iter().find(|w| e.contains(*w)) {
                Some(w) => Err(format!("the error speaks Rust ({w:?}): {e}")),
                None => Ok(()),
            },
        }
    });
}

// ---- the API fuzzer ----

/// Lua expressions for arguments: limits, NaN, negative, huge, wrong types,
/// nested tables, odd bytes, and the API's own values.
const ARGS: &[&str] = &[
    "nil",
    "true",
    "false",
    "0",
    "1",
    "-1",
    "2",
    "3",
    "6",
    "7",
    "0.5",
    "-0.5",
    "1e9",
    "-1e9",
    "2^31",
    "-2^31 - 1",
    "2^53",
    "2^63",
    "1e308",
    "-1e308",
    "0/0",
    "1/0",
    "-1/0",
    "16777217",
    "250",
    "251",
    "\"\"",
    "\"a1\"",
    "\"c1\"",
    "\"fb1\"",
    "\"d6\"",
    "\"battle\"",
    "\"infantry\"",
    "\"woods\"",
    "\"wire\"",
    "\"allies\"",
    "\"central\"",
    "\"french\"",
    "\"enters\"",
    "\"odd-r\"",
    "\"line\"",
    "\"x\"",
    "string.rep(\"x\", 5000)",
    "\"\\0\\255\\254\"",
    "\"é%s%d\"",
    "{}",
    "{1, 2, 3}",
    "{{{{{}}}}}",
    "{q = 1, r = 2}",
    "{x = 10, y = 10}",
    "{x = 0/0, y = 1/0}",
    "{H, H}",
    "{U}",
    "{side = \"allies\"}",
    "{id = \"n1\", side = \"allies\", type = \"infantry\", hex = H}",
    "{centre = P, width = 10, depth = 1e9, facing = 0/0}",
    "setmetatable({}, {__index = function() error(\"index trap\") end})",
    "H",
    "hex(0, 0)",
    "hex(12, 8)",
    "hex(-5, 100)",
    "hex(1000, 1000)",
    "U",
    "R",
    "P",
    "function() end",
    "function() error(\"boom\") end",
    "function() error({code = 1}) end",
    "function() return 0/0 end",
    "function(...) return ... end",
    "coroutine.create(function() end)",
];

/// Calls whose Rust-side work grows with an argument and is not bounded yet:
/// fuzzed with small arguments only, or the fuzzer would allocate gigabytes.
/// Empty now: `h:within`, `h:ring`, `hex.line`, `hex.crossed`, `hex.los` and
/// `dice.define` check their work against the budgets before they start
/// (they aborted the fuzzer within 150 s before that). A new call whose
/// work grows with an argument goes here only until it checks its budget.
const UNBOUNDED: &[&str] = &[];

/// Arguments safe for an [`UNBOUNDED`] call. `SANDTABLE_FUZZ_UNBOUNDED=all`
/// (or a list: `h:within,hex.line`) gives them the full [`ARGS`] too, to
/// check that the limits work.
const SMALL_ARGS: &[&str] =
    &["nil", "0", "1", "-1", "2", "0.5", "0/0", "\"x\"", "\"d6\"", "{}", "{1, 2}", "H", "hex(3, 3)", "U", "P"];

/// Every callable of the API catalogue as `(Lua callee, name)`.
fn callables() -> Vec<(String, &'static str)> {
    let mut out = Vec::new();
    for e in sandtable::lua::api::catalogue() {
        for part in e.usage.split("  ") {
            let part = part.trim();
            if !part.contains(['(', '{']) {
                continue;
            }
            let name = sandtable::lua::api::entry_name(part);
            let callee = match name.split_once(':') {
                Some(("h", m)) => format!("H:{m}"),
                Some(("u", m)) => format!("U:{m}"),
                Some(("r", m)) => format!("R:{m}"),
                Some((t, m)) if !t.is_empty() && !m.is_empty() => format!("{t}:{m}"),
                _ => name.to_string(),
            };
            if !out.iter().any(|(c, _)| *c == callee) {
                out.push((callee, name));
            }
        }
    }
    out
}

#[derive(Clone, Debug)]
struct ApiScript {
    tabletop: bool,
    calls: Vec<(Index, Vec<Index>)>,
}

fn api_script() -> impl Strategy<Value = ApiScript> {
    let call = (any::<Index>(), prop::collection::vec(any::<Index>(), 0..5));
    (any::<bool>(), prop::collection::vec(call, 1..40)).prop_map(|(tabletop, calls)| ApiScript { tabletop, calls })
}

/// The script's text: a few values to pass around, then each call under pcall.
fn api_source(s: &ApiScript, calls: &[(String, &'static str)], full: &[&str]) -> String {
    let mut src = String::from(
        "local H = hex(2, 3)\nlocal U = world:units()[1]\nlocal R = dice.roll(3, \"d6\")\n\
         local P = tabletop.point(10, 10)\n",
    );
    for (f, args) in &s.calls {
        let (callee, name) = &calls[f.index(calls.len())];
        let small = UNBOUNDED.contains(name) && !full.iter().any(|f| *f == "all" || f == name);
        let pool = if small { SMALL_ARGS } else { ARGS };
        let args: Vec<&str> = args.iter().map(|a| pool[a.index(pool.len())]).collect();
        src.push_str(&format!("pcall(function() return {callee}({}) end)\n", args.join(", ")));
    }
    src
}

/// Runs a script in the `sandtable` binary with small budgets; Ok when it
/// answered (exit 0, 1 or 2) within the wall-clock limit.
fn run_script(source: &str, tabletop: bool, dir: &Path) -> Result<(), String> {
    let script = dir.join("api.lua");
    std::fs::write(&script, source).map_err(|e| e.to_string())?;
    let scenario =
        if tabletop { "scripts/republique/grand_battery.yaml" } else { "scripts/great_war/bombardment.yaml" };
    let cmd = format!(
        "ulimit -v 2097152; exec '{}' run '{}' --scenario {scenario} --time-limit 200 --memory-limit 64",
        bin(),
        script.display()
    );
    let mut child = Command::new("sh")
        .args(["-c", &cmd])
        .current_dir(root())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().map_err(|e| e.to_string())? {
            break s;
        }
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            return Err("hang: still running after 20 s (--time-limit 200)".into());
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let mut stderr = String::new();
    if let Some(mut e) = child.stderr.take() {
        use std::io::Read;
        let _ = e.read_to_string(&mut stderr);
    }
    match status.code() {
        Some(code @ 0..=2) => {
            tally(code == 0);
            Ok(())
        }
        code => {
            let head: String = stderr.chars().take(1500).collect();
            Err(format!("crash: exit {code:?} ({status})\n{head}"))
        }
    }
}

#[test]
fn api() {
    let calls = callables();
    assert!(calls.len() > 80, "the catalogue has {} callables", calls.len());
    let dir = tempfile::tempdir().expect("temp dir");
    let full = std::env::var("SANDTABLE_FUZZ_UNBOUNDED").unwrap_or_default();
    let full: Vec<&str> = full.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
    fuzz("api", api_script(), |s| {
        let source = api_source(s, &calls, &full);
        run_script(&source, s.tabletop, dir.path()).map_err(|e| format!("{e}\n--- script ---\n{source}"))
    });
}

// ---- leading bytes ----

/// Sources a leading-bytes case puts its bytes in front of.
const BODIES: &[&str] = &[
    "print('ran')\n",
    "return 1\n",
    "local x = 1\n-- a comment\nreturn x + 1\n",
    "function trial() return dice.roll(1, 'd6').faces[1] end\n",
    "--[[ a long comment ]] return { ran = true }\n",
];

fn leading_byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        4 => 0u8..0x20,
        2 => 0u8..0x0a,
        1 => Just(0x7f),
        1 => any::<u8>(),
    ]
}

#[derive(Clone, Debug)]
struct Leading {
    lead: Vec<u8>,
    body: Index,
    /// The body compiled to Luau bytecode (what a hostile file would hold).
    compiled: bool,
    /// Bytes of the body set to other values (crafted bytecode, broken text).
    flips: Vec<(Index, u8)>,
}

fn leading() -> impl Strategy<Value = Leading> {
    (
        prop::collection::vec(leading_byte(), 0..5),
        any::<Index>(),
        any::<bool>(),
        prop::collection::vec((any::<Index>(), any::<u8>()), 0..4),
    )
        .prop_map(|(lead, body, compiled, flips)| Leading { lead, body, compiled, flips })
}

/// Random leading bytes (control bytes above all, which Luau's loader would
/// take as bytecode) in front of text or of compiled and damaged bytecode,
/// run as a script file and checked for completeness as REPL input. A chunk
/// whose first byte other than white space is a control byte must be
/// refused, saying that sandtable loads no bytecode; nothing may crash, and
/// no error may print a control byte raw.
#[test]
fn leading_bytes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("lead.lua");
    let host = sandtable::lua::Host::new(sandtable::lua::HostOptions {
        capture_output: true,
        time_ms: Some(200),
        ..Default::default()
    })
    .expect("a host");
    fuzz("leading_bytes", leading(), |case| {
        let body = BODIES[case.body.index(BODIES.len())];
        let mut bytes = case.lead.clone();
        if case.compiled {
            bytes.extend(mlua::chunk::Compiler::new().compile(body).map_err(|e| e.to_string())?);
        } else {
            bytes.extend_from_slice(body.as_bytes());
        }
        let start = case.lead.len();
        for (i, b) in &case.flips {
            if bytes.len() > start {
                let at = start + i.index(bytes.len() - start);
                bytes[at] = *b;
            }
        }
        std::fs::write(&file, &bytes).map_err(|e| e.to_string())?;
        let shown = format!("{:?}", String::from_utf8_lossy(&bytes));
        let _ = catch_unwind(|| sandtable::repl::is_incomplete(&String::from_utf8_lossy(&bytes)))
            .map_err(|p| format!("is_incomplete panicked: {}\n{shown}", panic_text(&*p)))?;
        let r = catch_unwind(AssertUnwindSafe(|| host.exec_file(&file)))
            .map_err(|p| format!("running panicked: {}\n{shown}", panic_text(&*p)))?;
        let _ = host.take_output();
        tally(r.is_ok());
        let first = bytes.iter().copied().find(|b| !b" \t\n\x0b\x0c\r".contains(b));
        let control = first.is_some_and(|b| b < 0x20 || b == 0x7f);
        match r {
            Ok(_) if control || bytes.contains(&0) => {
                Err(format!("ran a chunk that starts with a control byte or holds a NUL\n{shown}"))
            }
            Ok(_) => Ok(()),
            Err(e) => {
                check_error(&e).map_err(|m| format!("{m}\n{shown}"))?;
                let rendered = render_error(&e, false);
                if rendered.replace("\r\n", "\n").chars().any(|c| c.is_control() && !matches!(c, '\n' | '\t')) {
                    return Err(format!("the error prints a control byte raw: {rendered:?}\n{shown}"));
                }
                let flat = rendered.replace(['│', '×'], " ").split_whitespace().collect::<Vec<_>>().join(" ");
                if (control || bytes.contains(&0)) && !flat.contains("sandtable loads no bytecode") {
                    return Err(format!("refused without saying why: {rendered}\n{shown}"));
                }
                Ok(())
            }
        }
    });
}

// ---- journal damage ----

/// A journal of a REPL session killed before it ended (its closing line
/// dropped), made once: inputs, a decision's answer, forced dice and a
/// command that is not replayed.
fn journal() -> &'static str {
    static JOURNAL: OnceLock<String> = OnceLock::new();
    JOURNAL.get_or_init(|| {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("session.jsonl");
        let scenario = root().join("tests/fixtures/repl/scenario.yaml");
        let input = ":seed 77\nskirmish.retreat('b1')\n3\n:force battle infantry infantry\nskirmish.attack('b2', 'r1')\nx = dice.roll(3, 'battle')\n:units\ny = 'a \\u{7} \\n line'\n";
        let mut child = Command::new(bin())
            .arg("repl")
            .arg("--scenario")
            .arg(&scenario)
            .arg("--journal")
            .arg(&path)
            .env("HOME", dir.path())
            .current_dir(root())
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("sandtable runs");
        if let Some(mut stdin) = child.stdin.take() {
            use std::io::Write;
            let _ = stdin.write_all(input.as_bytes());
        }
        assert!(child.wait().expect("it ends").success(), "the session to journal ran");
        let text = std::fs::read_to_string(&path).expect("a journal");
        let kept: String = text.lines().filter(|l| !l.contains("\"closed\"")).map(|l| format!("{l}\n")).collect();
        assert!(kept.lines().count() > 10, "{kept}");
        kept
    })
}

/// The inputs of a journal that finished (an input line, then its done
/// line), but for commands (`:units` is not replayed, so not journaled again).
fn finished_inputs(text: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let mut open: Option<String> = None;
    for line in text.split(|b| *b == b'\n') {
        let Ok(v) = serde_json::from_slice::<serde_json::Value>(line) else {
            open = None;
            continue;
        };
        if let Some(i) = v.get("input").and_then(|i| i.as_str()) {
            open = Some(i.to_string()).filter(|i| !i.trim_start().starts_with(':'));
        } else if v.get("done").is_some() {
            out.extend(open.take());
        }
    }
    out
}

/// Random damage to a journal (the text mutations above, leading bytes,
/// NULs, lines cut or doubled), resumed by the binary. It must answer (exit
/// 0, 1 or 2, within 20 s, no panic), and the journal is never lost: it is
/// left as it was, kept whole beside (`NAME.before-resume`, and the report
/// says so), or replaced only by a journal holding every input it finished.
#[test]
fn journal_damage() {
    let original = journal();
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("session.jsonl");
    let strategy = (prop::collection::vec(leading_byte(), 0..3), prop::collection::vec(mutation(), 0..4));
    fuzz("journal_damage", strategy, |(lead, ms)| {
        for e in std::fs::read_dir(dir.path()).map_err(|e| e.to_string())?.flatten() {
            let _ = std::fs::remove_file(e.path());
        }
        let mut bytes = lead.clone();
        bytes.extend(mutated(original, ms));
        std::fs::write(&path, &bytes).map_err(|e| e.to_string())?;
        let shown = format!("{:?}", String::from_utf8_lossy(&bytes));
        let mut child = Command::new(bin())
            .args(["repl", "--resume", "--journal"])
            .arg(&path)
            .env("HOME", dir.path())
            .env("NO_COLOR", "1")
            .current_dir(root())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| e.to_string())?;
        let start = Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().map_err(|e| e.to_string())? {
                break s;
            }
            if start.elapsed() > Duration::from_secs(20) {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("hang: still resuming after 20 s\n{shown}"));
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        let mut err = String::new();
        if let Some(mut e) = child.stderr.take() {
            use std::io::Read;
            let _ = e.read_to_string(&mut err);
        }
        let code = status.code();
        if !matches!(code, Some(0..=2)) || err.contains("panicked") {
            return Err(format!("crash: exit {code:?}\n{err}\n{shown}"));
        }
        tally(code == Some(0));
        let now = std::fs::read(&path).unwrap_or_default();
        if now == bytes {
            return Ok(());
        }
        let kept = std::fs::read_dir(dir.path())
            .map_err(|e| e.to_string())?
            .flatten()
            .find(|e| e.file_name().to_string_lossy().starts_with("session.jsonl.before-resume"));
        if let Some(k) = kept {
            if std::fs::read(k.path()).map_err(|e| e.to_string())? != bytes {
                return Err(format!("the journal kept beside is not the journal as it was\n{err}\n{shown}"));
            }
            if !err.contains("kept whole in") {
                return Err(format!("the journal was put aside without saying where\n{err}\n{shown}"));
            }
            return Ok(());
        }
        let (before, after) = (finished_inputs(&bytes), finished_inputs(&now));
        if !before.iter().all(|i| after.contains(i)) || err.contains("damaged") {
            return Err(format!(
                "the journal was replaced, losing inputs: {before:?} became {after:?}\n{err}\n{shown}"
            ));
        }
        Ok(())
    });
}
