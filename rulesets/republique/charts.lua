-- rulesets/republique/charts.lua — the checks of ruleset.yaml's charts and
-- terrain, in one place: common.lua runs them once when the ruleset loads,
-- so a designer who edits a chart is told which table is wrong and why, and
-- the specs hand them broken copies (errors_spec). Not a rules module.

local charts = {}

-- "2M1B" -> 2, 1; "1M" -> 1, 0; "-" -> 0, 0; anything else -> nil.
function charts.parse_result(s)
  if s == "-" then
    return 0, 0
  end
  if type(s) ~= "string" or string.match(s, "^%d+M%d+B$") == nil and string.match(s, "^%d+[MB]$") == nil then
    return nil
  end
  local morale = tonumber(string.match(s, "(%d+)M") or "0")
  local bases = tonumber(string.match(s, "(%d+)B") or "0")
  if morale + bases == 0 then
    return nil
  end
  return morale, bases
end

local function check(ok, message)
  if not ok then
    error("ruleset.yaml " .. message, 0)
  end
end

-- The morale ladder and the cover classes (common.lua reads them).
local function check_ladder_and_cover(c, terrain)
  local step = {}
  for i, name in ipairs(c.morale) do
    step[name] = i
  end
  for _, name in ipairs({ "normal", "disordered", "rattled", "shaken", "demoralized" }) do
    check(step[name] ~= nil, "charts.morale must hold normal, disordered, rattled, shaken, demoralized ("
      .. name .. " is missing)")
  end
  for _, class in ipairs(c.cover_classes) do
    check(type(c.cover_modifier[class]) == "number",
      "charts.cover_modifier: a die modifier for each of charts.cover_classes (" .. class .. " has none)")
  end
  for kind, t in pairs(terrain) do
    check(t.cover == nil or c.cover_modifier[t.cover] ~= nil,
      "terrain." .. kind .. ": cover '" .. tostring(t.cover) .. "' is not one of charts.cover_classes")
  end
end

-- Range brackets, each gun's ranges and fire points, and the artillery
-- chart's rows; returns the rows parsed.
local function check_artillery(c)
  local brackets = c.brackets
  check(type(brackets) == "table" and #brackets > 0, "charts.brackets: list the range brackets")
  for gun, ranges in pairs(c.ranges) do
    local fp = c.fire_points[gun]
    check(#ranges == #brackets, "charts.ranges." .. gun .. ": one range per bracket (" .. #brackets .. ")")
    check(fp ~= nil and #fp == #brackets, "charts.fire_points." .. gun .. ": one number per bracket")
    for i = 2, #ranges do
      check(ranges[i] > ranges[i - 1], "charts.ranges." .. gun .. ": ranges must grow")
    end
  end
  local rows, last = {}, 0
  for i, row in ipairs(c.artillery) do
    check(type(row.points) == "number" and row.points > last,
      "charts.artillery row " .. i .. ": points must grow from row to row")
    check(#row.results == 10, "charts.artillery row " .. i .. ": ten results, for a modified die of 1..10")
    local parsed = {}
    for d, cell in ipairs(row.results) do
      local m, b = charts.parse_result(cell)
      check(m ~= nil, string.format("charts.artillery row %d, die %d: '%s' is not like 2M1B or -", i, d, tostring(cell)))
      parsed[d] = { morale = m, bases = b, text = cell }
    end
    rows[i] = { points = row.points, results = parsed }
    last = row.points
  end
  return rows
end

local function check_skirmish(s)
  check(type(s) == "table" and #s.ranges > 0 and #s.ranges == #s.hit_on,
    "charts.skirmish: ranges and hit_on, one number each per range band")
  for i, r in ipairs(s.ranges) do
    check(i == 1 or r > s.ranges[i - 1], "charts.skirmish.ranges must grow")
    check(s.hit_on[i] >= 1 and s.hit_on[i] <= 11, "charts.skirmish.hit_on: a die number 1..10 (11: never)")
  end
end

-- The leader injury thresholds and the panic hit chart; returns the panic
-- chart parsed (bases that desert for a die of 1..10).
local function check_leaders(c)
  local injury = c.leader_injury
  check(type(injury) == "table" and type(injury.injured) == "number" and type(injury.killed) == "number"
    and injury.killed >= injury.injured, "charts.leader_injury: injured and killed thresholds (killed >= injured)")
  local panic = {}
  check(type(c.panic_hit) == "table" and #c.panic_hit == 10, "charts.panic_hit: ten results, for a die of 1..10")
  for d, cell in ipairs(c.panic_hit) do
    local n = cell == "-" and 0 or tonumber(string.match(tostring(cell), "^(%d+)B$") or "")
    check(n ~= nil, string.format("charts.panic_hit, die %d: '%s' is not like 1B or -", d, tostring(cell)))
    panic[d] = n
  end
  return panic
end

-- Checks the charts `c` and the terrain types against each other and
-- returns what the modules read parsed: { rows = the artillery chart's
-- rows, panic = the panic hit chart }. Raises the first problem found.
function charts.check(c, terrain)
  check_ladder_and_cover(c, terrain)
  local rows = check_artillery(c)
  check_skirmish(c.skirmish)
  local panic = check_leaders(c)
  return { rows = rows, panic = panic }
end

return charts
