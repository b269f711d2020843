// The live board's page. It only reads: frames arrive over server-sent
// events (the whole picture each time, as the REPL's `:map --svg` draws it)
// and the page shows them. Nothing here sends anything back.
"use strict";

const $ = (id) => document.getElementById(id);
const board = $("board");
const tip = $("tip");
let frame = null;
// The picture's own viewBox, and the one zoom and pan made of it (null: the whole picture).
let baseView = null;
let userView = null;

// ---- frames ----

function connect() {
  const events = new EventSource("events");
  events.addEventListener("frame", (e) => {
    setStatus("live", "live");
    show(JSON.parse(e.data));
  });
  events.onopen = () => setStatus("live", "live");
  events.onerror = () => {
    // The browser tries again by itself; the REPL may have ended.
    setStatus("lost", "not connected: has the REPL ended? (retrying)");
  };
}

function setStatus(cls, text) {
  const s = $("status");
  s.className = cls;
  s.textContent = text;
}

function show(f) {
  frame = f;
  document.title = (f.title || "sandtable") + " · live board";
  $("title").textContent = f.title || "sandtable";
  $("summary").textContent = f.summary;
  const err = $("error");
  err.hidden = !f.error;
  err.textContent = f.error || "";
  showSvg(f.svg);
  showSides(f.sides);
  showDecision(f.decision);
  showInput(f);
  showEvents($("events"), f.events.map((text) => ({ text })), false);
  $("events").dataset.empty = f.events.length ? "" : "(nothing logged)";
  const from = f.log_total - f.log.length;
  showEvents($("log"), f.log, true, from, f.log_total - f.events.length);
  $("log-count").textContent = f.log_total ? "(" + f.log_total + ")" : "";
  document.body.dataset.seq = String(f.seq);
}

function showSvg(text) {
  const doc = new DOMParser().parseFromString(text, "image/svg+xml");
  const svg = document.importNode(doc.documentElement, true);
  const view = svg.getAttribute("viewBox");
  // A new picture of another size (the table's view moved): forget the zoom.
  if (view !== baseView) {
    baseView = view;
    userView = null;
  }
  svg.removeAttribute("width");
  svg.removeAttribute("height");
  svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
  if (userView) svg.setAttribute("viewBox", userView.join(" "));
  board.replaceChildren(svg);
  markOptions();
}

function showSides(sides) {
  const box = $("sides");
  box.replaceChildren();
  for (const s of sides) {
    const div = el("div", "side");
    const sw = el("span", "swatch");
    sw.style.background = s.colour;
    const name = el("span", "name", s.name);
    name.style.color = s.colour;
    div.append(sw, name);
    if (s.to_play) div.append(el("span", "to-play", "to play"));
    div.append(el("div", "pools", s.units + "/" + s.units_all + " units on the battlefield"));
    if (s.pools.length) {
      div.append(el("div", "pools", s.pools.map(([k, v]) => k + " " + v).join(", ")));
    }
    box.append(div);
  }
}

function showDecision(d) {
  const box = $("decision");
  box.hidden = !d;
  if (!d) return;
  $("decision-prompt").textContent = (d.side ? d.side + ": " : "") + d.prompt;
  const ol = $("decision-options");
  ol.replaceChildren();
  d.options.forEach((o, i) => {
    const li = el("li", i === d.default ? "default" : "", o);
    const note = d.notes[i];
    if (note) li.append(el("span", "note", "  " + note));
    if (i === d.default) li.append(el("span", "note", "  (default)"));
    ol.append(li);
  });
}

// Hexes a decision offers are outlined on the map.
function markOptions() {
  const d = frame && frame.decision;
  if (!d) return;
  for (const o of d.options) {
    const m = /^\((-?\d+),\s*(-?\d+)\)$/.exec(o.trim());
    if (!m) continue;
    const poly = board.querySelector('polygon[data-hex="' + m[1] + "," + m[2] + '"]');
    if (poly) poly.classList.add("option");
  }
}

