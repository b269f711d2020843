//! `:help` on the ruleset: a ruleset function's doc comment, signature and
//! the params it reads (`:help reserve_artillery.fire`), and the whole
//! ruleset at a glance (`:help great_war`: modules, params, variants, dice,
//! terrain, unit types). Read from the ruleset's files, never by running them.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::layers::files;
use crate::ruleset::{Part, Ruleset};

/// A ruleset function found in its module's source.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionDoc {
    /// `module.name(args)` as written.
    pub signature: String,
    /// The comment lines right above the function, without `--`.
    pub doc: Vec<String>,
    /// `module.param` names the function reads through `params`.
    pub params: Vec<String>,
    /// `file:line` of the definition.
    pub at: String,
    /// The file that defines it.
    pub file: PathBuf,
}

/// The Lua files of a ruleset (its folder, those of the rulesets it extends,
/// and the `lib/` folders it may require from), the variant's own first.
fn lua_files(rs: &Ruleset) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = rs.dirs().map(Path::to_path_buf).collect();
    dirs.extend(rs.lib_dirs());
    dirs.iter().flat_map(|d| files::list(d)).filter(|p| p.extension().is_some_and(|e| e == "lua")).collect()
}

/// Finds `function NAME(` (NAME like `module.fn` or `module:fn`) in a source
/// and reads its doc comment and the params its body reads.
pub fn find_in_source(source: &str, name: &str, file: &Path) -> Option<FunctionDoc> {
    let lines: Vec<&str> = source.lines().collect();
    let alt = name.replacen(':', ".", 1);
    let alt2 = name.replacen('.', ":", 1);
    let def = lines.iter().position(|l| {
        let t = l.trim_start();
        [name, alt.as_str(), alt2.as_str()].iter().any(|n| t.starts_with(&format!("function {n}(")))
    })?;
    let sig_line = lines[def].trim_start().trim_start_matches("function ");
    let signature = match sig_line.find(')') {
        Some(i) => sig_line[..=i].to_string(),
        None => sig_line.to_string(),
    };
    let mut doc = Vec::new();
    for l in lines[..def].iter().rev() {
        let t = l.trim();
        let Some(text) = t.strip_prefix("--") else { break };
        if text.starts_with("----") {
            break;
        }
        doc.push(text.strip_prefix(' ').unwrap_or(text).to_string());
    }
    doc.reverse();
    // The body: up to the `end` at the definition's indentation.
    let indent = lines[def].len() - lines[def].trim_start().len();
    let end = lines[def + 1..]
        .iter()
        .position(|l| l.len() - l.trim_start().len() == indent && l.trim() == "end")
        .map_or(lines.len(), |i| def + 1 + i);
    let body = &lines[def..end];
    let mut params: Vec<String> = Vec::new();
    let mut aliases: Vec<(String, String)> = Vec::new();
    let ident = |s: &str| -> String { s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect() };
    for l in body {
        let code = l.split("--").next().unwrap_or("");
        // `local p = params.module`
        if let Some(rest) = code.trim_start().strip_prefix("local ") {
            if let Some((var, val)) = rest.split_once('=') {
                let (var, val) = (var.trim(), val.trim());
                if let Some(m) = val.strip_prefix("params.") {
                    let m = ident(m);
                    if m.len() == val.len() - "params.".len() && !var.contains(',') {
                        aliases.push((var.to_string(), m));
                    }
                }
            }
        }
        let mut rest = code;
        while let Some(i) = rest.find("params.") {
            let after = &rest[i + "params.".len()..];
            let m = ident(after);
            if let Some(p) = after[m.len()..].strip_prefix('.').map(ident).filter(|p| !p.is_empty()) {
                params.push(format!("{m}.{p}"));
            }
            rest = &after[m.len()..];
        }
        for (var, m) in &aliases {
            let pat = format!("{var}.");
            let mut rest = code;
            while let Some(i) = rest.find(&pat) {
                let ok_before = rest[..i].chars().last().is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '.'));
                let p = ident(&rest[i + pat.len()..]);
                if ok_before && !p.is_empty() {
                    params.push(format!("{m}.{p}"));
                }
                rest = &rest[i + pat.len()..];
            }
        }
    }
    params.sort();
    params.dedup();
    Some(FunctionDoc {
        signature,
        doc,
        params,
        at: format!("{}:{}", crate::lua::display_path(file), def + 1),
        file: file.to_path_buf(),
    })
}

/// Finds a ruleset function by `module.fn`.
pub fn find_function(rs: &Ruleset, name: &str) -> Option<FunctionDoc> {
    if !name.contains(['.', ':']) {
        return None;
    }
    lua_files(rs).into_iter().find_map(|f| {
        let src = files::read_to_string(&f).ok()?;
        find_in_source(&src, name, &f)
    })
}

