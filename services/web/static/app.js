/* cardtable: the page. Hash routes:
 *   #/                         collections and their replays (paged)
 *   #/replay/<id>?move=N&seat=S  the replay viewer at move N (seat S's view; none: every hand)
 *   #/jobs, #/jobs/<job id>    simulation jobs (live progress over server-sent events), a job's results and plot
 *   #/play, #/play/<match id>  a new live match against the bots, a live match (its seat token kept in localStorage)
 *   #/watch/<match id>         a live match as anyone sees it, move by move (server-sent events)
 *   #/live                     the matches in play, each linked to its watch (live.js)
 */
(() => {
"use strict";

const { h, fill, dealResultEl, actionText, renderTable, scoresEl, isCard, seatName } = window.cardtable;
const main = document.getElementById("main");
const KEY_STORE = "cardtable.apiKey";
const MATCH_STORE = "cardtable.match.";
let leaveView = () => {};  // stops the current view's timers and streams

// ---- the API -------------------------------------------------------------------------------------------------------

class ApiError extends Error {
  constructor(status, code, message) { super(message); this.status = status; this.code = code; }
}

function apiHeaders(extra = {}) {
  const key = localStorage.getItem(KEY_STORE);
  return key ? { "x-api-key": key, ...extra } : extra;
}

async function api(path, opts = {}) {
  const headers = apiHeaders(opts.headers || {});
  const init = { method: opts.method || "GET", headers };
  if (opts.body !== undefined) {
    init.body = JSON.stringify(opts.body);
    headers["content-type"] = "application/json";
  }
  const response = await fetch(path, init);
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (_) { data = null; }
  if (!response.ok) {
    const error = (data && data.error) || { code: String(response.status), message: text || response.statusText };
    if (response.status === 401) askForKey(error.message);
    throw new ApiError(response.status, error.code, error.message);
  }
  return data;
}

/* Server-sent events read with fetch (EventSource cannot send the API key header); calls onEvent(name, data). */
function streamEvents(path, onEvent, onError = (error) => showError(error)) {
  const controller = new AbortController();
  (async () => {
    try {
      const response = await fetch(path, { headers: apiHeaders(), signal: controller.signal });
      if (!response.ok) {
        const body = await response.json().catch(() => ({ error: { code: String(response.status), message: "" } }));
        if (response.status === 401) askForKey(body.error.message);
        onError(body.error);
        return;
      }
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        buffer += decoder.decode(value, { stream: true });
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let name = "message"; const data = [];
          for (const line of block.split("\n")) {
            if (line.startsWith("event:")) name = line.slice(6).trim();
            else if (line.startsWith("data:")) data.push(line.slice(5).trim());
          }
          onEvent(name, JSON.parse(data.join("\n")));
        }
      }
    } catch (error) {
      if (error.name !== "AbortError") console.warn("event stream ended", error);
    }
  })();
  return () => controller.abort();
}

function askForKey(message) {
  const form = document.getElementById("api-key-form");
  form.hidden = false;
  form.querySelector("label").firstChild.textContent = `${message}. API key: `;
}

document.getElementById("api-key-form").addEventListener("submit", (event) => {
  event.preventDefault();
  localStorage.setItem(KEY_STORE, event.target.key.value.trim());
  event.target.hidden = true;
  route();
});

/* A wide table scrolls sideways on a narrow screen instead of widening the page. */
function scrolling(table) { return h("div", { class: "scroll" }, table); }

function showError(error, where = main) {
  const box = h("div", { class: "error", role: "alert", "data-testid": "error" },
                error.code ? `${error.code}: ${error.message}` : String(error.message || error));
  fill(where, box);
  return box;
}

