//! Roll objects in their two forms: userdata (outside trials, the full
//! `dice.roll`, a full arena) and handles into the trial arena (the fast
//! path inside a `sim` or `exact` trial). Both answer every method the same
//! way, a handle kept past its trial is refused, and `count` by a face name
//! (matched by the address of the kept Lua string) cannot be fooled.

use std::path::PathBuf;

use sandtable::analysis::sim::{self, SimConfig};
use sandtable::analysis::Setup;
use sandtable::lua::{Host, HostOptions};

const BATTLE: &str = r#"dice.define("battle", { "soldier", "soldier", "burst", "deadly", "hq", "flag" })"#;

/// A host whose world is in a trial with the log off, as `sim` puts it.
fn in_trial() -> Host {
    let host = Host::new(HostOptions::default()).unwrap();
    host.exec(BATTLE, "test").unwrap();
    next_trial(&host);
    host
}

/// Starts the next trial, as `sim` does (`World::reset_from`).
fn next_trial(host: &Host) {
    let mut template = host.state.world.borrow().clone();
    template.log.recording = false;
    host.state.world.borrow_mut().reset_from(&template);
}

fn global(host: &Host, name: &str) -> mlua::Value {
    host.lua.globals().get(name).unwrap()
}

fn write(name: &str, src: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join(name);
    std::fs::write(&p, src).unwrap();
    (dir, p)
}

/// Every method and error of a roll, as text, for the roll in global `R`.
const PROBE: &str = r#"
local out = {}
local function say(...) table.insert(out, table.concat({...}, " ")) end
local function try(f) local ok, e = pcall(f) return tostring(ok) .. " " .. (tostring(e):match("^[^\n]*")) end
say(typeof(R), type(R), tostring(R), #R, R.n, R.kind, tostring(R.total), tostring(R.nothing))
say(table.concat(R.faces, ","), tostring(R.faces == R.faces))
for _, f in dice.faces(R.kind) do say(f, R:count(f), R.count(R, f)) end
say(R:count("nothing"), R:count(3), R:count("3"), R:count_any{"soldier", "burst"}, R:count_any{})
say(try(function() return R:count() end))
say(try(function() return R:count({}) end))
say(try(function() return R:count_any("soldier") end))
say(try(function() return R:count_any{ true } end))
say(try(function() return R:nope() end))
say(try(function() R.n = 3 end))
say(try(function() return R.count({}, "soldier") end))
say(tostring(getmetatable(R)))
RESULT = table.concat(out, "\n")
"#;

/// The direct stack readers of the hot calls (`lua::raw::stack`) are in use:
/// the Luau built here lays out its stack as they assume. After a Luau
/// upgrade that moves those fields, this fails (the readers then use the
/// API instead: correct, but slower).
#[test]
fn luau_stack_layout_is_the_one_the_direct_readers_assume() {
    let _host = Host::new(HostOptions::default()).unwrap();
    assert!(sandtable::lua::raw::stack::direct(), "Luau's stack layout differs from lua::raw::stack's");
}

/// With the direct readers off (`SANDTABLE_NO_DIRECT_STACK`), every call
/// reads its arguments through the API and `sim` gives the same figures, for
/// roll objects and for the world calls of the reserve artillery, and for
/// metrics whose names are strings made at run time (the direct reader knows
/// names by their strings' addresses).
#[test]
fn sim_is_the_same_with_and_without_the_direct_readers() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for script in
        ["scripts/analysis/ra_dice_roll.lua", "scripts/analysis/ra_bombard.lua", "tests/fixtures/metric_churn.lua"]
    {
        let run = |direct: bool| {
            let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_sandtable"));
            cmd.current_dir(root).args(["sim", script, "--trials", "3000", "--threads", "1", "--seed", "5"]);
            if !direct {
                cmd.env("SANDTABLE_NO_DIRECT_STACK", "1");
            }
            let out = cmd.output().unwrap();
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            // All but the timing line.
            let text = String::from_utf8(out.stdout).unwrap();
            text.lines().filter(|l| !l.contains(" trials/s)")).collect::<Vec<_>>().join("\n")
        };
        let (with, without) = (run(true), run(false));
        assert!(with.contains("3000 trials"), "{with}");
        assert_eq!(with, without, "{script}");
    }
}

