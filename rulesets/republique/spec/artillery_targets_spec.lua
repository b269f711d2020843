-- [3.5 Main] Main targets and convergence; [3.5 Sec] tandem and adjacent
-- secondary targets (the document's worked examples); [3.5 Zone] the
-- frontage zone; [3.5 Pass] passing fire.

scenario("republique/open_field.yaml")

local units = require("spec/support/units")
local add = units.add

describe("main targets (worked example)", function()
  -- Units A and B face the French batteries 1-4, all in the medium bracket.
  -- A spans x 32..48, B x 50..66; battery 2's frontage zone holds the
  -- frontages of both, battery 4 stands off to the right of B.
  local function setup()
    add("A", "austrian", "line_infantry", 40, 40, 90)
    add("B", "austrian", "line_infantry", 58, 40, 90)
    add("b1", "french", "foot_battery", 38, 60, 270)
    add("b2", "french", "foot_battery", 48.8, 60, 270)
    add("b3", "french", "foot_battery", 60, 60, 270)
    add("b4", "french", "foot_battery", 77, 60, 270)
    artillery.begin_phase()
  end

  it("batteries 1 and 2 must fire on A, 3 and 4 on B", function()
    setup()
    expect(artillery.main_target(world:unit("b1")).id):to_be("A")
    expect(artillery.main_target(world:unit("b2")).id):to_be("A")
    expect(artillery.main_target(world:unit("b3")).id):to_be("B")
    expect(artillery.main_target(world:unit("b4")).id):to_be("B")
  end)

  it("battery 2 has both frontages in its zone and takes the one nearer its centre line", function()
    setup()
    local b2 = world:unit("b2")
    local seen = {}
    for _, c in ipairs(tabletop.through(tabletop.frontage_zone(b2, 270, 40), { exclude = b2 })) do
      seen[c.unit.id] = true
    end
    expect(seen.A and seen.B):to_be(true)
    local c = artillery.candidates(b2)
    expect(c[1].unit.id):to_be("A")
    expect(c[1].swing < c[2].swing):to_be(true)
  end)

  it("battery 4 fires obliquely into B, the only target in that bracket", function()
    setup()
    local c = artillery.candidates(world:unit("b4"))
    expect(#c):to_be(1)
    expect(c[1].swing > 0):to_be(true)
    dice.force("d10", { 1 })
    expect(artillery.fire{ battery = "b4" }.target):to_be("B")
  end)

  it("returns the main target with its candidate record", function()
    setup()
    local u, c = artillery.main_target(world:unit("b2"))
    expect(c.unit):to_be(u)
    expect(u.id):to_be("A")
    expect(c.bracket):to_be(3)
  end)

  it("takes the closest bracket before the centre line", function()
    setup()
    add("C", "austrian", "line_infantry", 66, 52, 90, nil, 1) -- canister range, off to b3's right
    expect(artillery.main_target(world:unit("b3")).id):to_be("C")
  end)

  it("may not converge on another unit without a good artillery leader", function()
    setup()
    expect_error(function() artillery.fire{ battery = "b3", target = "A" } end, "must fire at its main target B")
  end)

  it("massed batteries total their points against one target when the rule allows", function()
    setup()
    dice.force("d10", { 1 })
    local rec = artillery.fire{ batteries = { "b3", "b4" } }
    expect(rec.target):to_be("B")
    expect(rec.points):to_be(4) -- 2 + 2 at medium range
    expect(world:unit("b3").fired and world:unit("b4").fired):to_be(true)
  end)

  it("with a good artillery leader may choose any target in the closest bracket", function()
    setup()
    add("l", "french", "general", 60, 63, 270, { artillery_officer = true, rating = 1, attached_to = "b3" })
    dice.force("d10", { 1 })
    expect(artillery.fire{ battery = "b3", target = "A" }.target):to_be("A")
  end)
end)

-- [3.5 Main] "Any individual or massed artillery battery with a qualified
-- artillery leader attached to it may selectively or wholly converge fire
-- onto any enemy targets which are in the closest threat bracket."
describe("a massed battery's leader lets its batteries converge selectively", function()
  -- A (x 32..48) and B (x 50..66) in the medium bracket; m1 (x 45..50)
  -- must fire at A, m2 (x 50..55), touching it, at B; the artillery
  -- officer l is attached to m1
  local function setup(m2_x)
    add("A", "austrian", "line_infantry", 40, 40, 90)
    add("B", "austrian", "line_infantry", 58, 40, 90)
    add("m1", "french", "foot_battery", 47.5, 60, 270)
    add("m2", "french", "foot_battery", m2_x or 52.5, 60, 270)
    add("l", "french", "general", 47.5, 63, 270, { artillery_officer = true, rating = 1, attached_to = "m1" })
    artillery.begin_phase()
    expect(artillery.main_target(world:unit("m1")).id):to_be("A")
    expect(artillery.main_target(world:unit("m2")).id):to_be("B")
  end

  it("each battery of the mass may fire alone at a unit of the closest bracket, with the leader's +1", function()
    setup()
    dice.force("d10", { 1, 1 })
    local r2 = artillery.fire{ battery = "m2", target = "A" }
    expect(r2.target):to_be("A")
    expect(units.modifier(r2, "artillery leader l")):to_be(1)
    local r1 = artillery.fire{ battery = "m1", target = "B" }
    expect(r1.target):to_be("B")
    expect(units.modifier(r1, "artillery leader l")):to_be(1)
  end)

  it("the whole mass may converge on either", function()
    setup()
    dice.force("d10", { 1 })
    local rec = artillery.fire{ batteries = { "m2", "m1" }, target = "B" }
    expect(rec.target):to_be("B")
    expect(rec.points):to_be(4)
    expect(units.modifier(rec, "artillery leader l")):to_be(1)
  end)

  it("a battery half a centimetre from the leader's battery is no part of its mass", function()
    setup(53)
    expect_error(function() artillery.fire{ battery = "m2", target = "A" } end, "must fire at its main target B")
    dice.force("d10", { 1 })
    expect(units.modifier(artillery.fire{ battery = "m2" }, "artillery leader")):to_be(0)
  end)

  it("an enemy battery touching the leader's battery is not of its mass", function()
    setup()
    local e = add("e", "austrian", "foot_battery", 42.5, 60, 270) -- x 40..45
    expect(tabletop.distance(e, world:unit("m1"))):to_be_close(0, 1e-9)
    expect(artillery.leader_for({ e })):to_be_nil()
    expect(artillery.leader_for({ world:unit("m2") })):to_be(world:unit("l"))
  end)
end)

-- Our reading: the document gives each battery a centre of fire, but not
-- a massed battery; the battery named first directs the massed fire (its
-- centre of fire, frontage zone and elevation), so the firing player
-- chooses by the order of `batteries`.
describe("the battery named first directs a massed fire", function()
  it("takes its elevation: on the hill first, 1 off; the one beside the hill first, nothing", function()
    add("h", "french", "foot_battery", 37.5, 62, 270) -- on the hill (level 1), x 35..40
    add("o", "french", "foot_battery", 42.5, 62, 270) -- touching it, off the hill
    add("t", "austrian", "line_infantry", 40, 45, 90)
    artillery.begin_phase()
    expect(tabletop.level(world:unit("h"))):to_be(1)
    expect(tabletop.level(world:unit("o"))):to_be(0)
    dice.force("d10", { 1 })
    local rec = artillery.fire{ batteries = { "h", "o" } }
    expect(rec.points):to_be(6) -- 3 + 3 at close range
    expect(units.modifier(rec, "elevation")):to_be(-1)
    artillery.begin_phase()
    dice.force("d10", { 1 })
    rec = artillery.fire{ batteries = { "o", "h" } }
    expect(rec.points):to_be(6)
    expect(units.modifier(rec, "elevation")):to_be(0)
  end)
end)

describe("secondary targets (worked examples)", function()
  -- A (one base) straight ahead of the battery; C behind it, its front 3 cm
  -- behind A's; B beside A, inside the frontage zone. All in the close bracket.
  local function setup(a_bases, c_bases)
    local b = add("bat", "french", "heavy_battery", 60, 60, 270)
    add("A", "austrian", "line_infantry", 60, 45, 90, nil, a_bases or 1)
    add("C", "austrian", "line_infantry", 60, 42, 90, nil, c_bases or 2)
    add("B", "austrian", "line_infantry", 66.2, 45, 90, nil, 2)
    artillery.begin_phase()
    return b
  end

  it("finds C as the tandem target and B as the adjacent one", function()
    local b = setup()
    local zone = tabletop.frontage_zone(b, 270, 48)
    local tandem, adjacent = artillery.secondary_targets(b, world:unit("A"), zone, 2)
    expect(#tandem):to_be(1)
    expect(tandem[1].id):to_be("C")
    expect(#adjacent):to_be(1)
    expect(adjacent[1].id):to_be("B")
  end)

  it("gives the tandem target half the morale hits, rounded down", function()
    setup()
    local A, C, B = world:unit("A"), world:unit("C"), world:unit("B")
    expect(artillery.distribute(A, { C }, { B }, 2, 0)[C.id].morale):to_be(1)
    expect(artillery.distribute(A, { C }, { B }, 3, 0)[C.id].morale):to_be(1)
    expect(artillery.distribute(A, { C }, { B }, 4, 0)[C.id].morale):to_be(2)
  end)

  it("carries base hits a destroyed main target cannot take over to the tandem target", function()
    setup(2, 2)
    local A, C, B = world:unit("A"), world:unit("C"), world:unit("B")
    local h = artillery.distribute(A, { C }, { B }, 2, 3)
    expect(h.A.bases):to_be(2)
    expect(h.C.bases):to_be(1)
    expect(h.B):to_be_nil()
  end)

  it("with one-base A and C, removes both and one base of the adjacent B", function()
    setup(1, 1)
    local A, C, B = world:unit("A"), world:unit("C"), world:unit("B")
    local h = artillery.distribute(A, { C }, { B }, 2, 3)
    expect(h.A.bases):to_be(1)
    expect(h.C.bases):to_be(1)
    expect(h.B.bases):to_be(1)
    expect(h.B.morale):to_be(1)
  end)

  it("applies it all through a fire", function()
    setup(1, 1)
    -- the heavy battery at close range: 4 points; die 10 reads 2M1B... force
    -- saved fire for 8 points: die 10 reads 3M2B
    local b = world:unit("bat")
    artillery.save_fire(b)
    local rec = units.fire("bat", 10)
    expect(rec.points):to_be(8)
    expect(rec.result):to_be("3M2B")
    expect(world:unit("A").alive):to_be(false)
    expect(world:unit("C").alive):to_be(false)
    expect(world:unit("B").strength):to_be(2)
    expect(rec.tandem[1]):to_be("C")
  end)
end)

describe("tandem secondary targets (worked examples)", function()
  local function pair(a_bases)
    add("bat", "french", "heavy_battery", 60, 60, 270)
    local A = add("A", "austrian", "line_infantry", 60, 45, 90, nil, a_bases)
    local B = add("B", "austrian", "line_infantry", 60, 41, 90, nil, 4)
    return A, B
  end

  it("shares base hits: 2 hits take one base from each, 3 take two from A and one from B", function()
    local A, B = pair(4)
    local h = artillery.distribute(A, { B }, {}, 2, 2)
    expect(h.A.bases):to_be(1)
    expect(h.B.bases):to_be(1)
    expect(h.B.morale):to_be(1)
    h = artillery.distribute(A, { B }, {}, 3, 3)
    expect(h.A.bases):to_be(2)
    expect(h.B.bases):to_be(1)
  end)

  it("puts the balance on the unit behind a weak one-base unit thrown forward", function()
    local A, B = pair(1)
    local h = artillery.distribute(A, { B }, {}, 1, 3)
    expect(h.A.bases):to_be(1)
    expect(h.B.bases):to_be(2)
  end)

  it("through a fire: the weak unit in front loses its base, the rest falls on the unit behind", function()
    pair(1)
    -- heavy battery, close range: 4 points, saved fire x2 = 8; die 10 reads 3M2B
    artillery.save_fire("bat")
    local rec = units.fire("bat", 10)
    expect(rec.result):to_be("3M2B")
    expect(rec.tandem):to_equal({ "B" })
    expect(world:unit("A").alive):to_be(false)
    expect(world:unit("B").strength):to_be(3)
    expect(world:unit("B").morale):to_be("disordered") -- half of 3 morale hits, rounded down
  end)

  it("excludes units more than 5 cm behind, in cover, or fully deployed light regiments", function()
    add("bat", "french", "heavy_battery", 60, 60, 270)
    local A = add("A", "austrian", "line_infantry", 60, 45, 90, nil, 1)
    local far = add("far", "austrian", "line_infantry", 60, 38, 90, nil, 1)
    local b = world:unit("bat")
    local zone = tabletop.frontage_zone(b, 270, 48)
    local tandem = artillery.secondary_targets(b, A, zone, 2)
    expect(#tandem):to_be(0)
    world:place(far, { x = 60, y = 42, facing = 90 })
    expect(#(artillery.secondary_targets(b, A, zone, 2))):to_be(1)
    world:eliminate(far)
    local light = add("light", "austrian", "light_infantry", 60, 42, 90, { skirmishers_out = 1 }, 1)
    expect(#(artillery.secondary_targets(b, A, zone, 2))):to_be(0)
    light.skirmishers_out = 0
    expect(#(artillery.secondary_targets(b, A, zone, 2))):to_be(1)
  end)

  it("keeps covered bases alive when the cover modifier was not applied", function()
    local A = add("A", "austrian", "line_infantry", 60, 45, 90, nil, 4)
    local h = artillery.distribute(A, {}, {}, 0, 3, 2)
    expect(h.A.bases):to_be(2)
  end)
end)

-- A foot battery at (60, 60) facing up the table and a two-base Austrian
-- line at (60, 45) facing east, across its front; the phase open.
local function crossing()
  local b = add("b", "french", "foot_battery", 60, 60, 270)
  local t = add("t", "austrian", "line_infantry", 60, 45, 0, nil, 2)
  artillery.begin_phase()
  return b, t
end

describe("passing fire", function()
  it("fires at a unit crossing the front with -2, then misses the next phase", function()
    local b = crossing()
    dice.force("d10", { 5 })
    local rec = artillery.passing_fire{ battery = "b", target = "t", move_bearing = 0, in_arc_cm = 9 }
    expect(units.modifier(rec, "passing fire")):to_be(-2)
    artillery.begin_phase()
    expect_error(function() artillery.fire{ battery = "b" } end, "conducted passing fire")
    expect_error(function() artillery.save_fire(b) end, "no saved fire")
  end)

  it("measures a move given as two points: its bearing and its length inside the arc", function()
    local b = crossing()
    -- at y = 45 the arc spans x 60 -/+ (2.5 + 13.5 tan 30): 49.7..70.3
    local arc = tabletop.arc_of_fire(b, 60)
    local inside = tabletop.segment_in_arc(arc, tabletop.point(40, 45), tabletop.point(80, 45)) * 40
    expect(inside):to_be_close(2 * (2.5 + 13.5 * math.tan(math.rad(30))), 1e-6)
    dice.force("d10", { 1 })
    local rec = artillery.passing_fire{ battery = "b", target = "t", from = { x = 40, y = 45 }, to = { x = 70, y = 45 } }
    expect(rec.target):to_be("t")
    artillery.begin_phase()
    expect_error(function()
      artillery.passing_fire{ battery = "b", target = "t", from = { x = 40, y = 45 }, to = { x = 55, y = 45 } }
    end, "needs 8")
  end)

  it("needs a move across the front and enough of it inside the arc", function()
    crossing()
    expect_error(function()
      artillery.passing_fire{ battery = "b", target = "t", move_bearing = 290, in_arc_cm = 9 }
    end, "not moving across")
    expect_error(function()
      artillery.passing_fire{ battery = "b", target = "t", move_bearing = 0, in_arc_cm = 7 }
    end, "needs 8")
  end)

  it("needs 15 cm for cavalry, and is not open to a battery saving fire", function()
    local b = add("b", "french", "foot_battery", 60, 60, 270)
    add("c", "austrian", "cavalry", 60, 45, 0, nil, 1)
    artillery.begin_phase()
    expect_error(function()
      artillery.passing_fire{ battery = "b", target = "c", move_bearing = 180, in_arc_cm = 12 }
    end, "needs 15")
    artillery.save_fire(b)
    expect_error(function()
      artillery.passing_fire{ battery = "b", target = "c", move_bearing = 180, in_arc_cm = 20 }
    end, "saving fire")
  end)
end)

describe("a turned scene", function()
  -- The main-target worked example moved to the middle of the table (clear
  -- of every terrain area whichever way it turns) and turned about (60, 40):
  -- the same batteries choose the same targets, and a forced die gives the
  -- same fire points, modifiers and result. Each turn gets fresh ids
  -- (suffix); the last turn's units are taken off the table.
  local IDS = { "A", "B", "b1", "b2", "b3", "b4" }

  local function turned(angle, suffix)
    local r = math.rad(angle)
    local function put(id, side, ty, x, y, facing)
      local dx, dy = x + 2 - 60, y - 10 - 40
      add(id .. suffix, side, ty, 60 + dx * math.cos(r) - dy * math.sin(r), 40 + dx * math.sin(r) + dy * math.cos(r),
        (facing + angle) % 360)
    end
    put("A", "austrian", "line_infantry", 40, 40, 90)
    put("B", "austrian", "line_infantry", 58, 40, 90)
    put("b1", "french", "foot_battery", 38, 60, 270)
    put("b2", "french", "foot_battery", 48.8, 60, 270)
    put("b3", "french", "foot_battery", 60, 60, 270)
    put("b4", "french", "foot_battery", 77, 60, 270)
    artillery.begin_phase()
    local out = {}
    for _, id in ipairs({ "b1", "b2", "b3", "b4" }) do
      dice.force("d10", { 9 })
      local rec = artillery.fire{ battery = id .. suffix }
      local mods = {}
      for _, m in ipairs(rec.modifiers) do
        table.insert(mods, m.name .. " " .. m.value)
      end
      out[id] = { target = string.sub(rec.target, 1, 1), points = rec.points, bracket = rec.bracket,
        result = rec.result, modifiers = table.concat(mods, ", ") }
    end
    for _, id in ipairs(IDS) do
      world:eliminate(world:unit(id .. suffix))
    end
    return out
  end

  it("gives the same targets, points, modifiers and results at 37, 90 and 151 degrees", function()
    local straight = turned(0, "")
    expect(straight.b1.target .. straight.b2.target .. straight.b3.target .. straight.b4.target):to_be("AABB")
    for _, angle in ipairs({ 37, 90, 151 }) do
      expect(turned(angle, "_" .. angle)):to_equal(straight)
    end
  end)

  it("keeps enfilade on a column's flank at any angle", function()
    for _, angle in ipairs({ 0, 37, 90, 151 }) do
      local r = math.rad(angle)
      local function at(dx)
        return { x = 60 + dx * math.cos(r), y = 40 + dx * math.sin(r) }
      end
      local col = world:add_unit{ id = "col" .. angle, side = "austrian", type = "line_infantry", at = at(0),
        facing = (270 + angle) % 360, props = { formation = "column" } }
      local b = world:add_unit{ id = "fb" .. angle, side = "french", type = "foot_battery", at = at(-25),
        facing = angle }
      artillery.begin_phase()
      expect((tabletop.edge_towards(col, b))):to_be("left")
      dice.force("d10", { 9 })
      local rec = artillery.fire{ battery = b }
      expect(rec.points):to_be(4) -- medium range 2, enfilade x2
      expect(rec.result):to_be("2M1B")
      world:eliminate(col)
      world:eliminate(b)
    end
  end)
end)

describe("main targets, more", function()
  it("prefers a unit the straight centre of fire already passes through, even at its edge", function()
    -- n: nearer, across the centre line off its middle (x 57..61, no corner
    -- on the line); f: further, square ahead (x 58..62). Both cross the
    -- centre line: no swing for either, so the nearer one is the main target.
    local b = add("b", "french", "foot_battery", 60, 60, 270)
    add("n", "austrian", "line_infantry", 59, 40, 90, nil, 1)
    add("f", "austrian", "line_infantry", 60, 33, 90, nil, 1)
    local c = artillery.candidates(b)
    expect(c[1].unit.id):to_be("n")
    expect(c[1].swing):to_be(0)
    expect(c[2].swing):to_be(0)
  end)

  it("puts a unit straight ahead before one the centre of fire swings less than a degree to reach", function()
    -- a straight ahead at medium range (x 58..62); s further, off to the
    -- right, its corner 0.3 cm right of the centre line at 26 cm: a swing of
    -- well under a degree
    local b = add("b", "french", "foot_battery", 60, 60, 270)
    add("a", "austrian", "line_infantry", 60, 40, 90, nil, 1)
    add("s", "austrian", "line_infantry", 62.3, 31.75, 90, nil, 1)
    local c = artillery.candidates(b)
    expect(c[1].unit.id):to_be("a")
    expect(c[2].unit.id):to_be("s")
    expect(c[2].swing > 0 and c[2].swing < 1):to_be(true)
  end)

  it("within the bracket, takes the unit nearest the centre line before a nearer one off to the side", function()
    local b = add("b", "french", "foot_battery", 60, 60, 270)
    add("ahead", "austrian", "line_infantry", 60, 36, 90, nil, 1)   -- 21.75 cm, straight ahead
    add("side", "austrian", "line_infantry", 70, 40, 90, nil, 1)    -- 17.75 cm, off to the right
    expect(artillery.main_target(b).id):to_be("ahead")
  end)

  it("with the nearest-unit reading (main_target = distance) takes the nearer one", function()
    scenario("republique/open_field.yaml", { set = { ["artillery.main_target"] = "distance" } })
    local b = add("b", "french", "foot_battery", 60, 60, 270)
    add("ahead", "austrian", "line_infantry", 60, 36, 90, nil, 1)
    add("side", "austrian", "line_infantry", 70, 40, 90, nil, 1)
    expect(artillery.main_target(b).id):to_be("side")
  end)

  it("lets a good artillery leader choose only within the closest bracket", function()
    add("b", "french", "foot_battery", 60, 60, 270)
    add("near", "austrian", "line_infantry", 60, 45, 90, nil, 1)  -- close
    add("far", "austrian", "line_infantry", 70, 34, 90, nil, 1)   -- medium
    add("l", "french", "general", 60, 63, 270, { artillery_officer = true, rating = 1, attached_to = "b" })
    artillery.begin_phase()
    expect_error(function() artillery.fire{ battery = "b", target = "far" } end,
      "its leader lets it choose only within the closest bracket")
  end)
end)

describe("secondary targets, more", function()
  local function zone_of(b)
    return tabletop.frontage_zone(b, b.facing, 48)
  end

  it("takes a tandem target exactly 5 cm behind the main target's front, not 5.5", function()
    local b = add("bat", "french", "heavy_battery", 60, 60, 270)
    local A = add("A", "austrian", "line_infantry", 60, 45, 90, nil, 1) -- front y 45.75
    local C = add("C", "austrian", "line_infantry", 60, 40, 90, nil, 1) -- front y 40.75: 5 cm
    local tandem = artillery.secondary_targets(b, A, zone_of(b), 2)
    expect(#tandem):to_be(1)
    world:place(C, { x = 60, y = 39.5, facing = 90 })
    expect(#(artillery.secondary_targets(b, A, zone_of(b), 2))):to_be(0)
  end)

  it("takes the regiment touching a skirmish marker's rear as a tandem target when the marker is the main target", function()
    local b = add("bat", "french", "heavy_battery", 60, 60, 270)
    local S = add("S", "austrian", "skirmishers", 60, 45, 90, { parent = "C" }) -- y 44.5..45.5
    -- two bases, one marker out: not fully deployed
    local C = add("C", "austrian", "light_infantry", 60, 43.75, 90, nil, 2)     -- front y 44.5: 1 cm behind S's front
    local tandem = artillery.secondary_targets(b, S, zone_of(b), 2)
    expect(units.ids(tandem)):to_equal({ "C" })
    -- down to one base, its one marker out is one per base: fully deployed, no tandem target
    world:hit(C, { tabletop.bases(C)[2].id }, "a spec")
    expect(#artillery.secondary_targets(b, S, zone_of(b), 2)):to_be(0)
  end)

  it("takes an adjacent target exactly 2 cm from the main target, not 2.5", function()
    -- B beside A (no overlap across the line of fire), set back so that
    -- the gap between them is along the line of fire
    local b = add("bat", "french", "heavy_battery", 60, 60, 270)
    local A = add("A", "austrian", "line_infantry", 60, 45, 90, nil, 1) -- x 58..62, y 44.25..45.75
    local B = add("B", "austrian", "line_infantry", 66, 41.5, 90, nil, 2) -- x 62..70, y 40.75..42.25
    expect(tabletop.distance(A, B)):to_be(2)
    local _, adjacent = artillery.secondary_targets(b, A, zone_of(b), 2)
    expect(#adjacent):to_be(1)
    world:place(B, { x = 66, y = 41, facing = 90 })
    _, adjacent = artillery.secondary_targets(b, A, zone_of(b), 2)
    expect(#adjacent):to_be(0)
  end)

  it("takes no tandem target in a farm, but one on a hill (open ground)", function()
    local b = add("bat", "french", "heavy_battery", 100, 40, 90)
    local A = add("A", "austrian", "line_infantry", 100, 48.5, 270, nil, 1) -- y 47.75..49.25: open
    add("C", "austrian", "line_infantry", 100, 51.5, 270, nil, 1)          -- y 50.75..52.25: in the farm
    expect(#(artillery.secondary_targets(b, A, zone_of(b), 2))):to_be(0)
    local h = add("h", "french", "heavy_battery", 20, 40, 90)
    local A2 = add("A2", "austrian", "line_infantry", 20, 58.5, 270, nil, 1) -- below the hill (y >= 60)
    add("C2", "austrian", "line_infantry", 20, 61.5, 270, nil, 1)            -- on it
    local tandem = artillery.secondary_targets(h, A2, zone_of(h), 3)
    expect(#tandem):to_be(1)
  end)

  it("takes a one-base light regiment with no skirmishers out as a tandem target", function()
    local b = add("bat", "french", "heavy_battery", 60, 60, 270)
    local A = add("A", "austrian", "line_infantry", 60, 45, 90, nil, 1)
    add("light", "austrian", "light_infantry", 60, 42, 90, nil, 1)
    expect(#(artillery.secondary_targets(b, A, zone_of(b), 2))):to_be(1)
  end)

  it("finds the same tandem and adjacent targets in a scene turned 37 degrees", function()
    local r = math.rad(37)
    local function put(id, ty, x, y, facing, strength)
      local dx, dy = x - 60, y - 45
      return add(id, id == "bat" and "french" or "austrian", ty, 60 + dx * math.cos(r) - dy * math.sin(r),
        40 + dx * math.sin(r) + dy * math.cos(r), (facing + 37) % 360, nil, strength)
    end
    put("bat", "heavy_battery", 60, 60, 270)
    put("A", "line_infantry", 60, 45, 90, 1)
    put("C", "line_infantry", 60, 40.5, 90, 1) -- 4.5 cm behind A's front
    put("B", "line_infantry", 66.2, 45, 90, 2)
    put("far", "line_infantry", 60, 38, 90, 1)
    put("wide", "line_infantry", 75, 45, 90, 2)
    artillery.save_fire("bat")
    local rec = units.fire("bat", 10)
    expect(rec.target):to_be("A")
    expect(rec.tandem):to_equal({ "C" })
    expect(rec.adjacent):to_equal({ "B" })
    expect(rec.result):to_be("3M2B")
    expect(world:unit("B").strength):to_be(2) -- 2 base hits: A's and C's; nothing left for B
    expect(world:unit("B").morale):to_be("disordered") -- half of 3, as A and C are destroyed
  end)
end)

describe("sharing hits, more", function()
  local function units_at()
    local A = add("A", "austrian", "line_infantry", 60, 45, 90, nil, 4)
    local C = add("C", "austrian", "line_infantry", 60, 42, 90, nil, 1)
    local B = add("B", "austrian", "line_infantry", 66.2, 45, 90, nil, 2)
    return A, C, B
  end

  it("puts every base hit on a main target with no tandem target", function()
    local A = units_at()
    expect(artillery.distribute(A, {}, {}, 0, 3).A.bases):to_be(3)
  end)

  it("gives the adjacent target nothing while the main target stands, though the tandem target is gone", function()
    local A, C, B = units_at()
    local h = artillery.distribute(A, { C }, { B }, 3, 4) -- A takes 2, C its half (1 of 2)
    expect(h.A.bases):to_be(2)
    expect(h.C.bases):to_be(1)
    expect(h.B):to_be_nil()
  end)

  it("gives the adjacent target half the morale hits when the roll destroys the main target with no balance", function()
    local A, _, B = units_at()
    A.strength = 2
    local h = artillery.distribute(A, {}, { B }, 3, 2)
    expect(h.A.bases):to_be(2)
    expect(h.B):to_equal({ morale = 1, bases = 0 })
  end)

  it("carries nothing over from a main target whose covered bases may not be killed", function()
    -- 4 bases, 2 of them covered: the fire may kill 2; the third base hit
    -- is lost, not passed to the tandem or adjacent target
    local A, C, B = units_at()
    local h = artillery.distribute(A, { C }, { B }, 2, 4, 2)
    expect(h.A.bases):to_be(2)
    expect(h.C.bases):to_be(1) -- its half of 4... capped by its one base
    expect(h.B):to_be_nil()
    h = artillery.distribute(A, {}, { B }, 2, 3, 2)
    expect(h.A.bases):to_be(2)
    expect(h.B):to_be_nil()
  end)

  it("counts a battery as two base hits deep (damage, then destruction), a damaged one as one", function()
    local _, _, B = units_at()
    local e = add("e", "austrian", "foot_battery", 60, 30, 90)
    local h = artillery.distribute(e, {}, { B }, 2, 3)
    expect(h.e.bases):to_be(2)
    expect(h.B.bases):to_be(1)
    e.damaged = true
    h = artillery.distribute(e, {}, { B }, 2, 2)
    expect(h.e.bases):to_be(1)
    expect(h.B.bases):to_be(1)
  end)

  it("passes every base hit on from a damaged battery already hit this phase", function()
    local _, _, B = units_at()
    local e = add("e", "austrian", "foot_battery", 60, 30, 90, { damaged = true, pending_bases = 1 })
    local h = artillery.distribute(e, {}, { B }, 0, 1)
    expect(h.e.bases):to_be(0)
    expect(h.B.bases):to_be(1)
  end)

  it("counts base hits a battery took earlier in the phase (held back for simultaneous fire)", function()
    local _, _, B = units_at()
    local e = add("e", "austrian", "foot_battery", 60, 30, 90, { pending_bases = 1 })
    local h = artillery.distribute(e, {}, { B }, 0, 2)
    expect(h.e.bases):to_be(1)
    expect(h.B.bases):to_be(1)
    local f = add("f", "austrian", "foot_battery", 40, 30, 90)
    h = artillery.distribute(f, {}, { B }, 0, 2)
    expect(h.f.bases):to_be(2)
    expect(h.B):to_be_nil()
  end)

  it("puts leaders near a tandem target at risk", function()
    add("bat", "french", "heavy_battery", 60, 60, 270)
    add("A", "austrian", "line_infantry", 60, 45, 90, nil, 1) -- y 44.25..45.75
    add("C", "austrian", "line_infantry", 60, 42, 90, nil, 1) -- y 41.25..42.75
    add("l", "austrian", "general", 60, 35, 90)               -- 5.5 cm from C, 8.5 from A
    local rec = units.fire("bat", 1)
    expect(rec.tandem):to_equal({ "C" })
    expect(rec.could_hit):to_be(true)
    expect(#leaders.at_risk()):to_be(1)
  end)
end)

describe("passing fire, more", function()
  it("needs the move as both points, or as both a bearing and a length", function()
    crossing()
    expect_error(function()
      artillery.passing_fire{ battery = "b", target = "t", from = { x = 40, y = 45 } }
    end, "give the move as from= and to= points")
    expect_error(function()
      artillery.passing_fire{ battery = "b", target = "t", move_bearing = 0 }
    end, "give the move as from= and to= points")
  end)

  it("fires with exactly 8 cm of the move inside the arc", function()
    crossing()
    dice.force("d10", { 1 })
    expect(artillery.passing_fire{ battery = "b", target = "t", move_bearing = 0, in_arc_cm = 8 }.target):to_be("t")
  end)

  it("counts a move more than 45 degrees from the perpendicular as across the front, either side", function()
    -- the battery faces 270: the perpendicular of its front runs 90/270
    local b = crossing()
    for _, bearing in ipairs({ 135.5, 44.5, 224.5, 315.5 }) do
      b.passed_fire, b.fired = nil, nil
      dice.force("d10", { 1 })
      artillery.passing_fire{ battery = "b", target = "t", move_bearing = bearing, in_arc_cm = 9 }
      expect(b.passed_fire):to_be(true)
    end
  end)

  it("does not count a move 45 degrees or less from the perpendicular", function()
    crossing()
    for _, bearing in ipairs({ 135, 134.5, 45.5, 225.5, 314.5 }) do
      expect_error(function()
        artillery.passing_fire{ battery = "b", target = "t", move_bearing = bearing, in_arc_cm = 9 }
      end, "not moving across")
    end
  end)

  it("is not open to a battery that saved fire in an earlier phase and still holds it", function()
    local b = crossing()
    artillery.save_fire(b)
    artillery.begin_phase()
    expect(b.saving):to_be_nil()
    expect_error(function()
      artillery.passing_fire{ battery = "b", target = "t", move_bearing = 0, in_arc_cm = 9 }
    end, "saving fire")
  end)
end)

describe("the centre of fire", function()
  it("aims at the middle of the target's nearest base", function()
    add("b", "french", "foot_battery", 60, 60, 270)
    add("t", "austrian", "line_infantry", 64, 45, 90, nil, 1)
    local rec = units.fire("b", 1)
    local want = tabletop.bearing(tabletop.point(60, 58.5), tabletop.point(64, 45))
    expect(want > 285 and want < 295):to_be(true)
    expect(rec.batteries[1].bearing):to_be_close(want, 1e-9)
  end)

  it("aims across 0 degrees for a battery facing east", function()
    add("b", "french", "foot_battery", 40, 40, 0)
    add("t", "austrian", "line_infantry", 55, 37, 180, nil, 1)
    local rec = units.fire("b", 1)
    local want = tabletop.bearing(tabletop.point(41.5, 40), tabletop.point(55, 37))
    expect(want > 300):to_be(true)
    expect(rec.batteries[1].bearing):to_be_close(want, 1e-9)
  end)

  it("swings no further than the arc of fire allows", function()
    -- the target's only base pokes into the arc at its edge; its middle
    -- lies outside it, so the centre of fire stops at 30 degrees
    add("b", "french", "foot_battery", 60, 60, 270)
    local edge = 62.5 + 20.75 * math.tan(math.rad(30))
    add("t", "austrian", "line_infantry", edge + 1.5, 38.5, 90, nil, 1)
    local rec = units.fire("b", 1)
    expect(rec.batteries[1].bearing):to_be_close(300, 1e-9)
  end)

  it("breaks a tie of equal swing and distance by id, whatever order the units came in", function()
    local b = add("b", "french", "foot_battery", 60, 60, 270)
    add("R", "austrian", "line_infantry", 68, 40, 90, nil, 1)
    add("L", "austrian", "line_infantry", 52, 40, 90, nil, 1)
    local c = artillery.candidates(b)
    expect(c[1].swing):to_be_close(c[2].swing, 1e-9)
    expect(c[1].distance):to_be_close(c[2].distance, 1e-9)
    expect(c[1].unit.id):to_be("L")
  end)
end)

-- [3.5 Sec] "An adjacent secondary target is any unit within the firing
-- battery's frontage zone which is next to, and within the same range
-- bracket as, the main target." "A tandem secondary target is any unit
-- which is within the firing battery's frontage zone, within the same range
-- bracket as the main target, and no further than 5cm behind the main
-- target's front." Judged by the units' own edges, whatever way the centre
-- of fire swings, in every layout.

describe("an adjacent target is next to the main target, however the zone swings", function()
  -- A heavy battery 12 cm below A, off to A's side, so that the centre of
  -- fire swings about 16 degrees to reach A's middle; B touches A's side,
  -- its front level with A's, and reaches into the frontage zone.
  units.each_layout("takes the balance as the adjacent target, not as a tandem one", function(s)
    local b = s.add("bat", "french", "heavy_battery", 0, 12, 270)
    s.add("A", "austrian", "line_infantry", 3, 0, 90, nil, 1)   -- x 1..5
    s.add("B", "austrian", "line_infantry", 9, 0, 90, nil, 2)   -- x 5..13 (one base reaches into the zone)
    artillery.save_fire(b)
    artillery.begin_phase()
    expect(artillery.main_target(b).id):to_be("A")
    dice.force("d10", { 10 })
    local rec = artillery.fire{ battery = "bat" } -- close range 4, saved x2 = 8: die 10 reads 3M2B
    expect(math.abs(rec.batteries[1].bearing - b.facing) > 10):to_be(true)
    expect(rec.result):to_be("3M2B")
    expect(rec.tandem):to_equal({})
    expect(rec.adjacent):to_equal({ "B" })
    expect(world:unit("A").alive):to_be(false)
    expect(world:unit("B").strength):to_be(1)         -- the balance: one base
    expect(world:unit("B").morale):to_be("disordered") -- half of 3 morale hits
  end)
end)

describe("a tandem target is no further than 5 cm behind the main target's front", function()
  -- A as above (the centre of fire swings about 16 degrees); C square
  -- behind A, its front exactly 5 cm behind A's front, measured square to
  -- A's front.
  units.each_layout("takes one exactly 5 cm behind at an oblique aim, not one 5.1 cm behind", function(s)
    local b = s.add("bat", "french", "heavy_battery", 0, 12, 270)
    local A = s.add("A", "austrian", "line_infantry", 3, 0, 90, nil, 1)    -- front at y 0.75
    local C = s.add("C", "austrian", "line_infantry", 3, -5, 90, nil, 1)   -- front at y -4.25
    artillery.begin_phase()
    local _, bearing = artillery.blocked_by(b, A)
    local zone = tabletop.frontage_zone(b, bearing, 48)
    local tandem = artillery.secondary_targets(b, A, zone, 2)
    expect(#tandem):to_be(1)
    expect(tandem[1].id):to_be("C")
    s.place(C, 3, -5.1, 90)
    expect(#(artillery.secondary_targets(b, A, zone, 2))):to_be(0)
  end)

  units.each_layout("shares the hits with it through a fire", function(s)
    -- C behind A's outer half (x 3..7), its front 5 cm behind A's
    local b = s.add("bat", "french", "heavy_battery", 0, 12, 270)
    s.add("A", "austrian", "line_infantry", 3, 0, 90, nil, 1)
    s.add("C", "austrian", "line_infantry", 5, -5, 90, nil, 1)
    artillery.save_fire(b)
    local rec = units.fire("bat", 10) -- 3M2B: A takes 1 base hit, C its half
    expect(rec.target):to_be("A")
    expect(rec.tandem):to_equal({ "C" })
    expect(world:unit("A").alive):to_be(false)
    expect(world:unit("C").alive):to_be(false)
  end)

  units.each_layout("shares the half first with the tandem target nearest the main target's front, not the first along the zone", function(s)
    -- A turned 30 degrees (facing 120), the centre of fire straight up
    -- through it; C1 and C2 turned as A, behind it: C1 2.37 cm behind A's
    -- front (measured square to that front) but further along the zone,
    -- C2 2.03 cm behind and met first
    local b = s.add("bat", "french", "heavy_battery", 0, 12, 270)
    s.add("A", "austrian", "line_infantry", 0, 0, 120, nil, 1)
    s.add("C1", "austrian", "line_infantry", 3, -1, 120, nil, 1)
    s.add("C2", "austrian", "line_infantry", -2, -3.5, 120, nil, 1)
    artillery.save_fire(b)
    local rec = units.fire("bat", 10) -- close range 4, saved x2 = 8: 3M2B
    expect(rec.result):to_be("3M2B")
    expect(rec.tandem):to_equal({ "C2", "C1" })
    expect(world:unit("A").alive):to_be(false) -- its one base, then the balance
    expect(world:unit("C2").alive):to_be(false)
    expect(world:unit("C1").strength):to_be(1)
    expect(world:unit("C1").morale):to_be("disordered") -- half of 3 morale hits
  end)
end)

describe("the closest adjacent target suffers the balance", function()
  -- A straight ahead of the battery; B1 beside it 0.3 cm away on one
  -- side, added first and first by id; B2 touching it on the other. Both
  -- reach into the frontage zone.
  units.each_layout("is the one closest to the main target, not the first found", function(s)
    local b = s.add("bat", "french", "heavy_battery", 0, 12, 270)
    s.add("B1", "austrian", "line_infantry", -6.3, 0, 90, nil, 2) -- x -10.3..-2.3
    s.add("A", "austrian", "line_infantry", 0, 0, 90, nil, 1)     -- x -2..2
    s.add("B2", "austrian", "line_infantry", 6, 0, 90, nil, 2)    -- x 2..10
    artillery.save_fire(b)
    local rec = units.fire("bat", 10) -- 3M2B
    expect(rec.adjacent):to_equal({ "B2", "B1" })
    expect(world:unit("B2").strength):to_be(1)
    expect(world:unit("B1").strength):to_be(2)
    expect(world:unit("B1").morale):to_be_nil()
  end)

  units.each_layout("between two equally close, is the firing side's choice", function(s)
    local b = s.add("bat", "french", "heavy_battery", 0, 12, 270)
    s.add("B1", "austrian", "line_infantry", -6, 0, 90, nil, 2)   -- x -10..-2, touching A
    s.add("A", "austrian", "line_infantry", 0, 0, 90, nil, 1)
    s.add("B2", "austrian", "line_infantry", 6, 0, 90, nil, 2)    -- x 2..10, touching A
    artillery.save_fire(b)
    artillery.begin_phase()
    dice.force("d10", { 10 })
    answers{ "B2" }
    artillery.fire{ battery = "bat" }
    expect(world:unit("B2").strength):to_be(1)
    expect(world:unit("B1").strength):to_be(2)
  end)

  it("is not asked for when the balance falls on nobody", function()
    local b = add("bat", "french", "heavy_battery", 60, 52, 270)
    add("B1", "austrian", "line_infantry", 54, 40, 90, nil, 2) -- x 50..58, touching A
    add("A", "austrian", "line_infantry", 60, 40, 90, nil, 1)  -- x 58..62
    add("B2", "austrian", "line_infantry", 66, 40, 90, nil, 2) -- x 62..70, touching A
    local rec = units.fire(b, 5) -- 4 points, die 5: 1M; A stands
    expect(rec.adjacent):to_equal({ "B1", "B2" })
    expect(world:unit("A").morale):to_be("disordered")
    expect(world:unit("B1").morale):to_be_nil()
    expect(world:unit("B2").morale):to_be_nil()
  end)
end)

describe("no fire through or over friends, judged by the target's own edges", function()
  units.each_layout("fires at a four-base line with a friend 1 cm behind it", function(s)
    s.add("bat", "french", "foot_battery", 1, 12, 270)
    s.add("A", "austrian", "line_infantry", 0, 0, 90)               -- x -8..8
    s.add("f", "french", "line_infantry", 0, -2.5, 270, nil, 2)     -- 1 cm behind A's rear edge
    expect(units.fire("bat", 1).target):to_be("A")
  end)

  units.each_layout("fires at a one-base target with a friend touching its rear, at an oblique aim", function(s)
    s.add("bat", "french", "foot_battery", 0, 12, 270)
    s.add("A", "austrian", "line_infantry", 3, 0, 90, nil, 1)
    s.add("f", "french", "line_infantry", 3, -1.5, 270, nil, 1)     -- touching A's rear
    expect(units.fire("bat", 1).target):to_be("A")
  end)

  units.each_layout("may not fire past a friend level with the target in the zone, nor one in front of it", function(s)
    local b = s.add("bat", "french", "foot_battery", 0, 12, 270)
    s.add("A", "austrian", "line_infantry", 0, 0, 90, nil, 1)       -- x -2..2
    local f = s.add("f", "french", "line_infantry", 4, 0, 270, nil, 1) -- x 2..6: in the zone, level with A
    artillery.begin_phase()
    expect_error(function() artillery.fire{ battery = b } end, "may not fire through or over friendly f")
    s.place(f, 0, 6, 270)                                            -- between the battery and A
    expect_error(function() artillery.fire{ battery = b } end, "may not fire through or over friendly f")
  end)
end)

describe("the centre of fire, more", function()
  units.each_layout("goes straight ahead when that passes through the target, though its nearest base lies to one side", function(s)
    local b = s.add("b", "french", "foot_battery", 0, 12, 270)
    s.add("t", "austrian", "line_infantry", 5.5, 0, 90, nil, 2) -- x 1.5..9.5: the straight line misses
    s.add("u", "austrian", "line_infantry", -1.5, -3, 90, nil, 2) -- x -5.5..2.5, further: the line crosses it
    local rec = units.fire(b, 1)
    expect(rec.target):to_be("u")
    expect(rec.batteries[1].bearing):to_be_close(b.facing, 1e-9)
  end)

  units.each_layout("goes straight ahead when the straight line runs along the target's side (touching counts)", function(s)
    local b = s.add("b", "french", "foot_battery", 0, 12, 270)
    local t = s.add("t", "austrian", "line_infantry", 2, 0, 90, nil, 1) -- x 0..4: its side on the line
    expect(units.fire(b, 1).batteries[1].bearing):to_be_close(b.facing, 1e-9)
    s.place(t, -2, 0, 90)                                               -- x -4..0: the other side
    expect(units.fire(b, 1).batteries[1].bearing):to_be_close(b.facing, 1e-9)
  end)

  -- B2 (added first) and B1 equally close to A on either side, touching it
  -- or 0.25 cm off (all of them reach into the frontage zone, x -2.5..2.5)
  for _, gap in ipairs({ 0, 0.25 }) do
    units.each_layout("offers the tied adjacent targets by id, the first by default, " .. gap .. " cm off", function(s)
      local b = s.add("bat", "french", "heavy_battery", 0, 12, 270)
      s.add("B2", "austrian", "line_infantry", 6 + gap, 0, 90, nil, 2)
      s.add("A", "austrian", "line_infantry", 0, 0, 90, nil, 1)
      s.add("B1", "austrian", "line_infantry", -6 - gap, 0, 90, nil, 2)
      artillery.save_fire(b)
      artillery.begin_phase()
      dice.force("d10", { 10 })
      answers{ answers.default }
      local rec = artillery.fire{ battery = "bat" }
      expect(rec.adjacent):to_equal({ "B1", "B2" })
      expect(world:unit("B1").strength):to_be(1)
      expect(world:unit("B2").strength):to_be(2)
      expect(units.asked()):to_equal({ { "B1", "B2" } })
    end)
  end
end)

describe("main targets and the aim, ties", function()
  units.each_layout("between two units the centre of fire swings equally far to reach, takes the nearer", function(s)
    -- the inner rear corners of L (-3, -6.25) and R (4, -10.5), seen from
    -- the middle of the battery's front (0, 6.5), lie at the same angle
    -- off its facing, both in the close bracket; L is the nearer
    local b = s.add("b", "french", "foot_battery", 0, 8, 270)
    s.add("R", "austrian", "line_infantry", 6, -9.75, 90, nil, 1) -- x 4..8, y -10.5..-9
    s.add("L", "austrian", "line_infantry", -5, -5.5, 90, nil, 1) -- x -7..-3, y -6.25..-4.75
    local c = artillery.candidates(b)
    expect(c[1].swing):to_be_close(c[2].swing, 1e-9)
    expect(artillery.main_target(b).id):to_be("L")
  end)

  units.each_layout("aims at the one of two equally near bases nearer straight ahead", function(s)
    -- a line that lost its middle base: the straight line passes through
    -- the gap; both bases 5.75 cm from the battery, the right one nearer
    -- its centre line
    local b = s.add("b", "french", "foot_battery", 0.3, 8, 270)
    local t = s.add("t", "austrian", "line_infantry", 0, 0, 90, nil, 3) -- x -6..-2, -2..2, 2..6
    world:hit(t, { 2 })
    local rec = units.fire(b, 1)
    local want = tabletop.bearing(s.at(0.3, 6.5), s.at(4, 0))
    expect(tabletop.angle_between(rec.batteries[1].bearing, want)):to_be_close(0, 1e-9)
  end)

  units.each_layout("aims at the first in place order of two bases equally near and equally off its centre line", function(s)
    -- (the bases' middles (-4, -2) and (4, -2) lie 25 degrees off, inside
    -- the arc of fire)
    local b = s.add("b", "french", "foot_battery", 0, 8, 270)
    local t = s.add("t", "austrian", "line_infantry", 0, -2, 90, nil, 3)
    world:hit(t, { 2 })
    local first = tabletop.bases(t)[1]
    expect(first.id):to_be(1)
    local rec = units.fire(b, 1)
    local want = tabletop.bearing(s.at(0, 6.5), first)
    expect(tabletop.angle_between(rec.batteries[1].bearing, want)):to_be_close(0, 1e-9)
  end)
end)

describe("friends beyond a target turned to the line of fire", function()
  -- A turned 30 degrees; a friend behind it along the line of fire, wholly
  -- beyond A along the frontage zone but straddling the line of A's rear
  -- edge: fire passes A before it reaches the friend
  units.each_layout("does not count a friend the zone reaches only after the target as in the way", function(s)
    local b = s.add("b", "french", "foot_battery", 0, 12, 270)
    s.add("A", "austrian", "line_infantry", 0, 0, 120, nil, 1)
    s.add("f", "french", "line_infantry", 2.5, -4, 120, nil, 1)
    expect(units.fire(b, 1).target):to_be("A")
  end)

  units.each_layout("does not count a friend touching the target's rear anywhere along it", function(s)
    local b = s.add("b", "french", "foot_battery", 0, 12, 270)
    s.add("A", "austrian", "line_infantry", 3, 0, 90, nil, 1)         -- x 1..5
    local f = s.add("f", "french", "line_infantry", 1.5, -1.5, 270, nil, 1) -- touching A's rear, 1.5 cm to one side
    expect(units.fire(b, 1).target):to_be("A")
    artillery.begin_phase()
    s.place(f, 4.5, -1.5, 270)                                          -- 1.5 cm to the other side
    dice.force("d10", { 1 })
    expect(artillery.fire{ battery = b }.target):to_be("A")
  end)

  units.each_layout("does not count a friend that begins exactly where the fire leaves the target", function(s)
    -- A turned 30 degrees (facing 120): its rear corner at
    -- (0.375 - sqrt 3, -1 - 0.375 sqrt 3) is the last of it along the
    -- frontage zone; the friend's front edge runs through that corner,
    -- square across the zone, and reaches out past A's rear edge line
    -- (so it is not wholly beyond A's far side)
    local b = s.add("b", "french", "foot_battery", 0, 12, 270)
    s.add("A", "austrian", "line_infantry", 0, 0, 120, nil, 1)
    local far = -1 - 0.375 * math.sqrt(3)
    s.add("f", "french", "line_infantry", -2, far - 0.75, 270, nil, 1) -- x -4..0
    expect(units.fire(b, 1).target):to_be("A")
  end)
end)

describe("troop bases, not leaders or markers, by the letter", function()
  local duel = units.duel

  it("a friendly leader in the frontage zone does not block the fire (it must be free of troop bases and markers)", function()
    duel()
    add("ney", "french", "general", 60, 55, 270)
    dice.force("d10", { 1 })
    expect(artillery.fire{ battery = "b" }.target):to_be("a")
  end)

  it("a friendly unit in the frontage zone blocks at long range too, short of the target", function()
    add("b", "french", "foot_battery", 60, 60, 270)            -- front edge y = 58.5
    add("a", "austrian", "line_infantry", 60, 22.75, 90)        -- 35 cm: long range
    add("f", "french", "line_infantry", 60, 27.25, 270, nil, 1) -- 30.5 cm, past medium range
    artillery.begin_phase()
    expect_error(function() artillery.fire{ battery = "b" } end, "may not fire through or over friendly f")
  end)

  it("an enemy leader beside the main target in the zone is no adjacent target", function()
    duel("line_infantry", nil, 1)                               -- a: one base, x 58..62
    add("gen", "austrian", "general", 63, 50, 90)               -- x 62.25..63.75, in the zone
    dice.force("d10", { 1 })
    local rec = artillery.fire{ battery = "b" }
    expect(rec.target):to_be("a")
    expect(rec.adjacent):to_equal({})
  end)

  it("an enemy skirmish marker 2.25 cm behind the main target is no tandem target", function()
    add("b", "french", "foot_battery", 60, 64, 270)             -- front edge y = 62.5
    add("a", "austrian", "line_infantry", 60, 50, 90, nil, 1)   -- front edge y = 50.75: close range
    add("ask", "austrian", "skirmishers", 60, 48, 90, { parent = "x" }) -- y 47.5..48.5, close range too
    local rec = units.fire("b", 1)
    expect(rec.target):to_be("a")
    expect(rec.tandem):to_equal({})
  end)
end)
