//! `:view`: the live board beside the REPL (see `crate::web`).
//!
//! The session keeps the board up to date through four small hooks: before
//! and after each input (`live_before`, `live_after`: the world, what the
//! input showed, printed and logged, the marks it left), after a reload
//! from the file watcher, and at each decision (the asker is wrapped by
//! [`LiveAsker`], so the page shows the question and the world as it stands
//! mid-rule). The board stops with the session, or with `:view stop`.

use super::*;
use crate::lua::{Asker, DecisionRequest, State};
use crate::render::svg::EarlierMarks;
use crate::render::LosLine;
use crate::web::{Frame, LiveBoard, Scene};

/// A running live board and what the next frame needs from the session.
pub(crate) struct Live {
    board: LiveBoard,
    pane: Pane,
}

/// What a frame shows beside the world, kept between inputs.
struct Pane {
    seq: u64,
    title: String,
    draw: crate::render::Draw,
    /// The marks before the current input, and where its events start.
    earlier: EarlierMarks,
    events_from: usize,
    /// The last input, and whether it succeeded (`None` while it runs).
    input: Option<(String, Option<bool>)>,
    shown: Option<String>,
    printed: String,
    record: Option<String>,
    los: Option<LosLine>,
    /// Why the scenario no longer loads (`sandtable view`).
    error: Option<String>,
}

/// The live board a session and its asker share (none until `:view`).
pub(crate) type SharedLive = Rc<RefCell<Option<Live>>>;

impl Live {
    /// Builds and sends a frame of `world`, with a decision when one waits.
    fn publish(&mut self, world: &World, decision: Option<&DecisionRequest>) {
        self.board.publish(self.pane.frame(world, decision));
    }
}

impl Pane {
    /// The next frame of `world`.
    fn frame(&mut self, world: &World, decision: Option<&DecisionRequest>) -> Frame {
        self.seq += 1;
        let scene = Scene {
            seq: self.seq,
            title: &self.title,
            draw: self.draw.clone(),
            earlier: Some(self.earlier.clone()),
            los: self.los.clone(),
            input: self.input.as_ref().map(|(t, ok)| (t.as_str(), *ok)),
            shown: self.shown.as_deref(),
            printed: Some(self.printed.as_str()).filter(|p| !p.is_empty()),
            summary: self.record.as_deref(),
            events_from: self.events_from,
            decision,
            error: self.error.as_deref(),
        };
        Frame::build(world, &scene)
    }
}

impl Session {
    /// `:view` starts the live board (or says where it is); `:view stop` stops it.
    pub(super) fn view(&mut self, args: &[String]) -> Result<(), commands::CmdError> {
        match args.first().map(String::as_str) {
            None => {
                if let Some(url) = self.live_url() {
                    self.say(&format!("the live board is at {url} (:view stop stops it)"));
                    return Ok(());
                }
                let url = self.start_live()?;
                self.say(&format!(
                    "the live board is at {url}\n  open it in a browser (several tabs may watch); it follows every input, and stops with the REPL or :view stop"
                ));
                Ok(())
            }
            Some("stop") if args.len() == 1 => {
                let was = self.live.borrow_mut().take();
                self.host.copy_output(false);
                self.say(if was.is_some() { "the live board stopped" } else { "no live board is running" });
                Ok(())
            }
            Some(_) => Err(Self::usage("view")),
        }
    }

    /// Starts the live board; returns its address.
    fn start_live(&mut self) -> Result<String, commands::CmdError> {
        let world = self.host.snapshot();
        let mut pane = Pane {
            seq: 0,
            title: self.scenario_name.clone(),
            draw: self.draw_hints(),
            earlier: EarlierMarks::of(&world),
            events_from: world.log.events.len(),
            input: None,
            shown: None,
            printed: String::new(),
            record: None,
            los: None,
            error: None,
        };
        let first = pane.frame(&world, None);
        let board = LiveBoard::start(first)
            .map_err(|e| commands::CmdError::Text(format!("cannot start the live board: {e}")))?;
        let url = board.url().to_string();
        *self.live.borrow_mut() = Some(Live { board, pane });
        self.host.copy_output(true);
        Ok(url)
    }

