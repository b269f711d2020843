//! The live board's server over plain TCP: its routes, the token, the Host
//! check, read-only methods, the event stream, and stopping. (A real
//! browser drives the page in `tests/view.rs`.)

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use super::*;

/// Sends a raw HTTP/1.1 request to 127.0.0.1:`port` and returns the status,
/// the headers (lower-case names) and the body, read until the server closes.
pub(crate) fn request(port: u16, method: &str, path: &str, host: Option<&str>) -> (u16, Vec<(String, String)>, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connects");
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let host = host.map(|h| format!("Host: {h}\r\n")).unwrap_or_default();
    write!(s, "{method} {path} HTTP/1.1\r\n{host}Connection: close\r\n\r\n").unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).expect("an answer");
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let mut lines = head.lines();
    let status = lines.next().and_then(|l| l.split_whitespace().nth(1)).and_then(|c| c.parse().ok()).unwrap_or(0);
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    (status, headers, body.to_string())
}

/// GET `path` (after the token) with the right Host.
pub(crate) fn get(board: &LiveBoard, path: &str) -> (u16, Vec<(String, String)>, String) {
    let full = format!("{}{path}", board.url().trim_start_matches(&format!("http://127.0.0.1:{}", board.port())));
    request(board.port(), "GET", &full, Some(&format!("127.0.0.1:{}", board.port())))
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

fn frame(n: u64) -> Frame {
    Frame { json: format!("{{\"seq\":{n}}}"), svg: format!("<svg data-n=\"{n}\"></svg>") }
}

/// The token part of a board's address.
fn token(board: &LiveBoard) -> String {
    board.url().trim_end_matches('/').rsplit('/').next().unwrap().to_string()
}

#[test]
fn the_page_and_its_files_are_served_with_safe_headers() {
    let board = LiveBoard::start(frame(1)).unwrap();
    assert!(board.url().starts_with("http://127.0.0.1:"), "{}", board.url());
    let (status, headers, body) = get(&board, "");
    assert_eq!(status, 200);
    assert!(header(&headers, "content-type").unwrap().starts_with("text/html"));
    assert!(body.contains("<script src=\"board.js\""), "{body}");
    let csp = header(&headers, "content-security-policy").unwrap();
    assert!(csp.contains("script-src 'self'") && csp.contains("frame-ancestors 'none'"), "{csp}");
    assert_eq!(header(&headers, "cache-control"), Some("no-store"));
    assert_eq!(header(&headers, "referrer-policy"), Some("no-referrer"));
    assert_eq!(header(&headers, "x-content-type-options"), Some("nosniff"));
    for (path, kind, inside) in [
        ("board.js", "text/javascript", "EventSource"),
        ("board.css", "text/css", "#board"),
        ("frame.json", "application/json", "\"seq\":1"),
        ("board.svg", "image/svg+xml", "data-n=\"1\""),
    ] {
        let (status, headers, body) = get(&board, path);
        assert_eq!(status, 200, "{path}");
        assert!(header(&headers, "content-type").unwrap().starts_with(kind), "{path}: {headers:?}");
        assert!(body.contains(inside), "{path}: {body}");
    }
    assert_eq!(get(&board, "nothing-here").0, 404);
    // The address without its last slash is sent on to the page.
    let (status, headers, _) =
        request(board.port(), "GET", &format!("/{}", token(&board)), Some(&format!("127.0.0.1:{}", board.port())));
    assert_eq!(status, 308);
    assert_eq!(header(&headers, "location"), Some(format!("/{}/", token(&board)).as_str()));
}

#[test]
fn a_wrong_token_or_host_or_method_is_refused() {
    let board = LiveBoard::start(frame(1)).unwrap();
    let port = board.port();
    let host = format!("127.0.0.1:{port}");
    let tok = token(&board);
    // No token, a wrong one, one a character short: not found, and nothing said about why.
    for path in [
        "/".to_string(),
        "/board.js".to_string(),
        format!("/{}/", &tok[..31]),
        format!("/{}x/", tok),
        "/0123456789abcdef0123456789abcdef/".into(),
    ] {
        let (status, _, body) = request(port, "GET", &path, Some(&host));
        assert_eq!(status, 404, "{path}");
        assert!(!body.contains(&tok), "{path}: {body}");
    }
    // DNS rebinding: a page on another name that resolves here sends that name as Host.
    for bad in [
        Some(format!("evil.example:{port}")),
        Some("127.0.0.1".into()),
        Some(format!("127.0.0.1:{}", port.wrapping_add(1))),
        None,
    ] {
        let (status, _, body) = request(port, "GET", &format!("/{tok}/"), bad.as_deref());
        assert_eq!(status, 403, "Host {bad:?}");
        assert!(body.contains("Host"), "{body}");
    }
    assert_eq!(request(port, "GET", &format!("/{tok}/"), Some(&format!("localhost:{port}"))).0, 200);
    // Read-only: nothing but GET and HEAD.
    for method in ["POST", "PUT", "DELETE", "PATCH"] {
        let (status, headers, _) = request(port, method, &format!("/{tok}/frame.json"), Some(&host));
        assert_eq!(status, 405, "{method}");
        assert_eq!(header(&headers, "allow"), Some("GET, HEAD"));
    }
    assert_eq!(request(port, "HEAD", &format!("/{tok}/"), Some(&host)).0, 200);
}

/// Reads server-sent events from a stream until one with `data` containing `want`.
fn next_event(reader: &mut impl BufRead, want: &str) -> String {
    let mut line = String::new();
    loop {
        line.clear();
        let n = reader.read_line(&mut line).expect("the stream goes on");
        assert!(n > 0, "the stream ended before {want}");
        if line.starts_with("data:") && line.contains(want) {
            return line.trim_end().to_string();
        }
    }
}

#[test]
fn the_event_stream_sends_each_new_frame_to_every_page_and_ends_with_the_board() {
    let board = LiveBoard::start(frame(1)).unwrap();
    let open = |board: &LiveBoard| {
        let mut s = TcpStream::connect(("127.0.0.1", board.port())).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let path = format!("/{}/events", token(board));
        write!(s, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAccept: text/event-stream\r\n\r\n", board.port())
            .unwrap();
        let mut r = BufReader::new(s);
        let mut status = String::new();
        r.read_line(&mut status).unwrap();
        assert!(status.contains(" 200 "), "{status}");
        r
    };
    // Two pages: each gets the frame as it is at once, then each new one.
    let mut a = open(&board);
    let mut b = open(&board);
    assert_eq!(next_event(&mut a, "seq"), "data: {\"seq\":1}");
    assert_eq!(next_event(&mut b, "seq"), "data: {\"seq\":1}");
    for _ in 0..100 {
        if board.watchers() == 2 {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(board.watchers(), 2);
    board.publish(frame(2));
    assert_eq!(next_event(&mut a, "seq"), "data: {\"seq\":2}");
    assert_eq!(next_event(&mut b, "seq"), "data: {\"seq\":2}");
    let port = board.port();
    drop(board);
    // The streams end, and nothing listens any more.
    let mut rest = String::new();
    let _ = a.read_to_string(&mut rest);
    assert!(TcpStream::connect(("127.0.0.1", port)).is_err(), "the server stopped");
}
