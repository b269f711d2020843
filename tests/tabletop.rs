//! Tabletop scenarios: terrain areas and formations load with located
//! errors, and the `tabletop` Lua API sees them.

use std::path::PathBuf;

use sandtable::lua::{Host, HostOptions, ScenarioOverrides, ScriptError};

fn ruleset() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("rulesets/republique").display().to_string()
}

fn write(name: &str, yaml: &str) -> PathBuf {
    let dir = tempfile::tempdir().unwrap().keep();
    let path = dir.join(name);
    std::fs::write(&path, yaml.replace("RULESET", &ruleset())).unwrap();
    path
}

const GOOD: &str = "ruleset: RULESET\nmap: { width: 100, height: 60 }\nsides:\n  french: {}\n  austrian: {}\nareas:\n  - { kind: woods, points: [[10, 10], [30, 10], [30, 30], [10, 30]], name: Bois }\n  - { kind: hill, points: [[50, 40], [90, 40], [90, 60]] }\nunits:\n  - { id: f1, side: french, type: line_infantry, at: [20, 20], facing: 270, formation: column }\n  - { id: a1, side: austrian, type: line_infantry, at: [80, 45], facing: 90 }\n";

#[test]
fn tabletop_scenarios_load_areas_and_formations() {
    let h = Host::new(Default::default()).unwrap();
    h.load_scenario(&write("good.yaml", GOOD), &ScenarioOverrides::default()).unwrap();
    let out = h
        .exec(
            "local f1 = world:unit('f1')\n\
             local fp = tabletop.footprint(f1)\n\
             local c = tabletop.cover(f1)\n\
             return #tabletop.bases(f1), fp.width, fp.depth, c[1].kind, c[1].cover, c[1].fraction, \
             tabletop.level(world:unit('a1')), #tabletop.areas(), tabletop.areas(tabletop.point(20, 20))[1].name",
            "check.lua",
        )
        .unwrap();
    let text: Vec<String> = out.iter().map(|v| format!("{v:?}")).collect();
    assert_eq!(
        text.join(" "),
        "Integer(4) Integer(8) Integer(3) String(\"woods\") String(\"heavy\") Integer(1) Integer(1) Integer(2) String(\"Bois\")"
    );
}

#[test]
fn tabletop_scenario_errors_are_located() {
    let cases: &[(&str, String, usize, &str)] = &[
        ("unknown area kind", GOOD.replace("kind: woods", "kind: swamp"), 7, "unknown terrain 'swamp'"),
        ("point off the table", GOOD.replace("[30, 30], [10, 30]", "[30, 30], [10, 130]"), 7, "off the table"),
        (
            "crossing outline",
            GOOD.replace("[30, 10], [30, 30], [10, 30]", "[30, 30], [30, 10], [10, 30]"),
            7,
            "crosses itself",
        ),
        (
            "too few points",
            GOOD.replace("[[50, 40], [90, 40], [90, 60]]", "[[50, 40], [90, 40]]"),
            8,
            "at least 3 points",
        ),
        ("unknown formation", GOOD.replace("formation: column", "formation: wedge"), 10, "no formation 'wedge'"),
        ("unknown cover class", GOOD.replace("name: Bois", "cover: stout"), 7, "unknown cover class 'stout'"),
        (
            "areas on a hex map",
            GOOD.replace("{ width: 100, height: 60 }", "{ cols: 8, rows: 6 }")
                .replace("at: [20, 20], facing: 270, formation: column", "hex: [1, 1]")
                .replace("at: [80, 45], facing: 90", "hex: [2, 2]"),
            7,
            "`areas` are for tabletops",
        ),
    ];
    for (what, yaml, line, text) in cases {
        let h = Host::new(Default::default()).unwrap();
        let err = h.load_scenario(&write("bad.yaml", yaml), &ScenarioOverrides::default()).unwrap_err();
        let ScriptError::Located(l) = &err else { panic!("{what}: not located: {err}") };
        assert!(l.file.ends_with("bad.yaml"), "{what}: {}", l.file);
        assert_eq!(l.line, *line, "{what}: {}", l.message);
        assert!(l.message.contains(text), "{what}: {}", l.message);
    }
}

