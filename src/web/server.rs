//! The live board's web server: axum on a one-thread tokio runtime of its
//! own, so the REPL's thread (which owns the Lua state and the world) never
//! waits on a browser.
//!
//! Safe by default: it listens on 127.0.0.1 only, at a port the system
//! picks; every path starts with a random 128-bit token (compared in
//! constant time), so another local user or a web page cannot guess it; the
//! Host header must name the loopback address and port (a DNS-rebinding page
//! sends its own host name); it answers GET (and HEAD) only and runs
//! nothing: the page reads frames, it never sends input. It stops when its
//! [`LiveBoard`] is dropped (when the REPL ends).

use std::convert::Infallible;
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use futures_util::Stream;
use tokio::sync::{oneshot, watch};

use super::Frame;

/// The page and its script and style, built into the binary.
const INDEX_HTML: &str = include_str!("page/index.html");
const BOARD_JS: &str = include_str!("page/board.js");
const BOARD_CSS: &str = include_str!("page/board.css");

/// What every answer carries: nothing cached, nothing framed or sniffed, no
/// referrer (the token is in the URL), and scripts only from the page's own
/// files.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// A running live board: where it is, and the channel its frames go out on.
pub struct LiveBoard {
    url: String,
    port: u16,
    frames: watch::Sender<Arc<Frame>>,
    watching: Arc<AtomicUsize>,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

#[derive(Clone)]
struct Shared {
    token: Arc<str>,
    port: u16,
    frames: watch::Receiver<Arc<Frame>>,
    /// Open event streams.
    watching: Arc<AtomicUsize>,
}

/// Counts an open event stream while it lives.
struct Watching(Arc<AtomicUsize>);

impl Watching {
    fn new(count: &Arc<AtomicUsize>) -> Watching {
        count.fetch_add(1, Ordering::Relaxed);
        Watching(count.clone())
    }
}

impl Drop for Watching {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

impl LiveBoard {
    /// Starts the server on 127.0.0.1 at a free port, showing `first`.
    pub fn start(first: Frame) -> std::io::Result<LiveBoard> {
        let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)))?;
        listener.set_nonblocking(true)?;
        let port = listener.local_addr()?.port();
        let token = new_token();
        let (frames, rx) = watch::channel(Arc::new(first));
        let (stop, stopped) = oneshot::channel::<()>();
        let watching = Arc::new(AtomicUsize::new(0));
        let shared = Shared { token: token.as_str().into(), port, frames: rx, watching: watching.clone() };
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        let thread = std::thread::Builder::new().name("sandtable-view".into()).spawn(move || {
            runtime.block_on(async move {
                let Ok(listener) = tokio::net::TcpListener::from_std(listener) else { return };
                let serve = std::future::IntoFuture::into_future(axum::serve(listener, router(shared)));
                // Stopping drops the runtime, and with it every open event stream.
                futures_util::future::select(Box::pin(serve), stopped).await;
            });
            runtime.shutdown_timeout(Duration::from_millis(200));
        })?;
        Ok(LiveBoard {
            url: format!("http://127.0.0.1:{port}/{token}/"),
            port,
            frames,
            watching,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// The page's address, token included.
    pub fn url(&self) -> &str {
        &self.url
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Shows a new frame on every page watching.
    pub fn publish(&self, frame: Frame) {
        self.frames.send_replace(Arc::new(frame));
    }

    /// How many pages are watching (open event streams).
    pub fn watchers(&self) -> usize {
        self.watching.load(Ordering::Relaxed)
    }
}

impl Drop for LiveBoard {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// 128 random bits as 32 hex digits, from the operating system's generator
/// (through rand's thread generator, which it seeds).
fn new_token() -> String {
    use rand::Rng;
    let bits: u128 = rand::rng().random();
    format!("{bits:032x}")
}

/// Whether two strings are equal, in a time that depends only on their lengths.
fn same_secret(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn router(shared: Shared) -> Router {
    let t = shared.token.clone();
    Router::new()
        .route(&format!("/{t}/"), get(page))
        .route(&format!("/{t}/board.js"), get(|| async { with_type("text/javascript; charset=utf-8", BOARD_JS) }))
        .route(&format!("/{t}/board.css"), get(|| async { with_type("text/css; charset=utf-8", BOARD_CSS) }))
        .route(&format!("/{t}/frame.json"), get(frame_json))
        .route(&format!("/{t}/board.svg"), get(board_svg))
        .route(&format!("/{t}/events"), get(events))
        .fallback(|| async { plain(StatusCode::NOT_FOUND, "not found\n") })
        .layer(middleware::from_fn_with_state(shared.clone(), guard))
        .with_state(shared)
}

fn plain(status: StatusCode, text: &'static str) -> Response {
    (status, [(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response()
}

fn with_type(kind: &'static str, body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, kind)], body).into_response()
}

/// Every request passes here first: GET or HEAD only, a Host naming this
/// server on the loopback address, and the token as the path's first part.
/// Then the answer gets the safety headers.
async fn guard(State(shared): State<Shared>, req: Request, next: Next) -> Response {
    if req.method() != Method::GET && req.method() != Method::HEAD {
        let mut r = plain(StatusCode::METHOD_NOT_ALLOWED, "the live board is read-only: GET only\n");
        r.headers_mut().insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        return secure(r);
    }
    let host = req.headers().get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
    let ok_hosts = [format!("127.0.0.1:{}", shared.port), format!("localhost:{}", shared.port)];
    if !ok_hosts.iter().any(|h| h.eq_ignore_ascii_case(host)) {
        return secure(plain(StatusCode::FORBIDDEN, "wrong Host header: open the address the REPL printed\n"));
    }
    let path = req.uri().path();
    let first = path.trim_start_matches('/').split('/').next().unwrap_or("");
    if !same_secret(first.as_bytes(), shared.token.as_bytes()) {
        return secure(plain(StatusCode::NOT_FOUND, "not found\n"));
    }
    if path == format!("/{}", shared.token) {
        // The address without its last slash: send the page's own address.
        let mut r = StatusCode::PERMANENT_REDIRECT.into_response();
        if let Ok(v) = HeaderValue::from_str(&format!("/{}/", shared.token)) {
            r.headers_mut().insert(header::LOCATION, v);
        }
        return secure(r);
    }
    secure(next.run(req).await)
}

fn secure(mut r: Response) -> Response {
    let h = r.headers_mut();
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    r
}

async fn page() -> Response {
    with_type("text/html; charset=utf-8", INDEX_HTML)
}

async fn frame_json(State(shared): State<Shared>) -> Response {
    let f = shared.frames.borrow().clone();
    ([(header::CONTENT_TYPE, "application/json")], Body::from(f.json.to_string())).into_response()
}

async fn board_svg(State(shared): State<Shared>) -> Response {
    let f = shared.frames.borrow().clone();
    ([(header::CONTENT_TYPE, "image/svg+xml")], Body::from(f.svg.to_string())).into_response()
}

/// Server-sent events: the current frame at once, then each new one (a
/// page that falls behind gets the latest, not every one in between).
async fn events(State(shared): State<Shared>) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let rx = shared.frames.clone();
    let watching = Watching::new(&shared.watching);
    let stream = futures_util::stream::unfold((rx, true, watching), |(mut rx, first, watching)| async move {
        if !first && rx.changed().await.is_err() {
            return None;
        }
        let f = rx.borrow_and_update().clone();
        Some((Ok(Event::default().event("frame").data(&*f.json)), (rx, false, watching)))
    });
    Sse::new(stream).keep_alive(KeepAlive::default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_long_random_and_compared_whole() {
        let (a, b) = (new_token(), new_token());
        assert_eq!(a.len(), 32);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
        assert!(same_secret(a.as_bytes(), a.as_bytes()));
        assert!(!same_secret(a.as_bytes(), b.as_bytes()));
        assert!(!same_secret(a.as_bytes(), &a.as_bytes()[..31]));
        assert!(!same_secret(b"", a.as_bytes()));
    }
}
