//! `exact` branches on what a rule looks at: the observation-driven
//! enumeration of roll objects against the plain one (every roll a choice
//! over all its multisets, as `dice.counts` does), fraction for fraction, on
//! randomised trials; and the log of a roll `exact` has only partly read.

use std::fmt::Write as _;
use std::path::PathBuf;

use proptest::prelude::*;

use sandtable::analysis::exact::{self, ExactConfig, ExactOutcome, ExactResult};
use sandtable::analysis::Setup;
use sandtable::dice::{Enumeration, Source};
use sandtable::log::Event;
use sandtable::lua::{Host, HostOptions};

/// One look at a roll.
#[derive(Clone, Debug)]
enum Look {
    Count(usize),
    CountAny(Vec<usize>),
    Faces,
    Total,
    Len,
}

/// A randomised trial: a die, rolls whose sizes may depend on earlier
/// looks, and the looks at each.
#[derive(Clone, Debug)]
struct Trial {
    /// Printed faces (symbols "a".."e" or numbers 1..4, repeats allowed).
    faces: Vec<String>,
    numeric: bool,
    /// Forced values queued at the top level (indices into `faces`).
    forced: Vec<usize>,
    /// Per roll: base pool size, whether to add the previous look's value, the looks.
    rolls: Vec<(u32, bool, Vec<Look>)>,
}

fn look() -> impl Strategy<Value = Look> {
    prop_oneof![
        3 => (0usize..6).prop_map(Look::Count),
        2 => proptest::collection::vec(0usize..6, 1..4).prop_map(Look::CountAny),
        1 => Just(Look::Faces),
        1 => Just(Look::Total),
        1 => Just(Look::Len),
    ]
}

fn trial() -> impl Strategy<Value = Trial> {
    (
        any::<bool>(),
        proptest::collection::vec(0usize..5, 2..6),
        proptest::collection::vec(0usize..6, 0..3),
        proptest::collection::vec((0u32..4, any::<bool>(), proptest::collection::vec(look(), 0..4)), 1..4),
    )
        .prop_map(|(numeric, picks, forced, rolls)| {
            let faces =
                picks
                    .iter()
                    .map(|&p| {
                        if numeric {
                            (p % 4 + 1).to_string()
                        } else {
                            format!("\"{}\"", ["a", "b", "c", "d", "e"][p])
                        }
                    })
                    .collect::<Vec<_>>();
            let forced = forced.into_iter().map(|f| f % faces.len()).collect();
            Trial { faces, numeric, forced, rolls }
        })
}

