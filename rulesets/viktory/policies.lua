-- rulesets/viktory/policies.lua — overwatch policies and the mountain pass
-- play-through, for analysis scripts (scripts/viktory/*.lua) and the REPL.
--
-- A policy answers the decision `overwatch` (options "now" / "wait"); its
-- request carries artillery, mover, mover_type, mover_side, carrying,
-- loading, dice, p_hit and hex (overwatch.lua, overwatch.offer).
-- Register one with  policy("overwatch", policies.best_target).

local viktory = require("viktory")
local turn = require("turn")
local battle = require("battle")

local policies = {}

-- Fire at the first unit that triggers overwatch.
function policies.fire_at_once(_options, _request)
  return "now"
end

-- Fire at the first artillery, else at a frigate, else pass (wait for a
-- more valuable target).
function policies.best_target(_options, request)
  if request.mover_type == "artillery" or request.mover_type == "frigate" then
    return "now"
  end
  return "wait"
end

-- A policy for one player only: the others fire at once (the default).
--   policy("overwatch", policies.only("A", policies.best_target))
function policies.only(side, fn)
  return function(options, request)
    if request.side ~= side then
      return "now"
    end
    return fn(options, request)
  end
end

local TOWN, FRIGATE_PATH = hex(5, 3), { hex(2, 5), hex(3, 4) }
local B_UNITS = { "b_inf1", "b_inf2", "b_art" }
local C_UNITS = { "c_inf1", "c_frig", "c_inf2", "c_inf3" }

local function lost(ids)
  local n = 0
  for _, id in ipairs(ids) do
    if world:unit(id).strength == 0 then
      n += 1
    end
  end
  return n
end

-- The document's story on scripts/viktory/mountain_pass.yaml with real
-- dice: B attacks A's town with its two infantry and then its artillery
-- (in that order), C attacks it with an infantry, then sails its frigate
-- next to the mountain and lands both infantry beside it at (4,4).
-- Every overwatch question goes to the registered policy (B's artillery,
-- once it stands in a captured town, has overwatch on C's turn too);
-- casualties take the defaults (the firer the dearest unit, the owner the
-- cheapest).
-- Returns the metrics of one trial.
function policies.play_mountain_pass()
  local b = battle.attack{
    target = TOWN,
    attackers = B_UNITS,
    paths = { b_inf1 = { hex(6, 2) }, b_inf2 = { hex(5, 4) }, b_art = { hex(6, 3) } },
  }
  turn.finish()
  battle.attack{ target = TOWN, attackers = { "c_inf1" }, paths = { c_inf1 = { hex(5, 4) } } }
  if turn.move("c_frig", FRIGATE_PATH) then
    for _, id in ipairs({ "c_inf2", "c_inf3" }) do
      if #viktory.units_at(hex(4, 4), { other_than = "C" }) == 0 then
        turn.unload(id, hex(4, 4))
      end
    end
  end
  local a_town = world:unit("a_town")
  return {
    b_took_town = b.winner == "B",
    town_held = a_town.alive,
    b_lost = lost(B_UNITS),
    c_lost = lost(C_UNITS),
    b_art_lost = world:unit("b_art").strength == 0,
    frigate_sunk = world:unit("c_frig").strength == 0,
  }
end

return policies
