//! The one list of the Lua API (`sandtable::lua::api`) against what the host
//! registers, the docs, the editor types and the REPL's help: a call that is
//! missing from any of them fails here.

use std::path::Path;

use mlua::Value;
use sandtable::lua::api::{catalogue, Home, Kind, AREAS};
use sandtable::lua::{Host, HostOptions};

fn read(rel: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap()
}

/// The block of a `declare NAME` (or `declare class NAME`) in the types file.
fn declaration<'a>(types: &'a str, head: &str) -> &'a str {
    let start = types.find(head).unwrap_or_else(|| panic!("types/sandtable.d.luau has no `{head}`"));
    let rest = &types[start..];
    let end = rest[1..].find("\ndeclare ").map_or(rest.len(), |e| e + 1);
    &rest[..end]
}

#[test]
fn every_registered_function_is_in_the_list() {
    let host = Host::new(HostOptions::default()).unwrap();
    let g = host.lua.globals();
    for area in AREAS {
        let Home::Table(name) = area.home else { continue };
        let t: mlua::Table = g.get(name).unwrap();
        t.for_each(|k: String, v: Value| {
            if matches!(v, Value::Function(_)) {
                let listed = catalogue().iter().any(|e| e.group == area.name && e.key() == k && e.kind != Kind::Member);
                assert!(listed, "{name}.{k} is registered outside the API builder (src/lua/api.rs)");
            }
            Ok(())
        })
        .unwrap();
    }
    // Hex methods are reached through any hex.
    for e in catalogue().iter().filter(|e| e.group == "hex value" && e.kind != Kind::Member) {
        let source = format!("return type(hex(0,0).{})", e.key());
        let ty: String = sandtable::lua::load_text(&host.lua, &source, "=drift").unwrap().call(()).unwrap();
        assert_eq!(ty, "function", "{} is a hex method", e.usage);
    }
}

#[test]
fn every_call_is_documented_and_typed() {
    let docs = read("docs/lua-api.md");
    let types = read("types/sandtable.d.luau");
    let mut missing = Vec::new();
    for e in catalogue() {
        for part in e.usage.split("  ") {
            let name = sandtable::lua::api::entry_name(part.trim());
            let documented = [format!("`{name}("), format!("`{name}{{"), format!("`{name}`"), format!("`{name}.")]
                .iter()
                .any(|p| docs.contains(p.as_str()));
            if !documented {
                missing.push(format!("docs/lua-api.md lacks `{name}` ({})", e.usage));
            }
        }
        if e.kind == Kind::Member {
            continue;
        }
        let area = AREAS.iter().find(|a| a.name == e.group).unwrap();
        let key = e.key();
        let typed = match area.home {
            Home::Table(name) => declaration(&types, &format!("declare {name}:")).contains(&format!("    {key}: ")),
            // A callable global with fields (`answers`, `answers.default`) is declared as a value.
            Home::Globals => {
                types.contains(&format!("declare function {key}(")) || types.contains(&format!("declare {key}: "))
            }
            Home::Values if e.group == "hex value" => {
                declaration(&types, "declare class Hex").contains(&format!("function {key}("))
            }
            Home::Values => true,
        };
        if !typed {
            missing.push(format!("types/sandtable.d.luau lacks `{key}` ({})", e.usage));
        }
    }
    assert!(missing.is_empty(), "the API list and its docs disagree:\n{}", missing.join("\n"));
}

#[test]
fn every_area_has_entries_and_help() {
    for area in AREAS {
        let n = catalogue().iter().filter(|e| e.group == area.name).count();
        assert!(n > 0, "area {} registers nothing", area.name);
        assert!(!area.about.is_empty());
    }
    for e in catalogue() {
        assert!(!e.doc.is_empty(), "{} has no doc line for :help", e.usage);
    }
}

#[test]
fn api_errors_name_their_call() {
    let host = Host::new(HostOptions { capture_output: true, ..Default::default() }).unwrap();
    for (code, prefix) in [
        ("world:set_pool('nobody', 'hq', 1)", "world:set_pool: no side named 'nobody'"),
        ("world:set_current_side('nobody')", "world:set_current_side: "),
        ("dice.seed(-1)", "dice.seed"),
        ("dice.roll(2, 'nope')", "dice.roll"),
        ("hex(0,0):neighbor(9)", "h:neighbor"),
        ("on('enter', function() end)", "on: unknown event 'enter' (did you mean 'enters'?)"),
    ] {
        let err = host.exec(code, "probe").unwrap_err().to_string();
        assert!(err.contains(prefix), "{code}: {err}");
    }
}