/// A Luau type a ruleset's file declares (`export type FireArgs = { ... }`):
/// its doc comment and its definition as written.
pub struct TypeDoc {
    pub name: String,
    /// The comment lines right above it, without `--`.
    pub doc: Vec<String>,
    /// `type NAME = ...` through its closing brace.
    pub text: Vec<String>,
    /// `file:line` of the declaration.
    pub at: String,
}

/// Finds `[export] type NAME =` in a source.
pub fn find_type_in_source(source: &str, name: &str, file: &Path) -> Option<TypeDoc> {
    let lines: Vec<&str> = source.lines().collect();
    let def = lines.iter().position(|l| {
        let t = l.trim_start();
        let t = t.strip_prefix("export ").unwrap_or(t);
        t.strip_prefix("type ")
            .and_then(|r| r.strip_prefix(name))
            .is_some_and(|r| r.trim_start().starts_with(['=', '<']))
    })?;
    let mut doc = Vec::new();
    for l in lines[..def].iter().rev() {
        let Some(text) = l.trim().strip_prefix("--") else { break };
        doc.push(text.strip_prefix(' ').unwrap_or(text).to_string());
    }
    doc.reverse();
    // Through the line where the braces opened on the first line close.
    let mut depth = 0i32;
    let mut text = Vec::new();
    for l in &lines[def..] {
        text.push((*l).to_string());
        let code = l.split("--").next().unwrap_or("");
        depth += code.matches('{').count() as i32 - code.matches('}').count() as i32;
        if depth <= 0 {
            break;
        }
    }
    let at = format!("{}:{}", crate::lua::display_path(file), def + 1);
    Some(TypeDoc { name: name.to_string(), doc, text, at })
}

/// Finds a type a ruleset's files declare, by name.
pub fn find_type(rs: &Ruleset, name: &str) -> Option<TypeDoc> {
    if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return None;
    }
    lua_files(rs).into_iter().find_map(|f| find_type_in_source(&files::read_to_string(&f).ok()?, name, &f))
}

/// The help text of a type.
pub fn type_help(t: &TypeDoc) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "type {}    ({})", t.name, t.at);
    for l in &t.doc {
        let _ = writeln!(s, "  {l}");
    }
    for l in &t.text {
        let _ = writeln!(s, "  {l}");
    }
    s
}

/// The names of the types a signature mentions (`spec: FireArgs` -> FireArgs).
fn types_in(signature: &str) -> Vec<String> {
    let Some(args) = signature.split_once('(').map(|(_, a)| a) else { return Vec::new() };
    args.split([',', ')'])
        .filter_map(|a| a.split_once(':').map(|(_, t)| t.trim().trim_end_matches('?').to_string()))
        .filter(|t| t.chars().next().is_some_and(char::is_uppercase))
        .collect()
}

/// The help text of a ruleset function, with the params' docs and values.
pub fn function_help(rs: &Ruleset, f: &FunctionDoc) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{}    ({}{})", f.signature, f.at, from_layer(rs, &f.file));
    for l in &f.doc {
        let _ = writeln!(s, "  {l}");
    }
    // The types its arguments name ("the fields are those of FireArgs").
    let src = files::read_to_string(&f.file).unwrap_or_default();
    for t in types_in(&f.signature) {
        if let Some(td) = find_type_in_source(&src, &t, &f.file).or_else(|| find_type(rs, &t)) {
            s.push_str(&type_help(&td));
        }
    }
    if !f.params.is_empty() {
        let _ = writeln!(s, "Params it reads (:set MODULE.PARAM=VALUE changes one):");
        for p in &f.params {
            let (m, n) = p.split_once('.').unwrap_or((p, ""));
            let def = rs.params.get(m).and_then(|ps| ps.get(n));
            let now = rs.values.get(m).and_then(|v| v.get(n));
            match def {
                Some(d) => {
                    let _ = writeln!(
                        s,
                        "  {p} = {} (default {}): {}",
                        now.map_or_else(|| d.default.to_string(), ToString::to_string),
                        d.default,
                        d.doc
                    );
                }
                None => {
                    let _ = writeln!(s, "  {p}");
                }
            }
        }
    }
    s
}

/// Where a file of a variant comes from: `; tricorne, bundled` for a file
/// of a ruleset of the chain (nothing for a ruleset that extends none, whose
/// files are all its own, nor for a `lib/` module).
fn from_layer(rs: &Ruleset, file: &Path) -> String {
    if rs.base().is_none() {
        return String::new();
    }
    let file = files::canonical(file);
    rs.chain
        .iter()
        .find(|l| file.starts_with(files::canonical(&l.dir)))
        .map(|l| format!("; {}, {}", l.name, crate::layers::origin_of(&l.dir).1))
        .unwrap_or_default()
}

/// ` [tricorne, changed by tricorne_carbine]`: which layer wrote a part of a variant.
fn layer_note(rs: &Ruleset, part: Part, key: &str) -> String {
    rs.layer_of(part, key).map(|l| format!(" [{l}]")).unwrap_or_default()
}

