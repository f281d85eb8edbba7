// The board's page: shows the frames the server sends (a picture drawn from the board's
// state, and the event log) and sends what a hand does. The picture is the server's SVG
// (web/picture.py), so this page, `doce snapshot` and a replay all show the same drawing.
// Everything a board sends is untrusted: it goes on the page as text (textContent), never as HTML.
"use strict";

const $ = (id) => document.getElementById(id);
const view = {
  socket: null,      // once open
  connection: null,  // the socket, open or opening
  frame: null,       // the last live frame
  replay: null,      // the steps of a recorded game, while one is on screen
  recorded: null,    // that game, {name, text}, to draw it again in another layout
  waiting: null,     // a placement or lift on its way: {cell, piece, sent}
  timings: [],       // ms from a click to the picture that shows it (read by make bench)
  lightTimings: [],  // ms from a click putting a die down to the picture with its light under it
  nextId: 1,
  drawn: null,       // the SVG text on screen, so an unchanged picture is not redrawn
  pieces: null,      // what a hand can put down, as the server names them ("white 4", "black blocker")
  hintId: null,      // the id of the hint request on its way
  hintFor: null,     // the state it was asked in
  hint: null,        // the hint on screen: {cells, position}, until the position changes
  relayout: false,   // the socket is closed to come back in the other layout
  saidAt: null,      // the position a reply in #message was said in: it goes when the position changes
  hintShownFor: null,  // the position #hint-answer speaks of
  formShows: null,   // the match against the board the form was last set to ("black 2")
};
window.doceTimings = view.timings;
window.doceLightTimings = view.lightTimings;
// A phone: the server draws the picture tall, the scores under the board (web/picture.py).
// The same width as board.css's @media rule.
const narrow = matchMedia("(max-width: 699px)");
const layoutQuery = () => (narrow.matches ? "?picture=tall" : "");
const LEVELS = ["a child learning", "a careful beginner", "a club player", "the strongest"];  // docs/opponent.md

function connect() {
  const socket = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws" +
                               layoutQuery());
  view.connection = socket;
  socket.onmessage = (e) => {
    const message = JSON.parse(e.data);
    if (message.type === "frame") showFrame(message);
    else if (message.type === "done" && message.id === view.hintId) showHint(message.hint);
    else if (message.type === "done" && message.said) say(message.said);
    else if (message.type === "refused" && message.id === view.hintId) {
      view.hintId = null;
      // beside the Hint button, until the position changes (from the one it came in)
      const now = view.frame && view.frame.state;
      $("hint-answer").textContent = message.message;
      view.hintShownFor = now ? answerFor(now) : null;
    } else if (message.type === "refused") {
      say(message.message);
      view.waiting = null;
    }
  };
  socket.onclose = () => {
    view.socket = null;
    if (!view.relayout) banner("The page lost its server; trying again…");
    setTimeout(connect, view.relayout ? 0 : 500);
    view.relayout = false;
  };
  socket.onopen = () => { view.socket = socket; view.relayout = false; };
}

function send(request) {
  if (!view.socket) { say("Not connected to the server yet."); return null; }
  request.id = view.nextId++;
  view.socket.send(JSON.stringify(request));
  return request.id;
}

// A reply to what the player did, beside the board: it stays until the position changes.
function say(text) {
  $("message").textContent = text || "";
  view.saidAt = view.frame && view.frame.state ? position(view.frame.state) : null;
}

function banner(text, kind) {
  $("banner").hidden = !text;
  $("banner").textContent = text || "";
  $("banner").className = kind || "";
}

// -- the live board ------------------------------------------------------------------

function showFrame(frame) {
  view.frame = frame;
  const sim = frame.sim;
  $("source").textContent = (sim ? "simulated board" : "board") +
    (frame.hello ? ": " + frame.hello.board + ", rules " + frame.hello.rules : "");
  document.querySelectorAll(".sim-only").forEach((el) => { el.hidden = !sim; });
  if (sim && !view.pieces) buildPicker(sim.pieces);
  showLog(frame.log);
  if (view.replay) return;  // a replay is on screen; "Back to the board" shows this frame
  $("play").hidden = false;
  const off = sim && !sim.power;
  if (off) banner("Power off: the board is dark. The dice stay where they are.");
  else banner(frame.problem);
  if (frame.svg && frame.svg !== view.drawn) {
    $("board").innerHTML = frame.svg;
    view.drawn = frame.svg;
  }
  $("board").classList.toggle("off", Boolean(off || frame.problem));
  // "events": worked out from the board's events, its lights as they were; "board": its own state
  $("board").dataset.from = frame.from_board ? "board" : "events";
  $("how").textContent = instruction(frame);
  showVersus(frame);
  showPutRight(frame.put_right || []);
  showScored(frame.scored);
  showRemote(frame);
  forgetOldHint();
  if (frame.state && view.saidAt && position(frame.state) !== view.saidAt) say("");
  markHint();
  timeIfShown();
}

