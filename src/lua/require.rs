//! `require`: modules only from the ruleset's folder (and its bases'), the
//! `lib/` folders of the search path (`Ruleset::lib_dirs`) and, for a
//! script outside the ruleset's folder, the script's own folder.
use super::*;
use crate::layers::files;

impl Host {
    pub(super) fn install_require(&self) -> mlua::Result<()> {
        let lua = &self.lua;
        lua.set_named_registry_value(keys::LOADED, lua.create_table()?)?;
        let state = self.state.clone();
        let require = lua.create_function(move |lua, name: String| {
            let path = resolve_module(&state, &name)?;
            let key = display_path(&path);
            let loaded: Table = lua.named_registry_value(keys::LOADED)?;
            match loaded.get::<Value>(key.as_str())? {
                Value::Boolean(false) => {
                    return Err(mlua::Error::runtime(format!(
                        "require('{name}'): a module requires itself (cycle through {key})"
                    )))
                }
                Value::Nil => {}
                v => return Ok(v),
            }
            let given = state.options.sources.as_ref().and_then(|m| m.get(&files::canonical(&path)).cloned());
            let src = match given {
                Some(s) => s,
                None => chunk::read_source(&path)
                    .map_err(|e| mlua::Error::runtime(format!("require('{name}'): cannot read {key}: {e}")))?,
            };
            loaded.set(key.as_str(), false)?;
            let f = compile_chunk(lua, &src, &format!("@{key}"))?;
            // Spec support modules are test code: coverage and --mutate
            // measure the rules, so they never see them.
            if state.options.coverage && !is_spec_support(&state, &path) {
                state.chunks.borrow_mut().push((key.clone(), f.clone()));
            }
            let v: Value = match f.call::<Value>(()) {
                Ok(v) => v,
                Err(e) => {
                    loaded.set(key.as_str(), Value::Nil)?;
                    return Err(e);
                }
            };
            let v = if v.is_nil() { Value::Boolean(true) } else { v };
            loaded.set(key.as_str(), v.clone())?;
            Ok(v)
        })?;
        lua.globals().set("require", require)
    }
}

/// Whether a module file lives in the loaded ruleset's `spec/` folder (spec
/// support, such as `spec/support/units.lua`, not rule code).
fn is_spec_support(state: &State, path: &std::path::Path) -> bool {
    state.ruleset.borrow().as_ref().is_some_and(|r| r.dirs().any(|d| path.starts_with(d.join("spec"))))
}

/// `require` names are `module` (the ruleset's folder, then the folders of
/// the rulesets it extends, then the folder of the running script when that
/// lies outside the ruleset: a helper beside a spec kept in a folder of its
/// own), `@base/module` (the module of the ruleset `base` it extends, to
/// wrap one of its functions) or `lib/module` (the shared `lib/` folders,
/// `Ruleset::lib_dirs`); dots may stand for slashes; nothing may climb out.
pub(super) fn resolve_module(state: &State, name: &str) -> mlua::Result<PathBuf> {
    let bad = |why: &str| mlua::Error::runtime(format!("require('{name}'): {why}"));
    let rel = name.replace('.', "/");
    let plain = rel.strip_prefix('@').unwrap_or(&rel);
    if plain.is_empty() || plain.starts_with('/') || plain.split('/').any(|p| p.is_empty() || p == "..") {
        return Err(bad("module names are like 'combat', 'lib/cc_dice' or '@base/combat'; no absolute paths or '..'"));
    }
    if !plain.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '/' || c == '-') {
        return Err(bad("module names may use letters, digits, '_', '-' and '/' only (and '@' first)"));
    }
    let rs = state.ruleset.borrow();
    if let Some(rest) = rel.strip_prefix("lib/") {
        let Some(rs) = rs.as_ref() else {
            // lib/ modules read the ruleset's data (terrain, charts) as they
            // load: without one they would quietly see empty tables.
            return Err(bad(
                "no ruleset is loaded yet, and lib/ modules read its data (terrain, charts) when they load; \
                 call scenario(...) before require, or put the spec in a ruleset's spec/ folder",
            ));
        };
        let file = format!("{rest}.lua");
        let dirs = rs.lib_dirs();
        return dirs.iter().map(|d| d.join(&file)).find(|p| files::is_file(p)).ok_or_else(|| {
            let looked: Vec<String> = dirs.iter().map(|d| display_path(d)).collect();
            bad(&format!("no file {file} in {}", looked.join(", ")))
        });
    }
    let rs = rs.as_ref().ok_or_else(|| bad("no ruleset is loaded, so only lib/ modules can be required"))?;
    let missing = match rs.find_module(&rel) {
        Ok(file) => return Ok(file),
        Err(e) => e,
    };
    let script_dir = state.script_dir.borrow().clone();
    let script_dir = files::canonical(&script_dir);
    let inside = state.script_dir.borrow().as_os_str().is_empty()
        || rs.dirs().any(|d| script_dir.starts_with(files::canonical(d)));
    if rel.starts_with('@') || inside {
        return Err(bad(&missing));
    }
    let beside = script_dir.join(format!("{rel}.lua"));
    if files::is_file(&beside) {
        return Ok(beside);
    }
    Err(bad(&format!("{missing}, nor beside the script ({})", display_path(&beside))))
}
