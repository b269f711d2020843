-- rulesets/lib/rules.lua — helpers every ruleset may use, whatever the game
-- system (nothing Command & Colors specific: that lives in lib/cc.lua).
--
--   local rules = require("lib/rules")
--   rules.violation("Probe Left Flank orders the left section", 2)

local rules = {}

-- The prefix of every rule error, so that a designer (and a spec) can tell a
-- broken rule from a mistyped call.
rules.PREFIX = "rule error: "

-- Raises a rule violation: `text` says which rule was broken, in the rules'
-- own terms. `level` works as in `error`: 1 (the default) blames the line
-- that called rules.violation, 2 the caller of that function, and so on. A
-- rule function that refuses what its caller asked passes 2, so the message
-- points at the caller's line, e.g.
--   bombard.lua:12: rule error: cannot spend 5 HQ tokens: ...
-- Count levels through functions Luau does not inline: sandtable compiles
-- at -O2, which inlines small `local function`s, so a level counted through
-- a small local helper lands one frame too far out. Raise from the rule
-- function itself or from a module function (`M.f`); a small local helper
-- should return the text for its caller to raise.
function rules.violation(text: string, level: number?): never
  error(rules.PREFIX .. text, (level or 1) + 1)
end

-- Is `message` (an error caught with pcall) a rule violation?
function rules.is_violation(message: any): boolean
  return type(message) == "string" and string.find(message, rules.PREFIX, 1, true) ~= nil
end

return rules
