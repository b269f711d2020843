//! `sandtable new variant NAME --from BASE` and `sandtable new ruleset
//! NAME`: a ready folder to start from, whose spec passes as written.
//!
//! A variant's folder holds `ruleset.yaml` with `extends: BASE` and nothing
//! else to begin with, a scenario copied from the base's (naming this folder
//! with `ruleset: ..`), a spec that loads this ruleset through it, and a
//! README saying what to do next. A new ruleset's holds a die, a terrain
//! table, one unit type, one rule (a Lua module with one param), a scenario
//! and one spec that forces the dice of the rule and checks its outcome.
//!
//! Nothing is ever overwritten: an existing folder of that name is an error,
//! and the folder is written whole or not at all (each file is created new;
//! on a failure what was written is removed again).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::{locate, Ruleset};
use crate::layers::{self, files};
use crate::lua::display_path;

/// Where the new folder goes and what was made, for the person.
pub struct Made {
    pub dir: PathBuf,
    /// What to tell: the files written and the next commands.
    pub report: String,
}

/// Checks a new ruleset's name: it names a folder and a Lua module.
fn check_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !ok {
        return Err(format!(
            "'{name}' cannot name a ruleset: use letters, digits and '_', starting with a letter (it names a folder and a Lua module)"
        ));
    }
    if name == "lib" {
        return Err("'lib' is the folder of the shared Lua modules, not a ruleset name".into());
    }
    Ok(())
}

/// The folder to make the ruleset folder in: `--dir`, else the project's
/// `rulesets/`, else (outside any project) the current folder's `rulesets/`,
/// the current folder becoming a project (a `sandtable.toml` is written, when
/// there is none). The second value is the note about that.
fn parent_folder(dir: Option<&Path>) -> Result<(PathBuf, Option<PathBuf>), String> {
    if let Some(d) = dir {
        if !d.is_dir() {
            return Err(format!("--dir {}: not a folder", d.display()));
        }
        return Ok((d.to_path_buf(), None));
    }
    if let Some(p) = layers::project() {
        return Ok((p.join("rulesets"), None));
    }
    let cwd = std::env::current_dir().map_err(|e| format!("cannot tell the current folder: {e}"))?;
    Ok((cwd.join("rulesets"), Some(cwd.join(layers::MARKER))))
}

/// Files to write, by path relative to the new folder.
type Plan = Vec<(PathBuf, String)>;