#[test]
fn handles_and_userdata_answer_every_method_alike() {
    for (kind, faces) in [("battle", r#""soldier", "burst", "soldier""#), ("d6", "1, 2, 1")] {
        let host = in_trial();
        // The first roll of a kind takes the full function (it keeps the
        // kind's names): a userdata. The next, on the fast path, a handle.
        host.exec(&format!("dice.force('{kind}', {{ {faces} }}) A = dice.roll(3, '{kind}', 'a')"), "test").unwrap();
        host.exec(&format!("dice.force('{kind}', {{ {faces} }}) B = dice.roll(3, '{kind}', 'b')"), "test").unwrap();
        assert!(matches!(global(&host, "A"), mlua::Value::UserData(_)), "{:?}", global(&host, "A"));
        assert!(matches!(global(&host, "B"), mlua::Value::LightUserData(_)), "{:?}", global(&host, "B"));
        let mut seen = Vec::new();
        for name in ["A", "B"] {
            host.exec(&format!("R = {name}\n{PROBE}"), "probe").unwrap();
            let text: String = host.lua.globals().get("RESULT").unwrap();
            seen.push(text);
        }
        assert_eq!(seen[0], seen[1], "{kind}: userdata and handle differ");
        assert!(seen[0].starts_with("Roll userdata"), "{}", seen[0]);
        assert!(seen[0].contains("a roll cannot be changed"), "{}", seen[0]);
        assert!(seen[0].contains("a roll has no method 'nope'"), "{}", seen[0]);
    }
}

#[test]
fn outside_trials_rolls_are_userdata() {
    let host = Host::new(HostOptions::default()).unwrap();
    host.exec(BATTLE, "test").unwrap();
    host.state.world.borrow_mut().log.recording = false;
    host.exec("for i = 1, 3 do R = dice.roll(2, 'battle') end", "test").unwrap();
    assert!(matches!(global(&host, "R"), mlua::Value::UserData(_)));
}

#[test]
fn a_full_arena_falls_back_to_userdata() {
    let host = in_trial();
    host.exec(
        "ROLLS = {}
         for i = 1, 1000 do ROLLS[i] = dice.roll(i % 7, 'battle') end
         for i = 1, 1000 do
           local r = ROLLS[i]
           assert(r.n == i % 7 and #r.faces == i % 7)
           assert(r:count_any{'soldier', 'burst', 'deadly', 'hq', 'flag'} == i % 7)
         end
         LAST = ROLLS[1000]",
        "test",
    )
    .unwrap();
    assert!(matches!(global(&host, "LAST"), mlua::Value::UserData(_)));
}

/// The error `sim` reports for a roll kept from trial `keep` (counting from
/// 1) and read in the next trial.
fn kept_roll_error(keep: u32) -> String {
    let (_dir, p) = write(
        "keep.lua",
        &format!(
            r#"dice.define("battle", {{ "soldier", "soldier", "burst", "deadly", "hq", "flag" }})
local kept, n = nil, 0
function trial()
  n += 1
  local r = dice.roll(3, "battle")
  if n == {keep} then kept = r end
  if n == {keep} + 1 then return kept:count("soldier") end
  return r:count("soldier")
end"#
        ),
    );
    let setup = Setup { script: p, ..Setup::default() };
    let cfg = SimConfig { setup, vs: None, trials: 10, seed: 1, threads: 1, shard: None, progress: false };
    sim::run(&cfg).err().expect("an error").to_string()
}

/// A handle (trial 3's roll), and the first roll of a kind in a worker, made
/// by the full function as a userdata (trial 1's), are refused alike once
/// their trial is over; the error names the trial that read them.
#[test]
fn a_roll_kept_across_sim_trials_is_refused() {
    for (keep, read) in [(3, "trial 3 "), (1, "trial 1 ")] {
        let err = kept_roll_error(keep);
        assert!(err.contains("this roll was made in an earlier trial"), "{err}");
        assert!(err.contains(read), "{err}");
    }
}

#[test]
fn every_method_refuses_a_kept_handle() {
    let host = in_trial();
    host.exec("dice.roll(1, 'battle') KEPT = dice.roll(3, 'battle')", "test").unwrap();
    assert!(matches!(global(&host, "KEPT"), mlua::Value::LightUserData(_)));
    next_trial(&host);
    for read in
        ["KEPT.faces", "KEPT.n", "#KEPT", "tostring(KEPT)", "KEPT:count('hq')", "KEPT:count_any{'hq'}", "KEPT.total"]
    {
        let Err(err) = host.exec(&format!("return {read}"), "test") else { panic!("{read} was read") };
        assert!(err.to_string().contains("earlier trial"), "{read}: {err}");
    }
    // Refused before any roll of the new trial, and after one.
    host.exec("dice.roll(2, 'battle')", "test").unwrap();
    assert!(host.exec("return KEPT:count('hq')", "test").is_err());
}

#[test]
fn count_by_name_cannot_be_fooled_by_collected_strings() {
    let host = in_trial();
    host.exec(
        r#"dice.force("battle", { "soldier", "burst", "flag" })
        local r = dice.roll(3, "battle")
        dice.force("battle", { "soldier", "burst", "flag" })
        R = dice.roll(3, "battle")
        for round = 1, 20 do
          local made = {}
          for i = 1, 2000 do made[i] = "x" .. i .. "-" .. round end
          made = nil
          -- Names built at run time are the kept strings (Luau interns them).
          assert(R:count("sol" .. "dier") == 1, "soldier")
          assert(R:count(string.rep("b", 1) .. "urst") == 1, "burst")
          assert(R:count("x" .. round) == 0, "other")
          assert(R:count("flag ") == 0 and R:count("fla") == 0, "near")
        end"#,
        "test",
    )
    .unwrap();
    // A redefined kind gets new names; a roll of the old kind is refused.
    host.exec(
        r#"OLD = R
        dice.define("battle", { "soldier", "tank" })
        dice.force("battle", { "tank", "tank" })
        local t = dice.roll(2, "battle")
        dice.force("battle", { "tank" })
        local u = dice.roll(1, "battle")
        assert(t:count("tank") == 2 and u:count("tank") == 1 and u:count("burst") == 0)
        local ok, e = pcall(function() return OLD:count("soldier") end)
        assert(not ok and tostring(e):find("redefined"), tostring(e))"#,
        "test",
    )
    .unwrap();
}

/// A roll returned as a metric, or printed in an error object, is called a
/// roll (inside trials it is a light userdata handle, not a userdata).
#[test]
fn a_roll_in_a_trial_result_or_error_is_called_a_roll() {
    let (_dir, p) = write(
        "metric.lua",
        r#"dice.define("battle", { "soldier", "soldier", "burst", "deadly", "hq", "flag" })
dice.roll(1, "battle") -- the first roll of a kind is made by the full function
function trial()
  return { hits = dice.roll(2, "battle") }
end"#,
    );
    let setup = Setup { script: p, ..Setup::default() };
    let cfg = SimConfig { setup, vs: None, trials: 3, seed: 1, threads: 1, shard: None, progress: false };
    let err = sim::run(&cfg).err().expect("an error").to_string();
    assert!(err.contains("trial() returned a roll for metric 'hits'"), "{err}");

    let host = in_trial();
    host.exec("dice.roll(1, 'battle') KEPT = dice.roll(3, 'battle')", "test").unwrap();
    let err = host.exec("error({ roll = KEPT })", "test").unwrap_err().to_string();
    assert!(err.contains("roll (made in a trial)"), "{err}");
}
