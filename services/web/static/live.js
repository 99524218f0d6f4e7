/* cardtable: the matches in play (#/live), newest first, a page at a time, each with a link to watch it (#/watch/<id>).
 * app.js routes here: window.cardtable.showLive(main, api) draws the list and returns what stops its refresh. */
(() => {
"use strict";

const { h, fill } = window.cardtable;
const REFRESH_MS = 5000;
const PAGE_SIZE = 20;

function seatsText(view) {
  return view.seats.map((s) => (s.kind === "bot" ? s.policy : "person")).join(", ");
}

function matchRow(view) {
  const watch = `#/watch/${encodeURIComponent(view.match_id)}`;
  return h("tr", { dataset: { match: view.match_id } },
    h("td", {}, h("a", { href: watch, text: view.match_id })), h("td", { text: view.game }),
    h("td", { text: seatsText(view) }), h("td", { text: String(view.move_number) }),
    h("td", { text: view.scores.join(" \u2013 ") }), h("td", {}, h("a", { href: watch, text: "watch" })));
}

function showLive(main, api) {
  const list = h("div", { "data-testid": "live-matches" });
  let token = "";
  let timer = null;
  async function load(pageToken) {
    const page = await api(`/api/matches?page_size=${PAGE_SIZE}&page_token=${encodeURIComponent(pageToken)}`);
    token = pageToken;
    const more = page.next_page_token
      ? h("button", { type: "button", onclick: () => load(page.next_page_token) }, "Next page") : null;
    const first = pageToken ? h("button", { type: "button", onclick: () => load("") }, "First page") : null;
    const rows = page.matches.length ? page.matches.map(matchRow)
      : [h("tr", {}, h("td", { colspan: "6", class: "muted", text: "no match in play" }))];
    fill(list, h("div", { class: "scroll" }, h("table", { class: "list" },
      h("thead", {}, h("tr", {}, ["match", "game", "seats", "moves", "scores", ""].map((t) => h("th", { text: t })))),
      h("tbody", {}, rows))), h("div", { class: "row" }, first, more));
  }
  fill(main, h("h1", { text: "Live matches" }),
    h("p", { class: "muted", text: "Matches in play, newest first; a finished or abandoned match leaves the list." }),
    list);
  const refresh = () => load(token).catch(() => {});
  timer = setInterval(refresh, REFRESH_MS);
  return { loaded: load(""), stop: () => clearInterval(timer) };
}

window.cardtable.showLive = showLive;
})();
