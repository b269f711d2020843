-- [3.3] Fire point modifiers: saved fire, enfilade, damaged, disordered+.
-- [3.4] Die modifiers: deep target, artillery leader, cavalry, cover,
-- passing fire (see artillery_targets_spec), skirmishers, elevation.

scenario("republique/open_field.yaml")

local units = require("spec/support/units")
local add = units.add
local modifier = units.modifier
local duel = units.duel

describe("fire point modifiers", function()
  -- The document's enfilade figure: units A and B face forward (north) and
  -- show their right flanks to a battery off to the east.
  it("doubles fire from more than half inside the enfilade arc of the nearest edge (worked example)", function()
    local a = add("A", "austrian", "line_infantry", 50, 40, 270)
    add("B", "austrian", "line_infantry", 50, 30, 270)
    local b = add("b", "french", "foot_battery", 75, 40, 180)
    artillery.begin_phase()
    expect((tabletop.edge_towards(a, b))):to_be("right")
    local enf = artillery.enfilade(b, a)
    expect(enf):to_be(true)
    dice.force("d10", { 1 })
    local rec = artillery.fire{ battery = "b" }
    expect(rec.target):to_be("A")
    expect(rec.points):to_be(6) -- close range 3, doubled
  end)

  it("does not double with exactly half of the frontage inside", function()
    local a = add("A", "austrian", "line_infantry", 50, 40, 270)
    -- the battery stands behind A's middle, so the arc is flush with A's
    -- rear edge: its rear ray crosses x = 73.5 at y = 40.75 + 15.5 tan 30
    local edge_y = 40.75 + 15.5 * math.tan(math.rad(30))
    local b = add("b", "french", "foot_battery", 75, edge_y, 180)
    local arc = tabletop.edge_arc(a, "right", 60)
    expect(tabletop.frontage_in_arc(arc, b)):to_be_close(0.5, 1e-6)
    expect((artillery.enfilade(b, a))):to_be(false)
  end)

  it("never enfilades from straight behind the target: the arc is on the flank", function()
    local a = add("A", "austrian", "line_infantry", 50, 40, 270)
    local b = add("b", "french", "foot_battery", 52, 55, 270)
    expect((tabletop.edge_towards(a, b))):to_be("rear")
    expect((artillery.enfilade(b, a))):to_be(false)
  end)

  it("never enfilades from the front; squares always; full cover never", function()
    local b, a = duel()
    expect((artillery.enfilade(b, a))):to_be(false)
    tabletop.set_formation(a, "square")
    expect((artillery.enfilade(b, a))):to_be(true)
    local w = add("w", "austrian", "line_infantry", 105, 15, 90, { formation = "square" })
    expect((artillery.enfilade(b, w))):to_be(false)
  end)

  it("doubles the fire points at a square facing the battery", function()
    local _, a = duel()
    tabletop.set_formation(a, "square")
    dice.force("d10", { 1 })
    local rec = artillery.fire{ battery = "b" }
    expect(rec.points):to_be(8) -- canister 4, x2
    expect(rec.notes[1]):to_contain("enfilade x2 (square)")
  end)

  it("halves for damage and for disordered or rattled, cumulatively with saved fire", function()
    local b = duel()
    b.damaged = true
    dice.force("d10", { 1 })
    expect(artillery.fire{ battery = "b" }.points):to_be(2)
    b.damaged = nil
    b.morale = "rattled"
    expect(units.fire("b", 1).points):to_be(2)
    artillery.begin_phase()
    b.morale = nil
    artillery.save_fire(b)
    artillery.begin_phase()
    b.damaged = true
    dice.force("d10", { 1 })
    expect(artillery.fire{ battery = "b" }.points):to_be(4) -- x2 /2
  end)
end)

