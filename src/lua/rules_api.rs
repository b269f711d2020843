//! The `rules` area: the globals a rule uses besides the API tables:
//! decisions, events, params, the ruleset's data, `require` and `print`.

use super::api::Api;

pub fn install(api: &mut Api) -> mlua::Result<()> {
    super::decide_api::install(api)?;
    super::world::events::install(api)?;
    api.member("params.<module>.<name>", "the ruleset's tunable numbers (:set changes them)");
    api.member("ruleset", "the ruleset's data: name, terrain, unit_types, charts, tokens, variant");
    api.member("require(name)", "load a module from the ruleset's folder or lib/");
    api.member("print(...)", "print values");
    Ok(())
}
