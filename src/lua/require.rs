//! `require`: modules only from the ruleset's folder and `rulesets/lib/`
//! (and, for a script outside the ruleset's folder, the script's own folder).
use super::*;

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
            let given = state.options.sources.as_ref().and_then(|m| {
                let canonical = path.canonicalize().ok()?;
                m.get(&canonical).cloned()
            });
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
    state.ruleset.borrow().as_ref().is_some_and(|r| path.starts_with(r.dir.join("spec")))
}

/// `require` names are `module` (the ruleset's folder, then the folder of the
/// running script when that lies outside the ruleset: a helper beside a spec
/// kept in a folder of its own) or `lib/module` (the shared folder); dots may
/// stand for slashes; nothing may climb out.
pub(super) fn resolve_module(state: &State, name: &str) -> mlua::Result<PathBuf> {
    let bad = |why: &str| mlua::Error::runtime(format!("require('{name}'): {why}"));
    let rel = name.replace('.', "/");
    if rel.is_empty() || rel.starts_with('/') || rel.split('/').any(|p| p.is_empty() || p == "..") {
        return Err(bad("module names are like 'combat' or 'lib/cc_dice'; no absolute paths or '..'"));
    }
    if !rel.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '/' || c == '-') {
        return Err(bad("module names may use letters, digits, '_', '-' and '/' only"));
    }
    let rs_dir = state.ruleset.borrow().as_ref().map(|r| r.dir.clone());
    let lib_dir = rs_dir
        .as_ref()
        .and_then(|d| d.parent().map(|p| p.join("lib")))
        .unwrap_or_else(|| crate::ruleset::project_root().join("rulesets").join("lib"));
    let candidate = if let Some(rest) = rel.strip_prefix("lib/") {
        if rs_dir.is_none() {
            // lib/ modules read the ruleset's data (terrain, charts) as they
            // load: without one they would quietly see empty tables.
            return Err(bad(
                "no ruleset is loaded yet, and lib/ modules read its data (terrain, charts) when they load; \
                 call scenario(...) before require, or put the spec in a ruleset's spec/ folder",
            ));
        }
        lib_dir.join(format!("{rest}.lua"))
    } else {
        let dir = rs_dir.ok_or_else(|| bad("no ruleset is loaded, so only lib/ modules can be required"))?;
        let own = dir.join(format!("{rel}.lua"));
        let script_dir = state.script_dir.borrow().clone();
        let outside = |d: &std::path::Path| match (d.canonicalize(), dir.canonicalize()) {
            (Ok(d), Ok(r)) => !d.starts_with(r),
            _ => false,
        };
        let beside = script_dir.join(format!("{rel}.lua"));
        if !own.is_file() && outside(&script_dir) && beside.is_file() {
            beside
        } else if !own.is_file() && outside(&script_dir) {
            return Err(bad(&format!("no file {} nor {}", display_path(&own), display_path(&beside))));
        } else {
            own
        }
    };
    if !candidate.is_file() {
        return Err(bad(&format!("no file {}", display_path(&candidate))));
    }
    Ok(candidate)
}