// What to do now, in one line above the board: a next step in every mode, the match's end included.
function instruction(frame) {
  const state = frame.state;
  const sim = frame.sim;
  if (!state) return frame.problem ? "Waiting for the board…" : "";
  const mode = state.mode;
  if (mode === "match_over") {
    return sim ? "Match over. Next: New match plays another with the same players, or Start (under Play " +
                 "against the board) to play the board."
               : "Match over. Next: press the board's button for another match with the same players (twice " +
                 "quickly to swap between playing the board and playing each other).";
  }
  if (mode === "clearing") {
    return sim ? "Round over: clear the board (Clear the board, or click each piece) to start the next round."
               : "Clear the board: the next round starts when it is empty.";
  }
  if (mode === "correcting") return "Put the board right first: the words under the board say how.";
  const versus = state.versus;
  if (versus && versus.colour === state.to_move) {
    return versus.move ? (sim ? "The board has chosen: Place it puts its move down." : "Put the board's move down, as its lights show it.")
                       : "The board is thinking…";
  }
  const who = state.to_move.charAt(0).toUpperCase() + state.to_move.slice(1);
  return sim ? who + " to move: click an empty square, then a face (or the blocker). Click a piece to lift it."
             : who + " to move: move the dice on the board; this page follows it.";
}

// Asked on the page, not in a browser dialog: a new match or round loses the match or round in
// play, so the player says yes first; with nothing to lose, it is done at once.
let confirmed = null;

function ask(question, yes, action) {
  const state = view.frame && view.frame.state;
  const inPlay = state && state.mode !== "match_over" && (Object.keys(state.board).length > 0 || state.scores.length > 0);
  if (!inPlay) { action(); return; }
  confirmed = action;
  $("confirm-question").textContent = question;
  $("confirm-yes").textContent = yes;
  $("confirm").hidden = false;
  $("confirm-no").focus();
}

function showPutRight(sentences) {
  $("put-right").replaceChildren(...sentences.map((words) => {
    const li = document.createElement("li");
    li.textContent = words;
    return li;
  }));
}

// How the round that just ended was scored, part by part (doce_host/round_score.py).
function showScored(scored) {
  $("scored").hidden = !scored;
  if (!scored) return;
  const who = scored.result === "draw" ? "a draw" : scored.result + " won";
  $("scored-title").textContent = "How round " + scored.round + " was scored (" + who + ")";
  $("scored-players").replaceChildren(...["white", "black"].map((colour) => {
    const mine = scored.players[colour];
    const table = document.createElement("table");
    table.className = "score-parts";
    table.dataset.player = colour;
    const caption = table.createCaption();
    caption.textContent = colour + ": " + mine.total;
    for (const [words, points] of mine.parts) {
      const row = table.insertRow();
      row.insertCell().textContent = words;
      row.insertCell().textContent = points > 0 ? "+" + points : String(points);
    }
    return table;
  }));
}

// -- a match against the board ------------------------------------------------------------

const other = (colour) => (colour === "white" ? "black" : "white");
const position = (state) => JSON.stringify([state.round, state.mode, state.to_move, state.board]);
// What a refused hint's answer speaks of: in play, the position; between rounds, that no round is
// in play, which the round's last frames (arriving after it) do not change.
const answerFor = (state) => state.mode === "playing" ? position(state) : state.mode;

