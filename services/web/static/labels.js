/* cardtable: the engine's codes as words a person reads on the table (the move list keeps the rules' notation).
 *
 *   codeLabel("bid:140:C") -> "bid 140 ♣"      codeLabel("sequence:4:TS") -> "sequence of 4 to 10♠"
 *   codeLabel("carre:Q") -> "four queens"      codeLabel("declare:three:J") -> "three jacks"
 *   codeLabel("nodeclare") -> "no declaration" codeLabel("discard:8D,AS") -> "discard 8♦ A♠"
 *   valueLabel(key, value, ctx) -> text: a seat key as the seat's name, a suit as its glyph, true/false as yes/no,
 *                                 a figure per side or per seat labelled with its seats ("S0+S2 103, S1+S3 59")
 *
 * A code is split at ":" and each part said as a word: a card or a suit as its glyph, snake_case with spaces.
 */
(() => {
"use strict";

const SUITS = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
const CARD_RE = /^([2-9TJQKA])([CDHS])$/;
const RANK_NAMES = { 2: "twos", 3: "threes", 4: "fours", 5: "fives", 6: "sixes", 7: "sevens", 8: "eights", 9: "nines",
  T: "tens", J: "jacks", Q: "queens", K: "kings", A: "aces" };
const WORDS = { nodeclare: "no declaration", declare: "declares", "trump:none": "no trump", "trump:last": "last card trump" };
// Keys whose number is a seat (or whose list holds seats).
const SEAT_KEYS = new Set(["dealer", "taker", "declarer", "declarers", "maker", "trumper", "caller", "belote", "kanak",
  "doubler", "last_capturer", "left_table", "winner", "winners"]);
const SUIT_KEYS = new Set(["trump", "suit"]);

function rankText(rank) { return rank === "T" ? "10" : rank; }

/* One part of a code: a card, cards joined by commas, a suit letter, a number or a word. */
function partLabel(part) {
  const card = CARD_RE.exec(part);
  if (card) return rankText(card[1]) + SUITS[card[2]];
  if (part.includes(",") && part.split(",").every((c) => CARD_RE.test(c))) return part.split(",").map(partLabel).join(" ");
  if (SUITS[part]) return SUITS[part];
  return part.replaceAll("_", " ");
}

function codeLabel(code) {
  const text = String(code);
  if (WORDS[text]) return WORDS[text];
  const parts = text.split(":");
  if (parts[0] === "sequence" && parts.length === 3) {
    return `sequence of ${parts[1]} to ${partLabel(parts[2])}`;
  }
  if (parts[0] === "carre" && parts.length === 2) return `four ${RANK_NAMES[parts[1]] || parts[1]}`;
  if (parts[0] === "declare" && (parts[1] === "three" || parts[1] === "four")) {
    return parts.length === 3 ? `${parts[1]} ${RANK_NAMES[parts[2]] || parts[2]}` : `${parts[1]} of a kind`;
  }
  return parts.filter((p) => p !== "").map(partLabel).join(" ");
}

function seatLabel(seat, ctx) {
  const names = ctx && ctx.seatNames;
  return names && names[seat] ? names[seat] : `Seat ${seat}`;
}

/* A list of figures, one per side (partners share one: seat s is on side s % sides) or one per seat. */
function figuresLabel(values, players) {
  if (!players || values.length > players || players % values.length) return values.join(" \u00b7 ");
  return values.map((value, side) => {
    const seats = [];
    for (let seat = side; seat < players; seat += values.length) seats.push(`S${seat}`);
    return `${seats.join("+")} ${value}`;
  }).join(", ");
}

const isFigures = (v) => Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === "number");

function valueLabel(key, value, ctx = {}) {
  if (value === null || value === undefined) return "none";
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (SEAT_KEYS.has(key) && Number.isInteger(value)) return seatLabel(value, ctx);
  if (SEAT_KEYS.has(key) && Array.isArray(value) && value.every(Number.isInteger)) {
    return value.length ? value.map((s) => seatLabel(s, ctx)).join(", ") : "none";
  }
  if (SUIT_KEYS.has(key) && typeof value === "string" && SUITS[value]) return SUITS[value];
  if (typeof value === "number") return String(value);
  if (typeof value === "string") return codeLabel(value);
  if (isFigures(value)) return figuresLabel(value, ctx.players);
  if (Array.isArray(value)) {
    if (value.length && value.every((v) => Array.isArray(v) && v.length >= 2 && Number.isInteger(v[0]))) {
      return value.map(([seat, ...what]) => `${seatLabel(seat, ctx)}: ${what.map((w) => valueLabel("", w, ctx))
        .join(" ")}`).join(", ");
    }
    return value.map((v) => valueLabel("", v, ctx)).join(" \u00b7 ");
  }
  return Object.entries(value).filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `${k.replaceAll("_", " ")} ${valueLabel(k, v, ctx)}`).join(", ");
}

window.cardtableLabels = { SUITS, codeLabel, valueLabel, seatLabel, figuresLabel, rankText };
})();