function showInput(f) {
  const input = $("input");
  if (f.input) {
    input.textContent = f.input.text;
    const state = f.input.ok === null ? "running" : f.input.ok ? "" : "failed";
    input.className = state;
    input.title = {
      running: "running: waiting for the decision",
      failed: "failed: the battlefield is as it was",
      "": "succeeded",
    }[state];
  } else {
    input.textContent = "(none yet)";
    input.className = "empty";
  }
  for (const [id, text] of [["record", f.record], ["printed", f.printed], ["shown", f.shown]]) {
    const pre = $(id);
    pre.hidden = !text;
    pre.textContent = text || "";
  }
}

// A list of log events, numbered; `fresh` marks those of the last input.
function showEvents(ol, events, numbered, from, fresh) {
  ol.replaceChildren();
  events.forEach((e, i) => {
    const li = el("li", numbered && from + i >= fresh ? "new" : "", e.text);
    if (numbered) li.value = e.n;
    ol.append(li);
  });
  if (numbered) ol.parentElement.scrollTop = ol.parentElement.scrollHeight;
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// ---- hover and click ----

function svgPoint(ev) {
  const svg = board.querySelector("svg");
  const ctm = svg && svg.getScreenCTM();
  if (!ctm) return null;
  const p = new DOMPoint(ev.clientX, ev.clientY).matrixTransform(ctm.inverse());
  return { x: p.x, y: p.y };
}

// The table point (cm) under the pointer, when the map is a tabletop.
function tablePoint(ev) {
  const view = board.querySelector("[data-cm]");
  const p = svgPoint(ev);
  if (!view || !p) return null;
  const [left, top, x0, y0, scale] = view.getAttribute("data-cm").split(" ").map(Number);
  const x = x0 + (p.x - left) / scale;
  const y = y0 + (p.y - top) / scale;
  return { x: Math.round(x * 10) / 10, y: Math.round(y * 10) / 10 };
}

function describeUnit(id) {
  const u = frame.units[id];
  if (!u) return id;
  let t = id + ": " + u.side + " " + u.type + " " + u.strength + "/" + u.max + "\nat " + u.at;
  if (u.leader) t += "\nleader " + u.leader;
  for (const [k, v] of Object.entries(u.props)) t += "\n" + k + " = " + v;
  if (u.cargo) t += "\naboard: " + u.cargo.join(", ");
  return t;
}

function hoverText(ev) {
  const unit = ev.target.closest("[data-unit]");
  if (unit) {
    const ids = (unit.getAttribute("data-stack") || unit.getAttribute("data-unit")).split(" ");
    return ids.map(describeUnit).join("\n\n");
  }
  const hex = ev.target.closest("polygon[data-hex]");
  if (hex) {
    const key = hex.getAttribute("data-hex");
    return "hex(" + key.replace(",", ", ") + ")\n" + (frame.hexes[key] || "open");
  }
  const p = tablePoint(ev);
  if (p && ev.target.closest("#table-view")) {
    const area = ev.target.closest("[data-area]");
    let t = "{x = " + p.x + ", y = " + p.y + "}";
    if (area) {
      t += "\n" + (area.getAttribute("data-name") || area.getAttribute("data-area")) + ", level " + area.getAttribute("data-level");
    }
    const mark = ev.target.closest("[data-table-mark]");
    if (mark) t += "\nmark: " + mark.getAttribute("data-table-mark");
    return t;
  }
  const m = ev.target.closest("[data-mark]");
  if (m) return m.getAttribute("data-mark");
  return null;
}

// What a click copies: a hex, a table point, or (with shift) a unit.
function clickText(ev) {
  const unit = ev.target.closest("[data-unit]");
  if (unit && ev.shiftKey) return 'world:unit("' + unit.getAttribute("data-unit") + '")';
  const at = unit && unit.getAttribute("data-at");
  const hex = at || (ev.target.closest("polygon[data-hex]") || { getAttribute: () => null }).getAttribute("data-hex");
  if (hex) return "hex(" + hex.replace(",", ", ") + ")";
  const p = ev.target.closest("#table-view") && tablePoint(ev);
  if (p) return "{x = " + p.x + ", y = " + p.y + "}";
  return null;
}

let lastHover = null;
board.addEventListener("mousemove", (ev) => {
  if (drag) return;
  const t = frame && hoverText(ev);
  const poly = ev.target.closest("polygon[data-hex]");
  if (lastHover && lastHover !== poly) lastHover.classList.remove("hover");
  if (poly) poly.classList.add("hover");
  lastHover = poly;
  if (!t) {
    tip.hidden = true;
    return;
  }
  tip.textContent = t;
  tip.hidden = false;
  const x = Math.min(ev.clientX + 14, window.innerWidth - tip.offsetWidth - 8);
  const y = Math.min(ev.clientY + 14, window.innerHeight - tip.offsetHeight - 8);
  tip.style.left = x + "px";
  tip.style.top = y + "px";
});
board.addEventListener("mouseleave", () => {
  tip.hidden = true;
});

async function copy(text) {
  const note = $("copied");
  note.dataset.text = text;
  try {
    await navigator.clipboard.writeText(text);
    note.textContent = "copied " + text;
  } catch (e) {
    note.textContent = text + " (select and copy it: the browser would not)";
  }
  note.classList.add("show");
  clearTimeout(copy.timer);
  copy.timer = setTimeout(() => note.classList.remove("show"), 1800);
}

// ---- zoom and pan ----

function currentView() {
  const svg = board.querySelector("svg");
  return svg.getAttribute("viewBox").split(/\s+/).map(Number);
}

function setView(v) {
  userView = v;
  board.querySelector("svg").setAttribute("viewBox", v.join(" "));
}

board.addEventListener("wheel", (ev) => {
  const svg = board.querySelector("svg");
  const p = svg && svgPoint(ev);
  if (!p) return;
  ev.preventDefault();
  const [x, y, w, h] = currentView();
  const k = Math.exp(ev.deltaY * 0.0015);
  const base = baseView.split(/\s+/).map(Number);
  // No farther out than the whole picture, no closer than a twentieth of it.
  const nw = Math.min(Math.max(w * k, base[2] / 20), base[2] * 1.5);
  const f = nw / w;
  setView([p.x - (p.x - x) * f, p.y - (p.y - y) * f, w * f, h * f]);
}, { passive: false });

let drag = null;
board.addEventListener("mousedown", (ev) => {
  if (ev.button !== 0 || !board.querySelector("svg")) return;
  drag = { x: ev.clientX, y: ev.clientY, view: currentView(), moved: false };
});
window.addEventListener("mousemove", (ev) => {
  if (!drag) return;
  const dx = ev.clientX - drag.x;
  const dy = ev.clientY - drag.y;
  if (!drag.moved && Math.hypot(dx, dy) < 4) return;
  drag.moved = true;
  board.classList.add("dragging");
  tip.hidden = true;
  const svg = board.querySelector("svg");
  const k = drag.view[2] / svg.getBoundingClientRect().width;
  const s = Math.max(k, drag.view[3] / svg.getBoundingClientRect().height);
  setView([drag.view[0] - dx * s, drag.view[1] - dy * s, drag.view[2], drag.view[3]]);
});
window.addEventListener("mouseup", (ev) => {
  const d = drag;
  drag = null;
  board.classList.remove("dragging");
  if (d && !d.moved && board.contains(ev.target) && frame) {
    const text = clickText(ev);
    if (text) copy(text);
  }
});

function fit() {
  userView = null;
  const svg = board.querySelector("svg");
  if (svg && baseView) svg.setAttribute("viewBox", baseView);
}
board.addEventListener("dblclick", fit);
$("fit").addEventListener("click", fit);

connect();
