// The board's page: shows the frames the server sends (a picture drawn from the board's
// state, and the event log) and sends what a hand does. The picture is the server's SVG
// (web/picture.py), so this page, `doce snapshot` and a replay all show the same drawing.
"use strict";

const $ = (id) => document.getElementById(id);
const view = {
  socket: null,
  frame: null,       // the last live frame
  replay: null,      // the steps of a recorded game, while one is on screen
  waiting: null,     // a placement or lift on its way: {cell, piece, sent}
  timings: [],       // ms from a click to the picture that shows it (read by make bench)
  nextId: 1,
  drawn: null,       // the SVG text on screen, so an unchanged picture is not redrawn
  pieces: null,      // what a hand can put down, as the server names them ("white 4", "black blocker")
};
window.doceTimings = view.timings;

function connect() {
  const socket = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
  socket.onmessage = (e) => {
    const message = JSON.parse(e.data);
    if (message.type === "frame") showFrame(message);
    else if (message.type === "refused") { say(message.message); view.waiting = null; }
  };
  socket.onclose = () => {
    view.socket = null;
    banner("The page lost its server; trying again…");
    setTimeout(connect, 500);
  };
  socket.onopen = () => { view.socket = socket; };
}

function send(request) {
  if (!view.socket) { say("Not connected to the server yet."); return; }
  request.id = view.nextId++;
  view.socket.send(JSON.stringify(request));
}

function say(text) { $("message").textContent = text || ""; }

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
  const off = sim && !sim.power;
  if (off) banner("Power off: the board is dark. The dice stay where they are.");
  else banner(frame.problem);
  if (frame.svg && frame.svg !== view.drawn) {
    $("board").innerHTML = frame.svg;
    view.drawn = frame.svg;
  }
  $("board").classList.toggle("off", Boolean(off || frame.problem));
  $("hint").textContent = sim ? "Click an empty square to put a die or blocker down; click a piece to lift it."
                              : "Move the dice on the board; this page follows it.";
  timeIfShown();
}

function timeIfShown() {
  const w = view.waiting;
  if (!w) return;
  const square = document.querySelector('#board .square[data-cell="' + w.cell + '"]');
  if (square && square.dataset.piece === w.piece) {
    view.waiting = null;
    requestAnimationFrame(() => view.timings.push(performance.now() - w.sent));
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
  const box = square.getBoundingClientRect();
  const table = $("table").getBoundingClientRect();
  picker.style.left = Math.max(0, box.left - table.left) + "px";
  picker.style.top = (box.bottom - table.top + 4) + "px";
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
  let answer;
  try {
    const response = await fetch("/replay", {method: "POST", body: text, headers: {"Content-Type": "application/json"}});
    answer = await response.json();
  } catch (error) {
    say(file.name + ": the server could not replay it (" + error.message + ")");
    return;
  }
  if (answer.error) { say(file.name + ": " + answer.error); return; }
  view.replay = answer.steps;
  $("step").max = String(answer.steps.length - 1);
  $("replay-controls").hidden = false;
  showStep(0);
}

function showStep(n) {
  const steps = view.replay;
  n = Math.max(0, Math.min(steps.length - 1, n));
  $("step").value = String(n);
  $("board").innerHTML = steps[n].svg;
  view.drawn = steps[n].svg;
  $("board").classList.remove("off");
  $("step-note").textContent = steps[n].note;
  savePicture(URL.createObjectURL(new Blob([steps[n].svg], {type: "image/svg+xml"})));  // the step on screen
  banner("Replay: step " + n + " of " + (steps.length - 1), "replay");
  $("hint").textContent = "Step with the arrow keys or the slider; the board itself goes on meanwhile.";
}

function savePicture(href) {
  const link = $("save");
  if (link.href.startsWith("blob:")) URL.revokeObjectURL(link.href);
  link.href = href;
}

function leaveReplay() {
  view.replay = null;
  savePicture("/board.svg");
  $("replay-controls").hidden = true;
  if (view.frame) showFrame(view.frame);
}

// -- wiring -------------------------------------------------------------------------------

wirePicker();
// pointerup, not click: a blinking picture may be redrawn between press and release,
// and a click needs both on the same element.
$("board").addEventListener("pointerup", (e) => { if (e.button === 0) onBoardClick(e); });
$("new-round").onclick = () => { if (confirm("Abandon this round and play it again?")) send({do: "new_round"}); };
$("new-match").onclick = () => { if (confirm("Start a new match?")) send({do: "new_match"}); };
$("clear").onclick = () => send({do: "clear"});
$("cut-power").onclick = () => send({do: "cut_power"});
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
connect();
