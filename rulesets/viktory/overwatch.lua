-- rulesets/viktory/overwatch.lua — the Viktory II expansion rule
-- "Artillery Characteristics": overwatch (shared/rules/viktory-overwatch.txt).
--
-- Rule tags (see viktory.lua for the full list):
--   [OW]          each defending artillery may make one bombard attack per
--                 enemy player's turn at an enemy unit that moves next to it
--                 or into its hex, at once, when the move happens
--   [OW-dice]     two dice near a friendly unit, town or city or in the
--                 artillery's own hex; one die in an empty adjacent hex; all
--                 hits are Tactical Victories (the artillery's owner picks)
--   [OW-wait]     the owner may pass on a trigger to wait for a better one,
--                 deciding at once each time; attackers moving in one by one
--                 are each a trigger
--   [OW-trigger]  what triggers it: entering an adjacent or the same hex
--                 (roads too), loading onto a frigate (the loading unit is
--                 the target), a frigate moving between adjacent hexes (a
--                 hit sinks it and its cargo); what does not: moving out to
--                 a more distant hex, reserve placement
--   [Ours]        with several players, who fires first
--
-- Overwatch is a reaction: it subscribes to the core's `enters` event
-- (world:move emits it on every step of every move) and is never called by
-- the moving rule. It also listens to `turn_started` (turn.lua) to redraw
-- its map marks.
--
-- At a prompt:
--   overwatch.status()

local viktory = require("viktory")
local turn = require("turn")

local overwatch = {}

-- [OW] Is this artillery's overwatch spent for the player turn in progress?
function overwatch.spent(art)
  return art.overwatch_spent == viktory.turn_key()
end

-- [OW-dice] Overwatch dice for an enemy entering hex h, seen from
-- artillery `art`: dice_near in the artillery's own hex or in an adjacent
-- hex holding any piece of the artillery's side (a unit, town or city;
-- the artillery itself does not count for a hex it is not in), else dice_open.
-- Also returns why: "own hex", "friendly town", "friendly city", "friendly
-- unit" or "no friendly piece" (the decision's request field `near`).
function overwatch.dice_for(art, h)
  if h == art.hex then
    return params.overwatch.dice_near, "own hex"
  end
  local friends = viktory.units_at(h, { side = art.side })
  if #friends > 0 then
    local what = "friendly unit"
    for _, f in ipairs(friends) do
      local kind = f.type
      if kind == "town" or kind == "city" then
        what = "friendly " .. kind
      end
    end
    return params.overwatch.dice_near, what
  end
  return params.overwatch.dice_open, "no friendly piece"
end

-- How a prompt says where the mover went, from dice_for's `why`.
local function where(why)
  if why == "own hex" then
    return "into its own hex"
  elseif why == "no friendly piece" then
    return "next to it, into a hex with no friendly piece"
  end
  return "next to it, into a hex with a " .. why
end

local function by_id(a, b)
  return a.id < b.id
end

-- [OW] The artillery of other sides than `mover_side` that could answer a
-- move into h: on the map, in or next to h, its overwatch not spent this
-- turn. Returns a table side -> its artillery in id order, or nil when
-- there is none (most steps of most moves).
local function ready_artillery(mover_side, h)
  local out = nil
  for _, u in ipairs(world:units{ type = "artillery" }) do
    local side = u.side
    if side ~= mover_side and u.hex:distance(h) <= 1 and not overwatch.spent(u) then
      out = out or {}
      local list = out[side]
      if list == nil then
        list = {}
        out[side] = list
      end
      table.insert(list, u)
    end
  end
  for _, list in pairs(out or {}) do
    table.sort(list, by_id)
  end
  return out
end