/// The trial as a script. `plain`: rolls are made with `dice.counts` and
/// read through a table that answers the same questions, so each roll is one
/// choice point over all its multisets.
fn script(t: &Trial, plain: bool) -> String {
    let mut s = String::new();
    let faces = t.faces.join(", ");
    writeln!(s, "dice.define(\"k\", {{ {faces} }})").unwrap();
    if !t.forced.is_empty() {
        let f: Vec<&str> = t.forced.iter().map(|&i| t.faces[i].as_str()).collect();
        writeln!(s, "dice.force(\"k\", {{ {} }})", f.join(", ")).unwrap();
    }
    let values = {
        let mut v: Vec<&str> = Vec::new();
        for f in &t.faces {
            if !v.contains(&f.as_str()) {
                v.push(f);
            }
        }
        v
    };
    writeln!(s, "local VALUES = {{ {} }}", values.join(", ")).unwrap();
    // A candidate face for look k: one of the die's values, or one it lacks.
    let candidate = |k: usize| -> String {
        if k < values.len() {
            values[k].to_string()
        } else if t.numeric {
            "9".into()
        } else {
            "\"z\"".into()
        }
    };
    if plain {
        s.push_str(
            r#"
local Fake = {}
Fake.__index = Fake
function Fake:count(v)
  local n = 0
  for i, x in VALUES do
    if x == v then n += self.c[i] end
  end
  return n
end
function Fake:count_any(list)
  local n = 0
  for i, x in VALUES do
    if table.find(list, x) then n += self.c[i] end
  end
  return n
end
local function roll(n)
  local c = { dice.counts(n, "k") }
  local faces, total = {}, 0
  for i, x in VALUES do
    for _ = 1, c[i] do
      table.insert(faces, x)
      if type(x) == "number" then total += x end
    end
  end
  return setmetatable({ c = c, faces = faces, total = type(VALUES[1]) == "number" and total or nil, n = n }, Fake)
end
local function len(r) return r.n end
"#,
        );
    } else {
        s.push_str("local function roll(n) return dice.roll(n, \"k\") end\nlocal function len(r) return #r end\n");
    }
    s.push_str(
        r#"
local function code(faces)
  local x = 0
  for _, f in faces do
    x = x * 7 + (table.find(VALUES, f) or 0)
  end
  return x
end

function trial()
  local joint, last = 0, 0
"#,
    );
    for (i, (base, grow, looks)) in t.rolls.iter().enumerate() {
        let n = if *grow { format!("{base} + math.min(last, 2)") } else { base.to_string() };
        writeln!(s, "  local r{i} = roll({n})").unwrap();
        for look in looks {
            let expr = match look {
                Look::Count(k) => format!("r{i}:count({})", candidate(*k)),
                Look::CountAny(ks) => {
                    let list: Vec<String> = ks.iter().map(|&k| candidate(k)).collect();
                    format!("r{i}:count_any{{ {} }}", list.join(", "))
                }
                Look::Faces => format!("code(r{i}.faces)"),
                Look::Total => format!("(r{i}.total or 0)"),
                Look::Len => format!("len(r{i})"),
            };
            writeln!(s, "  last = {expr}\n  joint = (joint * 50021 + last) % 1000003").unwrap();
        }
    }
    s.push_str("  return { joint = joint, last = last }\nend\n");
    s
}