function parseHash() {
  const hash = decodeURIComponent(location.hash.replace(/^#\/?/, ""));
  const [path, query = ""] = hash.split("?");
  return { path, params: new URLSearchParams(query) };
}

// ---- replays: collections and pages -----------------------------------------------------------------------------

async function showReplays(params) {
  const collections = await api("/api/collections");
  const chosen = params.get("collection") || (collections[0] && collections[0].name) || "live";
  const list = h("div", { class: "panel" });
  fill(main, h("h1", { text: "Replays" }),
    h("div", { class: "row" }, h("label", {}, "Collection ",
      h("select", { "aria-label": "collection", onchange: (e) => { location.hash = `#/?collection=${e.target.value}`; } },
        collections.map((c) => h("option", { value: c.name, selected: c.name === chosen },
                                 `${c.name} (${c.count})`))))),
    collections.length ? list : h("p", { class: "muted", text: "No replays yet: run a simulation with --log, or "
                                                               + "finish a live game." }));
  if (collections.length) await showReplayPage(list, chosen, "");
}

async function showReplayPage(list, collection, token) {
  const page = await api(`/api/replays?collection=${encodeURIComponent(collection)}&page_size=25`
                         + `&page_token=${encodeURIComponent(token)}`);
  const rows = page.replays.map(replayRow);
  const more = page.next_page_token
    ? h("button", { type: "button", onclick: () => showReplayPage(list, collection, page.next_page_token) },
        "Next page") : null;
  const first = token ? h("button", { type: "button", onclick: () => showReplayPage(list, collection, "") },
                          "First page") : null;
  fill(list, scrolling(h("table", { class: "list" },
    h("thead", {}, h("tr", {}, ["replay", "game", "players", "scope", "moves", "policies", "seed"].map(
      (t) => h("th", { text: t })))), h("tbody", {}, rows))), h("div", { class: "row" }, first, more));
}

/* A row of the replay list; a replay whose bytes do not decode is listed, marked with why, and not opened. */
function replayRow(r) {
  if (r.error) {
    return h("tr", { class: "unreadable", dataset: { unreadable: r.replay_id } }, h("td", { text: r.replay_id }),
      h("td", { colspan: 6, text: `unreadable: ${r.error}` }));
  }
  return h("tr", { class: "clickable", dataset: { replay: r.replay_id },
                   onclick: () => { location.hash = `#/replay/${r.replay_id}`; } },
    h("td", {}, h("a", { href: `#/replay/${r.replay_id}`, text: r.replay_id })), h("td", { text: r.game_name }),
    h("td", { text: String(r.players) }), h("td", { text: r.scope }), h("td", { text: String(r.move_count) }),
    h("td", { text: r.policies.join(", ") }), h("td", { text: r.seed }));
}

// ---- the replay viewer --------------------------------------------------------------------------------------------

async function showViewer(replayId, params) {
  const seatParam = params.get("seat");
  const query = seatParam === null ? "perspective=full" : `perspective=seat&seat=${encodeURIComponent(seatParam)}`;
  const data = await api(`/api/replays/${replayId}?${query}`);
  const replay = data.replay;
  const names = replay.policies.map((p, seat) => `Seat ${seat} (${p})`);
  const lastIndex = data.turns.length;
  const frameOfMove = (move) => {  // the frame showing move `move`: after the last turn that ends at or before it
    let index = 0;
    while (index < lastIndex && data.turns[index].last <= move) index++;
    return index;
  };
  let index = params.has("move") ? frameOfMove(Number(params.get("move"))) : 0;
  let timer = null;

  const table = h("div");
  const moves = h("ol", { class: "movelist", "aria-label": "moves" });
  const position = h("span", { class: "muted", "data-testid": "position" });
  const verdict = h("span", { class: "verdict", "data-testid": "verdict" });  // the last card's loss, once analysed
  const permalink = h("a", { "data-testid": "permalink" }, "permalink");
  const playButton = h("button", { type: "button", "aria-label": "play", onclick: () => togglePlay() }, "\u25b6 play");
  const pace = h("select", { "aria-label": "pace" }, [["2000", "slow"], ["800", "normal"], ["300", "fast"],
    ["80", "fastest"]].map(([ms, label]) => h("option", { value: ms, selected: ms === "800" }, label)));
  const perspective = h("select", { "aria-label": "perspective", onchange: (e) => {
    const move = index ? data.turns[index - 1].last : 0;
    const seat = e.target.value === "" ? "" : `&seat=${e.target.value}`;
    location.hash = `#/replay/${replayId}?move=${move}${seat}`;
  } }, h("option", { value: "", selected: seatParam === null }, "all hands"),
     names.map((n, seat) => h("option", { value: String(seat), selected: seatParam === String(seat) }, `${n} only`)));
  const final = h("div", { class: "panel", "data-testid": "final" });

  let currentDeal = -1;
  data.turns.forEach((turn, i) => {
    if (turn.deal_index !== currentDeal) {
      currentDeal = turn.deal_index;
      moves.append(h("li", { class: "deal", text: `deal ${currentDeal + 1}` }));
    }
    moves.append(h("li", { dataset: { index: String(i + 1), move: String(turn.last) }, onclick: () => go(i + 1) },
      h("span", { class: "num", text: turn.first === turn.last ? `${turn.last}.` : `${turn.first}-${turn.last}.` }),
      h("span", { text: `S${turn.seat}` }), h("span", { class: "action notation", text: turn.action })));
  });
  const analysis = data.analysable ? h("div", { class: "panel", "data-testid": "analysis" }) : null;
  let analysed = null;  // the analysis' rows of each turn (by index), once it has come
  let unitOf = null;  // its unit for n ("1 trick", "2 tricks")

  function draw() {
    const shown = data.frames[index];
    const atEnd = index === lastIndex;
    const me = seatParam === null ? null : Number(seatParam);
    const last = index ? data.turns[index - 1].action.slice(0, 2) : null;
    fill(table, renderTable(shown, { players: replay.players, seatNames: names, me, lastCard: last }));
    const move = index ? data.turns[index - 1].last : 0;
    fill(position, `move ${move} of ${replay.move_count}`, index ? [` \u2014 last: S${data.turns[index - 1].seat} `,
      h("span", { class: "notation", text: actionText(data.turns[index - 1].action) })] : null);
    const seat = seatParam === null ? "" : `&seat=${seatParam}`;
    permalink.href = `#/replay/${replayId}?move=${move}${seat}`;
    history.replaceState(null, "", permalink.href);
    for (const li of moves.querySelectorAll("li[data-index]")) {
      const current = Number(li.dataset.index) === index;
      li.classList.toggle("current", current);
      if (current) li.scrollIntoView({ block: "nearest" });
    }
    if (analysed) showMoveAnalysis();
    fill(final, atEnd ? h("div", {}, h("h2", { text: "Final score" }),
        scoresEl(data.scores, { final: true, seatNames: names }),
        data.winners ? h("p", { text: data.winners.length ? `won by ${data.winners.map((s) => seatName(s, names)).join(", ")}` : "no winner" }) : null)
      : h("p", { class: "muted", text: `${lastIndex - index} turn${lastIndex - index === 1 ? "" : "s"} to go` }));
  }
  /* The analysis (fetched once the replay shows): each card's loss beside it in the move list ("best" when it lost
   * nothing, "\u2013" when it was not analysed), the turning points marked and listed, the current card's values. */
  async function loadAnalysis() {
    fill(analysis, h("h2", { text: "Analysis" }), h("p", { class: "muted", text: "analysing the deal\u2026" }));
    let report;
    try {
      report = await api(`/api/replays/${replayId}/analysis`);
    } catch (error) {
      fill(analysis, h("h2", { text: "Analysis" }), h("p", { class: "muted", "data-testid": "analysis-error",
                                                             text: `no analysis: ${error.message}` }));
      return;
    }
    const byMove = new Map(report.moves.map((m) => [m.move, m]));
    const turning = new Set(report.turning_points);
    const unit = report.unit;
    unitOf = (n) => (n === 1 ? unit.replace(/s$/, "") : unit);
    analysed = data.turns.map((turn) => {
      const rows = [];
      for (let n = turn.first; n <= turn.last; n++) if (byMove.has(n)) rows.push(byMove.get(n));
      return rows;
    });
    analysed.forEach((rows, i) => {
      if (!rows.length) return;  // no card played (a bid, a declaration): nothing to analyse
      const li = moves.querySelector(`li[data-index="${i + 1}"]`);
      const exact = rows.filter((m) => m.status === "exact");
      if (exact.length) {
        const loss = exact.reduce((sum, m) => sum + m.loss, 0);
        li.append(h("span", { class: "loss" + (loss === 0 ? " zero" : ""), dataset: { loss: String(loss) },
                              title: loss === 0 ? "the best card (double dummy)"
                                : `lost ${loss} ${unit} against the best card (double dummy)`,
                              text: loss === 0 ? "best" : `\u2212${loss}` }));
      } else {
        li.append(h("span", { class: "loss none", dataset: { status: rows[0].status },
                              title: `not analysed: ${rows[0].status === "too large"
                                ? "too large for an exact search within the server's budget"
                                : "before the analysis' first trick"}`, text: "\u2013" }));
      }
      if (rows.some((m) => turning.has(m.move))) li.classList.add("turning");
    });
    const turnOf = (move) => data.turns.findIndex((t) => t.first <= move && move <= t.last);
    const points = report.turning_points.map((move) => {
      const m = byMove.get(move);
      const at = turnOf(move);
      return h("li", {}, h("a", { href: "#", dataset: { move: String(move) },
                                  onclick: (event) => { event.preventDefault(); stop(); go(at + 1); } },
        `move ${move}: S${m.seat} ${m.card}, \u2212${m.loss}`));
    });
    const first = report.exact_from_move;
    fill(analysis, h("h2", { text: "Analysis" }),
      h("p", { class: "muted", text: `Double dummy: the ${unit} each card would have kept for the player's side with `
        + `best play by everyone. ` + (first === null ? "No position was small enough for an exact search."
          : `Exact from move ${first}; the cards before it were not analysed (\u2013).`) }),
      h("h3", { text: "Turning points" }),
      points.length ? h("ol", { class: "turning-points", "data-testid": "turning-points" }, points)
        : h("p", { class: "muted", text: first === null ? "none found" : "none: every analysed card was the best" }),
      h("p", { "data-testid": "move-analysis" }));
    showMoveAnalysis();
  }
  function showMoveAnalysis() {
    const out = analysis.querySelector("[data-testid=move-analysis]");
    const rows = index ? analysed[index - 1].filter((m) => m.status === "exact") : [];
    const loss = rows.reduce((sum, m) => sum + m.loss, 0);
    verdict.className = "verdict" + (loss === 0 ? " zero" : "");
    verdict.textContent = !rows.length ? "" : loss === 0 ? "best card" : `lost ${loss} ${unitOf(loss)}`;
    fill(out, rows.map((m) => h("span", {}, `S${m.seat} ${m.card}: ${m.value} of the best ${m.best}; each card `,
      Object.entries(m.values).map(([card, value]) => h("span", { class: value === m.best ? "best" : "",
                                                                  text: ` ${card}=${value}` })))));
  }
  function go(to) {
    index = Math.max(0, Math.min(lastIndex, to));
    if (index === lastIndex) stop();
    draw();
  }
  function stop() { if (timer) { clearInterval(timer); timer = null; playButton.textContent = "\u25b6 play"; } }
  function togglePlay() {
    if (timer) { stop(); return; }
    if (index === lastIndex) index = 0;
    playButton.textContent = "\u275a\u275a pause";
    timer = setInterval(() => go(index + 1), Number(pace.value));
  }
  pace.addEventListener("change", () => { if (timer) { stop(); togglePlay(); } });
  const keys = (event) => {
    if (event.target.closest("input, select, textarea")) return;
    const moves = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: 1, ArrowUp: -1 };
    if (event.key in moves) { event.preventDefault(); stop(); go(index + moves[event.key]); }
    else if (event.key === "Home") { stop(); go(0); }
    else if (event.key === "End") { stop(); go(lastIndex); }
    else if (event.key === " ") { event.preventDefault(); togglePlay(); }
  };
  document.addEventListener("keydown", keys);
  leaveView = () => { stop(); document.removeEventListener("keydown", keys); };

  const button = (label, title, to) => h("button", { type: "button", title, "aria-label": title,
                                                     onclick: () => { stop(); go(to()); } }, label);
  fill(main, 
    h("h1", {}, `${replay.game_name} \u2014 ${replay.replay_id}`),
    h("p", { class: "muted" }, `${replay.players} players \u00b7 ${replay.scope} \u00b7 seed `,
      h("span", { "data-testid": "seed", text: replay.seed }),  // a decimal string: a 64-bit seed, exact
      ` \u00b7 ${replay.move_count} moves \u00b7 ${replay.size_bytes} bytes \u00b7 policies ${replay.policies.join(", ")}`),
    h("div", { class: "controls" }, button("|\u25c0", "first", () => 0), button("\u25c0", "back", () => index - 1),
      button("\u25b6", "forward", () => index + 1), button("\u25b6|", "last", () => lastIndex), playButton, pace,
      perspective, permalink, position, verdict),
    h("div", { class: "grid2" }, h("div", {}, table, final),
      h("div", {}, h("div", { class: "panel" }, h("h2", { text: "Moves" }), moves,
        h("p", { class: "muted", text: "\u2190 \u2192 step, Home/End jump, space plays" })), analysis)));
  draw();
  if (analysis) loadAnalysis();
}

// ---- jobs -----------------------------------------------------------------------------------------------------------

function progressEl(job) {
  const share = job.units_total ? Math.round((100 * job.units_done) / job.units_total) : 0;
  return h("div", { class: "row" }, h("div", { class: "progress", role: "progressbar", "aria-valuenow": String(share) },
    h("div", { style: `width:${share}%` })), `${job.units_done}/${job.units_total}`);
}

function showJobs() {
  const body = h("tbody");
  fill(main, h("h1", { text: "Simulation jobs" }), h("p", { class: "muted",
    text: "Submit jobs with `cardtable simulate` or the SimulationService; progress updates live." }),
    scrolling(h("table", { class: "list" }, h("thead", {}, h("tr", {}, ["job", "game", "policies", "state",
                                                                         "progress"].map((t) => h("th", { text: t })))),
                body)));
  const stopStream = streamEvents("/api/events/jobs", (name, jobs) => {
    fill(body, ...jobs.map((job) => h("tr", { class: "clickable", dataset: { job: job.job_id },
                                                        onclick: () => { location.hash = `#/jobs/${job.job_id}`; } },
      h("td", {}, h("a", { href: `#/jobs/${job.job_id}`, text: job.job_id })), h("td", { text: job.game_name }),
      h("td", { text: job.spec.policies.join(", ") }), h("td", { text: job.state }), h("td", {}, progressEl(job)))));
    if (!jobs.length) fill(body, h("tr", {}, h("td", { colspan: "5", class: "muted", text: "no jobs yet" })));
  });
  leaveView = stopStream;
}

const fixed = (x, digits = 2) => (typeof x === "number" ? x.toFixed(digits) : "");

async function showJob(jobId) {
  const job = await api(`/api/jobs/${encodeURIComponent(jobId)}`);
  const results = job.results;
  const parts = [h("h1", { text: `Job ${job.job_id}` }),
    h("p", {}, `${job.game_name} \u00b7 ${job.spec.count} ${job.spec.unit}s \u00b7 seed ${job.spec.seed} \u00b7 `
      + `policies ${job.spec.policies.join(", ")} \u00b7 ${job.state}`), progressEl(job)];
  if (job.error) parts.push(h("div", { class: "error", text: job.error }));
  if (job.logged) {
    parts.push(h("p", {}, h("a", { href: `#/?collection=${job.replay_collection}` }, "logged deals")));
  }
  if (results) {
    parts.push(h("h2", { text: "Results" }), scrolling(h("table", { class: "list", "data-testid": "results" },
      h("thead", {}, h("tr", {}, ["side", "seats", "policies", "mean score", "95% CI", "wins", "win rate", "95% CI"]
        .map((t) => h("th", { text: t })))),
      h("tbody", {}, results.sides.map((s) => h("tr", {}, h("td", { text: String(s.side) }),
        h("td", { text: s.seats.join(", ") }), h("td", { text: s.policies.join(", ") }), h("td", { text: fixed(s.mean) }),
        h("td", { text: `${fixed(s.ci95[0])} \u2013 ${fixed(s.ci95[1])}` }), h("td", { text: String(s.wins) }),
        h("td", { text: fixed(s.win_rate, 3) }),
        h("td", { text: `${fixed(s.win_rate_ci95[0], 3)} \u2013 ${fixed(s.win_rate_ci95[1], 3)}` })))))),
      h("p", { class: "muted" }, `${results.units} ${results.unit}s, ${results.moves} moves, draws ${results.draws}, `
        + `${fixed(results.seconds, 1)} s, ${fixed(results.deals_per_s, 0)} deals/s`));
    const counters = Object.entries(job.counters || {});
    if (counters.length) {
      parts.push(h("h2", { text: "Game counters" }), h("table", { class: "list", "data-testid": "counters" },
        h("tbody", {}, counters.map(([name, group]) => h("tr", {}, h("th", { text: name.replaceAll("_", " ") }),
          h("td", { text: Object.entries(group).map(([label, value]) => (label === "" ? String(value)
                                                                              : `[${label}] ${value}`)).join(", ") }))))));
    }
    const plot = h("img", { class: "plot", alt: `plot of job ${job.job_id}'s results` });
    parts.push(h("h2", { text: "Plot" }), plot);
    fetch(`/api/jobs/${encodeURIComponent(jobId)}/plot.svg`, { headers: apiHeaders() })
      .then((r) => (r.ok ? r.blob() : Promise.reject(new Error(r.statusText))))
      .then((blob) => { plot.src = URL.createObjectURL(blob); })
      .catch((error) => plot.replaceWith(h("p", { class: "muted", text: `no plot: ${error.message}` })));
  } else if (job.state === "queued" || job.state === "running") {
    const timer = setTimeout(() => route(), 1000);
    leaveView = () => clearTimeout(timer);
  }
  fill(main, ...parts);
}

// ---- the live table -------------------------------------------------------------------------------------------------

async function showNewGame(params) {
  const [games, policies] = await Promise.all([api("/api/games"), api("/api/policies")]);
  const gameSelect = h("select", { name: "game", "aria-label": "game" },
    games.map((g) => h("option", { value: g.id, selected: g.id === (params.get("game") || "tablanette") }, g.name)));
  const players = h("select", { name: "players", "aria-label": "players" });
  const seat = h("select", { name: "seat", "aria-label": "your seat" });
  const policy = h("select", { name: "policy", "aria-label": "bots" },
    policies.map((p) => h("option", { value: p, selected: p === "greedy" }, p)));
  const seed = h("input", { name: "seed", type: "text", inputmode: "numeric", pattern: "[0-9]*", placeholder: "random",
                            "aria-label": "seed" });
  const options = h("fieldset", { class: "options" });
  const message = h("div");
  let info = null;

  async function loadOptions() {
    info = await api(`/api/games/${gameSelect.value}?players=${players.value}`);
    fill(options, h("legend", { text: "options (defaults unless changed)" }),
      info.options.map((o) => h("label", { title: o.doc }, `${o.name} \u2014 ${o.doc}`, optionInput(o))));
  }
  function fillPlayers() {
    const game = games.find((g) => g.id === gameSelect.value);
    fill(players, ...game.player_counts.map((n) => h("option", { value: String(n),
                                                                           selected: n === game.default_players },
                                                                 String(n))));
    fillSeats();
  }
  function fillSeats() {
    fill(seat, ...Array.from({ length: Number(players.value) }, (_, n) =>
      h("option", { value: String(n) }, `seat ${n}`)));
  }
  gameSelect.addEventListener("change", () => { fillPlayers(); loadOptions().catch((e) => showError(e, message)); });
  players.addEventListener("change", () => { fillSeats(); loadOptions().catch((e) => showError(e, message)); });

  const form = h("form", { class: "stack", onsubmit: async (event) => {
    event.preventDefault();
    const body = { game: gameSelect.value, players: Number(players.value), seat: Number(seat.value),
                   policy: policy.value, options: chosenOptions(info, options) };
    if (seed.value.trim() !== "") body.seed = seed.value.trim();  // as text: a Number would round a 64-bit seed
    try {
      const created = await api("/api/matches", { method: "POST", body });
      const view = created.view;
      localStorage.setItem(MATCH_STORE + view.match_id, JSON.stringify({ seat: view.seat, token: created.token }));
      location.hash = `#/play/${view.match_id}`;
    } catch (error) { showError(error, message); }
  } }, h("label", {}, "Game", gameSelect), h("label", {}, "Players", players), h("label", {}, "Your seat", seat),
     h("label", {}, "Bots play", policy), h("label", {}, "Seed", seed), options,
     h("button", { type: "submit", "data-testid": "start" }, "Start game"), message);
  fill(main, h("h1", { text: "Play against the bots" }), form);
  fillPlayers();
  await loadOptions();
}

function optionInput(option) {
  const data = { option: option.name, type: option.type };
  if (option.choices) {
    return h("select", { dataset: data }, option.choices.map((c) => h("option", { value: JSON.stringify(c),
      selected: c === option.default }, c === null ? "none" : String(c))));
  }
  if (option.type === "bool") return h("input", { type: "checkbox", checked: option.default === true, dataset: data });
  return h("input", { type: option.type === "int" ? "number" : "text", dataset: data, placeholder: option.nullable
    ? "none" : "", value: option.default === null ? "" : String(option.default) });
}

function chosenOptions(info, fieldset) {
  const out = {};
  if (!info) return out;
  for (const option of info.options) {
    const input = fieldset.querySelector(`[data-option="${option.name}"]`);
    let value;
    if (option.choices) value = JSON.parse(input.value);
    else if (option.type === "bool") value = input.checked;
    else if (input.value === "" && option.nullable) value = null;
    else value = option.type === "int" ? Number(input.value) : input.value;
    if (value !== option.default) out[option.name] = value;
  }
  return out;
}

/* The moves [number, seat, action] as whole turns {first, last, seat, action}: a fishing game's capture, played as
 * the engine's steps ("KS:", "+4C", "+TD", "next", "done"), is one turn in the rules' notation ("KS:4C,TD", its cards
 * in canonical order), as engine.fishing.join_turns writes it; every other move is a turn of its own. */
function joinTurns(moves) {
  const order = (code) => "CDHS".indexOf(code[1]) * 13 + "23456789TJQKA".indexOf(code[0]);
  const turns = [];
  for (const [number, seat, action] of moves) {
    const open = turns.length ? turns[turns.length - 1] : null;
    const step = action.startsWith("+") || action === "next" || action === "done";
    if (step && open && open.taken && open.seat === seat) {
      if (action.startsWith("+")) open.taken = [...open.taken, action.slice(1)].sort((a, b) => order(a) - order(b));
      open.last = number;
      open.action = `${open.card}:${open.taken.join(",")}`;
    } else if (!step) {
      const begins = action.endsWith(":");
      turns.push({ first: number, last: number, seat, action, card: begins ? action.slice(0, -1) : null,
                   taken: begins ? [] : null });
    }
  }
  return turns;
}

/* A move list's entry: a whole turn with its numbers (its steps' first to last); "..." while it is being decided. */
function turnItem(turn, who, deciding) {
  return h("li", { value: String(turn.first), dataset: { first: String(turn.first), last: String(turn.last) } },
    `${who}: ${actionText(turn.action)}${deciding ? " …" : ""}`);
}

async function showMatch(matchId) {
  const stored = JSON.parse(localStorage.getItem(MATCH_STORE + matchId) || "null");
  if (!stored) {
    fill(main, h("div", { class: "error", text: `This browser holds no seat token for match ${matchId}.` }),
      h("p", {}, h("a", { href: "#/play", text: "Start a new game" })));
    return;
  }
  const headers = { "x-seat-token": stored.token };
  let view = (await api(`/api/matches/${matchId}?seat=${stored.seat}`, { headers })).view;
  const log = (view.observation.history || []).map(([s, a], i) => [i + 1, s, a]);  // [move number, seat, action]
  const message = h("div", { "data-testid": "message" });
  const board = h("div");
  const logList = h("ol", { class: "log", "aria-label": "recent moves" });
  let busy = false;
  let lastDeal = null;  // the result of a deal the last moves ended, shown until the next move

  async function play(action) {
    if (busy) return;
    busy = true;
    try {
      const acted = await api(`/api/matches/${matchId}/act`, { method: "POST", headers,
        body: { seat: stored.seat, action, expected_move_number: view.move_number } });
      view = acted.view;
      for (const move of acted.moves) log.push([move.number, move.seat, move.action]);
      lastDeal = acted.deal_results.length ? acted.deal_results[acted.deal_results.length - 1] : null;
      fill(message);
    } catch (error) {
      showError(error, message);
      if (error.code === "ABORTED") view = (await api(`/api/matches/${matchId}?seat=${stored.seat}`, { headers })).view;
    } finally {
      busy = false;
      draw();
    }
  }

  function draw() {
    const legal = view.legal_turns || view.legal_actions;  // whole turns: a capture with its cards
    const names = view.seats.map((s, n) => (n === view.seat ? `You (seat ${n})` : `Seat ${n} (${s.policy})`));
    const forCard = (card) => legal.filter((a) => a === card || a.startsWith(card + ":"));
    const chooser = h("div");
    const onCard = (card) => {
      const choices = forCard(card);
      if (choices.length <= 1) { play(choices[0] || card); return; }
      fill(chooser, h("div", { class: "chooser", "data-testid": "chooser" }, `${actionText(card)}:`,
        choices.map((a) => h("button", { type: "button", class: "legal", dataset: { action: a },
                                          onclick: () => play(a) },
                               a === card ? "play / trail" : a.endsWith(":") ? "capture (then choose its cards)"
                                 : actionText(a))),
        h("button", { type: "button", onclick: () => fill(chooser) }, "cancel")));
    };
    const shown = { ...view.observation, hands: { [String(view.seat)]: view.observation.hand || [] },
                    hand_counts: view.hand_counts, move_number: view.move_number };
    const table = renderTable(shown, { players: view.players, seatNames: names, me: view.seat,
      legalCard: (card) => forCard(card).length > 0, onCard,
      legalTable: (card) => legal.includes("+" + card), onTableCard: (card) => play("+" + card) });
    for (const button of table.querySelectorAll(".seat.me button.card")) {
      const choices = forCard(button.dataset.card);
      if (choices.length === 1) button.dataset.action = choices[0];
      else if (choices.length > 1) button.dataset.choices = String(choices.length);
    }
    for (const button of table.querySelectorAll("[data-pile=table] button.card")) {
      if (legal.includes("+" + button.dataset.card)) button.dataset.action = "+" + button.dataset.card;
    }
    // a capture begun step by step (over the API) is finished by one of its whole turns, listed as buttons
    const others = view.observation.turn ? legal.filter((a) => !a.startsWith("+"))
      : legal.filter((a) => !isCard(a.slice(0, 2)) && !a.startsWith("+"));
    const actions = others.length ? h("div", { class: "actions", "aria-label": "other moves" },
      others.map((a) => h("button", { type: "button", class: "legal", dataset: { action: a }, onclick: () => play(a) },
                           actionText(a)))) : null;
    const turn = view.game_over ? h("div", { class: "panel", "data-testid": "over" }, h("h2", { text: "Game over" }),
        scoresEl(view.scores, { final: true, seatNames: names }),
        view.winners ? h("p", { text: view.winners.length ? `won by ${view.winners.map((s) => names[s]).join(", ")}` : "no winner" }) : null,
        view.replay_id ? h("p", {}, h("a", { href: `#/replay/${view.replay_id}` }, `replay ${view.replay_id}`)) : null,
        h("p", {}, h("a", { href: `#/play?game=${view.game}` }, "play again")))
      : h("p", { "data-testid": "turn" }, view.current_player === view.seat ? "Your move: the highlighted cards and "
          + "buttons are legal." : `Waiting for seat ${view.current_player}.`);
    fill(board, lastDeal ? dealResultEl(lastDeal, { seatNames: names, players: view.players }) : null,
         h("div", { dataset: { testid: "live", move: String(view.move_number), over: String(view.game_over) } }, table),
         chooser, actions, turn);
    const turns = joinTurns(log);
    fill(logList, ...turns.slice(-40).map((t, i, shown) => turnItem(t, t.seat === view.seat ? "you" : "S" + t.seat,
                                                                    i === shown.length - 1 && !!view.observation.turn)));
    logList.scrollTop = logList.scrollHeight;
  }

  fill(main, h("h1", { text: `${view.game_name} \u2014 live match ${matchId}` }),
    h("p", { class: "muted" }, "Spectators follow it at ", h("a", { href: `#/watch/${matchId}` }, `#/watch/${matchId}`)),
    h("div", { class: "grid2" }, h("div", {}, message, board),
      h("div", { class: "panel" }, h("h2", { text: "Moves" }), logList)));
  draw();
}

/* A live match as anyone sees it (no hand but the backs), following its moves over server-sent events. */
function showWatch(matchId) {
  const board = h("div", { "data-testid": "watch" });
  const logList = h("ol", { class: "log", "aria-label": "moves" });
  const message = h("div");
  fill(main, h("h1", { text: `Watching match ${matchId}` }),
    h("div", { class: "grid2" }, h("div", {}, message, board),
      h("div", { class: "panel" }, h("h2", { text: "Moves" }), logList)));
  const draw = (view) => {
    const names = view.seats.map((s, n) => `Seat ${n} (${s.kind === "bot" ? s.policy : "person"})`);
    const shown = { ...view.observation, hands: {}, hand_counts: view.hand_counts, move_number: view.move_number };
    fill(board, h("div", { dataset: { move: String(view.move_number), over: String(view.game_over) } },
      renderTable(shown, { players: view.players, seatNames: names, me: null })),
      view.game_over ? h("div", { class: "panel" }, h("h2", { text: "Game over" }),
        scoresEl(view.scores, { final: true, seatNames: names }),
        view.replay_id ? h("p", {}, h("a", { href: `#/replay/${view.replay_id}` }, `replay ${view.replay_id}`))
                       : null) : null);
  };
  const moves = [];  // [number, seat, action], shown as whole turns
  leaveView = streamEvents(`/api/matches/${encodeURIComponent(matchId)}/events`, (name, data) => {
    if (name === "error") { showError(data.error, message); return; }
    if (name === "move") {
      moves.push([data.move.number, data.move.seat, data.move.action]);
      const turns = joinTurns(moves);
      fill(logList, ...turns.map((t, i) => turnItem(t, `S${t.seat}`,
                                                    i === turns.length - 1 && !!data.view.observation.turn)));
      logList.scrollTop = logList.scrollHeight;
    }
    draw(data.view);
  }, (error) => showError(error, message));
}

// ---- routing --------------------------------------------------------------------------------------------------------

async function route() {
  leaveView();
  leaveView = () => {};
  const { path, params } = parseHash();
  const [section, ...rest] = path.split("/");
  for (const link of document.querySelectorAll("[data-nav]")) {
    link.classList.toggle("active", link.dataset.nav === (section === "replay" || section === "" ? "replays"
                                                                                                  : section));
  }
  try {
    if (section === "replay" && rest.length) await showViewer(rest.join("/"), params);
    else if (section === "jobs" && rest.length) await showJob(rest.join("/"));
    else if (section === "jobs") showJobs();
    else if (section === "play" && rest.length) await showMatch(rest.join("/"));
    else if (section === "play") await showNewGame(params);
    else if (section === "watch" && rest.length) showWatch(rest.join("/"));
    else if (section === "live") {
      const live = window.cardtable.showLive(main, api);  // live.js
      leaveView = live.stop;
      await live.loaded;
    }
    else await showReplays(params);
  } catch (error) {
    showError(error);
  }
}

window.addEventListener("hashchange", route);
route();
})();