describe("die modifiers", function()
  it("adds 1 when the centre of fire crosses 3 combat bases in one bracket (deep target)", function()
    add("b", "french", "foot_battery", 60, 60, 270)
    add("x1", "austrian", "line_infantry", 60, 49, 90, nil, 1)
    add("x2", "austrian", "line_infantry", 60, 46, 90, nil, 1)
    local x3 = add("x3", "austrian", "line_infantry", 60, 43, 90, nil, 1)
    local rec = units.fire("b", 1)
    expect(rec.target):to_be("x1")
    expect(modifier(rec, "deep target")):to_be(1)
    -- the third base in the next bracket: no longer deep
    artillery.begin_phase()
    world:place(x3, { x = 60, y = 40, facing = 90 })
    dice.force("d10", { 1 })
    expect(modifier(artillery.fire{ battery = "b" }, "deep target")):to_be(0)
  end)

  it("counts a base the centre of fire only clips at a corner: half a centimetre of it is passed through", function()
    add("b", "french", "foot_battery", 60, 60, 270)
    add("x1", "austrian", "line_infantry", 60, 49, 90, nil, 1)
    add("x2", "austrian", "line_infantry", 60, 46, 90, nil, 1)
    -- turned 45 degrees: its left corner, 2.75 x sqrt(1/2) cm left of its
    -- centre, pokes 0.25 cm across the centre of fire (x 60): a 0.5 cm chord
    add("x3", "austrian", "line_infantry", 60 + 2.75 * math.sqrt(0.5) - 0.25, 43, 45, nil, 1)
    local rec = units.fire("b", 1)
    expect(rec.target):to_be("x1")
    expect(modifier(rec, "deep target")):to_be(1)
  end)

  it("gives no deep target bonus against targets in woods, and takes 2 for heavy cover", function()
    add("b", "french", "foot_battery", 105, 45, 270)
    add("x1", "austrian", "line_infantry", 105, 29, 90, nil, 1)
    add("x2", "austrian", "line_infantry", 105, 26.5, 90, nil, 1)
    add("x3", "austrian", "line_infantry", 105, 24, 90, nil, 1)
    local rec = units.fire("b", 1)
    expect(rec.target):to_be("x1")
    expect(modifier(rec, "deep target")):to_be(0)
    expect(modifier(rec, "heavy cover")):to_be(-2)
  end)

  it("gives no deep target bonus beyond an obstacle such as a river", function()
    add("b", "french", "foot_battery", 7.5, 57, 270)
    add("x1", "austrian", "line_infantry", 7.5, 46, 90, nil, 1)
    add("x2", "austrian", "line_infantry", 7.5, 43, 90, nil, 1)
    add("x3", "austrian", "line_infantry", 7.5, 40, 90, nil, 1)
    artillery.begin_phase()
    local crossed = tabletop.areas_crossed(tabletop.centre_line(world:unit("b"), 270, 20))
    expect(crossed[1].kind):to_be("river")
    dice.force("d10", { 1 })
    local rec = artillery.fire{ battery = "b" }
    expect(rec.target):to_be("x1")
    expect(modifier(rec, "deep target")):to_be(0)
  end)

  it("takes 1 for solid cover (a farm)", function()
    add("b", "french", "foot_battery", 105, 40, 90)
    add("t", "austrian", "line_infantry", 105, 52, 270, nil, 1)
    expect(modifier(units.fire("b", 1), "solid cover")):to_be(-1)
  end)

  it("fires without cover modifiers at the uncovered bases its centre of fire is closest to", function()
    add("b", "french", "foot_battery", 86, 40, 90)
    add("t", "austrian", "line_infantry", 90, 52, 270) -- x 82..98: half in the farm (x >= 90)
    artillery.begin_phase()
    dice.force("d10", { 1 })
    answers{ answers.default } -- the battery may; by default it does
    local rec = artillery.fire{ battery = "b" }
    expect(modifier(rec, "cover")):to_be(0)
    expect(string.find(table.concat(rec.notes, "; "), "covered bases cannot be killed", 1, true) ~= nil):to_be(true)
  end)

  it("cannot spot units more than half an inch inside cover", function()
    local b = add("b", "french", "foot_battery", 105, 45, 270)
    add("deep", "austrian", "line_infantry", 105, 20, 90, nil, 1)
    expect(#artillery.candidates(b)):to_be(0)
  end)

  it("adds 1 for a good artillery leader attached (massed batteries must touch)", function()
    local b = duel()
    local l = add("l", "french", "general", 60, 63, 270, { artillery_officer = true, rating = 1, attached_to = "b" })
    dice.force("d10", { 1 })
    expect(modifier(artillery.fire{ battery = "b" }, "artillery leader")):to_be(1)
    artillery.begin_phase()
    l.rating = 0
    dice.force("d10", { 1 })
    expect(modifier(artillery.fire{ battery = "b" }, "artillery leader")):to_be(0)
    l.rating = 2
    add("far", "french", "foot_battery", 75, 60, 270)
    expect(artillery.leader_for({ b, world:unit("far") })):to_be_nil()
    add("next", "french", "foot_battery", 55, 60, 270)
    expect(artillery.leader_for({ b, world:unit("next") })):to_be(l)
  end)

  it("takes 1 against cavalry", function()
    local _, c = duel("cavalry")
    dice.force("d10", { 1 })
    expect(modifier(artillery.fire{ battery = "b" }, "cavalry")):to_be(-1)
  end)

  it("reads the chart with the modified die: cavalry at canister, die 9 - 1 = 8", function()
    local _, c = duel("cavalry")
    dice.force("d10", { 9 })
    local rec = artillery.fire{ battery = "b" }
    expect(rec.points):to_be(4)
    expect(rec.modified):to_be(8)
    expect(rec.result):to_be("1M1B") -- die 9 unmodified would read 2M1B
    expect(c.strength):to_be(1)
    expect(c.morale):to_be("disordered")
  end)

  it("uses the modifiers best for the battery against a compound target", function()
    -- a one-base cavalry unit in front, two bases of infantry in tandem behind:
    -- the target is mostly infantry, so no cavalry modifier
    add("b", "french", "heavy_battery", 60, 60, 270)
    add("cav", "austrian", "cavalry", 60, 46, 90, nil, 1)
    local inf = add("inf", "austrian", "line_infantry", 60, 42, 90, nil, 2)
    local rec = units.fire("b", 1)
    expect(rec.target):to_be("cav")
    expect(rec.tandem[1]):to_be("inf")
    expect(modifier(rec, "cavalry")):to_be(0)
    -- the same with cavalry behind: over half the bases are cavalry
    artillery.begin_phase()
    world:eliminate(inf)
    add("cav2", "austrian", "cavalry", 60, 41.5, 90, nil, 2)
    dice.force("d10", { 1 })
    expect(modifier(artillery.fire{ battery = "b" }, "cavalry")):to_be(-1)
  end)

  it("takes 2 against skirmish markers and fully deployed light regiments", function()
    duel("skirmishers", { parent = "p" })
    dice.force("d10", { 1 })
    expect(modifier(artillery.fire{ battery = "b" }, "skirmishers")):to_be(-2)
  end)

  it("takes 2 against a light regiment with one skirmisher out per base", function()
    local _, a = duel("light_infantry", { skirmishers_out = 3 })
    expect(a.strength):to_be(3)
    dice.force("d10", { 1 })
    expect(modifier(artillery.fire{ battery = "b" }, "skirmishers")):to_be(-2)
  end)

  it("counts a light regiment's markers on the table (their parent) when skirmishers_out is not given", function()
    -- three markers of the three-base regiment a, out on the flank beyond
    -- the battery's arc: one skirmisher per combat base deployed
    local _, a = duel("light_infantry")
    for i = 1, 3 do
      add("sk" .. i, "austrian", "skirmishers", 90 + 3 * i, 50, 90, { parent = "a" })
    end
    add("other", "austrian", "skirmishers", 90, 40, 90, { parent = "elsewhere" })
    expect(a.skirmishers_out):to_be_nil()
    dice.force("d10", { 1 })
    expect(modifier(artillery.fire{ battery = "b" }, "skirmishers")):to_be(-2)
    -- a marker gone: two out for three bases is not fully deployed
    world:eliminate(world:unit("sk3"))
    artillery.begin_phase()
    dice.force("d10", { 1 })
    expect(modifier(artillery.fire{ battery = "b" }, "skirmishers")):to_be(0)
    -- skirmishers_out, when given, is the count
    a.skirmishers_out = 3
    artillery.begin_phase()
    dice.force("d10", { 1 })
    expect(modifier(artillery.fire{ battery = "b" }, "skirmishers")):to_be(-2)
    -- a line regiment is no light infantry, whatever markers name it
    world:eliminate(a)
    add("line", "austrian", "line_infantry", 60, 50, 90, nil, 1)
    add("sk4", "austrian", "skirmishers", 90, 45, 90, { parent = "line" })
    artillery.begin_phase()
    dice.force("d10", { 1 })
    local rec = artillery.fire{ battery = "b" }
    expect(rec.target):to_be("line")
    expect(modifier(rec, "skirmishers")):to_be(0)
  end)

  it("takes 1 for each full elevation level between battery and target", function()
    add("b", "french", "foot_battery", 20, 70, 270) -- on the hill, level 1
    add("t", "austrian", "line_infantry", 20, 55, 90, nil, 1)
    artillery.begin_phase()
    expect(tabletop.level(world:unit("b"))):to_be(1)
    dice.force("d10", { 1 })
    expect(modifier(artillery.fire{ battery = "b" }, "elevation")):to_be(-1)
  end)
end)

describe("fire point modifiers, more", function()
  it("says how much of the frontage lies in the enfilade arc (worked example: all of it)", function()
    local a = add("A", "austrian", "line_infantry", 50, 40, 270)
    local b = add("b", "french", "foot_battery", 75, 40, 180)
    local enf, why = artillery.enfilade(b, a)
    expect(enf):to_be(true)
    expect(why):to_be("100% of its frontage in the right enfilade arc")
  end)

  it("never enfilades a unit exactly half in full cover, though the same unit in the open is", function()
    -- one base facing east across the wood's edge (x 90): half of it inside
    local h = add("h", "austrian", "line_infantry", 90, 20, 0, nil, 1)
    local b = add("b", "french", "foot_battery", 90, 45, 270) -- off its right flank
    expect((tabletop.edge_towards(h, b))):to_be("right")
    expect(artillery.enfilade(b, h)):to_be(false)
    world:place(h, { x = 80, y = 20, facing = 0 })
    world:place(b, { x = 80, y = 45, facing = 270 })
    expect((artillery.enfilade(b, h))):to_be(true)
  end)
end)

describe("die modifiers, more", function()
  it("spots a unit 1 cm inside cover but not one 1.5 cm inside (half an inch is 1.27 cm)", function()
    local b = add("b", "french", "foot_battery", 105, 45, 270)
    -- the wood's edge is y = 30; a base 1.5 deep whose near edge is 1 cm inside
    local t = add("t", "austrian", "line_infantry", 105, 28.25, 90, nil, 1)
    expect(#artillery.candidates(b)):to_be(1)
    world:place(t, { x = 105, y = 27.75, facing = 90 })
    expect(#artillery.candidates(b)):to_be(0)
  end)

  it("counts only combat bases for a deep target: a battery in the line of fire is not one", function()
    add("b", "french", "foot_battery", 60, 60, 270)
    add("x1", "austrian", "line_infantry", 60, 49, 90, nil, 1)
    add("x2", "austrian", "line_infantry", 60, 46, 90, nil, 1)
    add("gun", "austrian", "foot_battery", 60, 42, 90)
    local rec = units.fire("b", 1)
    expect(rec.target):to_be("x1")
    expect(modifier(rec, "deep target")):to_be(0)
  end)

  it("gives no deep target bonus when one of the bases in the bracket stands in a farm", function()
    -- a battery north of the farm (y >= 50) firing south at three one-base units
    add("b", "french", "foot_battery", 92, 33, 90)
    add("x1", "austrian", "line_infantry", 92, 44, 270, nil, 1)
    add("x2", "austrian", "line_infantry", 92, 47, 270, nil, 1)
    local x3 = add("x3", "austrian", "line_infantry", 92, 49, 270, nil, 1)
    local rec = units.fire("b", 1)
    expect(rec.target):to_be("x1")
    expect(modifier(rec, "deep target")):to_be(1)
    -- the third base moved back into the farm, still in the close bracket
    artillery.begin_phase()
    world:place(x3, { x = 92, y = 51, facing = 270 })
    dice.force("d10", { 1 })
    rec = artillery.fire{ battery = "b" }
    expect(rec.target):to_be("x1")
    expect(modifier(rec, "deep target")):to_be(0)
  end)

  it("counts the deep target's other units in a compound target: infantry before cavalry takes no cavalry modifier", function()
    -- one base of infantry in front, two one-base cavalry units behind it on
    -- the centre of fire, more than 5 cm back (not tandem): 2 of 3 bases
    -- are cavalry, but the modifiers most favourable to the battery are
    -- those against the infantry
    add("b", "french", "heavy_battery", 60, 60, 270)
    add("inf", "austrian", "line_infantry", 60, 49, 90, nil, 1)
    add("c1", "austrian", "cavalry", 60, 43, 90, nil, 1)
    add("c2", "austrian", "cavalry", 60, 40, 90, nil, 1)
    local rec = units.fire("b", 1)
    expect(rec.target):to_be("inf")
    expect(#rec.tandem):to_be(0)
    expect(modifier(rec, "deep target")):to_be(1)
    expect(modifier(rec, "cavalry")):to_be(0)
  end)

  it("counts a unit that is both tandem and deep once in a compound target", function()
    -- cavalry in front, infantry in tandem 3 cm behind, a third base of
    -- cavalry further back: the infantry makes it a compound target, so no
    -- cavalry modifier
    add("b", "french", "heavy_battery", 60, 60, 270)
    add("c1", "austrian", "cavalry", 60, 49, 90, nil, 1)
    add("inf", "austrian", "line_infantry", 60, 45, 90, nil, 1)
    add("c2", "austrian", "cavalry", 60, 41, 90, nil, 1)
    local rec = units.fire("b", 1)
    expect(rec.target):to_be("c1")
    expect(rec.tandem):to_equal({ "inf" })
    expect(modifier(rec, "deep target")):to_be(1)
    expect(modifier(rec, "cavalry")):to_be(0)
  end)

  it("takes 1 against a lone cavalry base, but not when exactly half the target is cavalry", function()
    local _, c = duel("cavalry", nil, 1)
    dice.force("d10", { 1 })
    expect(modifier(artillery.fire{ battery = "b" }, "cavalry")):to_be(-1)
    -- one cavalry base in front, one infantry base in tandem behind it
    artillery.begin_phase()
    world:place(c, { x = 60, y = 48, facing = 90 })
    add("inf", "austrian", "line_infantry", 60, 45, 90, nil, 1)
    dice.force("d10", { 1 })
    local rec = artillery.fire{ battery = "b" }
    expect(rec.tandem):to_equal({ "inf" })
    expect(modifier(rec, "cavalry")):to_be(0)
  end)

  it("does not take 2 for a light regiment without all its skirmishers out", function()
    duel("light_infantry", { skirmishers_out = 2 })
    dice.force("d10", { 1 })
    expect(modifier(artillery.fire{ battery = "b" }, "skirmishers")):to_be(0)
    artillery.begin_phase()
    world:eliminate(world:unit("a"))
    add("one", "austrian", "light_infantry", 60, 50, 90, nil, 1) -- one base, none out
    dice.force("d10", { 1 })
    expect(modifier(artillery.fire{ battery = "b" }, "skirmishers")):to_be(0)
  end)

  it("takes nothing for elevation when battery and target stand on the same hill", function()
    add("b", "french", "foot_battery", 20, 75, 270)
    local t = add("t", "austrian", "line_infantry", 20, 64, 90, nil, 1)
    artillery.begin_phase()
    expect(tabletop.level(t)):to_be(1)
    dice.force("d10", { 1 })
    expect(modifier(artillery.fire{ battery = "b" }, "elevation")):to_be(0)
  end)

  it("gives no cover modifier when less than half of the target is in cover", function()
    -- three bases, x 81..93: the last base (89..93) a quarter in the farm,
    -- and the battery's centre of fire on it
    add("b", "french", "foot_battery", 92, 40, 90)
    add("t", "austrian", "line_infantry", 87, 52, 270, nil, 3)
    expect(modifier(units.fire("b", 1), "cover")):to_be(0)
  end)

  it("kills only uncovered bases when it fires at them without the cover modifier", function()
    -- three bases: 86..90 in the open, 90..98 in the farm (2 of 3 covered).
    -- A heavy battery with saved fire at close range: 8 points, die 10: 3M2B;
    -- the two covered bases may not be killed, so only one base goes.
    local b = add("b", "french", "heavy_battery", 86, 40, 90)
    local t = add("t", "austrian", "line_infantry", 92, 52, 270, nil, 3)
    artillery.save_fire(b)
    artillery.begin_phase()
    dice.force("d10", { 10 })
    answers{ "uncovered" }
    local rec = artillery.fire{ battery = "b" }
    expect(modifier(rec, "cover")):to_be(0)
    expect(rec.result):to_be("3M2B")
    expect(rec.hits.t.bases):to_be(1)
    expect(t.strength):to_be(2)
  end)
end)

describe("a modified chance to hit", function()
  it("counts when only a die of 10 would reach the chart's first effect", function()
    -- 1 point at long range; -2 skirmishers, -1 firing down off the hill: a
    -- 10 reads 7, 1M; a leader beside the marker is at risk
    add("b", "french", "foot_battery", 20, 75, 270)
    add("s", "austrian", "skirmishers", 20, 40, 90, { parent = "x" })
    add("l", "austrian", "general", 24, 40, 90)
    local rec = units.fire("b", 1)
    expect(rec.points):to_be(1)
    expect(rec.die_modifier):to_be(-3)
    expect(rec.could_hit):to_be(true)
    expect(#leaders.at_risk()):to_be(1)
  end)

  it("counts a best result of a base hit as a chance to hit", function()
    local b = add("b", "french", "foot_battery", 60, 60, 270)
    add("a", "austrian", "line_infantry", 60, 35, 90) -- medium range: 2 points, a 10 reads 1M1B
    local rec = units.fire(b, 1)
    expect(rec.points):to_be(2)
    expect(rec.could_hit):to_be(true)
  end)
end)

describe("disordered or rattled at the start of the step", function()
  it("halves by the morale the battery began the phase with, not a hit taken since", function()
    -- e prolonged: b's hit lands at once and disorders it, but e began the
    -- phase in good order and fires at full points
    add("b", "french", "foot_battery", 60, 60, 270)
    local e = add("e", "austrian", "foot_battery", 60, 38, 90, { prolonged = true })
    artillery.begin_phase()
    dice.force("d10", { 5, 1 })
    artillery.fire{ battery = "b" } -- medium range, 2 points, die 5: 1M
    expect(e.morale):to_be("disordered")
    expect(artillery.fire{ battery = "e" }.points):to_be(2)
  end)

  it("halves passing fire by the morale the battery has when it fires", function()
    local b = add("b", "french", "foot_battery", 60, 60, 270, { morale = "disordered" })
    add("t", "austrian", "line_infantry", 60, 45, 0, nil, 2)
    artillery.end_phase()
    dice.force("d10", { 1 })
    local rec = artillery.passing_fire{ battery = b, target = "t", move_bearing = 0, in_arc_cm = 9 }
    expect(rec.notes[1]):to_contain("disordered /2")
  end)
end)

describe("enfilade at exactly half", function()
  it("does not double with exactly half the frontage inside (the arc's edge square across it)", function()
    -- a unit facing 30 degrees: its right-flank arc has a ray running
    -- straight down the table from the flank's front corner; a battery
    -- centred on that ray has exactly half its frontage inside
    local a = add("A", "austrian", "line_infantry", 50, 40, 30, nil, 1)
    local corner = tabletop.edges(a).right.a
    local b = add("b", "french", "foot_battery", corner.x, corner.y + 12, 270)
    expect((tabletop.edge_towards(a, b))):to_be("right")
    expect(tabletop.frontage_in_arc(tabletop.edge_arc(a, "right", 60), b)):to_be_close(0.5, 1e-12)
    expect((artillery.enfilade(b, a))):to_be(false)
  end)
end)

describe("a good artillery leader, more", function()
  -- three batteries side by side, touching
  local function line_of_guns(commands)
    local out = {}
    for i, x in ipairs({ 55, 60, 65 }) do
      out[i] = add("g" .. i, "french", "foot_battery", x, 60, 270, { command = commands[i] })
    end
    return out
  end

  it("needs the leader in the chain of command of half or more of the batteries", function()
    local g = line_of_guns({ "c1", "c2", "c3" })
    local l = add("l", "french", "general", 55, 63, 270,
      { artillery_officer = true, rating = 1, attached_to = "g1", command = "c1" })
    expect(artillery.leader_for({ g[1], g[2] })):to_be(l)        -- 1 of 2: half
    expect(artillery.leader_for({ g[1], g[2], g[3] })):to_be_nil() -- 1 of 3
    g[2].command = "c1"
    expect(artillery.leader_for({ g[1], g[2], g[3] })):to_be(l)  -- 2 of 3
    l.command = "c9"
    expect(artillery.leader_for({ g[1], g[2] })):to_be_nil()     -- 0 of 2
  end)

  it("counts a leader with no chain of command given as in every battery's", function()
    local g = line_of_guns({ "c1", "c2", "c3" })
    local l = add("l", "french", "general", 55, 63, 270, { artillery_officer = true, rating = 1, attached_to = "g1" })
    expect(artillery.leader_for({ g[1], g[2], g[3] })):to_be(l)
  end)

  it("must be attached to one of the firing batteries, rated, and an artillery officer", function()
    local g = line_of_guns({})
    local l = add("l", "french", "general", 55, 63, 270, { artillery_officer = true, rating = 1, attached_to = "elsewhere" })
    expect(artillery.leader_for({ g[1] })):to_be_nil()
    l.attached_to = "g1"
    expect(artillery.leader_for({ g[1] })):to_be(l)
    l.rating = nil
    expect(artillery.leader_for({ g[1] })):to_be_nil()
    l.rating = 1
    l.artillery_officer = nil
    expect(artillery.leader_for({ g[1] })):to_be_nil()
  end)
end)

-- [3.3] "Artillery with more than half of its frontage within the 60 degree
-- enfilade arc of an enemy target counts as firing from enfilade." "Note
-- the alignment ... of the arc to that edge of the unit nearest the
-- artillery battery. If the artillery battery were to the rear of the
-- units, the arc would be slid forward so as to be flush with the rear
-- edges. This is necessary due to the disparity between artillery base
-- frontage and infantry base depth." In every layout: A, one base facing up
-- the scene (x -2..2, y -0.75..0.75), a foot battery off its right flank
-- facing it.
describe("enfilade, in every layout", function()
  local half = 1 / math.sqrt(3) -- tan 30

  units.each_layout("does not double at exactly half the frontage, and does 0.01 cm further in", function(s)
    -- the arc's front ray leaves A's front-right corner (2, -0.75) 30
    -- degrees forward of square; 10 cm out it is at y -0.75 - 10 tan 30
    local a = s.add("A", "austrian", "line_infantry", 0, 0, 270, nil, 1)
    local y = -0.75 - 10 * half
    local b = s.add("b", "french", "foot_battery", 13.5, y, 180)
    local enf, _, arc = artillery.enfilade(b, a)
    expect(enf):to_be(false)
    expect(tabletop.frontage_in_arc(arc, b)):to_be_close(0.5, 1e-6)
    s.place(b, 13.5, y + 0.01, 180)
    expect((artillery.enfilade(b, a))):to_be(true)
    expect(units.fire(b, 1).points):to_be(6) -- close range 3, x2
  end)

  -- The arc's two ends are the points p and q of the scene (either way round).
  local function expect_arc_from(arc, p, q)
    local ends = { arc.left, arc.right }
    if tabletop.distance(ends[1], p) > tabletop.distance(ends[2], p) then
      ends = { arc.right, arc.left }
    end
    expect(tabletop.distance(ends[1], p)):to_be_close(0, 1e-9)
    expect(tabletop.distance(ends[2], q)):to_be_close(0, 1e-9)
  end

  units.each_layout("slides the flank arc forward, flush with the rear edges, for a battery to the rear", function(s)
    -- the battery's centre half a cm behind A's middle, 1 cm off its flank:
    -- the arc's base runs from A's rear-right corner (2, 0.75) 5 cm forward
    -- (the battery's frontage), and two thirds of the battery is inside
    local a = s.add("A", "austrian", "line_infantry", 0, 0, 270, nil, 1)
    local b = s.add("b", "french", "foot_battery", 4.5, 0.5, 180)
    local enf, why, arc = artillery.enfilade(b, a)
    expect(enf):to_be(true)
    expect(why):to_contain("67%")
    expect_arc_from(arc, s.at(2, 0.75), s.at(2, -4.25))
    -- the same battery half a cm ahead of the middle: flush with the front
    -- edges, its base from A's front-right corner 5 cm back
    s.place(b, 4.5, -0.5, 180)
    expect_arc_from(select(3, artillery.enfilade(b, a)), s.at(2, -0.75), s.at(2, 4.25))
    -- exactly level with the middle it is not "to the rear": flush with the front
    s.place(b, 4.5, 0, 180)
    expect_arc_from(select(3, artillery.enfilade(b, a)), s.at(2, -0.75), s.at(2, 4.25))
  end)

  units.each_layout("doubles from behind and to the side, inside the flank's arc slid back", function(s)
    -- the battery faces the way A faces, its front edge (y 0.8, x 1..6)
    -- 0.05 cm behind A's rear edge: its centre is further beyond A's rear
    -- edge (1.55 cm) than beyond its right flank (1.5 cm), so it is to the
    -- rear; the flank's arc slid flush with the rear edges holds x >= 2 +
    -- 0.05 tan 60 of its front edge: 78% of it
    local a = s.add("A", "austrian", "line_infantry", 0, 0, 270, nil, 1)
    local b = s.add("b", "french", "foot_battery", 3.5, 2.3, 270)
    expect((tabletop.edge_towards(a, b))):to_be("rear")
    local enf, why, arc = artillery.enfilade(b, a)
    expect(enf):to_be(true)
    expect(why):to_contain("78%")
    expect_arc_from(arc, s.at(2, 0.75), s.at(2, -4.25))
    local rec = units.fire(b, 1)
    expect(rec.target):to_be("A")
    expect(rec.points):to_be(8) -- canister range 4, doubled
  end)

  units.each_layout("never doubles from straight behind, nor from behind the flank outside the slid arc", function(s)
    local a = s.add("A", "austrian", "line_infantry", 0, 0, 270, nil, 1)
    local b = s.add("b", "french", "foot_battery", 0, 12, 270)      -- straight behind, facing A's rear
    expect((tabletop.edge_towards(a, b))):to_be("rear")
    expect((artillery.enfilade(b, a))):to_be(false)
    expect(units.fire(b, 1).points):to_be(3) -- close range, not doubled
    s.place(b, 4.5, 5, 180)                                 -- behind the flank, 1 cm out
    expect((tabletop.edge_towards(a, b))):to_be("rear")
    expect((artillery.enfilade(b, a))):to_be(false)
    -- half a cm to one side of straight behind: the arc it is measured
    -- against (and the map shows) is that of the flank nearest it, slid back
    s.place(b, 0.5, 12, 270)
    local enf, _, arc = artillery.enfilade(b, a)
    expect(enf):to_be(false)
    expect_arc_from(arc, s.at(2, 0.75), s.at(2, -4.25))
  end)

  units.each_layout("with the other reading (enfilade_rear_arc), doubles from behind in an arc from the rear edge", function(s)
    scenario("republique/open_field.yaml", { set = { ["artillery.enfilade_rear_arc"] = true } })
    local a = s.add("A", "austrian", "line_infantry", 0, 0, 270, nil, 1)
    local b = s.add("b", "french", "foot_battery", 0, 12, 270)
    expect((artillery.enfilade(b, a))):to_be(true)
    s.place(b, 4.5, 5, 180)
    expect((artillery.enfilade(b, a))):to_be(true)
  end)

  units.each_layout("never doubles from the front, always at a square, never in full cover", function(s)
    local a = s.add("A", "austrian", "line_infantry", 0, 0, 270)
    local b = s.add("b", "french", "foot_battery", 0, -15, 90)
    expect((artillery.enfilade(b, a))):to_be(false)
    tabletop.set_formation(a, "square")
    expect((artillery.enfilade(b, a))):to_be(true)
  end)
end)

-- [3.4] "Artillery may only spot and fire at units up to 1/2 inch inside of
-- cover." On the ground of turned_cover.yaml, in every layout: a thin
-- wood (y -8..-3 of the scene, 5 cm deep, x -12..0), a hill beside it.
describe("spotting into cover, from the side the battery sees", function()
  units.each_cover_layout("does not see a unit 3 cm inside a thin wood through the wood, but sees it from the far side", function(s)
    -- the unit's near edge 3 cm inside the wood, its far edge 0.5 cm from the wood's far side
    local b = s.add("b", "french", "foot_battery", -6, 8, 270)
    s.add("t", "austrian", "line_infantry", -6, -6.75, 90, nil, 1) -- y -7.5..-6
    expect(#artillery.candidates(b)):to_be(0)
    local far = s.add("far", "french", "foot_battery", -6, -18, 90)
    expect(#artillery.candidates(far)):to_be(1)
  end)

  units.each_cover_layout("sees a unit exactly half an inch inside, not 1.3 cm", function(s)
    local b = s.add("b", "french", "foot_battery", -6, 8, 270)
    local t = s.add("t", "austrian", "line_infantry", -6, -3 - 1.27 - 0.75, 90, nil, 1)
    expect(#artillery.candidates(b)):to_be(1)
    s.place(t, -6, -3 - 1.3 - 0.75, 90)
    expect(#artillery.candidates(b)):to_be(0)
  end)

  units.each_cover_layout("sees a unit with one base out of cover", function(s)
    local b = s.add("b", "french", "foot_battery", 2, 8, 270)
    s.add("t", "austrian", "line_infantry", 0, -5.5, 90, nil, 2) -- one base in the wood, deep; one on the hill
    expect(#artillery.candidates(b)):to_be(1)
  end)
end)

-- [3.4] "If an artillery battery's center of fire is closest to the
-- uncovered base(s) of an otherwise covered unit, the battery may fire
-- without cover modifiers at the uncovered portions. In such cases ...
-- enemy bases still in cover may not be killed as a result of that fire."
-- A two-base line half in the wood (heavy cover), half on the hill (no
-- cover: a hill has no cover class); the battery's centre of fire runs
-- through the hill base. (The line's middle stands in the wood, so its
-- elevation level is the battery's.)
describe("uncovered bases of a covered unit", function()
  local function setup(s)
    local b = s.add("b", "french", "heavy_battery", 2, 8, 270)
    -- bases x -4.5..-0.5 (in the wood) and -0.5..3.5 (7/8 on the hill)
    local t = s.add("t", "austrian", "line_infantry", -0.5, -5.5, 90, nil, 2)
    return b, t
  end

  units.each_cover_layout("may fire without the cover modifier (by default it does), and takes it when it chooses", function(s)
    local b = setup(s)
    artillery.begin_phase()
    dice.force("d10", { 1 })
    answers{ answers.default }
    local rec = artillery.fire{ battery = b }
    expect(modifier(rec, "cover")):to_be(0)
    artillery.begin_phase()
    dice.force("d10", { 1 })
    answers{ "covered" }
    expect(modifier(artillery.fire{ battery = b }, "heavy cover")):to_be(-2)
  end)

  units.each_cover_layout("kills only the base on the hill", function(s)
    local b, t = setup(s)
    local hill_base = nil
    for _, base in ipairs(tabletop.bases(t)) do
      if tabletop.distance(base, s.at(1.5, -5.5)) == 0 then
        hill_base = base.id
      end
    end
    artillery.save_fire(b)
    artillery.begin_phase()
    dice.force("d10", { 10 })
    answers{ "uncovered" }
    local rec = artillery.fire{ battery = b } -- heavy close 4, saved x2 = 8: 3M2B
    expect(rec.result):to_be("3M2B")
    expect(t.strength):to_be(1)
    expect(tabletop.traces("lost", t)[1].bases[1].id):to_be(hill_base)
  end)

  units.each_cover_layout("is not asked when the centre of fire is closest to the covered base", function(s)
    local b = s.add("b", "french", "heavy_battery", -2.5, 8, 270)
    s.add("t", "austrian", "line_infantry", -0.5, -5.5, 90, nil, 2)
    expect(modifier(units.fire(b, 1), "heavy cover")):to_be(-2)
  end)
end)

-- [3.5] "If different unit types are targeted as a result of either the
-- Deep target or Secondary target rules, use the modifiers most favorable
-- to the battery."
describe("compound targets, more", function()
  it("takes no cavalry modifier with an infantry unit deep behind cavalry", function()
    add("b", "french", "heavy_battery", 60, 60, 270)
    add("c1", "austrian", "cavalry", 60, 49, 90, nil, 1)
    add("c2", "austrian", "cavalry", 60, 43, 90, nil, 1)
    add("inf", "austrian", "line_infantry", 60, 40, 90, nil, 1)
    local rec = units.fire("b", 1)
    expect(modifier(rec, "deep target")):to_be(1)
    expect(modifier(rec, "cavalry")):to_be(0)
  end)

  it("takes the cavalry modifier when every unit the deep fire passes is cavalry", function()
    add("b", "french", "heavy_battery", 60, 60, 270)
    add("c1", "austrian", "cavalry", 60, 48, 90, nil, 1)
    add("c2", "austrian", "cavalry", 60, 44.5, 90, nil, 1)
    add("c3", "austrian", "cavalry", 60, 41, 90, nil, 1)
    local rec = units.fire("b", 1)
    expect(modifier(rec, "deep target")):to_be(1)
    expect(modifier(rec, "cavalry")):to_be(-1)
  end)

  it("takes no cavalry modifier with an infantry unit adjacent to the cavalry target", function()
    add("b", "french", "heavy_battery", 60, 52, 270)
    add("c", "austrian", "cavalry", 60, 40, 90, nil, 1)          -- x 58..62
    add("inf", "austrian", "line_infantry", 64, 40, 90, nil, 1)  -- x 62..66, beside it
    local rec = units.fire("b", 1)
    expect(rec.adjacent):to_equal({ "inf" })
    expect(modifier(rec, "cavalry")):to_be(0)
  end)
end)

-- [3.5 Compound] "If different unit types are targeted as a result of
-- either the Deep target or Secondary target rules, use the modifiers most
-- favorable to the battery", and [3.4] "Subtract 1 from the die roll if
-- over half of the artillery target is made up of cavalry bases": the
-- centre of fire runs straight through two one-base cavalry units and an
-- infantry base, all at close range of a heavy battery (4 points).
describe("compound targets, in every layout", function()
  local function deep_fire(s, third)
    local b = s.add("b", "french", "heavy_battery", 0, 12, 270)       -- front y 10.5
    s.add("c1", "austrian", "cavalry", 0, 1, 90, nil, 1)             -- y -0.25..2.25
    s.add("c2", "austrian", "cavalry", 0, -2.5, 90, nil, 1)          -- y -3.75..-1.25, 3.5 cm behind c1's front
    s.add("t3", "austrian", third, 0, -5.5, 90, nil, 1)              -- 7 cm or more behind: deep, not tandem
    local rec = units.fire(b, 5)
    expect(rec.target):to_be("c1")
    expect(rec.tandem):to_equal({ "c2" })
    expect(modifier(rec, "deep target")):to_be(1)
    return rec
  end

  units.each_layout("two cavalry bases and an infantry base deep: +1 and no cavalry -1", function(s)
    local rec = deep_fire(s, "line_infantry")
    expect(modifier(rec, "cavalry")):to_be(0)
    expect(rec.modified):to_be(6)
    expect(rec.result):to_be("2M")
  end)

  units.each_layout("three cavalry bases deep: +1 and the cavalry -1", function(s)
    local rec = deep_fire(s, "cavalry")
    expect(modifier(rec, "cavalry")):to_be(-1)
    expect(rec.modified):to_be(5)
    expect(rec.result):to_be("1M")
  end)
end)

-- Every modifier value is a param (ruleset.yaml), named in the record.
describe("modifier values are params", function()
  it("reads the die modifiers from params", function()
    scenario("republique/open_field.yaml", { set = { ["artillery.cavalry"] = -3, ["artillery.deep_target"] = 2,
      ["artillery.artillery_leader"] = 3, ["artillery.per_level"] = -2, ["artillery.skirmishers"] = -4,
      ["artillery.passing_fire"] = -5 } })
    add("b", "french", "heavy_battery", 20, 70, 270) -- on the hill
    add("c1", "austrian", "cavalry", 20, 58, 90, nil, 1)
    add("c2", "austrian", "cavalry", 20, 54.5, 90, nil, 1)
    add("c3", "austrian", "cavalry", 20, 51, 90, nil, 1)
    add("l", "french", "general", 20, 73, 270, { artillery_officer = true, rating = 1, attached_to = "b" })
    local rec = units.fire("b", 1)
    expect(modifier(rec, "cavalry")):to_be(-3)
    expect(modifier(rec, "deep target")):to_be(2)
    expect(modifier(rec, "artillery leader")):to_be(3)
    expect(modifier(rec, "elevation")):to_be(-2)
  end)

  it("reads the skirmisher and passing fire modifiers from params", function()
    scenario("republique/open_field.yaml", { set = { ["artillery.skirmishers"] = -4, ["artillery.passing_fire"] = -5 } })
    duel("skirmishers", { parent = "p" })
    dice.force("d10", { 1 })
    expect(modifier(artillery.fire{ battery = "b" }, "skirmishers")):to_be(-4)
    add("t", "austrian", "line_infantry", 45, 45, 0, nil, 1)
    add("b2", "french", "foot_battery", 45, 60, 270)
    dice.force("d10", { 1 })
    expect(modifier(artillery.passing_fire{ battery = "b2", target = "t", move_bearing = 0, in_arc_cm = 9 }, "passing fire")):to_be(-5)
  end)

  it("reads the point factors from params", function()
    scenario("republique/open_field.yaml", { set = { ["artillery.saved_fire_factor"] = 3,
      ["artillery.damaged_divisor"] = 4, ["artillery.disordered_divisor"] = 3, ["artillery.enfilade_factor"] = 4 } })
    local b, a = duel()
    artillery.save_fire(b)
    expect(units.fire("b", 1).points):to_be(12) -- canister 4, x3
    b.damaged = true
    expect(units.fire("b", 1).points):to_be(1) -- 4 / 4
    b.damaged = nil
    b.morale = "disordered"
    expect(units.fire("b", 1).points):to_be(1) -- 4 / 3, rounded down
    b.morale = nil
    tabletop.set_formation(a, "square")
    expect(units.fire("b", 1).points):to_be(16) -- x4
  end)
end)

describe("readings as params", function()
  it("with enfilade_from_front, doubles from the front too, in an arc from the front edge", function()
    scenario("republique/open_field.yaml", { set = { ["artillery.enfilade_from_front"] = true } })
    local b, a = duel()
    local enf, why = artillery.enfilade(b, a)
    expect(enf):to_be(true)
    expect(why):to_contain("front enfilade arc")
  end)

  it("with base_losses = owner, the target's side chooses each base lost, nearest first by default", function()
    scenario("republique/open_field.yaml", { set = { ["artillery.base_losses"] = "owner" } })
    local b = add("b", "french", "heavy_battery", 62, 58.5, 270)
    local a = add("a", "austrian", "line_infantry", 60, 50, 90) -- bases 1-4 at x 64..68, 60..64, 56..60, 52..56
    artillery.save_fire(b)
    artillery.begin_phase()
    dice.force("d10", { 10 })
    answers{ 4, answers.default }
    local rec = artillery.fire{ battery = b } -- heavy canister 6, saved x2 = 12: 4M2B
    expect(rec.result):to_be("4M2B")
    -- nearest the battery's front middle (x 62) first: base 2 (x 60..64),
    -- then 1 and 3 equally near (by id), then 4
    expect(units.asked()):to_equal({ { "2", "1", "3", "4" }, { "2", "1", "3" } }) -- the log keeps options as text
    expect(units.ids(tabletop.bases(a))):to_equal({ 1, 3 })
  end)
end)

describe("moves that are not across the front", function()
  it("a unit turning in place is not passing through the arc", function()
    add("b", "french", "foot_battery", 60, 60, 270)
    local t = add("t", "austrian", "line_infantry", 60, 45, 0, nil, 2)
    artillery.new_turn()
    world:move(t, { x = 60, y = 45, facing = 90 })
    expect(t.moved):to_be(true)
    expect(world:unit("b"):get("passing:t")):to_be_nil()
  end)
end)

describe("uncovered bases, more", function()
  -- four bases: two in the wood (x -8.5..-4.5, -4.5..-0.5), two on the hill
  -- (-0.5..3.5, 3.5..7.5); the centre of fire runs through the first hill
  -- base. The wood base next to it is nearer the battery's front than the
  -- far hill base.
  units.each_cover_layout("never kills a covered base, though one is nearer the battery than an uncovered one", function(s)
    local b = s.add("b", "french", "heavy_battery", 1, 8, 270)
    local t = s.add("t", "austrian", "line_infantry", -0.5, -5.5, 90, nil, 4)
    local wood = {}
    for _, base in ipairs(tabletop.bases(t)) do
      if tabletop.distance(base, s.at(-2.5, -5.5)) == 0 or tabletop.distance(base, s.at(-6.5, -5.5)) == 0 then
        wood[base.id] = true
      end
    end
    artillery.save_fire(b)
    artillery.begin_phase()
    dice.force("d10", { 10 })
    answers{ "uncovered" }
    local rec = artillery.fire{ battery = b } -- 8 points: 3M2B; the two hill bases go
    expect(rec.result):to_be("3M2B")
    expect(t.strength):to_be(2)
    for _, base in ipairs(tabletop.bases(t)) do
      expect(wood[base.id]):to_be(true)
    end
  end)

  units.each_cover_layout("decides by the base nearest the battery along the centre of fire, of those it passes through", function(s)
    -- a cavalry column facing the battery: its front base mostly out of the
    -- wood, its rear base in it (60% of the unit covered); the centre of
    -- fire passes through both, the front one first
    local b = s.add("b", "french", "heavy_battery", -6, 8, 270)
    tabletop.set_formation(s.add("c", "austrian", "cavalry", -6, -3.5, 90), "column") -- bases y -3.5..-1 and -6..-3.5
    artillery.begin_phase()
    dice.force("d10", { 1 })
    answers{ "uncovered" }
    expect(modifier(artillery.fire{ battery = b }, "cover")):to_be(0)
  end)

  units.each_cover_layout("takes the heavier cover of a unit half in a wood and half in a farm", function(s)
    local b = s.add("b", "french", "foot_battery", -12, 8, 270)
    s.add("t", "austrian", "line_infantry", -12, -3.75, 90, nil, 1) -- x -14..-10: half farm, half wood
    local rec = units.fire(b, 1)
    expect(modifier(rec, "heavy cover")):to_be(-2)
    expect(modifier(rec, "solid cover")):to_be(0)
  end)
end)

describe("spotting into cover, more", function()
  -- A base turned inside the wood with only one corner within half an inch
  -- of the wood's edge (0.3 cm in; the line of sight from the battery, off
  -- to the side, runs about 0.7 cm through the wood to it, and 2 cm or more
  -- to every other corner), and the base's point nearest the battery
  -- deeper. Each of the four facings puts a different corner foremost.
  units.each_cover_layout("sees a unit by the one corner within half an inch, and not 0.4 cm deeper", function(s)
    local b = s.add("b", "french", "foot_battery", -16.25, 3.83, 326)
    local t = s.add("t", "austrian", "line_infantry", -3, -6, 90, nil, 1)
    for _, facing in ipairs({ 30, 120, 210, 300 }) do
      local r = math.rad(facing)
      local low = 0.75 * math.abs(math.sin(r)) + 2 * math.abs(math.cos(r)) -- the lowest corner below the centre
      s.place(t, -3, -3.3 - low, facing)
      expect(#artillery.candidates(b)):to_be(1)
      s.place(t, -3, -3.7 - low, facing)
      expect(#artillery.candidates(b)):to_be(0)
    end
  end)

  it("with cover_depth_cm 0.5, sees a unit half out of the wood by its corners outside", function()
    scenario("republique/open_field.yaml", { set = { ["artillery.cover_depth_cm"] = 0.5 } })
    local b = add("b", "french", "foot_battery", 95, 45, 270)
    add("t", "austrian", "line_infantry", 90, 29, 90, nil, 1) -- x 88..92 across the wood's edge x = 90, 1.25 cm deep
    expect(#artillery.candidates(b)):to_be(1)
  end)
end)

describe("deep targets, more", function()
  it("counts bases on a hill: open ground", function()
    add("b", "french", "heavy_battery", 25, 50, 90)
    add("x1", "austrian", "line_infantry", 25, 61, 270, nil, 1)
    add("x2", "austrian", "line_infantry", 25, 64, 270, nil, 1)
    add("x3", "austrian", "line_infantry", 25, 67, 270, nil, 1)
    local rec = units.fire("b", 1)
    expect(modifier(rec, "deep target")):to_be(1)
    expect(modifier(rec, "elevation")):to_be(-1)
  end)
end)

-- "The deep target modifier is not applicable against targets ... on the
-- far side of obstacles such as redoubts or rivers." A stretch of river
-- (scripts/republique/turned_river.yaml: x -4..0, y -5..5 of the scene)
-- whose right bank the centre of fire runs exactly along, and three
-- one-base units straddling that line beyond the river's end, all at
-- medium range from a foot battery (fronts 17.75, 20.25 and 22.75 cm off).
describe("deep targets and a river bank along the centre of fire", function()
  local river = "republique/turned_river.yaml"
  local grazing = { set = { ["artillery.grazing_crosses_obstacle"] = true } }

  local function deep_fire(s, x)
    local b = s.add("b", "french", "foot_battery", x, 12, 270) -- front y 10.5
    s.add("x1", "austrian", "line_infantry", x, -8, 90, nil, 1)
    s.add("x2", "austrian", "line_infantry", x, -10.5, 90, nil, 1)
    s.add("x3", "austrian", "line_infantry", x, -13, 90, nil, 1)
    local rec = units.fire(b, 1)
    expect(rec.target):to_be("x1")
    expect(rec.bracket):to_be("medium")
    return modifier(rec, "deep target")
  end

  units.each_ground_layout(river, "adds 1: fire along the bank has the river beside it, not across it", function(s)
    expect(deep_fire(s, 0)):to_be(1)
  end)

  units.each_ground_layout(river, "adds nothing when the centre of fire runs 0.01 cm inside the river", function(s)
    expect(deep_fire(s, -0.01)):to_be(0)
  end)

  -- along x = 10: a river on its left 5.5..10.5 cm from the battery's
  -- front, another on its right 13.5..16.5 cm off: never both sides at once
  units.each_ground_layout(river, "adds 1 between two rivers that touch the fire on either side at different places", function(s)
    expect(deep_fire(s, 10)):to_be(1)
  end)

  -- along x = -10: a river drawn in two pieces, on its left 5.5..10.5 cm
  -- off and on its right 10.5..15.5 cm off, meeting corner to corner on it
  units.each_ground_layout(river, "adds nothing past a river in two pieces that meet corner to corner on the fire", function(s)
    expect(deep_fire(s, -10)):to_be(0)
  end)

  units.each_ground_layout(river, "with grazing_crosses_obstacle, fire along the bank crosses it: nothing", function(s)
    expect(deep_fire(s, 0)):to_be(0)
  end, grazing)

  units.each_ground_layout(river, "with grazing_crosses_obstacle, adds 1 when the fire passes 0.01 cm clear of the bank", function(s)
    expect(deep_fire(s, 0.01)):to_be(1)
  end, grazing)
end)

describe("cover, more", function()
  local common = require("common")

  it("counts light cover (scrub) as cover for a leader, but gives the battery no modifier", function()
    local t = add("t", "austrian", "line_infantry", 7.5, 11.5, 90, nil, 1) -- 5/6 in the scrub (y <= 12)
    expect(common.cover(t).class):to_be("light")
    local l = add("l", "austrian", "general", 7.5, 6, 90)
    expect(units.modifier(leaders.modifiers(l), "in cover")):to_be(-1)
    add("b", "french", "foot_battery", 7.5, 20, 270)
    local rec = units.fire("b", 1)
    expect(modifier(rec, "cover")):to_be(0)
  end)

  units.each_cover_layout("counts half the unit in solid or heavy cover together: a farm and a wood make solid cover", function(s)
    -- a four-base line, x -24..-8: a base in the open, a base half in the
    -- farm, a base in the farm, a base in the wood: 3/8 solid and 1/4
    -- heavy, so "half or more ... in solid or heavy cover" (5/8): the solid
    -- -1, not the heavy -2 (only a quarter is in heavy cover); the centre
    -- of fire on the farm base (x -14)
    local b = s.add("b", "french", "foot_battery", -14, 12, 270)
    local t = s.add("t", "austrian", "line_infantry", -16, -5.5, 90)
    expect(common.cover(t).class):to_be("solid")
    local rec = units.fire(b, 1)
    expect(rec.target):to_be("t")
    expect(modifier(rec, "solid cover")):to_be(-1)
    expect(rec.die_modifier):to_be(-1)
    -- a centimetre further from the wood, x -27..-11: two bases in the
    -- open, then 3/4 of a base and 3/4 of a base in the farm and 1/4 of one
    -- in the wood: 7/16 in solid or heavy cover, under half
    world:eliminate(t)
    s.add("t2", "austrian", "line_infantry", -19, -5.5, 90)
    expect(common.cover(world:unit("t2")).class):to_be(nil)
  end)

  units.each_cover_layout("counts a base exactly half in the wood as covered: no choice of uncovered bases", function(s)
    local b = s.add("b", "french", "heavy_battery", 0.5, 8, 270)
    s.add("t", "austrian", "line_infantry", 0, -5.5, 90, nil, 1) -- x -2..2: half wood, half hill
    expect(modifier(units.fire(b, 1), "heavy cover")):to_be(-2)
  end)

  units.each_cover_layout("decides by the nearer base along the centre of fire, whatever their order", function(s)
    -- a cavalry column facing away from the battery: its rear base (second
    -- in place order) nearest the battery and mostly out of the wood, its
    -- front base deep in it
    local b = s.add("b", "french", "heavy_battery", -6, 8, 270)
    local c = s.add("c", "austrian", "cavalry", -6, -4.15, 270, { formation = "column" }) -- bases y -6.65..-4.15, -4.15..-1.65
    expect(tabletop.bases(c)[2].id):to_be(2)
    artillery.begin_phase()
    dice.force("d10", { 1 })
    answers{ "uncovered" }
    expect(modifier(artillery.fire{ battery = b }, "cover")):to_be(0)
  end)

  units.each_cover_layout("between two bases the centre of fire runs between, decides by the first in place order", function(s, layout)
    -- a two-base line on the wood's edge (x -4..0 in it, 0..4 on the hill),
    -- the centre of fire along the line between its bases; the unit's first
    -- base is its left: the hill base as drawn, the wood base mirrored
    local b = s.add("b", "french", "heavy_battery", 0, 8, 270)
    s.add("t", "austrian", "line_infantry", 0, -5.5, 90, nil, 2)
    artillery.begin_phase()
    dice.force("d10", { 1 })
    if layout.mirror then
      expect(modifier(artillery.fire{ battery = b }, "heavy cover")):to_be(-2)
    else
      answers{ "uncovered" }
      expect(modifier(artillery.fire{ battery = b }, "cover")):to_be(0)
    end
  end)

  units.each_cover_layout("decides by a base the centre of fire passes through, before a nearer one it passes beside", function(s)
    -- a cavalry column turned 20 degrees: the centre of fire misses its
    -- front base (in the wood) by 0.4 cm and passes through a corner of its
    -- rear base (mostly beyond the wood)
    local b = s.add("b", "french", "heavy_battery", -3.293, 8, 270)
    s.add("c", "austrian", "cavalry", -5.5725, -7.315, 110, { formation = "column" }) -- front base's middle (-6, -6.14)
    artillery.begin_phase()
    dice.force("d10", { 1 })
    answers{ "uncovered" }
    expect(modifier(artillery.fire{ battery = b }, "cover")):to_be(0)
  end)
end)

describe("massed batteries must have bases touching", function()
  local function guns(xs)
    local out = {}
    for i, x in ipairs(xs) do
      out[i] = add("g" .. i, "french", "foot_battery", x, 60, 270)
    end
    add("l", "french", "general", xs[1], 63, 270, { artillery_officer = true, rating = 1, attached_to = "g1" })
    return out
  end

  it("a line of three touching is one mass, whatever order they are named in", function()
    local g = guns({ 55, 65, 60 })
    expect(artillery.leader_for({ g[1], g[2], g[3] })):to_be(world:unit("l"))
    expect(artillery.leader_for({ g[3], g[2], g[1] })):to_be(world:unit("l"))
  end)

  it("is no mass when the last or the first battery stands apart", function()
    local g = guns({ 55, 60, 75 })
    expect(artillery.leader_for({ g[1], g[2], g[3] })):to_be_nil()
    expect(artillery.leader_for({ g[3], g[1], g[2] })):to_be_nil()
  end)

  it("is no mass when a gap of half a centimetre parts two batteries", function()
    local g = guns({ 55, 60.5 })
    expect(artillery.leader_for(g)):to_be_nil()
  end)

  it("is no mass when two touching pairs stand apart", function()
    local g = guns({ 40, 45, 60, 65 })
    expect(artillery.leader_for(g)):to_be_nil()
    expect(artillery.leader_for({ g[1], g[2] })):to_be(world:unit("l"))
  end)
end)