/// `:help RULESET`: the ruleset at a glance; for a variant, which layer
/// (the variant or a ruleset it extends) each module, param, unit type and
/// terrain kind comes from.
pub fn ruleset_help(rs: &Ruleset) -> String {
    let mut s = String::new();
    let (_, origin) = crate::layers::origin_of(&rs.dir);
    let _ = writeln!(s, "{} — {} ({}, {origin})", rs.name, rs.title, crate::lua::display_path(&rs.dir));
    for l in rs.chain.iter().skip(1) {
        let (_, origin) = crate::layers::origin_of(&l.dir);
        let _ = writeln!(s, "  extends {} ({}, {origin})", l.name, crate::lua::display_path(&l.dir));
    }
    let _ = writeln!(s, "Modules (:help MODULE.FUNCTION shows one function's doc):");
    for m in &rs.modules {
        let fns = module_functions(rs, m);
        let fns = if fns.is_empty() { "-".to_string() } else { fns.join(", ") };
        let _ = writeln!(s, "  {m}: {fns}{}", layer_note(rs, Part::Module, m));
    }
    if !rs.params.is_empty() {
        let _ = writeln!(s, "Params (value, default, doc):");
        for (m, ps) in &rs.params {
            for (n, d) in ps {
                let now =
                    rs.values.get(m).and_then(|v| v.get(n)).map_or_else(|| d.default.to_string(), ToString::to_string);
                let layer = layer_note(rs, Part::Param, &format!("{m}.{n}"));
                let _ = writeln!(s, "  {m}.{n} = {now} (default {}): {}{layer}", d.default, d.doc);
            }
        }
    }
    if !rs.variants.is_empty() {
        let _ = writeln!(s, "Variants (--variant NAME, :ruleset {} NAME):", rs.name);
        for (n, v) in &rs.variants {
            let _ = writeln!(s, "  {n}: {}", v.doc);
        }
    }
    let _ = writeln!(s, "Dice:");
    for d in &rs.dice {
        let _ = writeln!(s, "  {}: {}", d.name, d.describe_values());
    }
    let keys = |m: &serde_json::Map<String, serde_json::Value>, part: Part| {
        m.keys().map(|k| format!("{k}{}", layer_note(rs, part, k))).collect::<Vec<_>>().join(", ")
    };
    let _ = writeln!(s, "Terrain: {}", keys(&rs.terrain, Part::Terrain));
    let _ = writeln!(s, "Unit types: {}", keys(&rs.unit_types, Part::UnitType));
    if !rs.tokens.is_empty() {
        let _ = writeln!(s, "Tokens: {}", rs.tokens.join(", "));
    }
    if !rs.events.is_empty() {
        let _ = writeln!(s, "Events: {}", rs.events.keys().cloned().collect::<Vec<_>>().join(", "));
    }
    s
}

/// The public functions a module file defines (`function module.name(`).
fn module_functions(rs: &Ruleset, module: &str) -> Vec<String> {
    let Ok(file) = rs.find_module(module) else { return Vec::new() };
    let Ok(src) = files::read_to_string(&file) else { return Vec::new() };
    src.lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("function ")?;
            let rest = rest.strip_prefix(module)?;
            let rest = rest.strip_prefix(['.', ':'])?;
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            (!name.is_empty()).then_some(name)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_type_is_found_with_its_doc_and_fields() {
        let src = "-- The argument table.\nexport type FireArgs = {\n  side: string?, -- who\n  hq: number?,\n}\n\n\
                   -- Fires.\nfunction m.fire(spec: FireArgs, n: number?)\nend\n";
        let t = find_type_in_source(src, "FireArgs", Path::new("m.lua")).unwrap();
        assert_eq!(t.doc, ["The argument table."]);
        assert_eq!(t.text.len(), 4, "{:?}", t.text);
        assert!(t.text[3].trim() == "}" && t.at == "m.lua:2");
        assert!(find_type_in_source(src, "Fire", Path::new("m.lua")).is_none());
        assert_eq!(types_in("m.fire(spec: FireArgs, n: number?)"), ["FireArgs"]);
    }

    #[test]
    fn reads_a_function_doc_and_its_params() {
        let src = "-- a ruler\n------\n-- [RA] Fires the guns.\n-- Twice.\nfunction ra.fire(opts)\n  local p = params.ra\n  if p.crater_at > 1 then return params.cc.x end\n  return p.max\nend\n";
        let f = find_in_source(src, "ra.fire", Path::new("ra.lua")).unwrap();
        assert_eq!(f.signature, "ra.fire(opts)");
        assert_eq!(f.doc, ["[RA] Fires the guns.", "Twice."]);
        assert_eq!(f.params, ["cc.x", "ra.crater_at", "ra.max"]);
    }
}