/// The republique simulation's trial (the grand battery's massed fire, as
/// `scripts/republique/grand_battery_odds.lua` fires it) makes every tabletop
/// call through a fast path once the unit handles exist.
#[test]
fn the_grand_battery_stays_on_the_tabletop_fast_paths() {
    use sandtable::lua::HostOptions;
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let h = Host::new(HostOptions { capture_output: true, ..Default::default() }).unwrap();
    h.load_scenario(&root.join("scripts/republique/grand_battery.yaml"), &ScenarioOverrides::default()).unwrap();
    h.state.world.borrow_mut().log.recording = false;
    // The Austrian line is made whole again before each fire (the fire
    // removes bases, and the next fire would aim into the gap).
    let fire = "for _, id in ipairs({ 'a1', 'a2' }) do local u = world:unit(id); u.strength = u.max_strength; u.morale = nil end
      tabletop.clear_traces()
      artillery.begin_phase()
      local rec = artillery.fire{ batteries = { 'fb1', 'fb2' }, quiet = true }
      assert(rec.target == 'a1', rec.target)";
    h.exec(fire, "=warm up").unwrap();
    let before = sandtable::lua::raw::tabletop::misses();
    for _ in 0..3 {
        h.exec(fire, "=fire").unwrap();
    }
    assert_eq!(sandtable::lua::raw::tabletop::misses(), before);
}

/// A tabletop move's event gives its ends as `{x=, y=, facing=}` in Lua, and
/// as the same fields in the JSON Lines log.
#[test]
fn tabletop_move_events_give_places() {
    let h = Host::new(Default::default()).unwrap();
    h.load_scenario(&write("good.yaml", GOOD), &ScenarioOverrides::default()).unwrap();
    let out = h
        .exec(
            "world:move('f1', { x = 25, y = 20, facing = 0 })\n\
             local e = world:events(1)[1]\n\
             return e.event, e.unit, e.from.x, e.from.y, e.from.facing, e.to.x, e.to.y, e.to.facing",
            "check.lua",
        )
        .unwrap();
    let text: Vec<String> = out.iter().map(|v| format!("{v:?}")).collect();
    assert_eq!(
        text.join(" "),
        "String(\"move\") String(\"f1\") Integer(20) Integer(20) Integer(270) Integer(25) Integer(20) Integer(0)"
    );
    let mut json = Vec::new();
    h.state.world.borrow().log.write_jsonl(0, &mut json).unwrap();
    let json = String::from_utf8(json).unwrap();
    assert!(
        json.contains(
            r#"{"event":"move","unit":"f1","from":{"x":20.0,"y":20.0,"facing":270.0},"to":{"x":25.0,"y":20.0,"facing":0.0}}"#
        ),
        "{json}"
    );
}

