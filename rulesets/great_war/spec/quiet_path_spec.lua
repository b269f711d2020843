-- The quiet path agrees with the full path: `fire{quiet=true}` (what `sim`
-- and `exact` run) must leave the same battlefield and the same numbers in
-- the record as the full form, on random boards with random dice and
-- decisions (same_paths, docs/lua-api.md "Scripts and specs"). Each trial
-- places units of both sides on and around a random target, with random
-- terrain, wire and craters, and fires a random number of HQ tokens (or lets
-- the side decide); retreat choices are answered from the same seeded source
-- in both paths.

local TERRAIN = { "woods", "hills", "trenches", "town", "lake" }
local SIDES = { "allies", "central" }

-- A random board around a random target; returns the firing's arguments.
local function board(rng)
  local side = rng:pick(SIDES)
  local target = hex.from_offset(rng:int(0, 12), rng:int(0, 8))
  local n = 0
  for _, h in ipairs({ target, table.unpack(target:neighbors()) }) do
    if world:on_map(h) then
      if rng:chance(0.4) then
        world:set_terrain(h, rng:pick(TERRAIN))
      end
      if rng:chance(0.2) then
        world:add_token(h, "wire")
      end
      if rng:chance(0.15) then
        world:add_token(h, "crater")
      end
      if rng:chance(0.6) and world:unit_at(h) == nil then
        n += 1
        world:add_unit{ id = "u" .. n, side = rng:pick(SIDES), type = "infantry", hex = h, strength = rng:int(1, 4) }
      end
      -- neighbours of the neighbours, to block some retreats
      for _, far in ipairs(h:neighbors()) do
        if world:on_map(far) and world:unit_at(far) == nil and rng:chance(0.15) then
          n += 1
          world:add_unit{ id = "u" .. n, side = rng:pick(SIDES), type = "machine_gun", hex = far }
        end
      end
    end
  end
  world:set_pool(side, "hq", rng:int(1, 6))
  local hq = rng:chance(0.5) and rng:int(1, 4) or nil -- nil: the side decides
  return { side = side, target = target, card = "bombard", hq = hq }
end

local function full(args)
  return reserve_artillery.fire{ side = args.side, target = args.target, card = args.card, hq = args.hq }
end

local function quiet(args)
  return reserve_artillery.fire{ side = args.side, target = args.target, card = args.card, hq = args.hq, quiet = true }
end

scenario("scenarios/range.yaml")

describe("fire{quiet=true} and the full fire", function()
  it("agree on 200 random boards", function()
    local r = same_paths{ board = board, full = full, quiet = quiet, trials = 200, seed = 1 }
    expect(r.compared + r.both_failed):to_be(200)
    expect(r.compared > 130):to_be(true) -- most boards fire (a few ask more HQ tokens than held)
  end)

  it("agree with every decision left to its default", function()
    local r = same_paths{ board = board, full = full, quiet = quiet, trials = 60, seed = 1000, decisions = "default" }
    expect(r.compared > 35):to_be(true)
  end)
end)

-- Each variant the quiet path reads a param of, on fewer boards.
for _, variant in ipairs({ "crater_keeps_flag_terrain", "wire_cut_by_hits", "lasting_wire", "no_friendly_fire",
  "on_target_needs_three", "long_retreats", "blocked_retreat_stays" }) do
  describe("under " .. variant, function()
    scenario("scenarios/range.yaml", { variant = variant })
    it("the two paths agree", function()
      local r = same_paths{ board = board, full = full, quiet = quiet, trials = 40, seed = 5000 }
      expect(r.compared > 20):to_be(true)
    end)
  end)
end

describe("same_paths itself", function()
  scenario("scenarios/range.yaml")

  it("notices a quiet path that differs", function()
    local msg = expect_error(function()
      same_paths{ board = board, full = full, trials = 50, seed = 1, quiet = function(args)
        local rec = quiet(args)
        if rec.figures_lost > 0 then
          world:set_pool("allies", "medals", 9) -- a slip in the fast path
        end
        return rec
      end }
    end, "the two paths left different battlefields")
    expect(msg):to_contain("repeat it alone with seed = ")
  end)

  it("notices a record number that differs", function()
    expect_error(function()
      same_paths{ board = board, full = full, trials = 50, seed = 1, quiet = function(args)
        local rec = quiet(args)
        rec.figures_lost += 1
        return rec
      end }
    end, "the records differ in `figures_lost`: full path")
  end)
end)
