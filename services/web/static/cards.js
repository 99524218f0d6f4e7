/* cardtable: cards and the table, drawn with CSS. Shared by the replay viewer and the live table.
 *
 *   renderTable(shown, {players, seatNames, me, legal, onCard}) -> element
 *
 * `ctx.lastCard` (the card of the last move) is outlined where it lies.
 * `shown` is a frame of the viewer (services/web/frames.py) or a live observation: the engine's keys (trick, table,
 * trump, auction, contract, declarations, captures...) plus `hands` (seat -> cards) and `hand_counts`. Its codes
 * and figures are said in words by labels.js (loaded first); the cards keep their faces.
 */
(() => {
"use strict";

const { SUITS, codeLabel, valueLabel } = window.cardtableLabels;
const CARD_RE = /^([2-9TJQKA])([CDHS])$/;
const CARD_IN_TEXT = /([2-9TJQKA])([CDHS])/g;

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "text") el.textContent = value;
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(el.dataset, value);
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/* Replace `el`'s children with `children` (nested arrays flattened, null and false left out). */
function fill(el, ...children) {
  el.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
  return el;
}

function isCard(code) { return typeof code === "string" && CARD_RE.test(code); }

function rankText(rank) { return rank === "T" ? "10" : rank; }

/* A card face (a button when `onClick` is given), or a card back for null. */
function cardEl(code, opts = {}) {
  const small = opts.small ? " small" : "";
  if (!isCard(code)) return h("span", { class: "card back" + small, "aria-label": "hidden card" });
  const [, rank, suit] = CARD_RE.exec(code);
  const red = suit === "H" || suit === "D" ? " red" : "";
  const cls = "card" + red + small + (opts.legal ? " legal" : "") + (opts.trump ? " trump" : "")
    + (opts.chosen ? " chosen" : "");
  const label = `${rankText(rank)}${SUITS[suit]}`;
  const body = [h("span", { class: "r", text: rankText(rank) }), h("span", { class: "s", text: SUITS[suit] })];
  if (opts.onClick) {
    return h("button", { class: cls, type: "button", title: code, "aria-label": label, dataset: { card: code },
                         onclick: () => opts.onClick(code) }, body);
  }
  return h("span", { class: cls, title: code, "aria-label": label, dataset: { card: code } }, body);
}

/* An action in the rules' notation with its cards' suits drawn as glyphs (the text itself is unchanged). */
function actionText(action) {
  return String(action).replace(CARD_IN_TEXT, (_, r, s) => rankText(r) + SUITS[s]);
}

function cardRow(cards, opts = {}) {
  return h("div", { class: "cards" + (opts.overlap ? " overlap" : "") },
           (cards || []).map((c) => cardEl(c, { small: opts.small, legal: opts.legal && opts.legal(c),
                                                 onClick: opts.onClick, trump: opts.trump && opts.trump(c),
                                                 chosen: opts.chosen === c })));
}

function seatName(seat, names) { return names && names[seat] ? names[seat] : `Seat ${seat}`; }

/* Keys drawn by renderTable itself (everything else shows in the facts list). */
const DRAWN = new Set(["game", "seat", "players", "options", "deal_index", "dealer", "phase", "current_player",
  "scores", "history", "hands", "hand", "hand_counts", "move_number", "trick", "tricks", "table", "trump", "turn_up",
  "face_up", "auction", "captured", "captured_counts", "tricks_won", "card_points", "winners", "legal_actions",
  "known_cards", "hand_sizes", "turn", "taken", "points", "tablanettes", "tablas", "dead", "declared",
  "declarations", "exchanges", "contract", "deal_result", "bottom_card", "declaration_points", "deal_points",
  "game_points", "minus_marks"]);

/* Per-seat numbers (one value per seat) shown in each seat's box. */
const PER_SEAT = [["captured_counts", "captured"], ["tricks_won", "tricks"], ["card_points", "card points"],
  ["points", "points"], ["tablanettes", "tablanettes"], ["tablas", "tablas"],
  ["declaration_points", "declaration points"], ["deal_points", "deal points"], ["game_points", "game points"],
  ["minus_marks", "minus marks"]];

/* Belote's declarations: one list of combinations per seat (Trappola's are [seat, set, trick] entries instead). */
const perSeatLists = (v, players) => Array.isArray(v) && v.length === players && v.every(Array.isArray)
  && v.every((x) => x.every((c) => typeof c === "string"));

function teamOf(seat, players, length) { return length === players ? seat : seat % length; }

function renderSeat(seat, shown, ctx) {
  const players = ctx.players;
  const hands = shown.hands || {};
  const known = hands[String(seat)];
  const count = (shown.hand_counts || [])[seat] ?? (shown.hand_sizes || [])[seat] ?? 0;
  const mine = ctx.me === seat;
  const trump = shown.trump && typeof shown.trump === "string" ? (c) => c[1] === shown.trump : null;
  const hand = known
    ? cardRow(known, { legal: mine ? ctx.legalCard : null, onClick: mine ? ctx.onCard : null, trump,
                       small: !mine && ctx.me !== undefined && ctx.me !== null })
    : cardRow(Array(count).fill(null), { small: true, overlap: true });
  const stats = [];
  for (const [key, label] of PER_SEAT) {
    const values = shown[key];
    if (!Array.isArray(values) || !values.length || typeof values[0] !== "number") continue;
    const team = teamOf(seat, players, values.length);
    stats.push(`${label} ${values[team]}`);
  }
  if (!shown.captured_counts && shown.captured && shown.captured[String(seat)] !== undefined) {
    stats.push(`captured ${shown.captured[String(seat)].length} cards`);
  }
  if (Array.isArray(shown.taken) && Array.isArray(shown.taken[seat])) stats.push(`taken ${shown.taken[seat].length}`);
  if (Array.isArray(shown.declared) && shown.declared[seat]) stats.push(codeLabel(shown.declared[seat]));
  if (perSeatLists(shown.declarations, players) && shown.declarations[seat].length) {
    stats.push(`declared ${shown.declarations[seat].map(codeLabel).join(", ")}`);
  }
  const badges = [];
  if (shown.dealer === seat) badges.push(h("span", { class: "label", text: "dealer" }));
  if (shown.current_player === seat) badges.push(h("span", { class: "label", text: "to play" }));
  if (shown.taker === seat) badges.push(h("span", { class: "label", text: "taker" }));
  return h("section", { class: "seat" + (shown.current_player === seat ? " to-act" : "") + (mine ? " me" : ""),
                        dataset: { seat: String(seat) } },
           h("div", { class: "name" }, seatName(seat, ctx.seatNames), badges),
           hand, stats.length ? h("div", { class: "stats", text: stats.join(" \u00b7 ") }) : null);
}

function renderCenter(shown, ctx) {
  const piles = [];
  if (Array.isArray(shown.trick)) {
    piles.push(h("div", { class: "pile", dataset: { pile: "trick" } }, h("div", { class: "label", text: "trick" }),
      h("div", { class: "cards" }, shown.trick.map(([seat, card]) =>
        h("div", { class: "played" }, cardEl(card, { chosen: card === ctx.lastCard }), seatName(seat, ctx.seatNames))))));
  }
  if (Array.isArray(shown.table)) {
    const legal = ctx.legalTable;
    piles.push(h("div", { class: "pile", dataset: { pile: "table" } }, h("div", { class: "label", text: "table" }),
      cardRow(shown.table, { legal, onClick: ctx.onTableCard, chosen: ctx.lastCard })));
  }
  if (shown.turn && typeof shown.turn === "object") {
    piles.push(h("div", { class: "pile" }, h("div", { class: "label", text: "capturing with" }),
      cardRow([shown.turn.card]), h("div", { class: "label", text: "taken so far" }),
      cardRow(shown.turn.taken || [], { small: true })));
  }
  for (const key of ["turn_up", "face_up", "bottom_card"]) {
    if (isCard(shown[key])) {
      piles.push(h("div", { class: "pile" }, h("div", { class: "label", text: key.replace("_", " ") }),
                   cardRow([shown[key]])));
    }
  }
  const facts = [];
  const fact = (name, value) => facts.push(h("dt", { text: name }), h("dd", {}, value));
  const labelCtx = { seatNames: ctx.seatNames, players: ctx.players };
  if (shown.trump) fact("trump", valueLabel("trump", shown.trump, labelCtx));
  if (shown.contract) fact("contract", valueLabel("contract", shown.contract, labelCtx));
  if (shown.stock_size !== undefined) fact("stock", String(shown.stock_size));
  if (shown.pot) fact("pot", String(shown.pot));
  const lists = ["auction", "choice", "doubling", "exchanges", "declarations"];
  for (const [key, value] of Object.entries(shown)) {
    if (DRAWN.has(key) || value === null || value === undefined || key === "stock_size" || key === "pot") continue;
    if (typeof value === "object" && (JSON.stringify(value).length > 160 || !Object.keys(value).length)) continue;
    if (Array.isArray(value) && value.every(isCall)) { if (!lists.includes(key)) lists.push(key); continue; }
    fact(key.replaceAll("_", " "), valueLabel(key, value, labelCtx));
  }
  const side = [];
  if (facts.length) side.push(h("dl", { class: "facts" }, facts));
  const listed = (key, items) => Array.isArray(items) && items.length && items.every(isCall)
    ? h("div", {}, h("div", { class: "label", text: key.replaceAll("_", " ") }),
        h("div", { class: "auction", dataset: { list: key } }, items.map((item) => h("span", {}, callText(item, ctx)))))
    : null;
  for (const key of lists) side.push(listed(key, shown[key]));
  if (Array.isArray(shown.tricks) && shown.tricks.length) {
    const last = shown.tricks[shown.tricks.length - 1];
    side.push(h("div", {}, h("div", { class: "label", text: `trick ${shown.tricks.length}, the last taken` }),
      h("div", { class: "cards" }, last.map(([seat, card]) =>
        h("div", { class: "played" }, cardEl(card, { small: true, chosen: card === ctx.lastCard }),
          seatName(seat, ctx.seatNames))))));
  }
  return h("div", { class: "center" }, piles, h("div", { class: "pile" }, side));
}

/* A call of an auction, exchange or declaration list: [seat, code] or Trappola's [seat, set, trick index]. */
function isCall(item) {
  return Array.isArray(item) && item.length >= 2 && Number.isInteger(item[0]) && typeof item[1] === "string";
}

function callText([seat, code, trick], ctx) {
  const when = Number.isInteger(trick) ? ` (trick ${trick + 1})` : "";
  return `${seatName(seat, ctx.seatNames)}: ${codeLabel(code)}${when}`;
}

function scoresEl(scores, opts = {}) {
  return h("div", { class: "scores" + (opts.final ? " final" : ""), "data-testid": "scores",
                    dataset: { scores: JSON.stringify(scores || []) } },
           (scores || []).map((score, seat) => h("span", { dataset: { seat: String(seat) } },
                                                 `${seatName(seat, opts.seatNames)}: ${score}`)));
}

function renderTable(shown, ctx) {
  const players = ctx.players;
  const status = [
    h("span", {}, "deal ", h("b", { text: String((shown.deal_index ?? 0) + 1) })),
    shown.phase && shown.phase !== "over" ? h("span", {}, "phase ", h("b", { text: codeLabel(shown.phase) })) : null,
    shown.dealer !== undefined ? h("span", {}, "dealer ", h("b", { text: seatName(shown.dealer, ctx.seatNames) }))
                               : null,
    h("span", {}, shown.current_player === null || shown.current_player === undefined
      ? h("b", { text: "over" }) : ["to play ", h("b", { text: seatName(shown.current_player, ctx.seatNames) })]),
  ];
  const seats = [];
  for (let seat = 0; seat < players; seat++) seats.push(renderSeat(seat, shown, ctx));
  return h("div", { class: "felt", dataset: { move: String(shown.move_number ?? "") } },
           h("div", { class: "status" }, status), scoresEl(shown.scores, { seatNames: ctx.seatNames }),
           shown.deal_result ? dealResultEl(shown.deal_result, ctx) : null,
           renderCenter(shown, ctx), h("div", { class: "seats" }, seats));
}

/* The result of the deal that the last turn ended (the table already shows the next deal, or the match's end). */
function dealResultEl(result, ctx = {}) {
  const facts = [];
  for (const [key, value] of Object.entries(result)) {
    if (key === "deal" || value === null || value === undefined) continue;
    facts.push(h("dt", { text: key.replaceAll("_", " ") }), h("dd", { text: valueLabel(key, value, ctx) }));
  }
  return h("div", { class: "deal-result", "data-testid": "deal-result" },
           h("div", { class: "label", text: `deal ${result.deal + 1} is over` }), h("dl", { class: "facts" }, facts));
}

window.cardtable = { h, fill, dealResultEl, cardEl, actionText, renderTable, scoresEl, isCard, seatName };
})();
