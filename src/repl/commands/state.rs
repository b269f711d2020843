//! The commands that load, set and keep state: `:load`, `:ruleset`, `:set`,
//! `:seed`, `:force`, `:undo`/`:redo`, `:save`.

use super::*;

impl Session {
    pub(super) fn load(&mut self, cmd: &Command, args: &[String]) -> Result<(), CmdError> {
        if args.is_empty() {
            // `:load` alone: what is loaded, and what could be.
            let source = self.host.state.scenario.borrow().clone();
            let mut out = match source {
                Some(p) => format!("the battlefield is {} ({})\n", self.scenario_name, crate::lua::display_path(&p)),
                None => "no scenario file is loaded\n".to_string(),
            };
            let files = super::super::helper::scenario_files();
            if !files.is_empty() {
                let _ = writeln!(out, "scenarios (:load NAME; the .yaml may be left off):");
                for f in files {
                    let _ = writeln!(out, "  {}", f.strip_suffix(".yaml").unwrap_or(&f));
                }
            }
            self.say(&out);
            return Ok(());
        }
        let [file] = args else { return Err(Self::usage(cmd.name)) };
        let path = resolve_scenario(file)
            .ok_or_else(|| CmdError::Text(crate::paths::not_found(Path::new(file), "scenario file")))?;
        let before = self.snapshot(&format!(":{} {file}", cmd.name));
        let name_before = std::mem::take(&mut self.scenario_name);
        match load_scenario(self, &path, &ScenarioOverrides::default()) {
            Ok(()) => {
                self.record(before);
                let summary = {
                    let w = self.host.state.world.borrow();
                    summary(&w)
                };
                let rs = self.host.state.ruleset.borrow().as_ref().map(|r| r.name.clone()).unwrap_or_default();
                let verb = if cmd.name == "open" { "opened" } else { "loaded" };
                let msg = format!(
                    "{verb} {} ({}) · ruleset {rs} · seed {}\n{summary}",
                    self.scenario_name,
                    crate::lua::display_path(&path),
                    self.seed.map_or("-".to_string(), |s| s.to_string())
                );
                self.say(&msg);
                Ok(())
            }
            Err(e) => {
                self.scenario_name = name_before;
                Err(CmdError::Script(e))
            }
        }
    }

    pub(super) fn ruleset(&mut self, args: &[String]) -> Result<(), CmdError> {
        let (name, variant) = match args {
            [] => {
                self.show_rulesets();
                return Ok(());
            }
            [n] => (n, None),
            [n, v] => (n, Some(v)),
            _ => return Err(Self::usage("ruleset")),
        };
        let mut rs = Ruleset::load(name).map_err(|e| CmdError::Script(ScriptError::from(e)))?;
        if let Some(v) = variant {
            rs.apply_variant(v).map_err(|e| CmdError::Text(e.to_string()))?;
        }
        let before = self.snapshot(&format!(":ruleset {}", args.join(" ")));
        let r = self.host.transaction(|h| h.load_ruleset(rs));
        self.flush_lua_output();
        r.map_err(CmdError::Script)?;
        self.record(before);
        self.rewatch();
        let rs = self.host.state.ruleset.borrow().clone();
        if let Some(rs) = rs {
            let v = rs.variant.as_ref().map(|v| format!(" (variant {v})")).unwrap_or_default();
            self.say(&format!(
                "ruleset {}{v} loaded: modules {}; the battlefield is unchanged",
                rs.name,
                rs.modules.join(", ")
            ));
        }
        Ok(())
    }

    /// `:ruleset` alone: the ruleset loaded (and variant), and those there are.
    fn show_rulesets(&mut self) {
        let rs = self.host.state.ruleset.borrow().clone();
        let mut out = match &rs {
            Some(r) => {
                let v = r.variant.as_ref().map(|v| format!(", variant {v}")).unwrap_or_default();
                let vs = if r.variants.is_empty() {
                    String::new()
                } else {
                    format!(" (variants: {})", r.variants.keys().cloned().collect::<Vec<_>>().join(", "))
                };
                let (_, origin) = crate::layers::origin_of(&r.dir);
                let mut from = format!("{}, {origin}", crate::lua::display_path(&r.dir));
                for l in r.chain.iter().skip(1) {
                    let _ = write!(from, "; extends {} ({})", l.name, crate::layers::origin_of(&l.dir).1);
                }
                format!("the ruleset is {}{v}{vs}\nfrom {from}\n", r.name)
            }
            None => "no ruleset is loaded\n".to_string(),
        };
        let names = super::super::helper::ruleset_names();
        if !names.is_empty() {
            let _ = writeln!(out, "rulesets (:ruleset NAME [VARIANT]): {}", names.join(", "));
        }
        self.say(&out);
    }