/// Bases have ids: `tabletop.bases` gives them, a loss names them and the
/// other bases stay where they stood, a formation change closes up, and a
/// trace remembers where bases stood.
#[test]
fn tabletop_bases_have_ids_and_traces_remember_them() {
    let h = Host::new(Default::default()).unwrap();
    h.load_scenario(&write("good.yaml", GOOD), &ScenarioOverrides::default()).unwrap();
    let out = h
        .exec(
            "local a = world:unit('a1')\n\
             local before = tabletop.bases(a)\n\
             local ids = {}\n\
             for _, b in ipairs(before) do table.insert(ids, b.id) end\n\
             assert(table.concat(ids, ',') == '1,2,3,4', table.concat(ids, ','))\n\
             tabletop.trace(a, 'fired_upon')\n\
             tabletop.trace(a, 'lost', {2})\n\
             local taken, alive = world:hit(a, {2}, 'fire')\n\
             assert(taken == 1 and alive and a.strength == 3)\n\
             local after = tabletop.bases(a)\n\
             assert(#after == 3 and after[2].id == 3 and after[2].x == before[3].x and after[2].y == before[3].y)\n\
             assert(math.abs(tabletop.footprint(a).width - 16) < 1e-9, 'a gap in the middle')\n\
             world:hit(a, 1)\n\
             assert(tabletop.bases(a)[2].id == 3 and #tabletop.bases(a) == 2)\n\
             assert(math.abs(tabletop.footprint(a).width - 12) < 1e-9, 'the end base gone')\n\
             local ok, e = pcall(world.hit, world, a, {2})\n\
             assert(not ok and string.find(tostring(e), 'has no base 2'), tostring(e))\n\
             tabletop.set_formation(a, 'line')\n\
             local closed = tabletop.bases(a)\n\
             assert(closed[1].id == 1 and closed[2].id == 3 and closed[1].x ~= before[1].x)\n\
             local t = tabletop.traces('lost')\n\
             assert(#t == 1 and t[1].unit == a and t[1].label == 'lost' and t[1].bases[1].id == 2)\n\
             assert(t[1].bases[1].x == before[2].x and tabletop.distance(t[1].bases[1], before[2]) == 0)\n\
             assert(#tabletop.traces() == 2 and #tabletop.traces(nil, world:unit('f1')) == 0)\n\
             tabletop.clear_traces('lost')\n\
             assert(#tabletop.traces() == 1 and tabletop.traces()[1].label == 'fired_upon' and #tabletop.traces()[1].bases == 4)\n\
             a.strength = 4\n\
             local back = {}\n\
             for _, b in ipairs(tabletop.bases(a)) do table.insert(back, b.id) end\n\
             return table.concat(back, ',')",
            "bases.lua",
        )
        .unwrap();
    assert_eq!(format!("{:?}", out[0]), "String(\"1,3,2,4\")");
}

/// `u.pos` of a tabletop unit is read-only, and always where the unit is
/// now: the fast field read hands out one kept table per unit while it
/// stands still, a new one once it has moved (or the world was loaded
/// again), and an older table keeps the place it was read at. The same with
/// and without fast paths.
#[test]
fn a_units_pos_is_read_only_and_follows_the_unit() {
    for no_fast_paths in [false, true] {
        let h = Host::new(HostOptions { no_fast_paths, ..Default::default() }).unwrap();
        h.load_scenario(&write("pos.yaml", GOOD), &ScenarioOverrides::default()).unwrap();
        let script = "local f1 = world:unit('f1')
            local p = f1.pos
            local again = f1.pos
            local ok, err = pcall(function() p.x = 5 end)
            world:place(f1, { x = 30, y = 25 })
            local q = f1.pos
            world:move(f1, { x = 30, y = 35 })
            local m = f1.pos
            world:place(f1, { x = 20, y = 20 })
            local r = f1.pos
            return string.format('%g,%g %g,%g %g,%g %g,%g %g,%g %s %s',
              p.x, p.y, again.x, again.y, q.x, q.y, m.x, m.y, r.x, r.y, tostring(ok), tostring(err))";
        let out = h.exec(script, "pos.lua").unwrap();
        let text = out.front().and_then(|v| v.to_string().ok()).unwrap();
        assert!(text.starts_with("20,20 20,20 30,25 30,35 20,20 false "), "{no_fast_paths}: {text}");
        assert!(text.contains("readonly"), "{no_fast_paths}: {text}");
        // The same slot's unit after loading the world again, elsewhere.
        h.load_scenario(
            &write("pos2.yaml", &GOOD.replace("at: [20, 20]", "at: [40, 30]")),
            &ScenarioOverrides::default(),
        )
        .unwrap();
        let out = h.exec("local p = world:unit('f1').pos return p.x .. ',' .. p.y", "pos.lua").unwrap();
        assert_eq!(out.front().and_then(|v| v.to_string().ok()).as_deref(), Some("40,30"), "{no_fast_paths}");
    }
}