-- [OW][OW-trigger][OW-wait] Who a shot at `mover`, which entered h, may
-- hit (the firer picks among them). The document: a Bombard Attack "at a
-- unit that moves into an adjacent or same hex", "against the unit
-- loading, not the frigate", and a decision made at once on each
-- opportunity. So by default (overwatch.targets = "movers") the targets are
-- the units making the triggering move: the mover, and when it is moving in
-- for a battle attack (battle.move_in), every unit of its side that has
-- moved in for that same attack this turn (they move in together, as in the
-- document's example, where A picks B's artillery among the attackers).
-- Never a unit that stood there before or moved there on its own, nor one
-- still on its hexside. A unit loading onto a frigate is always the only
-- target. Variants: "mover" (only the unit that moved) and "hex" (any of
-- the mover's military units on the entered hex).
function overwatch.targets(mover, h)
  local rule = params.overwatch.targets
  if mover.loading ~= nil or rule == "mover" then
    return { mover }
  end
  local attack = mover.moving_in
  if rule == "movers" and attack == nil then
    return { mover }
  end
  local out = {}
  for _, u in ipairs(viktory.units_at(h, { side = mover.side, military = true })) do
    if u.loading == nil and (rule == "hex" or u.moving_in == attack) then
      table.insert(out, u)
    end
  end
  return out
end

local function percent(p)
  return string.format("%d%%", math.floor(p * 100 + 0.5))
end

-- [OW][OW-dice][OW-wait] One artillery's answer to one trigger: the owner
-- decides at once (decision id `overwatch`, options "now" / "wait"; the
-- prompt names the units the shot may hit; the request also carries
-- artillery, mover, mover_type, mover_side, carrying, loading, dice, near
-- (dice_for's why), p_hit, hex and targets (their ids) for policies and
-- the log). "now" fires: the dice are
-- rolled, every hit is a Tactical Victory on one of the targets
-- (overwatch.targets), and the overwatch is spent for this enemy turn; the
-- shot is kept for the move to report (viktory.record_shot). "wait" leaves
-- it ready for a later trigger. Returns true if it fired.
function overwatch.offer(art, mover, h)
  local n, why = overwatch.dice_for(art, h)
  local cargo = viktory.cargo(mover)
  local p = viktory.p_hit(n)
  local targets = overwatch.targets(mover, h)
  local ids = {}
  for i, u in ipairs(targets) do
    ids[i] = u.id
  end
  local choice = decide{
    id = "overwatch",
    side = art.side,
    prompt = function()
      local what = mover.side .. "'s " .. mover.id .. " (" .. mover.type
        .. (#cargo > 0 and (" carrying " .. #cargo) or "") .. (mover.loading and (", boarding " .. mover.loading) or "") .. ")"
      return "overwatch now or wait? " .. art.id .. " at " .. tostring(art.hex) .. " can fire " .. n
        .. (n == 1 and " die" or " dice") .. " at " .. what .. " moving " .. where(why) .. " " .. tostring(h)
        .. "; P(at least one hit) " .. percent(p) .. ", every hit a Tactical Victory on "
        .. (#ids == 1 and ids[1] or ("one of " .. table.concat(ids, ", ")))
    end,
    options = { "now", "wait" },
    default = "now",
    artillery = art.id,
    mover = mover.id,
    mover_type = mover.type,
    mover_side = mover.side,
    carrying = #cargo,
    loading = mover.loading ~= nil,
    dice = n,
    near = why,
    p_hit = p,
    hex = h,
    targets = ids,
  }
  if choice ~= "now" then
    if world:recording() then
      world:note(art.id .. " holds its overwatch (" .. mover.id .. " entered " .. tostring(h) .. ")")
    end
    return false
  end
  art.overwatch_spent = viktory.turn_key()
  local hits, _, roll = viktory.roll(n, "overwatch by " .. art.id .. " at " .. mover.id)
  local lost = viktory.take_losses{
    units = targets, hits = hits, selective = hits,
    firer = art.side, owner = mover.side, reason = "overwatch by " .. art.id,
  }
  local shot = viktory.record_shot(art, mover, h, n, roll, hits, lost)
  if world:recording() then
    world:note(tostring(shot))
  end
  emit("overwatch_fired", art, mover, h, hits)
  return true
end

-- The sides of `ready` in turn order after the mover's (players_after).
-- Most steps have one such side, which needs no ordering (every unit's
-- side is a player: scenarios and world:add_unit refuse any other).
local function ready_sides(ready, mover_side)
  local only = next(ready)
  if next(ready, only) == nil then
    return { only }
  end
  return viktory.players_after(mover_side)
end

-- [OW][OW-trigger][Ours] The reaction to one step of a move. It fires when
-- the unit belongs to the player whose turn it is and enters a hex in or
-- next to a defending artillery, outside the reserve placement phase.
-- Moving out to a more distant hex enters no such hex, so it triggers
-- nothing. Every other player's artillery may answer, players in turn
-- order after the mover and each player's artillery in id order; once the
-- mover is gone (destroyed), the later artillery are not asked and keep
-- their overwatch.
function overwatch.on_enters(u, h)
  if not params.overwatch.enabled then
    return
  end
  local mover_side = u.side
  if mover_side ~= world:current_side() or turn.phase() == "reserve" then
    return
  end
  local ready = ready_artillery(mover_side, h)
  if ready == nil then
    return
  end
  local fired = false
  for _, side in ipairs(ready_sides(ready, mover_side)) do
    for _, art in ipairs(ready[side] or {}) do
      if not (u.alive and u.hex == h) then
        break
      end
      if overwatch.offer(art, u, h) then
        fired = true
      end
    end
  end
  if fired then
    overwatch.show()
  end
end

-- Map marks: each artillery's hex gets "W <id> ready" (its overwatch can
-- still fire this turn) or "X <id> spent", and the six hexes around it
-- "o <id>" (its threatened ring). Redrawn at each turn start, after each
-- overwatch shot and after an artillery moves. Other rules' marks are
-- cleared too (this ruleset has no others). Off with overwatch.marks=false,
-- and not drawn where nobody sees them (sim and exact trials:
-- world:recording() is false).
function overwatch.show()
  if not params.overwatch.marks or not world:recording() then
    return
  end
  world:clear_marks()
  if not params.overwatch.enabled then
    return
  end
  local current = world:current_side()
  for _, art in ipairs(world:units{ type = "artillery" }) do
    if art.side ~= current then
      local state = overwatch.spent(art) and "X " .. art.id .. " spent" or "W " .. art.id .. " ready"
      world:mark(art.hex, state)
      for _, n in ipairs(art.hex:neighbors()) do
        if world:on_map(n) then
          world:mark(n, "o " .. art.id)
        end
      end
    end
  end
end

-- One line per artillery: where, whose, and its overwatch this turn.
function overwatch.status()
  local lines = {}
  for _, art in ipairs(world:units{ type = "artillery" }) do
    local state
    if art.side == world:current_side() then
      state = "its own turn: no overwatch"
    else
      state = overwatch.spent(art) and "spent this turn" or "ready"
    end
    table.insert(lines, art.id .. " (" .. art.side .. ") at " .. tostring(art.hex) .. ": " .. state)
  end
  return table.concat(lines, "\n")
end

on("enters", function(u, h)
  overwatch.on_enters(u, h)
  if u.type == "artillery" and u.alive then
    overwatch.show()
  end
end)
on("turn_started", function()
  overwatch.show()
end)

return overwatch