    /// The lines `:set` shows for one param: value, type, range, default when changed, doc.
    fn param_lines(rs: &Ruleset, module: &str, name: &str, def: &crate::ruleset::ParamDef, width: usize) -> String {
        let mut out = String::new();
        let key = format!("{module}.{name}");
        let value = rs.value(&key).map(|v| v.to_string()).unwrap_or_default();
        let range = match (def.min, def.max) {
            (Some(a), Some(b)) => format!(" {a}..{b}"),
            (Some(a), None) => format!(" >= {a}"),
            (None, Some(b)) => format!(" <= {b}"),
            _ => String::new(),
        };
        let changed =
            if Some(&def.default) != rs.value(&key) { format!(", default {}", def.default) } else { String::new() };
        let _ = writeln!(out, "  {key} = {value}   ({}{range}{changed})", def.ty);
        for line in wrap(&def.doc, width.saturating_sub(6).max(30)) {
            let _ = writeln!(out, "      {line}");
        }
        out
    }

    pub(super) fn set(&mut self, args: &[String]) -> Result<(), CmdError> {
        let rs = self.host.state.ruleset.borrow().clone();
        let Some(rs) = rs else { return Err(CmdError::Text("no ruleset is loaded".into())) };
        if args.is_empty() {
            let width = self.width.clamp(40, 120);
            let mut out = String::new();
            if let Some(v) = &rs.variant {
                let _ = writeln!(out, "variant: {v}");
            }
            for (module, defs) in &rs.params {
                for (name, def) in defs {
                    out.push_str(&Self::param_lines(&rs, module, name, def, width));
                }
            }
            if rs.params.is_empty() {
                out.push_str("(this ruleset has no params)\n");
            }
            self.say(&out);
            return Ok(());
        }
        let mut assignment = args.join("");
        let Some((key, text)) = assignment.split_once('=').map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        else {
            // `:set module.param` (or `:set module`) without a value: show it.
            let key = assignment.trim();
            let (module, name) = key.split_once('.').unwrap_or((key, ""));
            let width = self.width.clamp(40, 120);
            let mut out = String::new();
            if let Some(defs) = rs.params.get(module) {
                for (n, def) in defs.iter().filter(|(n, _)| name.is_empty() || n.as_str() == name) {
                    out.push_str(&Self::param_lines(&rs, module, n, def, width));
                }
            }
            if out.is_empty() {
                let names = rs.param_names();
                let hint = closest(key, names.iter().map(String::as_str))
                    .map(|c| format!("; did you mean {c}?"))
                    .unwrap_or_else(|| " (:set lists them)".to_string());
                return Err(CmdError::Text(format!("ruleset '{}' has no param '{key}'{hint}", rs.name)));
            }
            out.push_str("  (:set MODULE.PARAM=VALUE changes it; =default puts the default back)\n");
            self.say(&out);
            return Ok(());
        };
        if text == "default" {
            // `:set module.param=default`: back to the ruleset's default.
            let (module, name) = key.split_once('.').unwrap_or((&key, ""));
            if let Some(def) = rs.params.get(module).and_then(|d| d.get(name)) {
                let text = match &def.default {
                    serde_json::Value::String(s) => s.clone(),
                    v => v.to_string(),
                };
                assignment = format!("{key}={text}");
            }
        }
        let before = self.snapshot(&format!(":set {assignment}"));
        self.host.set_param(&assignment).map_err(CmdError::Script)?;
        self.record(before);
        let key = assignment.split_once('=').map_or("", |(k, _)| k.trim()).to_string();
        let now = self.host.state.ruleset.borrow().as_ref().and_then(|r| r.value(&key).cloned());
        self.say(&format!("{key} = {}", now.map_or("?".to_string(), |v| v.to_string())));
        Ok(())
    }

    pub(super) fn seed_cmd(&mut self, args: &[String]) -> Result<(), CmdError> {
        if args.is_empty() {
            // `:seed` alone: the current seed.
            let text = match self.seed {
                Some(s) => format!("the dice were last seeded with {s}; `:seed N` reseeds them"),
                None => "the dice have not been seeded; `:seed N` seeds them".to_string(),
            };
            self.say(&text);
            return Ok(());
        }
        let [n] = args else { return Err(Self::usage("seed")) };
        let seed: u64 = crate::analysis::cli::parse_seed(n).map_err(CmdError::Text)?;
        let before = self.snapshot(&format!(":seed {seed}"));
        self.host.state.world.borrow_mut().dice.seed(seed);
        self.seed = Some(seed);
        self.transcript.push(format!("dice.seed({seed})"));
        self.record(before);
        self.say(&format!("dice seeded with {seed}"));
        Ok(())
    }