/// Every answer the tabletop builds is a fresh table of its own, though
/// the core copies it from a kept template (`raw::tabletop::answer::Form`):
/// a script that changes one (a field set, one added, one removed) changes
/// neither the next answer nor the template behind it; and its keys come in
/// the order of the same table written as a constructor, so `pairs` walks it
/// as it walked a table built key by key. With and without fast paths.
#[test]
fn fresh_answers_are_each_their_own_table() {
    for no_fast_paths in [false, true] {
        let h = Host::new(HostOptions { no_fast_paths, ..Default::default() }).unwrap();
        h.load_scenario(&write("fresh.yaml", GOOD), &ScenarioOverrides::default()).unwrap();
        let script = r#"
            local f1, a1 = world:unit('f1'), world:unit('a1')
            local function keys(t)
              local out = {}
              for k in pairs(t) do table.insert(out, k) end
              return table.concat(out, ' ')
            end
            local calls = {
              { 'point', function() return tabletop.point(3, 4) end, { x = 0, y = 0 } },
              { 'travel', function() return tabletop.travel(tabletop.point(3, 4), 90, 2) end, { x = 0, y = 0 } },
              { 'footprint', function() return tabletop.footprint(f1) end,
                { x = 0, y = 0, facing = 0, width = 0, depth = 0 } },
              { 'arc', function() return tabletop.arc_of_fire(a1, 45) end,
                { left = 0, right = 0, bearing = 0, angle = 0 } },
              { 'line', function() return tabletop.centre_line(a1, 90, 40) end, { kind = 0, from = 0, to = 0 } },
              { 'zone', function() return tabletop.frontage_zone(a1, 90, 40) end,
                { kind = 0, from = 0, bearing = 0, width = 0, length = 0 } },
              { 'row', function() return tabletop.through(tabletop.centre_line(a1, 270, 80))[1] end,
                { unit = 0, base = 0, from = 0, to = 0, amount = 0 } },
            }
            local out = {}
            for _, c in ipairs(calls) do
              local name, call, shape = c[1], c[2], c[3]
              local a = call()
              local before = keys(a)
              local first = {}
              for k, v in pairs(a) do first[k] = v end
              for k in pairs(shape) do a[k] = 'changed' end
              a.extra = true
              local b = call()
              local same = true
              for k, v in pairs(first) do
                if b[k] ~= v and type(v) ~= 'table' then same = false end
              end
              a.x, a.kind, a.unit = nil, nil, nil
              local c2 = call()
              table.insert(out, string.format('%s %s %s %s %s %s', name, tostring(same), tostring(rawequal(a, b)),
                tostring(b.extra), tostring(before == keys(shape)), tostring(keys(c2) == before)))
            end
            return table.concat(out, '; ')"#;
        let out = h.exec(script, "fresh.lua").unwrap();
        let text = out.front().and_then(|v| v.to_string().ok()).unwrap();
        for name in ["point", "travel", "footprint", "arc", "line", "zone", "row"] {
            assert!(text.contains(&format!("{name} true false nil true true")), "{no_fast_paths}:\n{text}");
        }
    }
}

/// A unit placed off the table is refused, as an off-board hex is, and
/// stays where it was; the table's edges are on it.
#[test]
fn a_unit_placed_off_the_table_is_refused() {
    let h = Host::new(Default::default()).unwrap();
    h.load_scenario(&write("place.yaml", GOOD), &ScenarioOverrides::default()).unwrap();
    for (x, y) in [(-1.0, 1.0), (1.0, -0.5), (100.5, 30.0), (50.0, 61.0), (1e300, 1.0)] {
        let e = h.exec(&format!("world:place('f1', {{x = {x}, y = {y}}})"), "place.lua").unwrap_err();
        let text = e.to_string();
        assert!(text.contains("is off the table (x from 0 to 100, y from 0 to 60 cm)"), "({x}, {y}): {text}");
        let at = h.exec("local p = world:unit('f1').pos; return p.x, p.y", "at.lua").unwrap();
        let at: Vec<String> = at.iter().map(|v| format!("{v:?}")).collect();
        assert_eq!(at.join(" "), "Integer(20) Integer(20)", "({x}, {y}): the unit stays where it was");
    }
    for (x, y) in [(0.0, 0.0), (100.0, 60.0), (55.5, 12.0)] {
        h.exec(&format!("world:place('f1', {{x = {x}, y = {y}}})"), "place.lua").unwrap();
    }
    // On a hex map a point is no place.
    let hexes = GOOD
        .replace("{ width: 100, height: 60 }", "{ cols: 8, rows: 6 }")
        .replace("areas:\n  - { kind: woods, points: [[10, 10], [30, 10], [30, 30], [10, 30]], name: Bois }\n  - { kind: hill, points: [[50, 40], [90, 40], [90, 60]] }\n", "")
        .replace("at: [20, 20], facing: 270, formation: column", "hex: [1, 1]")
        .replace("at: [80, 45], facing: 90", "hex: [2, 2]");
    h.load_scenario(&write("hexes.yaml", &hexes), &ScenarioOverrides::default()).unwrap();
    let e = h.exec("world:place('f1', {x = 1, y = 1})", "place.lua").unwrap_err().to_string();
    assert!(e.contains("this battlefield is a hex map, so a unit goes on a hex"), "{e}");
}