function showVersus(frame) {
  const state = frame.state;
  const versus = state && state.versus;  // absent from a board older than the field: nothing to show
  $("versus").hidden = !versus;
  $("place-move").hidden = true;
  if (!versus) return;
  const chosen = versus.colour + " " + versus.level;
  if (view.formShows !== chosen) {  // the form shows the match in play, as it was started
    view.formShows = chosen;
    $("board-colour").value = versus.colour;
    $("board-level").value = String(versus.level);
  }
  const level = LEVELS[versus.level] ? " (" + LEVELS[versus.level] + ")" : "";
  $("versus-who").textContent = "You play " + other(versus.colour) + "; the board plays " + versus.colour +
                                ", level " + versus.level + level + ".";
  const move = versus.move;
  let words = "";
  if (move) {
    const die = versus.colour + " " + move.value + " on " + move.cell;
    words = move.blocker ? "The board plays its blocker on " + move.blocker + ", then " + die + "."
                         : "The board plays " + die + ".";
    if (frame.sim && state.mode === "playing") {
      $("place-move").hidden = false;
      $("place-move").textContent = move.blocker ? "Place its blocker" : "Place it";
    }
  } else if (state.mode === "playing") {
    words = state.to_move === versus.colour ? "The board is thinking…" : "Your move (" + state.to_move + ").";
  }
  $("board-move").textContent = words;
}

// -- a match with a friend's board (docs/remote.md) ---------------------------------------------

function showRemote(frame) {
  const state = frame.state;
  const remote = state && state.remote;  // absent from a board older than the field: nothing to show
  // paired, but the match does not run on this board (out of memory starting it): who plays and a new
  // match wait till it runs, and the board refuses both (docs/remote.md)
  const paused = !remote && frame.paused;
  $("remote").hidden = !remote && !paused;
  // a match against the board would end the one with the friend: offered again once it is over
  $("against").hidden = Boolean(paused) || (Boolean(remote) && state.mode !== "match_over");
  $("new-match").hidden = Boolean(paused);
  $("new-round").hidden = Boolean(paused) || Boolean(remote);  // the board refuses both: one board alone
  $("place-friend").hidden = true;
  if (paused) {
    $("remote-who").textContent = "You play " + other(paused.colour) + " against your friend's board " + paused.peer +
      ", which plays " + paused.colour + ": the match is paused on this board.";
    $("friend-move").textContent = paused.paused.charAt(0).toUpperCase() + paused.paused.slice(1) + ".";
    return;
  }
  if (!remote) return;
  $("remote-who").textContent = "You play " + other(remote.colour) + " against your friend's board " + remote.peer +
    ", which plays " + remote.colour + (remote.connected ? "." : ": it is not connected now.");
  const move = remote.move;
  let words = "";
  if (remote.mismatch !== null) {
    words = "The two boards disagree from move " + remote.mismatch + ": play has stopped on both.";
  } else if (move) {
    const die = move.cell ? remote.colour + " " + move.value + " on " + move.cell : "";
    words = move.blocker ? "Your friend plays their blocker on " + move.blocker + (die ? ", then " + die : "") + "."
                         : "Your friend plays " + die + ".";
    if (frame.sim && state.mode === "playing") {
      $("place-friend").hidden = false;
      $("place-friend").textContent = move.blocker ? "Place their blocker" : "Place it";
    }
  } else if (state.mode === "playing") {
    words = state.to_move === remote.colour ? "Waiting for your friend's move…" : "Your move (" + state.to_move + ").";
  }
  $("friend-move").textContent = words;
}

// The move shown for the other side, put down for it: the board's own (versus) or a friend's (remote).
function placeBoardMove(side) {
  if (!side || !side.move) return;
  const move = side.move;  // its blocker first, when it plays one; then the state names its die
  const cell = move.blocker || move.cell;
  const piece = side.colour + " " + (move.blocker ? "blocker" : move.value);
  say("");
  view.waiting = {cell, piece, sent: performance.now()};
  send({do: "place", cell, piece});
}

function askHint() {
  say("");
  const state = view.frame && view.frame.state;
  if (!state) return;
  view.hintFor = state;
  view.hintId = send({do: "hint"});
  if (view.hintId) {
    $("hint-answer").textContent = "Asking the board…";
    view.hintShownFor = answerFor(state);
  }
}

function showHint(hint) {
  view.hintId = null;
  const state = view.hintFor;
  const die = hint.value + " on " + hint.cell;
  $("hint-answer").textContent = "Hint for " + state.to_move + ": " +
    (hint.blocker ? "the blocker on " + hint.blocker + ", then " + die : die) + ".";
  view.hint = {cells: [hint.blocker, hint.cell].filter(Boolean), position: position(state)};
  forgetOldHint();
  markHint();
}