    pub(super) fn force(&mut self, args: &[String]) -> Result<(), CmdError> {
        let Some((kind, faces)) = args.split_first() else {
            // `:force` alone: what is queued.
            let left = self.host.state.world.borrow().dice.unused_forced();
            let text = if left.is_empty() {
                "no forced dice queued".to_string()
            } else {
                let mut t = String::from("forced dice queued (used by the next rolls of each kind):");
                for (k, v) in &left {
                    t.push_str(&format!("\n  {k}: {}", v.join(" ")));
                }
                t
            };
            self.say(&text);
            return Ok(());
        };
        let clear_kind = match (kind.as_str(), faces) {
            ("clear", []) => Some(None),
            (k, [c]) if c == "clear" => Some(Some(k.to_string())),
            _ => None,
        };
        if let Some(which) = clear_kind {
            let before = self.snapshot(&format!(":force {}", args.join(" ")));
            {
                let mut w = self.host.state.world.borrow_mut();
                match &which {
                    None => w.dice.clear_forced(),
                    Some(k) => {
                        let i = w.dice.kind_index(k).map_err(|e| CmdError::Text(e.to_string()))?;
                        w.dice.clear_forced_kind(i);
                    }
                }
            }
            self.record(before);
            self.say(&match which {
                None => "forced dice cleared".to_string(),
                Some(k) => format!("forced {k} dice cleared"),
            });
            return Ok(());
        }
        if faces.is_empty() {
            return Err(Self::usage("force"));
        }
        let before = self.snapshot(&format!(":force {}", args.join(" ")));
        {
            let mut w = self.host.state.world.borrow_mut();
            let k = w.dice.kind_index(kind).map_err(|e| CmdError::Text(e.to_string()))?;
            let die = w.dice.kind(k).clone();
            let mut idx = Vec::new();
            for f in faces {
                let i = die.value_index_str(f).ok_or_else(|| {
                    CmdError::Text(format!("die '{kind}' has no face '{f}' (faces: {})", die.describe_values()))
                })?;
                idx.push(i as u32);
            }
            w.dice.force(k, &idx);
        }
        self.record(before);
        let lits: Vec<String> = faces
            .iter()
            .map(|f| if f.parse::<f64>().is_ok() { f.clone() } else { crate::repl::save::lua_str(f) })
            .collect();
        self.transcript.push(format!("dice.force({}, {{ {} }})", crate::repl::save::lua_str(kind), lits.join(", ")));
        let queued = self.host.state.world.borrow().dice.unused_forced();
        let q = queued.iter().find(|(k, _)| k == kind).map(|(_, v)| v.join(" ")).unwrap_or_default();
        self.say(&format!("the next {kind} rolls come up: {q}"));
        Ok(())
    }

    pub(super) fn undo_redo(&mut self, undo: bool) -> Result<(), CmdError> {
        let Some(snap) = (if undo { self.undo.pop() } else { self.redo.pop() }) else {
            return Err(CmdError::Text(if undo { "nothing to undo".into() } else { "nothing to redo".into() }));
        };
        let label = snap.label.clone();
        let current = self.snapshot(&label);
        if let Err(e) = self.restore(snap) {
            return Err(CmdError::Script(e));
        }
        if undo {
            self.redo.push(current);
        } else {
            self.undo.push(current);
        }
        let summary = {
            let w = self.host.state.world.borrow();
            summary(&w)
        };
        self.say(&format!("{} {label}\n{summary}", if undo { "undid:" } else { "redid:" }));
        Ok(())
    }

    /// The battlefield as scenario YAML (what `:save` writes and `:sim` runs on).
    pub(super) fn battlefield_yaml(&self, default_name: &str, target: &Path) -> String {
        let w = self.host.state.world.borrow();
        let rs = self.host.state.ruleset.borrow();
        let source = self.host.state.scenario.borrow().clone();
        let info = SaveInfo {
            name: if self.scenario_name.is_empty() { default_name } else { &self.scenario_name },
            ruleset: rs.as_ref(),
            seed: self.seed,
            source: source.as_deref(),
            target,
        };
        scenario_yaml(&w, &info)
    }

    pub(super) fn save(&mut self, args: &[String]) -> Result<(), CmdError> {
        let [file] = args else { return Err(Self::usage("save")) };
        let path = PathBuf::from(file);
        super::super::save::check_savable(&self.host.state.world.borrow())
            .map_err(|e| CmdError::Text(format!("cannot save: {e}")))?;
        // A ruleset named by a relative path is found from the file written
        // (through a symbolic link, the file it names).
        let target = crate::files::writable(&path).unwrap_or_else(|_| path.clone());
        let text = { self.battlefield_yaml("saved battlefield", &target) };
        crate::files::write(&path, text.as_bytes()).map_err(|e| {
            CmdError::Text(format!(
                "cannot write {}: {e} (nothing was saved; a file already there is as it was)",
                path.display()
            ))
        })?;
        let n = self.host.state.world.borrow().units.len();
        self.say(&format!(
            "saved the battlefield ({n} units) to {}; :open {} loads it",
            path.display(),
            path.display()
        ));
        Ok(())
    }
}