/// The world keeps each unit's laid-out bases between calls (and answers
/// built from them): a script that moves, turns, changes formation and loses
/// bases between its queries must get the answers a fresh world gives for
/// the unit where it is now, with the fast paths and without.
#[test]
fn tabletop_answers_follow_a_unit_that_moves_turns_and_loses_bases() {
    const ASK: &str = "local f1, a1 = world:unit('f1'), world:unit('a1')\n\
        local out = {}\n\
        local function put(x) table.insert(out, string.format('%.6f', x)) end\n\
        for _, b in ipairs(tabletop.bases(f1)) do put(b.id) put(b.x) put(b.y) put(b.facing) end\n\
        local e = tabletop.edges(f1).front\n\
        put(e.a.x) put(e.a.y) put(e.b.x) put(e.b.y)\n\
        for _, c in ipairs(tabletop.cover(f1)) do put(c.fraction) end\n\
        put(tabletop.distance(f1, a1)) put(tabletop.bearing(f1, a1)) put(tabletop.bearing(a1, tabletop.bases(f1)[1]))\n\
        put(tabletop.area_in_arc(tabletop.arc_of_fire(a1, 90), f1))\n\
        local fp = tabletop.footprint(f1)\n\
        put(fp.x) put(fp.y) put(fp.width) put(fp.depth)\n\
        put(f1.facing) put(f1.pos.x) put(f1.pos.y)\n\
        for _, c in ipairs(tabletop.through({ from = a1.pos, to = tabletop.point(20, 20) })) do put(c.base) put(c.from) end\n\
        return table.concat(out, ' ')\n";
    // Each change, as the rules make it between queries.
    let changes = [
        "world:place(world:unit('f1'), { x = 40, y = 30, facing = 270 })",
        "world:unit('f1').facing = 45",
        "world:hit(world:unit('f1'), {1}, 'test')",
        "tabletop.set_formation(world:unit('f1'), 'line')",
        "world:hit(world:unit('f1'), 1, 'test')",
    ];
    for no_fast_paths in [false, true] {
        let host = || {
            let h = Host::new(sandtable::lua::HostOptions { no_fast_paths, ..Default::default() }).unwrap();
            h.load_scenario(&write("good.yaml", GOOD), &ScenarioOverrides::default()).unwrap();
            h
        };
        let answer = |h: &Host| format!("{:?}", h.exec(ASK, "ask.lua").unwrap());
        // One world asks before and after every change; for each change a
        // fresh world makes the changes so far and asks once.
        let kept = host();
        let mut before = answer(&kept);
        for (n, change) in changes.iter().enumerate() {
            kept.exec(change, "change.lua").unwrap();
            let now = answer(&kept);
            let fresh = host();
            for c in &changes[..=n] {
                fresh.exec(c, "change.lua").unwrap();
            }
            assert_eq!(now, answer(&fresh), "after `{change}` (fast paths off: {no_fast_paths})");
            assert_ne!(now, before, "`{change}` changes the answers");
            before = now;
        }
    }
}