/// Writes the planned files into a new folder `dir` (which must not exist),
/// and the project marker when asked; all or nothing.
fn write_all(dir: &Path, plan: &Plan, marker: Option<&Path>) -> Result<(), String> {
    if dir.exists() || dir.symlink_metadata().is_ok() {
        return Err(format!("{} already exists: nothing was written (pick another name or --dir)", dir.display()));
    }
    let parent = dir.parent().unwrap_or(Path::new("."));
    let made_parent = !parent.exists();
    let marker = marker.filter(|m| m.symlink_metadata().is_err());
    let written = (|| -> std::io::Result<()> {
        std::fs::create_dir_all(parent)?;
        std::fs::create_dir(dir)?;
        for (rel, text) in plan {
            let path = dir.join(rel);
            if let Some(p) = path.parent() {
                std::fs::create_dir_all(p)?;
            }
            // Never over a file, even one that appeared meanwhile.
            crate::files::create(&path, text.as_bytes())?;
        }
        if let Some(m) = marker {
            crate::files::create(m, MARKER_TEXT.as_bytes())?;
        }
        Ok(())
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_dir_all(dir);
        if made_parent {
            let _ = std::fs::remove_dir(parent);
        }
        return Err(format!("cannot write {}: {e} (nothing was kept)", dir.display()));
    }
    Ok(())
}

const MARKER_TEXT: &str = "\
# This folder is a sandtable project: `sandtable` run in it or below finds
# the rulesets in rulesets/ and the scenarios and scripts in scripts/ before
# those on $SANDTABLE_PATH and the bundled ones (sandtable rulesets lists
# them all). The file's contents are not read: it marks the folder.
";

/// The scenarios of the base: YAML files under the layers' `scripts/` whose
/// `ruleset:` names it, then those in the base's own folder; the first by name.
fn base_scenario(base: &Ruleset) -> Option<PathBuf> {
    let names_base = |p: &Path| -> bool {
        let Ok(text) = files::read_to_string(p) else { return false };
        let Some(name) = text.lines().find_map(|l| l.strip_prefix("ruleset:")) else { return false };
        let name = name.split('#').next().unwrap_or("").trim();
        locate(name, p.parent(), None).is_ok_and(|f| f.file.parent() == Some(base.dir.as_path()))
    };
    let yaml = |p: &PathBuf| p.extension().is_some_and(|e| e == "yaml" || e == "yml");
    let mut found: Vec<PathBuf> = Vec::new();
    for layer in layers::layers() {
        found.extend(files::walk(&layer.root.join("scripts")).into_iter().filter(|p| yaml(p) && names_base(p)));
        if !found.is_empty() {
            break;
        }
    }
    if found.is_empty() {
        found.extend(files::walk(&base.dir).into_iter().filter(|p| yaml(p) && names_base(p)));
    }
    found.sort_by_key(|p| p.file_name().map(|n| n.to_os_string()));
    found.into_iter().next()
}

/// A scenario's text with its `ruleset:` line naming the folder above (`..`).
fn on_this_ruleset(text: &str) -> String {
    let mut out = String::new();
    let mut done = false;
    for line in text.lines() {
        if !done && line.starts_with("ruleset:") {
            out.push_str("ruleset: ..          # this folder's ruleset: a path from this file's folder\n");
            done = true;
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// How `extends:` names the base from the new folder: by its name when the
/// search path finds it so from there, else by its path.
fn base_ref(base: &Ruleset, new_dir: &Path) -> String {
    let by_name = locate(&base.name, Some(new_dir), Some(new_dir)).is_ok_and(|f| f.file.parent() == Some(&base.dir));
    let folder_named = base.dir.file_name().is_some_and(|n| n == base.name.as_str());
    if by_name && folder_named {
        base.name.clone()
    } else {
        base.dir.display().to_string()
    }
}

/// `sandtable new variant NAME --from BASE [--dir DIR]`.
pub fn variant(name: &str, from: &str, dir: Option<&Path>) -> Result<Made, String> {
    check_name(name)?;
    let base = Ruleset::load(from).map_err(|e| format!("--from {from}: {e}"))?;
    let (parent, marker) = parent_folder(dir)?;
    let new_dir = parent.join(name);
    let extends = base_ref(&base, &new_dir);
    let origin = base.origin.word();
    let mut plan: Plan = Vec::new();

    let mut yaml = String::new();
    let _ = writeln!(yaml, "# {name}: a variant of {} ({origin}). It holds only what differs; everything", base.name);
    let _ = writeln!(yaml, "# else comes from {}. Made by `sandtable new variant {name} --from {from}`.", base.name);
    let _ = writeln!(yaml, "name: {name}\ntitle: {} (variant {name})\nextends: {extends}\n", base.title);
    yaml.push_str(&change_examples(&base));
    plan.push(("ruleset.yaml".into(), yaml));

    let scenario = base_scenario(&base);
    let scenario_rel = scenario.as_ref().and_then(|p| p.file_name()).map(|n| PathBuf::from("scenarios").join(n));
    if let (Some(src), Some(rel)) = (&scenario, &scenario_rel) {
        let text = files::read_to_string(src).map_err(|e| format!("cannot read {}: {e}", display_path(src)))?;
        let head = format!("# Copied from {} by `sandtable new variant`, on {name}.\n", display_path(src));
        plan.push((rel.clone(), format!("{head}{}", on_this_ruleset(&text))));
    } else {
        let rel = PathBuf::from("scenarios/field.yaml");
        let text = "# A bare field for the specs (no scenario of the base was found to copy).\nname: Field\nruleset: ..\nmap: { cols: 10, rows: 8, offset: odd-r }\nsides:\n  red: { baseline: top }\n  blue: { baseline: bottom }\nfirst: red\n";
        plan.push((rel, text.to_string()));
    }
    let scenario_file = plan[1].0.clone();
    let spec = format!(
        "-- {name}'s own specs. `sandtable test {name}` runs them. They load this\n\
         -- folder's ruleset through {sc} (`ruleset: ..`), so they test\n\
         -- {name}, not {base}. `sandtable test {name} --with-base-specs` also runs\n\
         -- {base}'s specs against {name} and lists those your changes break.\n\
         describe(\"{name}\", function()\n\
         \x20 it(\"loads {name}, which extends {base}\", function()\n\
         \x20   scenario(\"../{sc}\")\n\
         \x20   expect(ruleset.name):to_be(\"{name}\")\n\
         \x20 end)\n\
         end)\n",
        sc = scenario_file.display(),
        base = base.name
    );
    plan.push((PathBuf::from(format!("spec/{name}_spec.lua")), spec));
    plan.push(("README.md".into(), variant_readme(name, &base, from, &scenario_file)));
    write_all(&new_dir, &plan, marker.as_deref())?;
    Ok(Made { report: report(name, &new_dir, &plan, marker.as_deref(), true), dir: new_dir })
}

/// The commented examples of what a variant may change, with the base's own names.
fn change_examples(base: &Ruleset) -> String {
    let mut out = String::from("# What a variant may change (uncomment and edit; `~` removes an entry):\n");
    if let Some((module, (p, def))) = base.params.iter().find_map(|(m, d)| d.iter().next().map(|x| (m, x))) {
        let _ =
            writeln!(out, "# params:                  # a param's default (its doc and range stay {}'s)", base.name);
        let _ = writeln!(out, "#   {module}:\n#     {p}: {{ default: {} }}", def.default);
    }
    if let Some((t, v)) = base.unit_types.iter().next() {
        let _ = writeln!(out, "# unit_types:              # merged by key: only the properties given change");
        let key =
            v.as_object().and_then(|o| o.keys().find(|k| *k != "doc")).cloned().unwrap_or_else(|| "strength".into());
        let val = v.get(&key).map_or_else(|| "4".to_string(), ToString::to_string);
        let _ = writeln!(out, "#   {t}: {{ {key}: {val} }}");
    }
    if let Some(t) = base.terrain.keys().next() {
        let _ = writeln!(out, "# terrain:\n#   {t}: ~                 # removes {}'s {t}", base.name);
    }
    let _ = writeln!(out, "# modules: [extra]          # more modules, loaded after {}'s", base.name);
    if let Some(m) = base.modules.first() {
        let _ = writeln!(
            out,
            "# A file here named like one of {}'s modules ({m}.lua) replaces it; it may\n\
             # begin with `local {m} = require(\"@{}/{m}\")` to wrap one of its functions.",
            base.name, base.name
        );
    }
    out
}

fn variant_readme(name: &str, base: &Ruleset, from: &str, scenario: &Path) -> String {
    let b = &base.name;
    let origin = base.origin.word();
    let sc = scenario.display();
    let module = base.modules.first().cloned().unwrap_or_else(|| "rules".into());
    format!(
        "# {name} — a variant of {b}\n\n\
         Made by `sandtable new variant {name} --from {from}`. Only what differs from\n\
         {b} ({origin}) is in this folder; everything else comes from {b}\n\
         (`sandtable rulesets` shows where each ruleset comes from).\n\n\
         | File | What it holds |\n|---|---|\n\
         | `ruleset.yaml` | `extends: {b}`, and the data this variant changes (commented examples) |\n\
         | `spec/{name}_spec.lua` | this variant's own specs |\n\
         | `{sc}` | {b}'s scenario, on this ruleset (`ruleset: ..`) |\n\n\
         ## What to do next\n\n\
         1. Change a rule. A number: a param's default in `ruleset.yaml`\n\
         \x20  (`params: {{ module: {{ param: {{ default: 2 }} }} }}`). Data: a unit type,\n\
         \x20  terrain kind or die, merged by key (`~` removes one). Code: a file named\n\
         \x20  like one of {b}'s modules replaces it; to change one function only,\n\
         \x20  begin it with `local {module} = require(\"@{b}/{module}\")`, replace the\n\
         \x20  function in that table, and `return {module}`.\n\
         2. Write the spec of your change in `spec/`: force the dice and the\n\
         \x20  decisions the clause needs and check the outcome the rule demands.\n\
         3. Run:\n\n\
         ```sh\n\
         sandtable test {name}                      # this variant's specs\n\
         sandtable test {name} --with-base-specs    # and {b}'s: which ones your change breaks\n\
         sandtable test --coverage {name}           # the lines of this folder's Lua the specs run\n\
         sandtable test --mutate {name}             # would the specs notice a wrong rule?\n\
         sandtable repl --ruleset {name}            # or: sandtable repl --scenario <this folder>/{sc}\n\
         ```\n\n\
         ## The rules, clause by clause\n\n\
         | Clause (our words) | Where | Specs |\n|---|---|---|\n\
         | everything this variant leaves alone | {b} ({origin}): see its README | {b}'s, run against {name} by `--with-base-specs` |\n"
    )
}

/// `sandtable new ruleset NAME [--dir DIR]`: a ruleset from nothing.
pub fn ruleset(name: &str, dir: Option<&Path>) -> Result<Made, String> {
    check_name(name)?;
    let (parent, marker) = parent_folder(dir)?;
    let new_dir = parent.join(name);
    let plan: Plan = vec![
        ("ruleset.yaml".into(), NEW_YAML.replace("NAME", name)),
        (format!("{name}.lua").into(), NEW_LUA.replace("NAME", name)),
        ("scenarios/skirmish.yaml".into(), NEW_SCENARIO.to_string()),
        (format!("spec/{name}_spec.lua").into(), NEW_SPEC.replace("NAME", name)),
        ("README.md".into(), NEW_README.replace("NAME", name)),
    ];
    write_all(&new_dir, &plan, marker.as_deref())?;
    Ok(Made { report: report(name, &new_dir, &plan, marker.as_deref(), false), dir: new_dir })
}

/// What `sandtable new` prints.
fn report(name: &str, dir: &Path, plan: &Plan, marker: Option<&Path>, variant: bool) -> String {
    let mut out = String::new();
    let shown = display_path(dir);
    if let Some(m) = marker {
        let _ = writeln!(
            out,
            "made {} : this folder is now a sandtable project (its rulesets/ and scripts/ come before the bundled ones)",
            display_path(m)
        );
    }
    let _ = writeln!(out, "made {shown}/");
    for (rel, _) in plan {
        let _ = writeln!(out, "  {}", rel.display());
    }
    let edit = if variant { "ruleset.yaml".to_string() } else { plan[1].0.display().to_string() };
    let _ = writeln!(out, "next: edit {shown}/{edit}, then");
    let found_by_name =
        locate(name, None, None).is_ok_and(|f| f.file.parent() == Some(files::canonical(dir).as_path()));
    let which = if found_by_name { name.to_string() } else { shown.clone() };
    let _ = writeln!(out, "  sandtable test {which}");
    if variant {
        let _ = writeln!(out, "  sandtable test {which} --with-base-specs");
    }
    let _ = writeln!(out, "  (the README in the folder says more)");
    out
}

const NEW_YAML: &str = "\
# NAME: a ruleset made by `sandtable new ruleset NAME`. One die, a terrain
# table, one unit type and one rule (NAME.lua) to grow from.
name: NAME
title: NAME

modules: [NAME]

dice:
  d6: 6

# Terrain kinds: any properties the rules read (NAME.lua reads `cover`).
terrain:
  clear: {}
  woods: { cover: 1, blocks_los: true }

# Unit types: `strength` is a unit's figures (steps, blocks) at full strength.
unit_types:
  infantry: { strength: 4 }

params:
  NAME:
    hits_on:
      default: 5
      min: 2
      max: 6
      doc: the d6 roll that hits a target in the open (cover adds to it)
";

const NEW_LUA: &str = "\
-- NAME.lua: the rules of NAME. Each function says which clause of the
-- rules it implements.
--
-- At a prompt:
--   NAME.attack(\"r1\", \"b1\")

local NAME = {}

-- [Attack] A unit attacks an enemy unit next to it with one d6 per figure.
-- Each die that shows params.NAME.hits_on or more, plus the cover of the
-- target's terrain, removes one of the target's figures. Returns the hits.
function NAME.attack(attacker, target)
  local a, t = world:unit(attacker), world:unit(target)
  if a.hex:distance(t.hex) ~= 1 then
    error(\"rule error: \" .. a.id .. \" may only attack a unit next to it\", 2)
  end
  local cover = (ruleset.terrain[world:terrain(t.hex) or \"clear\"] or {}).cover or 0
  local need = params.NAME.hits_on + cover
  local roll = dice.roll(a.strength, \"d6\", a.id .. \" attacks \" .. t.id)
  local hits = 0
  for _, face in ipairs(roll.faces) do
    if face >= need then
      hits += 1
    end
  end
  world:hit(t, hits, \"attack by \" .. a.id)
  return hits
end

return NAME
";

const NEW_SCENARIO: &str = "\
# A red unit faces two blue ones, one in woods; a third blue unit stands off.
name: Skirmish
ruleset: ..          # this folder's ruleset: a path from this file's folder
seed: 1
map: { cols: 8, rows: 6, offset: odd-r }
sides:
  red: { baseline: top }
  blue: { baseline: bottom }
first: red
terrain:
  woods: [[3, 2]]
units:
  - { id: r1, side: red, type: infantry, hex: [2, 2] }
  - { id: b1, side: blue, type: infantry, hex: [3, 2] }
  - { id: b2, side: blue, type: infantry, hex: [1, 3] }
  - { id: b3, side: blue, type: infantry, hex: [4, 4] }
";

const NEW_SPEC: &str = "\
-- NAME's specs: each forces the dice a clause needs and checks what the
-- rule demands. `sandtable test NAME` runs them.
describe(\"[Attack]\", function()
  it(\"hits on 5 or more in the open\", function()
    scenario(\"../scenarios/skirmish.yaml\")
    dice.force(\"d6\", { 6, 5, 4, 1 })
    expect(NAME.attack(\"r1\", \"b2\")):to_be(2)
    expect(world:unit(\"b2\").strength):to_be(2)
  end)

  it(\"cover adds to the roll needed\", function()
    scenario(\"../scenarios/skirmish.yaml\")
    dice.force(\"d6\", { 6, 5, 5, 1 })
    expect(NAME.attack(\"r1\", \"b1\")):to_be(1)
  end)

  it(\"only a unit next to it\", function()
    scenario(\"../scenarios/skirmish.yaml\")
    expect_error(function() NAME.attack(\"b3\", \"r1\") end, \"only attack a unit next to it\")
  end)
end)
";

const NEW_README: &str = "\
# NAME

Made by `sandtable new ruleset NAME`: one die, a terrain table, one unit
type and one rule to grow from.

| File | What it holds |
|---|---|
| `ruleset.yaml` | the d6, terrain (`cover`), the unit type, the param `NAME.hits_on` |
| `NAME.lua` | `NAME.attack(attacker, target)`: the [Attack] rule |
| `scenarios/skirmish.yaml` | a small board for the specs and the REPL (`ruleset: ..`) |
| `spec/NAME_spec.lua` | the specs of [Attack], dice forced |

## Next

```sh
sandtable test NAME                  # the specs
sandtable repl --ruleset NAME        # or --scenario <this folder>/scenarios/skirmish.yaml
sandtable test --coverage NAME       # the lines of the rules the specs run
sandtable test --mutate NAME         # would the specs notice a wrong rule?
```

## The rules, clause by clause

| Clause (our words) | Where | Specs |
|---|---|---|
| [Attack] one d6 per figure; a die at `hits_on` plus the target's cover or more removes a figure | `NAME.attack` | `spec/NAME_spec.lua` |
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_must_name_a_folder_and_a_module() {
        assert!(check_name("tricorne_carbine").is_ok());
        for bad in ["", "1x", "a-b", "../x", "lib", "a b"] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_copied_scenario_names_this_folder() {
        let t = on_this_ruleset("name: X\nruleset: tricorne   # the game\nmap: {}\n");
        assert!(t.contains("ruleset: .. ") && !t.contains("tricorne"), "{t}");
    }
}