    /// The live board's address, when it runs.
    pub fn live_url(&self) -> Option<String> {
        self.live.borrow().as_ref().map(|l| l.board.url().to_string())
    }

    /// How many pages watch the live board (0 when none runs).
    pub fn live_watchers(&self) -> usize {
        self.live.borrow().as_ref().map_or(0, |l| l.board.watchers())
    }

    /// Before an input: remember the marks and where the log ends, so the
    /// frame after it can tell what the input did.
    pub(super) fn live_before(&mut self, input: &str) {
        let mut live = self.live.borrow_mut();
        let Some(live) = live.as_mut() else { return };
        live.pane.input = Some((input.trim().to_string(), None));
        let world = self.host.state.world.borrow();
        live.pane.earlier = EarlierMarks::of(&world);
        live.pane.events_from = world.log.events.len();
        live.pane.shown = None;
        live.pane.printed.clear();
        live.pane.record = None;
        live.pane.los = None;
        drop(world);
        let _ = self.host.take_copy();
    }

    /// What an input showed as its result; a table the ruleset summarises
    /// (its `__tostring`: a fire's record, with its modifiers, dice and
    /// result) is summarised for the panel too. The summary runs under the
    /// time budget and may change nothing: the world is put back after it.
    pub(super) fn live_result(&mut self, shown: &str, values: &[Value]) {
        if self.live.borrow().is_none() {
            return;
        }
        let record = match values {
            [Value::Table(t)]
                if t.metatable()
                    .is_some_and(|mt| matches!(mt.raw_get::<Value>("__tostring"), Ok(Value::Function(_)))) =>
            {
                let before = self.host.snapshot();
                let text =
                    self.host.guarded(|lua| lua.globals().get::<mlua::Function>("tostring")?.call::<String>(t.clone()));
                if !before.same_as(&self.host.state.world.borrow()) {
                    self.host.restore(before);
                }
                let _ = self.host.take_output();
                text.ok()
            }
            _ => None,
        };
        if let Some(live) = self.live.borrow_mut().as_mut() {
            live.pane.shown = Some(shown.to_string());
            live.pane.record = record;
        }
    }

    /// What captured `print` output an input wrote (piped sessions with capture).
    pub(super) fn live_printed(&mut self, text: &str) {
        if let Some(live) = self.live.borrow_mut().as_mut() {
            live.pane.printed.push_str(text);
        }
    }

    /// A line of sight `:map --los` drew, shown until the next input.
    pub(super) fn live_los(&mut self, los: &LosLine) {
        if let Some(live) = self.live.borrow_mut().as_mut() {
            live.pane.los = Some(los.clone());
        }
    }

    /// After an input (`ok`: whether it succeeded) or a reload (`None`):
    /// send the world as it now is.
    pub(super) fn live_after(&mut self, ok: Option<bool>) {
        let copied = self.host.take_copy();
        let title = self.scenario_name.clone();
        let draw = self.draw_hints();
        let mut live = self.live.borrow_mut();
        let Some(live) = live.as_mut() else { return };
        live.pane.printed.push_str(&copied);
        if let (Some(ok), Some((_, done))) = (ok, live.pane.input.as_mut()) {
            *done = Some(ok);
        }
        live.pane.title = title;
        live.pane.draw = draw;
        let world = self.host.state.world.borrow();
        live.publish(&world, None);
    }
}

/// Shows each decision on the live board while the person answers it at
/// the REPL, then asks through the REPL's own asker.
pub(crate) struct LiveAsker {
    pub inner: Box<dyn Asker>,
    pub live: SharedLive,
    pub state: Rc<State>,
}

impl Asker for LiveAsker {
    fn ask(&mut self, req: &DecisionRequest) -> Result<usize, String> {
        if let Some(live) = self.live.borrow_mut().as_mut() {
            // Mid-rule the world may be borrowed; then the page keeps the last picture.
            if let Ok(world) = self.state.world.try_borrow() {
                live.publish(&world, Some(req));
            }
        }
        self.inner.ask(req)
    }
}