/// The fast paths keep the answers of pure queries (distances, arcs, what a
/// line or zone passes through, the terrain it crosses) between calls: each
/// must follow every change a script or a scenario makes between two
/// identical queries (a move, a turn, a lost base, a new formation, a unit
/// eliminated, other terrain) as a fresh world answers it, and a rewind
/// must give the first answers again.
#[test]
fn kept_query_answers_follow_every_change_and_the_rewind() {
    const SCENE: &str = "ruleset: RULESET\nmap: { width: 100, height: 60 }\nsides:\n  french: {}\n  austrian: {}\nareas:\n  - { kind: woods, points: [WOODS] }\nunits:\n  - { id: f1, side: french, type: line_infantry, at: [20, 20], facing: 270, formation: column }\n  - { id: a1, side: austrian, type: line_infantry, at: [80, 45], facing: 200 }\n  - { id: a2, side: austrian, type: line_infantry, at: [50, 32.5], facing: 20 }\n";
    let scene = |woods: &str| write("kept.yaml", &SCENE.replace("WOODS", woods));
    let (here, there) = ("[10, 10], [30, 10], [30, 30], [10, 30]", "[25, 15], [45, 15], [45, 35], [25, 35]");
    const ASK: &str = "local f1, a1 = world:unit('f1'), world:unit('a1')\n\
        local out = {}\n\
        local function put(x) table.insert(out, type(x) == 'number' and string.format('%.6f', x) or x) end\n\
        local arc = tabletop.arc_of_fire(a1, 120)\n\
        put(tabletop.distance(f1, a1)) put(tabletop.distance(a1, tabletop.bases(f1)[1]))\n\
        put(tabletop.area_in_arc(arc, f1)) put(tabletop.frontage_in_arc(arc, f1))\n\
        local bearing = tabletop.bearing(a1, f1)\n\
        for _, c in ipairs(tabletop.through(tabletop.frontage_zone(a1, bearing, 100), { exclude = a1 })) do\n\
          put(c.unit.id) put(c.base) put(c.from) put(c.amount)\n\
        end\n\
        for _, c in ipairs(tabletop.through(tabletop.centre_line(a1, bearing, 100))) do put(c.unit.id) put(c.to) end\n\
        for _, a in ipairs(tabletop.areas_crossed({ from = a1.pos, to = f1.pos })) do put(a.from) put(a.amount) end\n\
        return table.concat(out, ' ')\n";
    let changes = [
        "world:place(world:unit('f1'), { x = 25, y = 22, facing = 270 })",
        "world:unit('f1').facing = 45",
        "world:hit(world:unit('f1'), {1}, 'test')",
        "tabletop.set_formation(world:unit('f1'), 'line')",
        "world:eliminate(world:unit('a2'))",
    ];
    let answer = |h: &Host| format!("{:?}", h.exec(ASK, "ask.lua").unwrap());
    for no_fast_paths in [false, true] {
        let host = |woods: &str| {
            let h = Host::new(sandtable::lua::HostOptions { no_fast_paths, ..Default::default() }).unwrap();
            h.load_scenario(&scene(woods), &ScenarioOverrides::default()).unwrap();
            h
        };
        let kept = host(here);
        let start = kept.checkpoint().unwrap();
        // The first ask makes the units' handles (`through` hands a unit
        // without one to the full function); the second runs on the fast paths.
        let first = answer(&kept);
        let misses = sandtable::lua::raw::tabletop::misses();
        assert_eq!(first, answer(&kept), "asked again");
        if !no_fast_paths {
            assert_eq!(sandtable::lua::raw::tabletop::misses(), misses, "every call on its fast path");
        }
        let mut before = first.clone();
        for (n, change) in changes.iter().enumerate() {
            kept.exec(change, "change.lua").unwrap();
            let now = answer(&kept);
            let fresh = host(here);
            for c in &changes[..=n] {
                fresh.exec(c, "change.lua").unwrap();
            }
            assert_eq!(now, answer(&fresh), "after `{change}` (fast paths off: {no_fast_paths})");
            assert_ne!(now, before, "`{change}` changes the answers");
            before = now;
        }
        kept.rewind(&start).unwrap();
        assert_eq!(answer(&kept), first, "rewound (fast paths off: {no_fast_paths})");
        // Other terrain under the same units.
        kept.load_scenario(&scene(there), &ScenarioOverrides::default()).unwrap();
        let moved = answer(&kept);
        assert_eq!(moved, answer(&host(there)), "other terrain (fast paths off: {no_fast_paths})");
        assert_ne!(moved, first, "the woods moved");
    }
}
