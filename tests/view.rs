//! The live board in a real browser: for each bundled scenario, a REPL
//! (the real binary, fed one input at a time) starts `:view`, headless
//! Chromium opens the page through chromedriver, the REPL plays, and the
//! page must follow over the event stream; on every picture, no two labels'
//! boxes (as the browser lays them out) may overlap. Also `sandtable view
//! SCENARIO` alone, redrawing when the scenario's file changes.
//!
//! Chromium is not part of a newcomer's toolchain: without `chromium` (or
//! `chromium-headless-shell`) and `chromedriver` on PATH the browser tests
//! say loudly that they skipped, unless SANDTABLE_BROWSER_TESTS=require
//! (which `.ci/run` exports after installing them), when they fail instead.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder};
use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_sandtable");
const REQUIRE: &str = "SANDTABLE_BROWSER_TESTS";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A program on PATH.
fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|d| d.join(name)).find(|p| p.is_file())
}

/// Chromium and chromedriver, or why the browser tests cannot run (a
/// failure when CI demands them).
fn browser() -> Option<(PathBuf, PathBuf)> {
    let chromium = on_path("chromium").or_else(|| on_path("chromium-headless-shell"));
    let driver = on_path("chromedriver");
    match (chromium, driver) {
        (Some(c), Some(d)) => Some((c, d)),
        _ => {
            let why = "needs chromium and chromedriver on PATH (Debian: apt-get install chromium chromium-driver)";
            if std::env::var(REQUIRE).is_ok_and(|v| v == "require") {
                panic!("{REQUIRE}=require, but the browser test {why}");
            }
            eprintln!("\n*** SKIPPED: the live board's browser test {why}; .ci/run installs them and sets {REQUIRE}=require ***\n");
            None
        }
    }
}

