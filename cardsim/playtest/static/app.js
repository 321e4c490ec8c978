// cardsim playtest page: draws what the server sends (observations and the legal
// [id, text] actions of the step interface) and sends back the chosen action id.
// No rule of any game is written here: legal moves come from the server.
"use strict";

const TOKEN = document.querySelector('meta[name="token"]').content;
const PARAMS = new URLSearchParams(location.search);
const $ = (id) => document.getElementById(id);

let S = null;            // the last state from the server
let selected = new Set(); // Tiến Lên: positions of the selected cards in the hand
let busy = false;        // a request is on its way
let botTimer = null;
let hintShown = null;    // the hint of the current version

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const k of kids.flat()) if (k !== null && k !== undefined) e.append(k);
  return e;
}

async function api(path, body) {
  const opts = { headers: { "X-Token": TOKEN } };
  if (body !== undefined) {
    opts.method = "POST";
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const r = await fetch(path, opts);
  let data = null;
  try { data = await r.json(); } catch (e) { data = { error: `HTTP ${r.status}` }; }
  if (!r.ok) { const err = new Error(data.error || `HTTP ${r.status}`); err.status = r.status; throw err; }
  return data;
}

function showError(msg) {
  const e = $("error");
  if (!msg) { e.hidden = true; e.textContent = ""; return; }
  e.hidden = false; e.textContent = msg;
}

// ------------------------------------------------------------------ cards
const RED = new Set(["♥", "♦"]);
function cardParts(text) {
  if (text === "JK") return { rank: "JK", suit: "" };
  return { rank: text.slice(0, -1), suit: text.slice(-1) };
}
function suitClass(s) {
  return { "♥": "red heart", "♦": "red diamond", "♣": "club", "♠": "spade" }[s] || "";
}
function card(text, opts = {}) {
  const { rank, suit } = cardParts(text);
  const cls = ["card", rank === "JK" ? "joker" : suitClass(suit), opts.small ? "small" : "", opts.cls || ""].join(" ");
  const label = rank === "JK" ? "joker" : `${rank}${suit}`;
  const kids = rank === "JK" ? [el("span", { class: "suit", text: "★" }), el("span", { class: "rank", text: "Joker" })]
    : [el("span", { class: "rank", text: rank }), el("span", { class: "suit", text: suit })];
  if (opts.onclick) {
    return el("button", { type: "button", class: cls, "aria-label": label, title: label, "data-card": text,
      onclick: opts.onclick, disabled: opts.disabled, "aria-pressed": opts.pressed ? "true" : null }, kids);
  }
  return el("span", { class: cls, title: label, "data-card": text }, kids);
}
function backs(n) {
  if (!n) return el("span", { class: "count", text: "no cards left" });
  const shown = Math.min(n, 13);
  const row = el("span", { class: "cards" });
  for (let i = 0; i < shown; i++) row.append(el("span", { class: "card back", "aria-hidden": "true" }));
  return el("span", { class: "backs" }, row, el("span", { class: "count", text: `${n} card${n === 1 ? "" : "s"}` }));
}

// Tứ Sắc: type name "RG" = colour letter + character letter (the step module's notation)
const TS_COLOURS = { R: [0, "red", "●"], Y: [1, "yellow", "▲"], G: [2, "green", "■"], W: [3, "white", "◆"] };
const TS_CHARS = { G: ["Tướng", "General", "Gen"], A: ["Sĩ", "Advisor", "Adv"], E: ["Tượng", "Elephant", "Ele"],
  C: ["Xe", "Chariot", "Cha"], H: ["Mã", "Horse", "Hor"], N: ["Pháo", "Cannon", "Can"], S: ["Chốt", "Soldier", "Sol"] };
function tsCard(name, opts = {}) {
  const [ci, cname, shape] = TS_COLOURS[name[0]];
  const [vn, en, short] = TS_CHARS[name[1]];
  const cls = `ts c${ci} ${opts.small ? "small" : ""} ${opts.cls || ""}`;
  const label = `${cname} ${en} (${vn}, ${name})`;
  const kids = [el("span", { class: "col", text: `${shape}${name[0]}` }), el("span", { class: "big", text: vn }),
    el("span", { class: "ch", text: short })];
  if (opts.onclick) return el("button", { type: "button", class: cls, title: label, "aria-label": label, "data-card": name,
    onclick: opts.onclick, disabled: opts.disabled }, kids);
  return el("span", { class: cls, title: label, "data-card": name }, kids);
}

// ------------------------------------------------------------------ the page
function seatName(s) {
  if (S.mode === "play" && s === S.seat) return `You (seat ${s})`;
  return `Seat ${s}`;
}
function policyOf(s) { return (S.policies && S.policies[s]) || ""; }

function statusText() {
  if (S.mode === "view") return `${S.label} — move ${S.step} of ${S.steps}` + (S.done ? " (over)" : `, seat ${S.to_move} to ${S.decision}`);
  if (S.done) return "The game is over.";
  if (S.your_turn) return { bomb: "You may bomb now (or pass)", steal: "You may steal the card", buy: "You may buy the card",
    claim: "You may claim the card", keep: "You may keep your card" }[S.decision] || `Your turn: ${S.decision}`;
  return `Seat ${S.to_move} is thinking (${S.decision})…`;
}

function render() {
  document.body.dataset.game = S.game;
  document.body.dataset.mode = S.mode;
  $("title").textContent = `${S.title}${S.mode === "view" ? " — viewer" : ""}`;
  document.title = `${S.title} — cardsim ${S.mode === "view" ? "viewer" : "playtest"}`;
  $("status").textContent = statusText();
  document.body.dataset.turn = S.mode === "play" && S.your_turn ? "you" : "other";
  document.body.dataset.done = S.done ? "1" : "0";
  document.body.dataset.version = String(S.mode === "view" ? S.step : S.version);
  document.body.dataset.busy = busy ? "1" : "0";
  $("hint-btn").hidden = S.mode !== "play";
  $("new-btn").hidden = S.mode !== "play";
  $("hint-btn").disabled = !(S.mode === "play" && S.your_turn) || busy;
  $("save-btn").href = `/api/record?token=${encodeURIComponent(TOKEN)}`;
  $("viewer").hidden = S.mode !== "view";
  $("all-moves").hidden = S.mode !== "play";
  renderRules();
  renderLog();
  const fn = { tienlen: renderTienLen, bigtwo: renderTienLen, tusac: renderTuSac, loba: renderRummy, continental: renderRummy }[S.game];
  $("prompt").hidden = true; $("prompt").replaceChildren();
  $("actions").replaceChildren();
  fn();
  renderAllMoves();
  renderCoach();
  renderReview();
  if (S.mode === "view") $("v-pos").textContent = `${S.step} / ${S.steps}`;
  scheduleBot();
}

function renderRules() {
  const dl = el("dl");
  for (const [k, v] of Object.entries(S.rules || {})) dl.append(el("dt", { text: k }), el("dd", { text: String(v) }));
  const who = (S.policies || []).map((p, s) => `seat ${s}: ${S.mode === "play" && s === S.seat ? "you" : p}`).join(", ");
  $("rules").replaceChildren(el("h2", { text: "Rules in force" }), dl,
    el("p", { class: "small-note", text: `Players: ${who}. Seed ${S.seed}, game ${S.index}.` }));
}

function renderLog() {
  const ol = $("log");
  ol.replaceChildren();
  if (S.mode === "view") {
    ol.className = "clickable";
    S.moves.forEach(([s, t], i) => {
      const li = el("li", { class: i === S.step - 1 ? "current" : "", text: `seat ${s}: ${t}`, onclick: () => goto(i + 1) });
      ol.append(li);
    });
    const cur = ol.querySelector(".current");
    if (cur) cur.scrollIntoView({ block: "center" });
    return;
  }
  const lines = S.obs.history || [];
  const start = Math.max(0, lines.length - 200);
  ol.start = start + 1;
  for (const line of lines.slice(start)) {
    ol.append(el("li", { class: line.includes(`seat ${S.seat}`) ? "mine" : "", text: line.trim() }));
  }
  $("log-box").scrollTop = $("log-box").scrollHeight;
}

function renderAllMoves() {
  const box = $("all-moves-list");
  box.replaceChildren();
  if (S.mode !== "play" || !S.your_turn) { $("all-moves").hidden = true; return; }
  $("all-moves").hidden = false;
  for (const [id, text] of S.obs.legal_actions) {
    box.append(el("button", { type: "button", "data-action": id, onclick: () => act(id), text }));
  }
}

function legal() { return (S.mode === "play" && S.your_turn) ? S.obs.legal_actions : []; }
function legalText(id) { const p = legal().find(([a]) => a === id); return p ? p[1] : null; }

function actButton(id, text, primary) {
  return el("button", { type: "button", class: primary ? "primary" : "", "data-action": id, onclick: () => act(id), text });
}

function seatBox(s, inner, opts = {}) {
  const turn = !S.done && S.to_move === s;
  const h = el("h3", {}, el("span", { text: seatName(s) }), el("span", { class: "who", text: S.mode === "play" && s === S.seat ? "" : policyOf(s) }),
    turn ? el("span", { class: "badge turn", text: "to move" }) : null, ...(opts.badges || []));
  return el("div", { class: `seat${turn ? " turn" : ""}`, "data-seat": s }, h, inner);
}

function othersOrder() {
  const out = [];
  const me = S.mode === "play" ? S.seat : 0;  // the viewer draws seat 0 below, the others above
  for (let k = 1; k <= S.players; k++) { const s = (me + k) % S.players; if (s !== me) out.push(s); }
  if (S.mode === "view") out.sort((a, b) => a - b);
  return out;
}

// ------------------------------------------------------------------ Tiến Lên
function renderTienLen() {
  const o = S.obs;
  const opp = $("opponents"); opp.replaceChildren();
  const placeBadge = (s) => (o.places && o.places[s] > 0) ? el("span", { class: "badge win", text: `place ${o.places[s]}` }) : null;
  const passBadge = (s) => (o.passed || []).includes(s) ? el("span", { class: "badge passed", text: "passed" }) : null;
  for (const s of othersOrder()) {
    const inner = S.mode === "view" ? el("div", { class: "hand" }, S.obs_all[s].hand.map((c) => card(c, { small: true })))
      : backs(o.cards_left[s]);
    opp.append(seatBox(s, inner, { badges: [passBadge(s), placeBadge(s)] }));
  }
  const c = $("center"); c.replaceChildren();
  if (o.table) {
    c.append(el("div", { class: "pile" }, el("div", { class: "label", text: `to beat: ${o.table.combination}, by ${seatName(o.table.by)}` }),
      el("div", { class: "cards" }, o.table.cards.map((x) => card(x)))));
  } else if (!S.done) {
    c.append(el("div", { class: "pile" }, el("div", { class: "label", text: `${seatName(S.to_move)} leads a new trick` +
      (o.must_contain ? ` (must include ${o.must_contain})` : "") })));
  }
  if (S.done) c.append(resultBox());
  // my hand (in the viewer: seat 0's, every other hand is face up above)
  const me = S.mode === "view" ? 0 : S.seat;
  const hand = S.mode === "view" ? S.obs_all[0].hand : o.hand;
  const L = legal();
  const plays = L.filter(([id]) => id !== 0);
  const sel = [...selected].reduce((m, j) => m | (1 << j), 0);
  const canAdd = (j) => plays.some(([id]) => (id & sel) === sel && (id >> j) & 1);
  const row = el("div", { class: "hand" });
  let group = null, lastRank = null;
  hand.forEach((t, j) => {
    const rank = cardParts(t).rank;
    if (rank !== lastRank) { group = el("span", { class: "group" }); row.append(group); lastRank = rank; }
    const isSel = selected.has(j);
    const clickable = S.mode === "play" && S.your_turn && (isSel || canAdd(j));
    group.append(card(t, { onclick: S.mode === "play" ? () => toggle(j) : null, disabled: !clickable, pressed: isSel,
      cls: isSel ? "selected" : "" }));
  });
  const mine = $("me");
  mine.className = !S.done && S.to_move === me ? "turn" : "";
  mine.replaceChildren(el("h3", {}, el("span", { text: S.mode === "view" ? "Seat 0" : `Your hand (seat ${S.seat})` }),
    el("span", { class: "count", text: `${hand.length} cards` }), passBadge(me), placeBadge(me)), row);
  if (S.mode !== "play" || !S.your_turn) return;
  const acts = $("actions");
  const chosen = L.find(([id]) => id === sel && id !== 0);
  acts.append(el("button", { type: "button", id: "play-btn", class: "primary", disabled: !chosen,
    onclick: () => chosen && act(chosen[0]), text: chosen ? `Play ${chosen[1]}` : "Play (choose cards)" }));
  if (L.some(([id]) => id === 0)) acts.append(el("button", { type: "button", id: "pass-btn", "data-action": 0, onclick: () => act(0), text: "Pass" }));
  if (selected.size) acts.append(el("button", { type: "button", onclick: () => { selected.clear(); render(); }, text: "Clear" }));
  if (plays.length <= 12) {
    acts.append(el("span", { class: "note", text: "or:" }));
    for (const [id, text] of plays) acts.append(el("button", { type: "button", class: "quick", title: "select these cards",
      onclick: () => { selected = new Set(bits(id)); render(); }, text: text.replace(/ \[.*\]$/, "") }));
  } else {
    acts.append(el("span", { class: "note", text: `${plays.length} plays possible: click cards to build one` }));
  }
  if (S.decision === "bomb") {
    const p = $("prompt"); p.hidden = false;
    p.append(el("div", { text: "You passed, but the rules let you bomb this now:" }),
      el("div", { class: "opts" }, L.map(([id, t]) => actButton(id, id === 0 ? "No, keep passing" : `Bomb: ${t}`, id !== 0))));
  }
}
function bits(id) { const out = []; for (let j = 0; j < 20; j++) if ((id >> j) & 1) out.push(j); return out; }
function toggle(j) { if (selected.has(j)) selected.delete(j); else selected.add(j); render(); }

// ------------------------------------------------------------------ Tứ Sắc
function renderTuSac() {
  const o = S.obs;
  const opp = $("opponents"); opp.replaceChildren();
  const laid = (s) => {
    const cards = (S.mode === "view" ? S.obs_all[s] : o).tables[s];
    return el("div", { class: "ts-row" }, cards.length ? cards.map((x) => tsCard(x, { small: true })) : el("span", { class: "count", text: "nothing laid" }));
  };
  const winBadge = (s) => (S.done && o.winner === s) ? el("span", { class: "badge win", text: "winner" }) : null;
  for (const s of othersOrder()) {
    const kids = [el("div", { class: "count", text: `laid (${o.laid_points[s]} pt):` }), laid(s)];
    if (S.mode === "view") kids.push(el("div", { class: "count", text: "hand:" }), tsHandRow(S.obs_all[s].hand, null));
    else kids.push(el("div", { class: "count", text: `${o.hand_sizes[s]} cards in hand` }));
    opp.append(seatBox(s, el("div", {}, kids), { badges: [winBadge(s)] }));
  }
  const c = $("center"); c.replaceChildren();
  c.append(el("div", { class: "pile" }, el("div", { class: "label", text: "stock" }), el("div", { class: "count", text: `${o.stock} cards` })));
  if (o.exposed) {
    c.append(el("div", { class: "pile" }, el("div", { class: "label", text: o.exposed.drawn ? `drawn by ${seatName(o.exposed.source)}` : `discarded by ${seatName(o.exposed.source)}` }),
      tsCard(o.exposed.card)));
  }
  const dis = [];
  (o.discards || []).forEach((n, t) => { for (let i = 0; i < n; i++) dis.push(tsName(t)); });
  if (dis.length) c.append(el("div", { class: "pile" }, el("div", { class: "label", text: "discards nobody took" }), el("div", { class: "ts-row" }, dis.map((x) => tsCard(x, { small: true })))));
  c.append(el("div", { class: "legend", text: "colours: ●R red, ▲Y yellow, ■G green, ◆W white (dashed edge)" }));
  if (S.done) c.append(resultBox());
  const me = S.mode === "view" ? 0 : S.seat;
  const mo = S.mode === "view" ? S.obs_all[0] : o;
  const L = legal();
  const discard = S.decision === "discard" ? new Map(L.filter(([id]) => id < 28).map(([id, t]) => [tsName(id), id])) : new Map();
  const handRow = tsHandRow(mo.hand, S.mode === "play" && S.your_turn && S.decision === "discard" ? discard : null, mo.locked || []);
  const mine = $("me");
  mine.className = !S.done && S.to_move === me ? "turn" : "";
  mine.replaceChildren(el("h3", {}, el("span", { text: S.mode === "view" ? "Seat 0" : `Your hand (seat ${S.seat})` }),
    el("span", { class: "count", text: `${mo.hand.length} cards · laid ${o.laid_points[me]} pt` }), winBadge(me)),
    handRow, el("div", { class: "count", text: "your laid cards:" }), laid(me));
  if (S.mode !== "play" || !S.your_turn) return;
  if (S.decision === "discard") {
    $("actions").append(el("span", { class: "note", text: "Click a card to discard it (greyed cards may not be discarded)." }));
  } else {
    const p = $("prompt"); p.hidden = false;
    const ex = o.exposed ? o.exposed.card : "";
    const what = { take: `Take ${ex}?`, steal: `Steal ${ex} out of turn?`, keep: `Keep your drawn ${ex}?` }[S.decision] || S.decision;
    p.append(el("div", {}, el("span", { text: what + " " }), ex ? tsCard(ex, { small: true }) : null),
      el("div", { class: "opts" }, L.map(([id, t]) => actButton(id, t, id !== 28))));
  }
}
function tsName(t) { return "RYGW"[Math.floor(t / 7)] + "GAECHNS"[t % 7]; }
function tsHandRow(hand, discard, locked = []) {
  const row = el("div", { class: "hand" });
  const lockedLeft = {};
  for (const x of locked) lockedLeft[x] = 3;
  let group = null, lastCol = null;
  for (const x of hand) {
    if (x[0] !== lastCol) { group = el("span", { class: "group" }); row.append(group); lastCol = x[0]; }
    const isLocked = lockedLeft[x] > 0; if (isLocked) lockedLeft[x]--;
    if (discard) group.append(tsCard(x, { cls: isLocked ? "locked" : "", disabled: !discard.has(x), onclick: () => act(discard.get(x)) }));
    else group.append(tsCard(x, { cls: isLocked ? "locked" : "" }));
  }
  return row;
}

// ------------------------------------------------------------------ Loba / Continental
const SUIT_ORDER = { "♠": 0, "♥": 1, "♣": 2, "♦": 3, "": 4 };
const RANK_ORDER = { A: 1, J: 11, Q: 12, K: 13, JK: 99 };
function rummyKey(t) { const { rank, suit } = cardParts(t); return SUIT_ORDER[suit] * 100 + (RANK_ORDER[rank] || Number(rank)); }
function renderRummy() {
  const o = S.obs;
  const opp = $("opponents"); opp.replaceChildren();
  const meldsOf = (s) => o.melds.map((m, i) => [m, i]).filter(([m]) => m.owner === s);
  const meldRow = (s) => {
    const ms = meldsOf(s);
    return el("div", { class: "melds" }, ms.length ? ms.map(([m, i]) => el("span", { class: "meld", title: `meld ${i}` },
      el("span", { class: "num", text: `#${i}` }), m.cards.map((x) => card(x, { small: true })))) : el("span", { class: "count", text: "no melds" }));
  };
  const badges = (s) => [o.down[s] ? el("span", { class: "badge down", text: "down" }) : null,
    el("span", { class: "badge", text: `total ${o.totals[s]}` }),
    o.claims[s] ? el("span", { class: "badge", text: `${o.claims[s]} buy${o.claims[s] === 1 ? "" : "s"}` }) : null,
    S.done && S.result && S.result.winner === s ? el("span", { class: "badge win", text: "winner" }) : null];
  for (const s of othersOrder()) {
    const kids = [S.mode === "view" ? el("div", { class: "hand" }, sortRummy(S.obs_all[s].hand).map((c) => card(c, { small: true })))
      : backs(o.hand_sizes[s])];
    if ((o.seen[s] || []).length && S.mode === "play") kids.push(el("div", { class: "count", text: `known to hold: ${o.seen[s].join(" ")}` }));
    kids.push(meldRow(s));
    opp.append(seatBox(s, el("div", {}, kids), { badges: badges(s) }));
  }
  const c = $("center"); c.replaceChildren();
  c.append(el("div", { class: "pile" }, el("div", { class: "label", text: `round ${o.round}: contract ${o.contract}` }),
    el("div", { class: "count", text: `turn ${o.turns}` })));
  c.append(el("div", { class: "pile" }, el("div", { class: "label", text: "stock" }), backs(o.stock)));
  c.append(el("div", { class: "pile" }, el("div", { class: "label", text: `discard pile (${o.pile_size})` }),
    o.pile_top ? card(o.pile_top) : el("span", { class: "count", text: "no live top" })));
  if (o.claimed_card) c.append(el("div", { class: "pile" }, el("div", { class: "label", text: "offered to buy" }), card(o.claimed_card)));
  if (S.done) c.append(resultBox());
  const me = S.mode === "view" ? 0 : S.seat;
  const hand = sortRummy(S.mode === "view" ? S.obs_all[0].hand : o.hand);
  const L = legal();
  const discards = new Map();
  if (S.decision === "discard") for (const [id, t] of L) if (t.startsWith("discard ")) discards.set(t.slice(8), id);
  const row = el("div", { class: "hand" });
  let group = null, lastSuit = null;
  for (const t of hand) {
    const suit = cardParts(t).suit;
    if (suit !== lastSuit) { group = el("span", { class: "group" }); row.append(group); lastSuit = suit; }
    if (S.mode === "play" && S.your_turn && S.decision === "discard") group.append(card(t, { disabled: !discards.has(t), onclick: () => act(discards.get(t)) }));
    else group.append(card(t));
  }
  const mine = $("me");
  mine.className = !S.done && S.to_move === me ? "turn" : "";
  mine.replaceChildren(el("h3", {}, el("span", { text: S.mode === "view" ? "Seat 0" : `Your hand (seat ${S.seat})` }),
    el("span", { class: "count", text: `${hand.length} cards` }), ...badges(me)), row, meldRow(me));
  if (S.mode !== "play" || !S.your_turn) return;
  const acts = $("actions");
  if (S.decision === "discard") acts.append(el("span", { class: "note", text: "Click a card to discard it." }));
  else if (S.decision === "claim" || S.decision === "buy") {
    const p = $("prompt"); p.hidden = false;
    p.append(el("div", {}, el("span", { text: `Buy ${o.claimed_card || "the card"} out of turn? ` })),
      el("div", { class: "opts" }, L.map(([id, t]) => actButton(id, t, id === 3))));
  } else if (S.decision === "layoff") {
    acts.append(el("span", { class: "note", text: "Lay off:" }));
    for (const [id, t] of L) acts.append(actButton(id, t, id === 7));
  } else {
    for (const [id, t] of L) acts.append(actButton(id, t, id === 5 || id === 1));
  }
}
function sortRummy(h) { return [...h].sort((a, b) => rummyKey(a) - rummyKey(b)); }

function resultBox() {
  const r = S.result;
  const ret = r.returns.map((x, s) => `${seatName(s)}: ${S.game === "loba" || S.game === "continental" ? -x + " pts" : (x > 0 ? "+" : "") + x}`).join(" · ");
  const win = r.winner === undefined || r.winner === null || r.winner < 0 ? "no winner" : `${seatName(r.winner)} won`;
  return el("div", { class: "pile", id: "result" }, el("div", { class: "result", text: win }), el("div", { class: "count", text: ret }));
}

// ------------------------------------------------------------------ the coach
function fmt(v, measure) { return measure === "win" ? `${(100 * v).toFixed(0)}%` : v.toFixed(1); }
function renderCoach() {
  const box = $("coach");
  const h = S.mode === "play" ? (S.hint || hintShown) : null;
  if (!h || h.version !== S.version) { box.hidden = true; box.replaceChildren(); return; }
  box.hidden = false;
  const vals = h.options.map((e) => e.value);
  const hi = Math.max(...vals), lo = Math.min(...vals);
  // the bar grows with how good the option is (for points: fewer is better)
  const good = (v) => h.higher_is_better ? (hi > 0 ? v / hi : 0) : (hi > lo ? 0.1 + 0.9 * (hi - v) / (hi - lo) : 1);
  const rows = h.options.map((e, i) => el("tr", { class: i === 0 ? "best" : "" },
    el("td", { text: e.text }), el("td", { class: "num", text: `${fmt(e.value, h.measure)} ±${fmt(e.stderr, h.measure)}` }),
    el("td", { style: "width:30%" }, el("div", { class: "bar", style: `width:${(100 * good(e.value)).toFixed(0)}%` }))));
  box.replaceChildren(el("h2", { text: "Coach" }),
    el("p", { class: "small-note", text: `${h.label}, per option; ${h.worlds} worlds (${h.seconds.toFixed(1)} s), never looking at hidden cards.` }),
    el("table", { class: "est", id: "hint-table" }, el("tbody", {}, rows)));
}
function renderReview() {
  const box = $("review");
  if (S.mode !== "play" || !S.done || !S.review) { box.hidden = true; return; }
  box.hidden = false;
  const rv = S.review;
  const m = rv.higher_is_better ? "win" : "points";
  const rows = rv.entries.map((e) => e.error ? el("tr", {}, el("td", { colspan: 4, text: `move ${e.step}: ${e.error}` })) :
    el("tr", { class: e.gap > (m === "win" ? 0.05 : 3) ? "bad" : "" },
      el("td", { text: `${e.step + 1}` }),
      el("td", { text: `${e.played} (${fmt(e.played_value, m)})` }),
      el("td", { text: `${e.best} (${fmt(e.best_value, m)})` }),
      el("td", { class: "num gap", text: e.gap > 1e-9 ? fmt(e.gap, m) : "—" })));
  const total = rv.entries.reduce((a, e) => a + (e.gap || 0), 0);
  const worlds = rv.entries.map((e) => e.worlds || 0);
  box.replaceChildren(el("h2", { text: "Review of your decisions" }),
    el("p", { class: "small-note", text: `${rv.measure}; each decision's estimate from ${worlds.length ? Math.min(...worlds) + "–" + Math.max(...worlds) : 0} worlds.` +
      (rv.pending ? ` ${rv.pending} still being analysed…` : ` Total gap: ${fmt(total, m)}.`) }),
    el("table", { class: "est", id: "review-table", "data-pending": rv.pending }, el("thead", {}, el("tr", {}, el("th", { text: "move" }),
      el("th", { text: "you played" }), el("th", { text: "best" }), el("th", { text: "gap" }))), el("tbody", {}, rows)));
  if (rv.pending) setTimeout(refreshReview, 800);
}
async function refreshReview() {
  if (!S || !S.done || S.mode !== "play") return;
  try { S.review = await api("/api/review"); renderReview(); } catch (e) { showError(e.message); }
}

// ------------------------------------------------------------------ talking to the server
async function load() {
  try {
    const step = S && S.mode === "view" ? `?step=${S.step}` : "";
    S = await api("/api/state" + step);
    showError(null);
    render();
  } catch (e) { showError(e.message); }
}
async function act(id) {
  if (busy || id === undefined) return;
  busy = true;
  try {
    S = await api("/api/act", { version: S.version, action: id });
    selected.clear(); hintShown = null; showError(null);
  } catch (e) {
    showError(e.message);
    if (e.status === 409) { try { S = await api("/api/state"); } catch (e2) { /* shown above */ } }
  }
  busy = false;
  render();
}
function scheduleBot() {
  clearTimeout(botTimer);
  if (S.mode !== "play" || S.done || S.your_turn) return;
  const delay = PARAMS.has("delay") ? Number(PARAMS.get("delay")) : 1000 * (S.bot_delay ?? 0.6);
  const version = S.version;
  botTimer = setTimeout(async () => {
    if (busy || !S || S.version !== version) return;
    busy = true;
    try { S = await api("/api/advance", { version }); showError(null); }
    catch (e) { if (e.status === 409) { try { S = await api("/api/state"); } catch (e2) { /* ignore */ } } else showError(e.message); }
    busy = false;
    render();
  }, delay);
}
async function hint() {
  if (busy || !S.your_turn) return;
  busy = true;
  const b = $("hint-btn");
  b.disabled = true; b.textContent = "Thinking…";
  try { hintShown = await api("/api/hint", { version: S.version }); showError(null); }
  catch (e) { showError(e.message); }
  b.textContent = "Hint";
  busy = false;
  render();
}
async function newGame() {
  if (busy) return;
  busy = true;
  try { S = await api("/api/new", {}); selected.clear(); hintShown = null; showError(null); } catch (e) { showError(e.message); }
  busy = false;
  render();
}
async function goto(step) {
  if (!S || S.mode !== "view") return;
  step = Math.max(0, Math.min(S.steps, step));
  try { S = await api(`/api/state?step=${step}`); showError(null); render(); } catch (e) { showError(e.message); }
}

$("hint-btn").addEventListener("click", hint);
$("new-btn").addEventListener("click", newGame);
$("rules-btn").addEventListener("click", () => {
  const r = $("rules"); r.hidden = !r.hidden; $("rules-btn").setAttribute("aria-expanded", String(!r.hidden));
});
$("v-first").addEventListener("click", () => goto(0));
$("v-prev").addEventListener("click", () => goto(S.step - 1));
$("v-next").addEventListener("click", () => goto(S.step + 1));
$("v-last").addEventListener("click", () => goto(S.steps));
document.addEventListener("keydown", (ev) => {
  if (!S || S.mode !== "view") return;
  const k = { ArrowLeft: -1, ArrowRight: 1 }[ev.key];
  if (k) goto(S.step + k);
  if (ev.key === "Home") goto(0);
  if (ev.key === "End") goto(S.steps);
});
load();
