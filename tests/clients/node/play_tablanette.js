// A Node.js client of the cardtable gRPC API: creates a match of the game's default player count (Tablanette unless
// another game id is given) with itself in seat 0 and greedy bots in the other seats, plays it to the end with legal
// moves, then streams its replay. Prints one JSON line with
// what happened; exits non-zero on any failure.
//
//   node play_tablanette.js 127.0.0.1:50051 [seed] [game id]
//
// The stubs are built at run time from protos/ by @grpc/proto-loader: no generated code is committed.
"use strict";

const path = require("node:path");
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");

const PROTO_ROOT = path.resolve(__dirname, "..", "..", "..", "protos");

function loadApi() {
  const definition = protoLoader.loadSync(
    ["cardtable/v1/game_service.proto", "cardtable/v1/replay_service.proto"],
    { includeDirs: [PROTO_ROOT], keepCase: true, longs: String, enums: String, defaults: true, oneofs: true },
  );
  return grpc.loadPackageDefinition(definition).cardtable.v1;
}

// Promise form of a unary call.
function call(client, method, request) {
  return new Promise((resolve, reject) => {
    client[method](request, (error, response) => (error ? reject(error) : resolve(response)));
  });
}

// Collects every message of a server stream.
function collect(stream) {
  return new Promise((resolve, reject) => {
    const messages = [];
    stream.on("data", (message) => messages.push(message));
    stream.on("error", reject);
    stream.on("end", () => resolve(messages));
  });
}

// A small seeded generator (mulberry32), so a run can be repeated.
function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function main() {
  const target = process.argv[2] || process.env.CARDTABLE_TARGET || "127.0.0.1:50051";
  const seed = Number(process.argv[3] || 7);
  const gameId = process.argv[4] || "tablanette";
  const api = loadApi();
  const credentials = grpc.credentials.createInsecure();
  const games = new api.GameService(target, credentials);
  const replays = new api.ReplayService(target, credentials);
  const random = seededRandom(seed);

  const info = await call(games, "GetGameInfo", { game_id: gameId });
  const bots = Array.from({ length: info.players - 1 }, () => ({ kind: "SEAT_KIND_BOT", policy: "greedy" }));
  const created = await call(games, "CreateGame", {
    game_id: gameId,
    seed: String(seed),
    seats: [{ kind: "SEAT_KIND_PERSON" }, ...bots],
  });
  const token = created.seat_tokens[0].token;
  const seat = created.seat_tokens[0].seat;
  const matchId = created.match_id;
  let moves = created.moves.length;
  let acts = 0;
  let view = (await call(games, "GetObservation", { match_id: matchId, seat, seat_token: token })).view;
  const hand = JSON.parse(view.json).hand;
  if (!Array.isArray(hand) || hand.length === 0) throw new Error(`no hand in seat ${seat}'s view: ${view.json}`);

  let replayId = "";
  while (!view.game_over) {
    const legal = view.legal_actions;
    if (legal.length === 0) throw new Error(`seat ${seat} is to act but has no legal action: ${view.json}`);
    const action = legal[Math.floor(random() * legal.length)];
    const answer = await call(games, "Act", {
      match_id: matchId, seat, seat_token: token, action, expected_move_number: view.move_number,
    });
    acts += 1;
    moves += answer.moves.length;
    if (answer.moves[0].action !== action) throw new Error(`played ${action} but the server says ${answer.moves[0].action}`);
    view = answer.view;
    replayId = answer.replay_id;
  }
  if (view.move_number !== moves) throw new Error(`the match has ${view.move_number} moves, the client saw ${moves}`);
  if (!replayId) throw new Error("the finished match has no replay id");

  const steps = await collect(replays.StreamReplay({ replay_id: replayId, perspective: "PERSPECTIVE_SEAT", seat }));
  const streamed = steps.filter((step) => step.move !== null).map((step) => step.move.action);
  if (streamed.length !== moves) throw new Error(`the replay streams ${streamed.length} moves, the match had ${moves}`);
  const last = steps[steps.length - 1].view;
  if (!last.game_over || last.scores.join() !== view.scores.join()) {
    throw new Error(`the replay ends with scores ${last.scores}, the match with ${view.scores}`);
  }

  console.log(JSON.stringify({
    game: gameId, players: info.players, match_id: matchId, replay_id: replayId, moves, acts, scores: view.scores.map(Number),
    winners: view.winners, streamed_moves: streamed.length,
  }));
  games.close();
  replays.close();
}

main().catch((error) => {
  // One line: a gRPC error's details and status (the server's message), else the error's; the stack with NODE_DEBUG.
  const said = error.code !== undefined && error.details ? `${error.details} (gRPC status ${error.code})` : error.message;
  console.error(`cardtable node client failed: ${process.env.NODE_DEBUG ? error.stack : said || error}`);
  process.exit(1);
});
