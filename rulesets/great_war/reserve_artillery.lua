-- rulesets/great_war/reserve_artillery.lua — the Great War reserve artillery.
--
-- Implements the rules document "Reserve Artillery" (shared/rules/
-- reserve-artillery.txt), clause by clause; each function names the part it
-- implements. Sections of that document, as we point to them below:
--   [RA]        the opening paragraphs (the token, ordering, targeting, key rule)
--   [Combat]    "Reserve Artillery Ranged Combat" (template, targeting dice, order)
--   [Hits]      "Reserve Artillery Hits and Retreats"
--   [Craters]   "Reserve Artillery Creating Shell Craters"
-- Shared Command & Colors pieces (figures, medals, HQ tokens, terrain,
-- retreats) live in rulesets/lib/cc.lua; every rule violation is raised by
-- rulesets/lib/rules.lua (`rule error: ...` at the caller's line).
--
-- At a prompt:
--   reserve_artillery.fire{side="allies", target=hex(6,3), card="bombard", hq=3}
-- returns a record that prints as a readable summary; `quiet=true` skips the
-- notes, map marks and per-hex details (the fast form for simulation).

local cc = require("lib/cc")
local rules = require("lib/rules")

local reserve_artillery = {}

-- The side pool holding the battery's strength (set by the scenario).
local STRENGTH_POOL = "reserve_artillery"
local HQ_POOL = cc.HQ_POOL
local TARGETING, BATTLE = "targeting", "battle"
local RANGED = "ranged" -- the kind of combat, for the terrain data (lib/cc terrain_effects)
local WIRE, CRATER = "wire", "crater"
local DIR = cc.DIR

-- The five battle-die symbols the rules count. The die (ruleset.yaml
-- dice.battle) must have every one of them: checked here, when the ruleset
-- loads, rather than at the first shot.
local FACES = cc.face_positions(BATTLE)
for _, symbol in ipairs({ "soldier", "burst", "deadly", "hq", "flag" }) do
  if FACES[symbol] == nil then
    error("the battle die (ruleset.yaml dice.battle) has no '" .. symbol .. "' face; the reserve artillery "
      .. "rules count soldier, burst, deadly, hq and flag symbols")
  end
end

-- Constant reasons for the quiet (simulation) path: no string building.
local REASON_TARGETING = "reserve artillery targeting"
local REASON_ON_TARGET = "reserve artillery on target"
local REASON_AROUND = "reserve artillery shelling"

-- Command cards (ruleset.yaml charts.cards), each with its name.
local CARDS = {}
local CARD_NAMES = {}
do
  local charts = ruleset.charts
  local cards = type(charts) == "table" and charts.cards or nil
  if type(cards) == "table" then
    for name, c in pairs(cards) do
      CARDS[name] = {
        name = name,
        kind = c.kind,
        section = c.section,
        orders = c.orders,
        battlefield_only = c.battlefield_only == true,
        title = c.title or name,
      }
      table.insert(CARD_NAMES, name)
    end
    table.sort(CARD_NAMES)
  end
end

------------------------------------------------------------------------------
-- The battery: a token, not a battlefield unit
------------------------------------------------------------------------------

local Battery = {}
Battery.__index = Battery
Battery.__tostring = function(b)
  return b.side .. " reserve artillery (strength " .. b.strength .. ")"
end

-- [RA] A side's reserve artillery is a token in its play area whose number
-- (the scenario's `reserve_artillery` pool) is its strength. It has no
-- figures and no hex. This returns a descriptor for it, to put in a turn's
-- list of ordered units (see combat_order) or to name it in errors.
function reserve_artillery.battery(side)
  world:opponent(side) -- a clear error for an unknown side
  return setmetatable({
    reserve_artillery = true,
    id = side .. ".reserve_artillery",
    side = side,
    strength = world:pool(side, STRENGTH_POOL),
  }, Battery)
end

-- [RA] Is `x` a reserve artillery battery? Accepts a descriptor from
-- battery(), or the text "reserve_artillery" / "<side>.reserve_artillery".
function reserve_artillery.is_battery(x)
  local t = type(x)
  if t == "table" then
    return x.reserve_artillery == true
  elseif t == "string" then
    return x == "reserve_artillery" or string.sub(x, -18) == ".reserve_artillery"
  end
  return false
end

-- The rule error's text for a battery given as a target (its callers raise
-- it, so that the error points at their caller's line).
local function battery_refusal(target)
  local who = type(target) == "table" and target.id or tostring(target)
  return who .. " cannot be targeted — the reserve artillery is a token, not a battlefield unit, "
    .. "so neither battlefield units nor the opposing reserve artillery may target it (reserve artillery rules)"
end

-- [RA] The reserve artillery cannot normally be the target of combat, neither
-- by battlefield units nor by the opposing reserve artillery. A combat rule
-- calls this on its target before resolving: it raises a clear rule error for
-- a battery and returns the target unchanged otherwise.
function reserve_artillery.check_target(target)
  if reserve_artillery.is_battery(target) then
    rules.violation(battery_refusal(target), 2)
  end
  return target
end

-- [RA] Key rule: when the reserve artillery is ordered it always combats
-- first. Given the units ordered this turn (unit handles, ids, or battery
-- descriptors), returns a new list in combat order: the reserve artillery
-- first, then the others in the order given.
function reserve_artillery.combat_order(ordered)
  local out = {}
  for _, x in ipairs(ordered) do
    if reserve_artillery.is_battery(x) then
      table.insert(out, x)
    end
  end
  for _, x in ipairs(ordered) do
    if not reserve_artillery.is_battery(x) then
      table.insert(out, x)
    end
  end
  return out
end

------------------------------------------------------------------------------
-- Ordering: Artillery Bombard or one order of a section card
------------------------------------------------------------------------------

-- A command card by name (ruleset.yaml charts.cards) or as a table
-- { kind = "bombard" | "section" | "tactic", section = "left", battlefield_only = bool }.
-- Raises a clear error for anything else.
function reserve_artillery.card(card)
  if card == nil then
    error("say which command card orders the reserve artillery: card = \"bombard\" (Artillery Bombard) or a section card ("
      .. table.concat(CARD_NAMES, ", ") .. ")", 3)
  end
  if type(card) == "string" then
    local c = CARDS[card]
    if c == nil then
      error("no command card named '" .. card .. "' (cards: " .. table.concat(CARD_NAMES, ", ") .. ")", 3)
    end
    return c
  end
  if type(card) == "table" then
    if CARDS[card.name] == card then
      return card -- already one of ours (fire looks the card up before can_order)
    end
    local kind = card.kind or (card.section and "section") or nil
    if kind ~= "bombard" and kind ~= "section" and kind ~= "tactic" then
      error("a card table needs kind = \"bombard\", \"section\" or \"tactic\"", 3)
    end
    if kind == "section" and type(card.section) ~= "string" then
      error("a section card needs section = \"left\" / \"centre\" / \"right\"", 3)
    end
    return {
      name = card.name or (kind == "section" and (card.section .. " section card") or kind),
      kind = kind,
      section = card.section,
      orders = card.orders,
      battlefield_only = card.battlefield_only == true,
      title = card.title or card.name or kind,
    }
  end
  error("card must be a card name or a card table, not " .. type(card), 3)
end

-- [RA] Can `card`, played by `side`, order the reserve artillery against
-- `target` (a hex)?
--   * the Artillery Bombard tactic card (kind "bombard"): any hex, anywhere;
--   * a section card, using one of its orders, unless the card orders
--     battlefield units only; the target must then lie in the card's section
--     as the playing side sees the board (C&C: a side's left flank is on its
--     own left at its own baseline, lib/cc in_side_section; a hex on a
--     section line belongs to both sections);
--   * any other tactic card cannot.
-- `side` defaults to the side whose turn it is; with no side at all the
-- board's section names are used.
-- Returns true, or false and the reason.
function reserve_artillery.can_order(card, target, side)
  card = reserve_artillery.card(card)
  if card.kind == "bombard" then
    return true
  end
  if card.kind ~= "section" then
    return false, card.title .. " is a tactic card that does not order the reserve artillery (only Artillery Bombard or a section card can)"
  end
  if card.battlefield_only then
    return false, card.title .. " orders battlefield units only, so it cannot order the reserve artillery"
  end
  side = side or world:current_side()
  if target == nil then
    return true
  end
  local ok, in_
  if side == nil then
    ok, in_ = world:in_section(target, card.section), world:sections(target)
  else
    ok, in_ = cc.in_side_section(side, target, card.section), cc.side_sections(side, target)
  end
  if not ok then
    local whose = (side ~= nil and cc.mirrored(side)) and (" (as " .. side .. " sees the board from the top)") or ""
    return false, "target " .. tostring(target) .. " is in the " .. (#in_ > 0 and table.concat(in_, "/") or "no")
      .. " section" .. whose .. ", but " .. card.title .. " orders the " .. card.section .. " section"
  end
  return true
end

------------------------------------------------------------------------------
-- The targeting template
------------------------------------------------------------------------------

-- [Combat] The template's arrow points towards the opponent's baseline. On a
-- pointy-top map a top or bottom baseline faces a hex corner, so the arrow
-- falls between two directions (up: between 5 NW and 6 NE; down: between
-- 2 SE and 3 SW). Template hex 1 is the first hex clockwise of the arrow
-- (param hex1_side = "clockwise": NE when firing up, SW when firing down) or
-- the first counterclockwise (NW up, SE down); 2..6 follow clockwise.
-- A left or right baseline faces a hex side: hex 1 is the hex the arrow
-- points at (W or E) either way.
local FIRST_DIR = {
  top = { clockwise = 6, counterclockwise = 5 },
  bottom = { clockwise = 3, counterclockwise = 2 },
  left = { clockwise = 4, counterclockwise = 4 },
  right = { clockwise = 1, counterclockwise = 1 },
}

-- The direction (1..6) of template hex 1 when `side` fires. (A local
-- function, which Luau can inline into fire.)
local function hex1_direction(side)
  local opponent = world:opponent(side)
  local baseline = world:baseline(opponent)
  local dirs = baseline and FIRST_DIR[baseline]
  if dirs == nil then
    error("cannot orient the targeting template: " .. opponent .. " has no baseline in this scenario", 2)
  end
  return dirs[params.reserve_artillery.hex1_side]
end
reserve_artillery.hex1_direction = hex1_direction

-- Template hex k (1..6) around the on-target hex, given hex 1's direction.
local function template_hex(on_target, first, k)
  return on_target + DIR[(first + k - 2) % 6 + 1]
end

-- [Combat] The template placed on `on_target` by `side`: { on_target = hex,
-- arrow = the opponent's baseline, [1] .. [6] = the numbered hexes }.
function reserve_artillery.template(side, on_target)
  local first = reserve_artillery.hex1_direction(side)
  local t = { on_target = on_target, arrow = world:baseline(world:opponent(side)), hex1_direction = first }
  for k = 1, 6 do
    t[k] = template_hex(on_target, first, k)
  end
  return t
end

-- Shows the template on the map: "T" on the on-target hex and "1".."6" around
-- it (replacing earlier marks).
function reserve_artillery.mark_template(t)
  world:clear_marks()
  world:mark(t.on_target, "T")
  for k = 1, 6 do
    if world:on_map(t[k]) then
      world:mark(t[k], tostring(k))
    end
  end
end

------------------------------------------------------------------------------
-- Firing
------------------------------------------------------------------------------

-- [RA] "any enemy unit or any hex": a target is a hex on the map, or an
-- enemy unit on the map (handle or id). Returns the on-target hex and the
-- targeted unit's id (or nil). Errors blame fire's caller (level 3).
local function resolve_target(side, target)
  -- fire takes a hex on the map itself (the common case); any other hex is
  -- off the map (and a hex is never a battery).
  if hex.is_hex(target) then
    rules.violation("target " .. tostring(target) .. " is not on the map (the battlefield)", 3)
  end
  if reserve_artillery.is_battery(target) then
    rules.violation(battery_refusal(target), 3)
  end
  if target == nil then
    error("give a target: a hex, e.g. target = hex(6, 3), or an enemy unit", 3)
  end
  if type(target) == "string" then
    local u = world:unit(target)
    if u == nil then
      error("no unit '" .. target .. "' to target (give a hex or a unit)", 3)
    end
    target = u
  end
  if type(target) == "userdata" then
    local h = target.hex
    if h == nil then
      rules.violation("unit " .. target.id .. " is not on the battlefield, so it cannot be targeted", 3)
    end
    if target.side == side then
      rules.violation("the reserve artillery targets an enemy unit or a hex; " .. target.id
        .. " belongs to " .. side .. " (target its hex, hex" .. tostring(h) .. ", to shell it anyway)", 3)
    end
    return h, target.id
  end
  error("target must be a hex or an enemy unit, not " .. type(target), 3)
end

-- [Combat] HQ tokens: the side spends 1 up to its battery's strength, and
-- never more than it holds; one targeting die per token. With `asked` nil the
-- side decides how many (decision id "reserve_artillery.hq", default: all it
-- may). Returns the number spent. Errors blame fire's caller (level 3).
local function spend_hq(side, asked, quiet)
  local strength, held = world:pool(side, STRENGTH_POOL, HQ_POOL)
  if strength < 1 then
    rules.violation(side .. " has no reserve artillery (its reserve_artillery pool is " .. strength .. ")", 3)
  end
  local most = math.min(strength, held)
  local hq = asked
  if hq == nil then
    if most < 1 then
      rules.violation(side .. " holds no HQ tokens to spend on the reserve artillery", 3)
    end
    local options = {}
    for i = 1, most do
      table.insert(options, i)
    end
    hq = decide{
      side = side,
      prompt = "HQ tokens to spend on the reserve artillery (strength " .. strength .. ", " .. held .. " held)",
      options = options,
      default = most,
      id = "reserve_artillery.hq",
    }
  elseif type(hq) ~= "number" or hq ~= math.floor(hq) then
    error("hq must be a whole number of HQ tokens from 1, got " .. tostring(hq), 3)
  elseif hq < 1 then
    rules.violation("hq must be a whole number of HQ tokens from 1 (at least one targeting die), got " .. hq, 3)
  elseif hq > strength then
    rules.violation("cannot spend " .. hq .. " HQ tokens: " .. side .. "'s reserve artillery has strength " .. strength
      .. ", the most that may be spent", 3)
  elseif hq > held then
    rules.violation("cannot spend " .. hq .. " HQ tokens: " .. side .. " holds only " .. held, 3)
  end
  world:add_pool(side, HQ_POOL, -hq, quiet and REASON_TARGETING or "reserve artillery: HQ tokens spent on targeting dice")
  return hq
end

-- One line describing a resolved hex of the record (for notes and printing).
local function describe_entry(e)
  local where = (e.slot == "on_target" and "on target " or ("hex " .. e.slot .. " ")) .. tostring(e.hex)
  local dice_text = e.dice .. (e.dice == 1 and " die" or " dice")
  if not e.rolled then
    return where .. ": " .. dice_text .. ", not rolled (" .. e.why .. ")"
  end
  local parts = {}
  local function add(n, word)
    if n > 0 then
      table.insert(parts, n .. " " .. word)
    end
  end
  add(e.soldier, "soldier")
  add(e.burst, "burst")
  add(e.deadly, "deadly")
  add(e.hq, "hq")
  add(e.flag, "flag")
  local s = where .. ": " .. dice_text .. " [" .. table.concat(parts, ", ") .. "]"
  if e.crater then
    s ..= " (shell crater: no terrain protection)"
  elseif e.protection > 0 then
    s ..= " (protection " .. e.protection .. ")"
  end
  if e.unit then
    s ..= " -> " .. e.unit .. ": " .. e.hits .. (e.hits == 1 and " hit" or " hits")
    if e.removed ~= e.hits then
      s ..= ", " .. e.removed .. " figure" .. (e.removed == 1 and "" or "s") .. " lost"
    end
    if e.eliminated then
      s ..= ", eliminated"
    end
    if e.retreat > 0 then
      s ..= ", retreats " .. e.retreat
    end
    if e.retreat_losses > 0 then
      s ..= ", loses " .. e.retreat_losses .. " more (retreat blocked)"
    end
    if e.flags_ignored > 0 then
      s ..= ", ignores " .. e.flags_ignored .. (e.flags_ignored == 1 and " flag" or " flags")
    end
  end
  if e.wire_removed then
    s ..= "; wire removed"
  end
  if e.hq > 0 then
    s ..= "; +" .. e.hq .. " HQ"
  end
  return s
end

local Record = {}
Record.__index = Record
Record.__tostring = function(r)
  local lines = {
    r.side .. " reserve artillery (" .. r.card .. ") fires on " .. tostring(r.target)
      .. (r.target_unit and (" at " .. r.target_unit) or "") .. ": " .. r.hq .. " HQ tokens",
  }
  if r.targeting then
    table.insert(lines, "  targeting dice: " .. table.concat(r.targeting, " ") .. " -> " .. r.on_target .. " on target"
      .. (r.crater and (r.crater_placed and ", shell crater placed" or ", shell crater (one was there)") or ""))
  end
  if r.shelled then
    for _, e in ipairs(r.shelled) do
      table.insert(lines, "  " .. describe_entry(e))
    end
  end
  table.insert(lines, "  enemy figures lost " .. r.figures_lost .. ", own figures lost " .. r.friendly_figures_lost
    .. ", medals +" .. r.medals .. ", HQ tokens +" .. r.hq_gained)
  return table.concat(lines, "\n")
end

-- A firing record (its fields: see fire); it prints as a summary.
type Record = { [string]: any }

-- How a hex is shelled: the on-target hex (bursts and deadly sides hit), the
-- on-target hex of a crater hit (no terrain protection either), or a hex
-- around the template (bursts hit).
type How = "on_target" | "crater" | "around"

-- [Combat]/[Hits]/[Craters] Shells hex `h` with `n` battle dice and
-- completes its hits and retreats before returning:
--   * a hex with no unit and no wire token is not rolled (nor is a hex off
--     the map, or one holding only the firing side's own unit when
--     friendly_fire is off);
--   * on target, each burst and each deadly side is a hit; around the
--     template, each burst is; soldier symbols hit once terrain protection
--     has cancelled its number of them — except on a crater hit (`how` is
--     "crater"), when the on-target hex has no protection and every symbol
--     counts;
--   * one figure per hit, surplus hits are lost; the last figure earns a
--     victory medal (lib/cc apply_hits);
--   * each HQ symbol gives the firing side an HQ token;
--   * flags, after casualties, make the unit retreat (lib/cc retreat),
--     less those its terrain lets it ignore;
--   * wire is removed as param wire_removed_by says.
-- `slot` names the hex in the record: "on_target" or 1..6.
-- hot: analysis runs this millions of times. When quiet it builds no
-- strings (constant reasons) and no tables, and terrain is looked up only
-- when a soldier or a flag was rolled.
local function shell(rec: Record, side: string, p, quiet: boolean, h, n: number, how: How, slot)
  local on_target = how ~= "around"
  local entry = nil
  if not quiet then
    entry = { slot = slot, hex = h, dice = n, rolled = false }
    table.insert(rec.order, slot)
    table.insert(rec.shelled, entry)
  end
  -- What is on the hex, in one call (nil, nil, nil, false off the map).
  local unit, owner, terrain, wire = world:at(h, WIRE)
  local friendly = false
  if unit ~= nil then
    friendly = owner == side
    if friendly and not p.friendly_fire then
      unit = nil
    end
  end
  if unit == nil and not wire then
    if entry then
      if friendly then
        entry.why = "only a friendly unit, friendly_fire off"
      elseif not world:on_map(h) then
        entry.why = "off the map"
      else
        entry.why = "no unit or wire"
      end
    end
    return
  end

  local reason
  if entry then
    reason = "reserve artillery: " .. (on_target and "on target " or ("hex " .. slot .. " ")) .. tostring(h)
  else
    reason = on_target and REASON_ON_TARGET or REASON_AROUND
  end
  -- One pool; dice.counts with the faces named answers their counts in that order.
  local soldier, burst, deadly, hq, flag = dice.counts(n, BATTLE, reason, "soldier", "burst", "deadly", "hq", "flag")

  -- Terrain only matters to soldiers and flags (looked up only then). The
  -- reserve artillery is ranged fire. A crater placed by this firing shields
  -- nobody before the next combat (crater_keeps_flag_terrain keeps only the
  -- flags the hex's older terrain cancels).
  local protection, ignore = 0, 0
  if entry or soldier > 0 or flag > 0 then
    if how == "crater" then
      if not p.crater_ignores_flag_terrain then
        local _
        _, ignore = cc.hex_effects(h, terrain, RANGED, rec.crater_placed and CRATER or nil)
      end
    else
      protection, ignore = cc.hex_effects(h, terrain, RANGED)
    end
  end
  local sure = burst
  if on_target then
    sure += deadly
  end
  local hits = sure + math.max(soldier - protection, 0)

  if hq > 0 then
    cc.collect_hq(side, hq, reason)
    rec.hq_gained += hq
  end

  local wire_removed = false
  if wire then
    local rule = p.wire_removed_by
    if (rule == "burst" and sure > 0) or (rule == "hit" and hits > 0) then
      world:remove_token(h, WIRE)
      wire_removed = true
      rec.wire_removed += 1
    end
  end

  local removed, eliminated, moved, lost, ignored = 0, false, 0, 0, 0
  if unit ~= nil then
    if hits > 0 then -- hot: no hits, nothing to apply (and no call)
      removed, eliminated = cc.apply_hits(unit, hits, side, reason)
    end
    if not eliminated and flag > 0 then
      local retreat_flags = math.max(flag - ignore, 0)
      ignored = flag - retreat_flags
      if retreat_flags > 0 then
        local r = params.retreat
        moved, lost = cc.retreat(unit, retreat_flags * r.hexes_per_flag, { blocked = r.blocked, by_side = side, reason = reason })
        if lost > 0 and not unit.alive then
          eliminated = true
        end
      end
    end
    if friendly then
      rec.friendly_figures_lost += removed + lost
    else
      rec.figures_lost += removed + lost
      if eliminated then
        rec.medals += 1
      end
    end
    if eliminated then
      rec.units_eliminated += 1
    end
  end

  if entry then
    entry.rolled = true
    entry.soldier, entry.burst, entry.deadly, entry.hq, entry.flag = soldier, burst, deadly, hq, flag
    entry.crater = how == "crater"
    entry.protection = protection
    entry.hits = hits
    entry.unit = unit and unit.id or nil
    entry.removed = removed
    entry.eliminated = eliminated
    entry.flags_ignored = ignored
    entry.retreat = moved
    entry.retreat_losses = lost
    entry.wire_removed = wire_removed
    world:note(describe_entry(entry))
  end
end

-- Counts on-target dice and checks for a crater from the six targeting
-- counts:
--   [Combat] every targeting die whose number was rolled by on_target_at or
--   more dice is also on target (1-4-4-6: two dice on target);
--   [Craters] crater_at or more dice on one number make a shell crater.
-- hot: the six counts come as arguments (as dice.counts returns them) so
-- that no table is made per firing.
local function tally(on_target_at, crater_at, c1, c2, c3, c4, c5, c6)
  local at = on_target_at
  local on = (c1 >= at and c1 or 0) + (c2 >= at and c2 or 0) + (c3 >= at and c3 or 0)
    + (c4 >= at and c4 or 0) + (c5 >= at and c5 or 0) + (c6 >= at and c6 or 0)
  return on, math.max(c1, c2, c3, c4, c5, c6) >= crater_at
end

-- The faces of the targeting roll, in order, from its counts (for records).
local function targeting_faces(...)
  local faces = {}
  for k = 1, 6 do
    for _ = 1, select(k, ...) do
      table.insert(faces, k)
    end
  end
  return faces
end

-- The argument table of reserve_artillery.fire.
export type FireArgs = {
  side: string?, -- the firing side; default: the side whose turn it is
  target: Hex | Unit | string, -- any hex on the map, or an enemy unit (handle or id)
  card: string | { [string]: any }, -- a card name from charts.cards, or a card table (see reserve_artillery.card)
  hq: number?, -- HQ tokens to spend, 1 up to the strength; nil: the side decides
  quiet: boolean?, -- true: no notes, marks or per-hex detail (simulation)
}

-- [RA]+[Combat]+[Hits]+[Craters] The reserve artillery of `side` fires:
--   reserve_artillery.fire{ side = "allies", target = hex(6, 3), card = "bombard", hq = 3 }
-- (the fields are those of FireArgs above).
-- Checks the order (card, section, target), spends the HQ tokens, places the
-- template (arrow towards the opponent's baseline), rolls the targeting dice
-- as one pool, places a shell crater on 3+ of a number, then resolves the
-- on-target hex and hexes 1..6 in order. No range or line of sight applies.
-- Returns a record: side, card, orders_used (1 for a section card's order,
-- 0 for Artillery Bombard), target, target_unit, hq, on_target (dice),
-- crater, crater_placed, figures_lost (enemy), friendly_figures_lost,
-- units_eliminated, medals, hq_gained, wire_removed; and unless quiet:
-- targeting (faces), counts[1..6], template, order (slots resolved, e.g.
-- {"on_target", 1, 4, 6}) and shelled (one entry per slot, same order).
function reserve_artillery.fire(spec: FireArgs)
  if type(spec) ~= "table" then
    error("call reserve_artillery.fire{side=, target=, card=, hq=}", 2)
  end
  local p = params.reserve_artillery -- read once per firing, handed to each shell
  local quiet = spec.quiet == true
  local side = spec.side or world:current_side()
  if side == nil then
    error("say which side fires: side = \"allies\"", 2)
  end
  local card = CARDS[spec.card] or reserve_artillery.card(spec.card) -- a card name, the common case, first
  -- The common target, a hex on the map, without a call.
  local on_target, target_unit = spec.target, nil
  if not (hex.is_hex(on_target) and world:on_map(on_target)) then
    on_target, target_unit = resolve_target(side, on_target)
  end
  -- Artillery Bombard orders the battery against any hex: nothing to check.
  if card.kind ~= "bombard" then
    local ok, why = reserve_artillery.can_order(card, on_target, side)
    if not ok then
      rules.violation(why, 2)
    end
  end
  local first = hex1_direction(side)
  local hq = spend_hq(side, spec.hq, quiet)

  local c1, c2, c3, c4, c5, c6 = dice.counts(hq, TARGETING, REASON_TARGETING)
  local n_on, crater = tally(p.on_target_at, p.crater_at, c1, c2, c3, c4, c5, c6)

  local rec = setmetatable({
    side = side,
    card = card.title,
    orders_used = card.kind == "section" and 1 or 0, -- one order of a section card
    target = on_target,
    target_unit = target_unit,
    hq = hq,
    on_target = n_on,
    crater = crater,
    crater_placed = false,
    figures_lost = 0,
    friendly_figures_lost = 0,
    units_eliminated = 0,
    medals = 0,
    hq_gained = 0,
    wire_removed = 0,
  }, Record)
  if not quiet then
    rec.targeting = targeting_faces(c1, c2, c3, c4, c5, c6)
    rec.counts = { c1, c2, c3, c4, c5, c6 }
    rec.template = reserve_artillery.template(side, on_target)
    rec.order = {}
    rec.shelled = {}
    reserve_artillery.mark_template(rec.template)
    world:note(side .. " reserve artillery (" .. card.title .. ") fires on " .. tostring(on_target) .. ": "
      .. hq .. " HQ tokens, targeting dice " .. table.concat(rec.targeting, " ") .. " -> " .. n_on .. " on target"
      .. (crater and ", shell crater" or ""))
  end
  -- [Craters] three or more on one number: a shell crater on the on-target
  -- hex (unless one is there already).
  if crater and not world:has_token(on_target, CRATER) then
    world:add_token(on_target, CRATER)
    rec.crater_placed = true
  end

  -- [Combat] the on-target hex first: one battle die per on-target die.
  if n_on > 0 then
    shell(rec, side, p, quiet, on_target, n_on, crater and "crater" or "on_target", "on_target")
  end
  -- [Combat] then hexes 1 to 6 in turn (clockwise), one battle die per
  -- targeting die on each; every hex's hits and retreats are complete before
  -- the next. hot: six calls written out rather than a loop over the counts
  -- (which would need a table, or select, per firing).
  if c1 > 0 then shell(rec, side, p, quiet, template_hex(on_target, first, 1), c1, "around", 1) end
  if c2 > 0 then shell(rec, side, p, quiet, template_hex(on_target, first, 2), c2, "around", 2) end
  if c3 > 0 then shell(rec, side, p, quiet, template_hex(on_target, first, 3), c3, "around", 3) end
  if c4 > 0 then shell(rec, side, p, quiet, template_hex(on_target, first, 4), c4, "around", 4) end
  if c5 > 0 then shell(rec, side, p, quiet, template_hex(on_target, first, 5), c5, "around", 5) end
  if c6 > 0 then shell(rec, side, p, quiet, template_hex(on_target, first, 6), c6, "around", 6) end
  return rec
end

return reserve_artillery