/// Lines a child prints, read on a thread so a test can wait with a timeout.
fn lines_of(out: impl Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// Waits for a line containing `want`; returns it.
fn wait_line(rx: &Receiver<String>, want: &str, seen: &mut String) -> String {
    let until = Instant::now() + Duration::from_secs(60);
    while let Ok(line) = rx.recv_timeout(until.saturating_duration_since(Instant::now())) {
        seen.push_str(&line);
        seen.push('\n');
        if line.contains(want) {
            return line;
        }
    }
    panic!("no line with {want:?} in:\n{seen}");
}

/// The address a line names (`... is at http://127.0.0.1:PORT/TOKEN/ ...`).
fn url_in(line: &str) -> String {
    let at = line.find("http://127.0.0.1:").expect("an address");
    line[at..].split_whitespace().next().unwrap().to_string()
}

/// A REPL fed one input at a time through a pipe.
struct Repl {
    child: Child,
    stdin: ChildStdin,
    out: Receiver<String>,
    seen: String,
    _home: tempfile::TempDir,
}

impl Repl {
    fn start(scenario: &str) -> Repl {
        let home = tempfile::tempdir().unwrap();
        let mut child = Command::new(BIN)
            .args(["repl", "--scenario", scenario, "--seed", "1"])
            .current_dir(root())
            .env("HOME", home.path())
            .env("SANDTABLE_HISTORY", home.path().join("history"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the binary runs");
        let stdin = child.stdin.take().unwrap();
        let out = lines_of(child.stdout.take().unwrap());
        Repl { child, stdin, out, seen: String::new(), _home: home }
    }

    fn send(&mut self, input: &str) {
        writeln!(self.stdin, "{input}").unwrap();
        self.stdin.flush().unwrap();
    }

    fn view(&mut self) -> String {
        self.send(":view");
        url_in(&wait_line(&self.out, "the live board is at", &mut self.seen))
    }
}

impl Drop for Repl {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// chromedriver on a free port, and a headless Chromium session through it.
struct Browser {
    driver: Child,
    client: Option<Client>,
    rt: tokio::runtime::Runtime,
    _profile: tempfile::TempDir,
}

impl Browser {
    fn start(chromium: &Path, chromedriver: &Path) -> Browser {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let driver = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver starts");
        let until = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < until, "chromedriver did not listen on {port}");
            std::thread::sleep(Duration::from_millis(100));
        }
        let profile = tempfile::tempdir().unwrap();
        // How headless Chromium must start here: no sandbox as root, and no
        // background connections (the network is closed).
        let args = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--window-size=1400,1000",
        ];
        let mut args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        args.push(format!("--user-data-dir={}", profile.path().display()));
        let caps = json!({ "goog:chromeOptions": { "binary": chromium, "args": args } });
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let mut builder = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new());
        builder.capabilities(caps.as_object().unwrap().clone());
        let client = rt.block_on(builder.connect(&format!("http://127.0.0.1:{port}"))).expect("a browser session");
        Browser { driver, client: Some(client), rt, _profile: profile }
    }

    fn client(&self) -> &Client {
        self.client.as_ref().unwrap()
    }

    fn goto(&self, url: &str) {
        self.rt.block_on(self.client().goto(url)).unwrap();
    }

    /// Runs `body` (a function body that returns a JSON-able value) in the page.
    fn js(&self, body: &str) -> Value {
        self.rt.block_on(self.client().execute(body, vec![])).unwrap()
    }

    /// Waits until `body` returns true in the page.
    fn until(&self, what: &str, body: &str) {
        let until = Instant::now() + Duration::from_secs(30);
        while self.js(body) != json!(true) {
            assert!(Instant::now() < until, "the page never showed {what}: {}", self.js(PAGE_STATE));
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn seq(&self) -> u64 {
        self.js("return Number(document.body.dataset.seq || 0)").as_u64().unwrap()
    }

    /// Waits for a frame newer than `after` that satisfies `body`.
    fn next_frame(&self, after: u64, what: &str, body: &str) -> u64 {
        self.until(what, &format!("return Number(document.body.dataset.seq || 0) > {after} && (() => {{ {body} }})()"));
        self.seq()
    }

    fn screenshot(&self, to: &Path) {
        let png = self.rt.block_on(self.client().screenshot()).unwrap();
        std::fs::write(to, png).unwrap();
    }

    /// A new tab watching `url`; returns the first tab's handle.
    fn second_tab(&self, url: &str) -> (fantoccini::wd::WindowHandle, fantoccini::wd::WindowHandle) {
        let c = self.client();
        let first = self.rt.block_on(c.window()).unwrap();
        let new = self.rt.block_on(c.new_window(true)).unwrap().handle;
        self.rt.block_on(c.switch_to_window(new.clone())).unwrap();
        self.goto(url);
        (first, new)
    }

    fn switch(&self, to: &fantoccini::wd::WindowHandle) {
        self.rt.block_on(self.client().switch_to_window(to.clone())).unwrap();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if let Some(c) = self.client.take() {
            let _ = self.rt.block_on(c.close());
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// What the page shows, for failure messages.
const PAGE_STATE: &str =
    "return { seq: document.body.dataset.seq, status: document.getElementById('status').textContent, \
     input: document.getElementById('input').textContent, error: document.getElementById('error').textContent }";

/// Every label's box in the picture as the browser lays it out.
const LABEL_BOXES: &str = r#"
const svg = document.querySelector('#board svg');
return [...svg.querySelectorAll('[data-label]')].map((e) => {
  const r = e.getBoundingClientRect();
  return { kind: e.dataset.label, text: e.textContent.trim().slice(0, 40), x: r.left, y: r.top, w: r.width, h: r.height };
}).filter((b) => b.w > 0 && b.h > 0);
"#;

/// No two labels' boxes overlap (by more than half a pixel either way).
fn assert_no_overlaps(browser: &Browser, when: &str) {
    browser.js("const b = document.getElementById('fit'); if (b) b.click(); return true");
    let boxes = browser.js(LABEL_BOXES);
    let boxes = boxes.as_array().unwrap();
    assert!(boxes.len() > 5, "{when}: too few labels to judge: {boxes:?}");
    let f = |b: &Value, k: &str| b[k].as_f64().unwrap();
    let mut bad = Vec::new();
    for (i, a) in boxes.iter().enumerate() {
        for b in &boxes[i + 1..] {
            let dx = (f(a, "x") + f(a, "w")).min(f(b, "x") + f(b, "w")) - f(a, "x").max(f(b, "x"));
            let dy = (f(a, "y") + f(a, "h")).min(f(b, "y") + f(b, "h")) - f(a, "y").max(f(b, "y"));
            if dx > 0.5 && dy > 0.5 {
                bad.push(format!("{} {:?} over {} {:?}", a["kind"], a["text"], b["kind"], b["text"]));
            }
        }
    }
    assert!(bad.is_empty(), "{when}: labels overlap:\n{}", bad.join("\n"));
}

/// The line of sight (and its blocking cross) lies under every counter.
fn assert_los_under_counters(browser: &Browser, when: &str) {
    let ok = browser.js(
        "const svg = document.querySelector('#board svg'); const los = svg.querySelector('#los'); \
         if (!los) return 'no line of sight'; \
         const units = [...svg.querySelectorAll('[data-unit]')]; \
         return units.length > 0 && units.every((u) => los.compareDocumentPosition(u) & Node.DOCUMENT_POSITION_FOLLOWING)",
    );
    assert_eq!(ok, json!(true), "{when}: the line of sight must be drawn before (under) the counters");
}

/// The other faults issue 32 lists, read from the DOM: the title drawn over
/// the page's background, a key naming every side, and every legend line
/// inside the picture (none cut off at the right edge). Returns the legend's text.
fn assert_readable(browser: &Browser, when: &str, sides: &[&str]) -> String {
    let r = browser.js(
        r#"const svg = document.querySelector('#board svg');
        const title = svg.querySelector('[data-label="title"]');
        const bg = svg.querySelector('rect');
        const [vx, vy, vw, vh] = svg.getAttribute('viewBox').split(/[ ,]+/).map(Number);
        const legend = [...svg.querySelectorAll('[data-label="legend"]')];
        const outside = legend.filter((e) => { const b = e.getBBox(); return b.width > 0 && (b.x < vx - 0.5 || b.x + b.width > vx + vw + 0.5 || b.y + b.height > vy + vh + 0.5); });
        return {
          title: title ? title.textContent : null,
          title_over_background: !!title && !!(bg.compareDocumentPosition(title) & Node.DOCUMENT_POSITION_FOLLOWING),
          outside: outside.map((e) => e.textContent),
          legend: legend.map((e) => e.textContent).join(' | '),
        };"#,
    );
    assert!(r["title"].as_str().is_some_and(|t| !t.is_empty()), "{when}: no title: {r}");
    assert_eq!(r["title_over_background"], json!(true), "{when}: the title is drawn under the background");
    assert_eq!(r["outside"], json!([]), "{when}: legend lines cut off at the picture's edge");
    let legend = r["legend"].as_str().unwrap().to_string();
    assert!(legend.contains("Sides:"), "{when}: no key for the sides: {legend}");
    for side in sides {
        assert!(legend.contains(side), "{when}: the key lacks {side}: {legend}");
    }
    legend
}

/// Where screenshots go when asked for (SANDTABLE_SCREENSHOTS=DIR).
fn screenshot(browser: &Browser, name: &str) {
    if let Some(dir) = std::env::var_os("SANDTABLE_SCREENSHOTS") {
        browser.screenshot(&Path::new(&dir).join(format!("{name}.png")));
    }
}

/// Opens `:view` on `scenario` and the page on it; returns the REPL and the
/// first frame's number.
fn open(browser: &Browser, scenario: &str) -> (Repl, String, u64) {
    let mut repl = Repl::start(scenario);
    let url = repl.view();
    browser.goto(&url);
    browser.until(
        "the first frame",
        "return !!document.querySelector('#board svg') && document.getElementById('status').className === 'live'",
    );
    let seq = browser.seq();
    assert_no_overlaps(browser, &format!("{scenario} as loaded"));
    (repl, url, seq)
}

#[test]
fn the_live_board_follows_the_repl_in_a_browser() {
    let Some((chromium, driver)) = browser() else { return };
    let b = Browser::start(&chromium, &driver);

    // Great War: a move, seen by two tabs; the reserve artillery's marks; a line of sight.
    let (mut repl, url, seq) = open(&b, "great_war/bombardment");
    let (first_tab, second_tab) = b.second_tab(&url);
    b.until("the second tab's frame", "return !!document.querySelector('#board svg [data-unit=\"a5\"]')");
    repl.send("world:move(world:unit('a5'), hex(1,7))");
    for tab in [&second_tab, &first_tab] {
        b.switch(tab);
        b.next_frame(
            seq,
            "a5 at (1,7) in each tab",
            "return !!document.querySelector('#board svg [data-unit=\"a5\"][data-at=\"1,7\"]')",
        );
    }
    b.rt.block_on(async {
        b.client().switch_to_window(second_tab.clone()).await.unwrap();
        b.client().close_window().await.unwrap();
        b.client().switch_to_window(first_tab.clone()).await.unwrap();
    });
    let seq = b.seq();
    repl.send(":force targeting 1 4 4 6");
    repl.send(":force battle soldier burst flag burst hq");
    repl.send("reserve_artillery.fire{side='allies', target=hex(6,3), card='bombard', hq=4}");
    // The flag drives c1 back: the page shows the retreat's question until it is answered.
    let seq = b.next_frame(seq, "the retreat decision", "return !document.getElementById('decision').hidden");
    repl.send("1");
    b.next_frame(seq, "the bombardment's marks", "return document.getElementById('decision').hidden && document.getElementById('input').className === '' && !!document.querySelector('#board svg .mark.fresh')");
    assert!(b.js("return document.getElementById('events').textContent").as_str().unwrap().contains("c1"));
    assert_no_overlaps(&b, "great_war after a bombardment");
    assert_readable(&b, "great_war", &["allies", "central"]);
    screenshot(&b, "great_war");
    let seq = b.seq();
    repl.send(":map --los a3 c2");
    b.next_frame(seq, "a line of sight", "return !!document.querySelector('#board svg #los')");
    assert_los_under_counters(&b, "great_war");
    assert_no_overlaps(&b, "great_war with a line of sight");
    drop(repl);

    // Tricorne: a move and a line of sight across the field.
    let (mut repl, _, seq) = open(&b, "tricorne/prestonpans");
    repl.send("world:move(world:unit('j1'), hex(2,7))");
    b.next_frame(
        seq,
        "j1 at (2,7)",
        "return !!document.querySelector('#board svg [data-unit=\"j1\"][data-at=\"2,7\"]')",
    );
    let seq = b.seq();
    repl.send(":map --los g2 j3");
    b.next_frame(seq, "a line of sight", "return !!document.querySelector('#board svg #los')");
    assert_los_under_counters(&b, "tricorne");
    assert_no_overlaps(&b, "tricorne with a line of sight");
    assert_readable(&b, "tricorne", &["government", "jacobite"]);
    screenshot(&b, "tricorne");
    drop(repl);

    // Viktory: an attack whose move-in waits for an overwatch decision; the
    // page shows the question while the REPL waits, and the stacks' counts.
    let (mut repl, _, seq) = open(&b, "viktory/mountain_pass");
    assert!(b.js("return document.querySelectorAll('#board svg [data-label=\"stack\"]').length").as_u64().unwrap() > 0);
    repl.send("battle.declare{target=hex(5,3), attackers={'b_inf1', 'b_inf2', 'b_art'}, paths={b_inf1=hex(6,2), b_inf2=hex(5,4), b_art=hex(6,3)}}");
    let seq = b.next_frame(
        seq,
        "the declared attack",
        "return document.getElementById('input').textContent.includes('battle.declare')",
    );
    repl.send("battle.move_in('b_inf1')");
    b.next_frame(seq, "the overwatch decision", "return !document.getElementById('decision').hidden && document.getElementById('decision-options').children.length > 1");
    screenshot(&b, "viktory_decision");
    let seq = b.seq();
    repl.send("wait");
    b.next_frame(seq, "the answered decision", "return document.getElementById('decision').hidden && !document.getElementById('input').classList.contains('running')");
    assert_no_overlaps(&b, "viktory after a move-in");
    let legend = assert_readable(&b, "viktory", &["A", "B", "C"]);
    // The units aboard the frigate are named with it, and the marks spelled out.
    assert!(legend.contains("Aboard c_frig at (2,6):") && legend.contains("c_inf2"), "{legend}");
    assert!(legend.contains("a_art ready at (4,3)"), "{legend}");
    screenshot(&b, "viktory");
    drop(repl);

    // République: the grand battery fires; arcs, centres of fire and the
    // enfilade arc must not cover each other's labels.
    let (mut repl, _, seq) = open(&b, "republique/grand_battery");
    repl.send("artillery.begin_phase()");
    repl.send("dice.force('d10', {8})");
    repl.send("artillery.fire{ batteries = {'fb1', 'fb2'} }");
    b.next_frame(seq, "the battery's fire", "return document.getElementById('input').textContent.includes('artillery.fire') && document.querySelector('#board svg').textContent.includes('arc of fire')");
    assert_no_overlaps(&b, "republique after the grand battery fires");
    let legend = assert_readable(&b, "republique", &["austrian", "french"]);
    assert!(legend.contains("leader (general)"), "{legend}");
    assert_eq!(
        b.js("return document.querySelectorAll('#board svg [data-label=\"leader\"]').length"),
        json!(2),
        "leaders drawn as leaders"
    );
    screenshot(&b, "republique");
    // Pan and zoom change the view, and fit shows the whole picture again.
    let whole = b.js("return document.querySelector('#board svg').getAttribute('viewBox')");
    b.js("document.getElementById('board').dispatchEvent(new WheelEvent('wheel', { deltaY: -300, clientX: 300, clientY: 300, bubbles: true, cancelable: true })); return true");
    assert_ne!(b.js("return document.querySelector('#board svg').getAttribute('viewBox')"), whole, "the wheel zooms");
    b.js("document.getElementById('fit').click(); return true");
    assert_eq!(
        b.js("return document.querySelector('#board svg').getAttribute('viewBox')"),
        whole,
        "fit shows the whole picture"
    );
    drop(repl);
}

/// `sandtable view SCENARIO` alone: the scenario's board, drawn again when
/// its file changes; a broken file shows its error and keeps the picture.
#[test]
fn sandtable_view_redraws_when_the_scenario_changes() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("bombardment.yaml");
    let text = std::fs::read_to_string(root().join("scripts/great_war/bombardment.yaml")).unwrap();
    std::fs::write(&scenario, &text).unwrap();
    let mut child = Command::new(BIN)
        .args(["view", scenario.to_str().unwrap()])
        .current_dir(root())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = lines_of(child.stdout.take().unwrap());
    let err = lines_of(child.stderr.take().unwrap());
    let mut seen = String::new();
    let line = wait_line(&out, "the live board of", &mut seen);
    let url = url_in(&line);
    let frame = || frame_json(&url);
    let first = frame();
    assert_eq!(first["title"], "Bombardment");
    assert_eq!(first["units"]["a5"]["at"], "(0,7)");
    // Move a5 in the file: the board follows.
    std::fs::write(
        &scenario,
        text.replace(
            "id: a5, side: allies, type: infantry,     hex: [0, 7]",
            "id: a5, side: allies, type: infantry,     hex: [1, 7]",
        ),
    )
    .unwrap();
    wait_line(&out, "redrew", &mut seen);
    let moved = frame();
    assert!(moved["seq"].as_u64() > first["seq"].as_u64());
    assert_eq!(moved["units"]["a5"]["at"], "(1,7)");
    assert!(moved["error"].is_null());
    // A broken file: its error, located, over the last good picture.
    std::fs::write(&scenario, text.replace("ruleset: great_war", "ruleset: [great_war")).unwrap();
    let mut errs = String::new();
    wait_line(&err, "bombardment.yaml", &mut errs);
    let broken = wait_for(|| Some(frame()).filter(|f| !f["error"].is_null()));
    assert!(broken["error"].as_str().unwrap().contains("bombardment.yaml"), "{}", broken["error"]);
    assert_eq!(broken["units"]["a5"]["at"], "(1,7)", "the last good picture stays");
    let _ = child.kill();
    let _ = child.wait();
}

/// Polls `f` for up to 30 s.
fn wait_for<T>(mut f: impl FnMut() -> Option<T>) -> T {
    let until = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(Instant::now() < until, "timed out");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The board's current frame over plain HTTP (the page's frame.json).
fn frame_json(url: &str) -> Value {
    let rest = url.trim_start_matches("http://");
    let (host, path) = rest.split_once('/').unwrap();
    let mut s = TcpStream::connect(host).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(s, "GET /{path}frame.json HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n").unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    serde_json::from_str(body).unwrap()
}