fn run(path: &std::path::Path) -> ExactResult {
    let setup = Setup { script: path.to_path_buf(), ..Setup::default() };
    let cfg =
        ExactConfig { setup, vs: None, seed: 1, threads: 1, max_leaves: 1_000_000, progress: false, epsilon: None };
    match exact::run(&cfg).expect("exact") {
        ExactOutcome::Done { result, .. } => *result,
        ExactOutcome::TooBig { reason } => panic!("too big: {reason}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn observation_driven_exact_equals_plain_enumeration(t in trial()) {
        let dir = tempfile::tempdir().unwrap();
        let lazy = dir.path().join("lazy.lua");
        let plain = dir.path().join("plain.lua");
        std::fs::write(&lazy, script(&t, false)).unwrap();
        std::fs::write(&plain, script(&t, true)).unwrap();
        let a = run(&lazy);
        let b = run(&plain);
        prop_assert_eq!(&a.metrics, &b.metrics, "script:\n{}", script(&t, false));
        // Never more leaves than the plain walk.
        prop_assert!(a.leaves <= b.leaves, "{} leaves against {}", a.leaves, b.leaves);
    }
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn exact_of(script: &str) -> ExactResult {
    run(&root().join(script))
}

#[test]
fn counting_hits_on_eight_dice_enumerates_nine_outcomes() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("hits.lua");
    std::fs::write(
        &p,
        r#"dice.define("battle", { "soldier", "soldier", "burst", "deadly", "hq", "flag" })
function trial() return dice.roll(8, "battle"):count("soldier") end"#,
    )
    .unwrap();
    let r = run(&p);
    assert_eq!(r.leaves, 9);
    // Binomial(8, 1/3): P(0) = (2/3)^8 = 256/6561.
    let m = &r.metrics["value"];
    assert_eq!(exact::ratio_str(&m.dist[&sandtable::analysis::stats::key_of(0.0)]), "256/6561");
}

#[test]
fn reserve_artillery_dice_same_fractions_fewer_leaves() {
    let rolls = exact_of("scripts/analysis/ra_dice_roll.lua");
    let counts = exact_of("scripts/analysis/ra_dice_counts.lua");
    assert_eq!(rolls.metrics, counts.metrics);
    assert_eq!(counts.leaves, 796_275);
    assert_eq!(rolls.leaves, 207_690);
}

/// Runs `code` in a host whose dice enumerate (first outcome of every
/// choice point), with the log on; returns the host.
fn enumerating(code: &str) -> Host {
    let host = Host::new(HostOptions::default()).unwrap();
    host.exec("dice.define(\"battle\", { \"soldier\", \"soldier\", \"burst\", \"deadly\", \"hq\", \"flag\" })", "test")
        .unwrap();
    {
        let mut w = host.state.world.borrow_mut();
        let mut walk = Enumeration::default();
        walk.restart();
        w.dice.set_source(Source::Enumerate(walk));
        w.log.recording = true;
        w.log.events.clear();
    }
    host.exec(code, "test").unwrap();
    host
}

fn logged_faces(host: &Host) -> Vec<Vec<String>> {
    let w = host.state.world.borrow();
    w.log
        .events
        .iter()
        .filter_map(|e| if let Event::Roll { faces, .. } = e { Some(faces.clone()) } else { None })
        .collect()
}

#[test]
fn the_log_shows_a_representative_consistent_with_what_was_observed() {
    // The first outcome of "how many soldiers" is all of them... so take a
    // path where some are not: replay choice 1 (one soldier of three? no:
    // outcomes run 0..=m, so choice 1 is one soldier).
    let host = Host::new(HostOptions::default()).unwrap();
    host.exec("dice.define(\"battle\", { \"soldier\", \"soldier\", \"burst\", \"deadly\", \"hq\", \"flag\" })", "test")
        .unwrap();
    {
        let mut w = host.state.world.borrow_mut();
        let mut walk = Enumeration::default();
        walk.path = vec![1];
        walk.widths = vec![4];
        walk.restart();
        w.dice.set_source(Source::Enumerate(walk));
        w.log.recording = true;
        w.log.events.clear();
    }
    host.exec("R = dice.roll(3, 'battle', 'test')", "test").unwrap();
    // Nothing observed: every die shown on the first value.
    assert_eq!(logged_faces(&host), vec![vec!["soldier"; 3]]);
    host.exec("assert(R:count('soldier') == 1)", "test").unwrap();
    // One soldier; the two others undecided among the rest, shown on the first of them.
    assert_eq!(logged_faces(&host), vec![vec!["soldier", "burst", "burst"]]);
    host.exec("assert(#R.faces == 3)", "test").unwrap();
    let faces = &logged_faces(&host)[0];
    assert_eq!(faces.iter().filter(|f| *f == "soldier").count(), 1);
    host.exec("assert(tostring(R) == 'battle: ' .. table.concat(R.faces, ' '))", "test").unwrap();
}

#[test]
fn forced_dice_are_known_before_any_look() {
    let host = enumerating(
        r#"dice.force("battle", { "flag", "flag" })
        local r = dice.roll(2, "battle")
        assert(r:count("flag") == 2)"#,
    );
    assert_eq!(logged_faces(&host), vec![vec!["flag", "flag"]]);
    let w = host.state.world.borrow();
    let Source::Enumerate(walk) = w.dice.source() else { panic!("not enumerating") };
    assert!(walk.path.is_empty(), "forced dice are no choice point: {:?}", walk.path);
}

#[test]
fn a_roll_from_an_earlier_execution_is_an_error_in_exact() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("keep.lua");
    std::fs::write(
        &p,
        r#"local kept
function trial()
  if kept then return kept:count(6) end
  kept = dice.roll(1, "d6")
  return kept:count(6)
end"#,
    )
    .unwrap();
    let setup = Setup { script: p, ..Setup::default() };
    let cfg = ExactConfig { setup, vs: None, seed: 1, threads: 1, max_leaves: 1000, progress: false, epsilon: None };
    let err = exact::run(&cfg).err().expect("an error");
    assert!(err.to_string().contains("earlier execution"), "{err}");
}