/// `sandtable view SCENARIO`: the live board of a scenario alone, with no
/// REPL. It draws the scenario again whenever its file, or a file of its
/// ruleset (or `rulesets/lib/`), changes: a designer editing a scenario
/// watches it take shape. A scenario that no longer loads shows its error
/// over the last picture. Ctrl-C stops it.
pub fn view_only(opts: &ReplOptions) -> ExitCode {
    let err_color = run::color_on(std::io::stderr().is_terminal());
    let mut session = match setup(opts, Box::new(std::io::stdout()), Box::new(std::io::stderr()), false, false) {
        Ok(s) => s,
        Err(e) => {
            eprint!("{}", render_error(&e, err_color));
            return ExitCode::from(2);
        }
    };
    let Some(scenario) = session.host.state.scenario.borrow().clone() else {
        eprintln!("error: sandtable view needs a scenario file");
        return ExitCode::from(2);
    };
    let url = match session.start_live() {
        Ok(url) => url,
        Err(commands::CmdError::Text(t)) => {
            eprintln!("error: {t}");
            return ExitCode::from(2);
        }
        Err(commands::CmdError::Script(e)) => {
            eprint!("{}", render_error(&e, err_color));
            return ExitCode::from(2);
        }
    };
    let stop = Arc::new(AtomicBool::new(false));
    install_ctrl_c(stop.clone());
    // Watching starts before the address is out: an edit made as soon as
    // the page is up must redraw it.
    let mut dirs = watched_dirs(&session, &scenario);
    let mut watcher = view_watcher(&dirs);
    println!("the live board of {} is at {url}", scenario.display());
    println!("  open it in a browser (several tabs may watch); it redraws when the scenario or its ruleset's files change; Ctrl-C stops it");
    let _ = std::io::stdout().flush();
    let overrides = ScenarioOverrides {
        ruleset: opts.ruleset.clone(),
        variant: opts.variant.clone(),
        seed: opts.seed,
        set: opts.set.clone(),
        ..ScenarioOverrides::default()
    };
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(std::time::Duration::from_millis(100));
        let Some(changed) = watcher.as_ref().and_then(|w| w.changed()) else { continue };
        let loaded = load_scenario(&mut session, &scenario, &overrides);
        if let Some(live) = session.live.borrow_mut().as_mut() {
            live.pane.error = loaded.as_ref().err().map(|e| render_error(e, false));
        }
        session.live_after(None);
        // The scenario may name another ruleset now: watch its folder instead
        // (the watcher is kept otherwise, so no edit goes unseen).
        let now = watched_dirs(&session, &scenario);
        if now != dirs {
            dirs = now;
            watcher = view_watcher(&dirs);
        }
        // Said once the page has the new frame and the watcher is ready.
        match loaded {
            Ok(()) => println!("redrew {} after a change to {}", scenario.display(), watch::names(&changed)),
            Err(e) => eprint!("{}", render_error(&e, err_color)),
        }
        let _ = std::io::stdout().flush();
    }
    println!("the live board stopped");
    ExitCode::SUCCESS
}

/// The folders `sandtable view` watches: the scenario's, its ruleset's, those
/// of the rulesets it extends and `lib/` (bundled files cannot change and
/// are not watched).
fn watched_dirs(session: &Session, scenario: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = scenario.parent().map(Path::to_path_buf).into_iter().collect();
    if let Some(rs) = session.host.state.ruleset.borrow().as_ref() {
        dirs.extend(rs.dirs().map(Path::to_path_buf).chain(rs.lib_dirs()));
    }
    dirs.retain(|d| !crate::layers::files::is_bundled(d));
    dirs
}

fn view_watcher(dirs: &[PathBuf]) -> Option<watch::RulesetWatcher> {
    match watch::RulesetWatcher::new(dirs, None) {
        Ok(w) => Some(w),
        Err(e) => {
            eprintln!("warning: cannot watch the files for changes ({e}); the picture will not redraw");
            None
        }
    }
}