function forgetOldHint() {
  const state = view.frame && view.frame.state;
  if (view.hint && (!state || position(state) !== view.hint.position)) {
    view.hint = null;  // played, or another position: the hint no longer holds
    $("hint-answer").textContent = "";
  }
  if (view.hintShownFor && (!state || answerFor(state) !== view.hintShownFor)) {
    view.hintShownFor = null;  // the answer, or why there is none, was for another position
    if (!view.hintId) $("hint-answer").textContent = "";
  }
}

function markHint() {
  const cells = view.hint && !view.replay ? view.hint.cells : [];
  document.querySelectorAll("#board .square").forEach((square) => {
    square.classList.toggle("hinted", cells.includes(square.dataset.cell));
  });
}

function playBoard() {
  const colour = $("board-colour").value;
  const level = Number($("board-level").value);
  ask("Start a new match against the board, which plays " + colour + "? The match in play ends.",
      "Yes, a new match", () => send({do: "new_match", opponent: {colour, level}}));
}

// Whose die a light is for: yellow for white, blue for black (doce/lights.py); "" for any other.
function lightOf(hex) {
  if (!hex) return "";
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
  return b > r && b > g ? "black" : g > 0.8 * r && b < 0.5 * r ? "white" : "";
}

function timeIfShown() {
  const w = view.waiting;
  if (!w) return;
  const square = document.querySelector('#board .square[data-cell="' + w.cell + '"]');
  if (!square || square.dataset.piece !== w.piece) return;
  const sent = w.sent;
  if (!w.shown) {
    w.shown = true;
    requestAnimationFrame(() => view.timings.push(performance.now() - sent));
  }
  const die = w.piece && !w.piece.endsWith(" blocker");  // a blocker has no light; a lift, none to wait for
  if (!die) view.waiting = null;
  else if (!square.dataset.problem && lightOf(square.dataset.light) === w.piece.split(" ")[0]) {
    view.waiting = null;
    requestAnimationFrame(() => view.lightTimings.push(performance.now() - sent));
  }
}

function showLog(log) {
  const list = $("log");
  list.replaceChildren(...log.slice().reverse().map((entry) => {
    const li = document.createElement("li");
    li.className = entry.kind;
    li.textContent = entry.text;
    return li;
  }));
}

// -- hands on the simulated board ---------------------------------------------------------

function onBoardClick(e) {
  const square = e.target.closest(".square");
  if (!square || view.replay || !view.frame) return;
  if (!view.frame.sim) { say("This is a real board: move its dice by hand."); return; }
  const cell = square.dataset.cell;
  say("");
  if (square.dataset.piece) {
    view.waiting = {cell, piece: "", sent: performance.now()};
    send({do: "lift", cell});
  } else {
    openPicker(cell, square);
  }
}

function openPicker(cell, square) {
  const picker = $("picker");
  $("picker-cell").textContent = cell;
  picker.dataset.cell = cell;
  const toMove = view.frame.state ? view.frame.state.to_move : "white";
  picker.querySelectorAll(".row").forEach((row) => row.classList.toggle("to-move", row.dataset.player === toMove));
  if (narrow.matches) {  // a sheet along the screen's bottom edge (board.css)
    picker.style.left = picker.style.top = "";
  } else {
    const box = square.getBoundingClientRect();
    const table = $("table").getBoundingClientRect();
    picker.style.left = Math.max(0, box.left - table.left) + "px";
    picker.style.top = (box.bottom - table.top + 4) + "px";
  }
  picker.hidden = false;
  picker.querySelector(".row.to-move button").focus();
}

function buildPicker(pieces) {
  view.pieces = pieces;
  document.querySelectorAll("#picker .row").forEach((row) => {
    for (const piece of pieces.filter((p) => p.startsWith(row.dataset.player + " "))) {
      const what = piece.slice(row.dataset.player.length + 1);
      const button = document.createElement("button");
      button.type = "button";
      button.className = "piece";
      button.textContent = what;
      button.dataset.piece = piece;
      button.setAttribute("aria-label", row.dataset.player + " " + (what === "blocker" ? "blocker" : what + " up"));
      row.append(button);
    }
  });
}

function wirePicker() {
  $("picker").addEventListener("click", (e) => {
    const button = e.target.closest("button.piece");
    if (!button) return;
    const cell = $("picker").dataset.cell;
    $("picker").hidden = true;
    view.waiting = {cell, piece: button.dataset.piece, sent: performance.now()};
    send({do: "place", cell, piece: button.dataset.piece});
  });
  $("picker-cancel").onclick = () => { $("picker").hidden = true; };
  document.addEventListener("keydown", (e) => { if (e.key === "Escape") $("picker").hidden = true; });
}

