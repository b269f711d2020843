-- rulesets/republique/turn.lua — the Republique player turn, step by step.
--
-- The document's header gives a player turn's phases: 1 Command,
-- 2 Maneuver, 3 Artillery/Skirmish, 4 Assault, 5 Panic Test. Chapter 3
-- splits its phase into the skirmish fire step (3.1), the artillery fire
-- segment (3.2-3.5), then leader injuries and panic hits "after all
-- skirmish and artillery fire for the turn has been resolved" (3.6). A
-- full turn is two player turns, one per side; batteries of both sides
-- fire in each player turn's artillery phase.
--
-- The steps, in order (common.TURN_STEPS):
--   command    a new player turn: batteries may fire again, moves and
--              passing fire count afresh (artillery.new_turn), bases lost
--              nearby count from zero (leaders.new_turn)
--   maneuver   moves (moves.lua); passing fire reacts to them
--   skirmish   skirmish.begin_step on entering (then pair_off, fire),
--              skirmish.end_step on leaving: the hits land
--   artillery  artillery.begin_phase on entering (then save_fire, fire),
--              artillery.end_phase on leaving: hits on batteries land
--   injuries   leaders.after_fire: injury tests, then panic hits
--   assault    chapter 4 (not in our text): nothing happens here yet
--   panic      chapter 5 (not in our text): nothing happens here yet
-- The step is kept on the world (common.step), so undo, saves and sim
-- trials carry it. Chapters 1, 2, 4 and 5 are not in our rules text: their
-- steps only mark where the turn is.
--
-- At a prompt:
--   turn.start("french")    -- the French player turn: command
--   turn.next()             -- maneuver
--   turn.to("artillery")    -- through the skirmish step into the artillery segment
--   turn.to("injuries")     -- the segment's hits land; leaders test; panic hits
--   turn.finish()           -- the rest of the turn; the Austrian player turn starts

local common = require("common")

local turn = {}

local STEPS = common.TURN_STEPS

-- The current step's name (nil before a turn starts).
function turn.step()
  return common.turn_step()
end

-- What entering and leaving each step does.
local ENTER = {
  command = function()
    artillery.new_turn()
    leaders.new_turn()
  end,
  skirmish = function()
    skirmish.begin_step()
  end,
  artillery = function()
    artillery.begin_phase()
  end,
  injuries = function()
    return leaders.after_fire()
  end,
}
local LEAVE = {
  skirmish = function()
    skirmish.end_step()
  end,
  artillery = function()
    artillery.end_phase()
  end,
}

local function enter(name)
  common.set_turn_step(name)
  world:note(string.format("turn %d, %s: %s", world:turn(), common.phasing(), name))
  local f = ENTER[name]
  return f and f() or nil
end

-- Starts a player turn: by default the next side's; enters its command
-- step. A side that has played in this turn already starts a new full
-- turn (the turn number one higher); each side's pool `played` holds the
-- last turn it played. Returns the side.
function turn.start(side)
  local sides = world:sides()
  if side == nil then
    local cur = world:current_side() -- always one of the sides
    for i, s in ipairs(sides) do
      if s == cur then
        side = sides[i % #sides + 1]
      end
    end
  else
    local known = false
    for _, s in ipairs(sides) do
      known = known or s == side
    end
    if not known then
      error(string.format("turn.start: no side '%s' (sides: %s)", tostring(side), table.concat(sides, ", ")), 2)
    end
  end
  if world:pool(side, "played") == world:turn() then
    world:set_turn(world:turn() + 1)
  end
  world:set_pool(side, "played", world:turn())
  world:set_current_side(side)
  enter("command")
  return side
end

-- Moves on to the next step, leaving this one (its hits land) and entering
-- the next (it opens). After the last step the next player turn starts.
-- Returns the new step's name and what entering it gave (leaders.after_fire's
-- record for the injuries step).
function turn.next()
  local now = common.turn_step()
  if now == nil then
    error("turn.next: no turn has started (turn.start(side) starts one)", 2)
  end
  local leave = LEAVE[now]
  if leave then
    leave()
  end
  local i = common.TURN_STEP_OF[now]
  if i == #STEPS then
    turn.start()
    return "command"
  end
  local name = STEPS[i + 1]
  return name, enter(name)
end

-- Moves on, step by step, until the step `name` of this player turn; an
-- earlier step (or this one) is an error: a turn goes forward. Returns what
-- entering it gave.
function turn.to(name)
  local want = common.TURN_STEP_OF[name]
  if want == nil then
    error(string.format("turn.to: no step '%s' (steps: %s)", tostring(name), table.concat(STEPS, ", ")), 2)
  end
  local now = common.turn_step()
  if now == nil then
    error("turn.to: no turn has started (turn.start(side) starts one)", 2)
  end
  if want <= common.TURN_STEP_OF[now] then
    error(string.format("turn.to: the turn is at %s already; %s comes before it (a turn goes forward: turn.finish() ends it)",
      now, name), 2)
  end
  local got
  while common.turn_step() ~= name do
    local _
    _, got = turn.next()
  end
  return got
end

-- Plays out the rest of this player turn (each step's closing happens) and
-- starts the next player's. Returns that side.
function turn.finish()
  if common.turn_step() == nil then
    error("turn.finish: no turn has started (turn.start(side) starts one)", 2)
  end
  while common.turn_step() ~= "panic" do
    turn.next()
  end
  return turn.start()
end

return turn