// -- replay of a recorded game --------------------------------------------------------------

async function loadReplay(file) {
  say("");
  const text = await file.text();
  $("replay-file").value = "";  // so the same file, fixed, can be chosen again
  await replay({name: file.name, text}, 0);
}

async function replay(recorded, step, again = false) {
  let answer;
  try {
    const response = await fetch("/replay" + layoutQuery(), {method: "POST", body: recorded.text,
                                                           headers: {"Content-Type": "application/json"}});
    answer = await response.json();
  } catch (error) {
    say(recorded.name + ": the server could not replay it (" + error.message + ")");
    return;
  }
  if (answer.error) { say(recorded.name + ": " + answer.error); return; }
  if (again && view.recorded !== recorded) return;  // drawn again for a new layout, but left meanwhile
  view.replay = answer.steps;
  view.recorded = recorded;
  $("step").max = String(answer.steps.length - 1);
  $("replay-controls").hidden = false;
  showStep(step);
}

function showStep(n) {
  const steps = view.replay;
  n = Math.max(0, Math.min(steps.length - 1, n));
  $("step").value = String(n);
  $("board").innerHTML = steps[n].svg;
  view.drawn = steps[n].svg;
  $("board").classList.remove("off");
  $("step-note").textContent = steps[n].note;
  $("play").hidden = true;  // the live game's words and buttons are not this picture's
  $("picker").hidden = true;
  showScored(steps[n].scored);
  savePicture(URL.createObjectURL(new Blob([steps[n].svg], {type: "image/svg+xml"})));  // the step on screen
  banner("Replay: step " + n + " of " + (steps.length - 1), "replay");
  $("how").textContent = "Step with the arrow keys or the slider; the board itself goes on meanwhile.";
  markHint();
}

function savePicture(href) {
  const link = $("save");
  if (link.href.startsWith("blob:")) URL.revokeObjectURL(link.href);
  link.href = href;
}

function leaveReplay() {
  view.replay = null;
  view.recorded = null;
  savePicture("/board.svg");
  $("replay-controls").hidden = true;
  if (view.frame) showFrame(view.frame);
}

// -- wiring -------------------------------------------------------------------------------

wirePicker();
// pointerup, not click: a blinking picture may be redrawn between press and release,
// and a click needs both on the same element.
$("board").addEventListener("pointerup", (e) => { if (e.button === 0) onBoardClick(e); });
$("new-round").onclick = () => ask("Abandon this round and play it again?", "Yes, play it again",
                                   () => send({do: "new_round"}));
$("new-match").onclick = () => ask("Start a new match for two players? The match in play ends.", "Yes, a new match",
                                   () => send({do: "new_match"}));
$("confirm-yes").onclick = () => {
  $("confirm").hidden = true;
  const action = confirmed;
  confirmed = null;
  if (action) action();
};
$("confirm-no").onclick = () => { $("confirm").hidden = true; confirmed = null; };
$("play-board").onclick = playBoard;
$("place-move").onclick = () => placeBoardMove(view.frame && view.frame.state && view.frame.state.versus);
$("place-friend").onclick = () => placeBoardMove(view.frame && view.frame.state && view.frame.state.remote);
$("hint").onclick = askHint;
$("clear").onclick = () => send({do: "clear"});
$("cut-power").onclick = () => send({do: "cut_power"});
$("press").onclick = () => send({do: "press"});
$("replay-file").onchange = (e) => { if (e.target.files.length) loadReplay(e.target.files[0]); };
$("step").oninput = (e) => showStep(Number(e.target.value));
$("step-back").onclick = () => showStep(Number($("step").value) - 1);
$("step-on").onclick = () => showStep(Number($("step").value) + 1);
$("live").onclick = leaveReplay;
document.addEventListener("keydown", (e) => {
  if (!view.replay || e.target.tagName === "INPUT") return;  // the slider steps by itself
  if (e.key === "ArrowLeft") showStep(Number($("step").value) - 1);
  if (e.key === "ArrowRight") showStep(Number($("step").value) + 1);
});
// Turned or resized across the phone's width: the other layout of the picture.
narrow.addEventListener("change", () => {
  view.drawn = null;
  view.relayout = true;
  view.connection.close();  // it comes back asking for the other layout
  if (view.replay) replay(view.recorded, Number($("step").value), true);
});
connect();
