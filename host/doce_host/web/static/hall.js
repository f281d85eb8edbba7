// The tournament screen's script (doce fleet web, fleet/tournament.py). Two jobs:
// - news: ask for what changed since the version shown, put it in place, ask again at once (the
//   server answers when a board has said something): the changed boards' tiles and the standings;
// - the hall's layout: each board as large as the screen allows, never under MIN_BOARD px wide,
//   as many to a page as fit, the standings beside them (narrow, if that is what it takes); more
//   boards than that, or no room beside them for the standings, and the screen pages through them
//   (and the standings, once there are any), ROTATE_S seconds a page.
// Every word in the HTML is the server's, escaped there (boards' and the CSV's words are untrusted).
"use strict";
(function () {
  const MIN_BOARD = 400;  // px: a board's dice, lights and score read from 3 m
  const ASIDE = 440;      // px the standings and pairings need beside the boards
  const NARROW = 200;     // px the standings alone need, narrow (hall.css: aside.narrow), beside eight boards
  const ROTATE_S = 15;
  const GAP = 10, PAD = 8;  // as hall.css
  const source = document.body.getAttribute("data-source");
  const main = document.getElementById("room");
  const hall = {page: 0, pages: 1, rotating: true, shown: null};
  window.doceHall = hall;  // what the tests read: the layout chosen

  // -- news --------------------------------------------------------------------------------
  let since = -1;
  function patch(text) {  // the tiles of the boards that changed, and the standings
    const part = document.createElement("template");
    part.innerHTML = text;
    const boards = main.querySelector(".boards");
    part.content.querySelectorAll(".tile").forEach((tile) => {
      const id = tile.getAttribute("data-board");
      const shown = Array.prototype.find.call(boards.children, (t) => t.getAttribute("data-board") === id);
      if (shown) shown.replaceWith(tile); else boards.appendChild(tile);
    });
    const aside = part.content.querySelector("aside");
    if (aside) main.querySelector("aside").replaceWith(aside);
  }
  function refresh() {
    let changed = false;
    fetch(source + "?since=" + since, {cache: "no-store"}).then((r) => {
      if (!r.ok) throw new Error(r.status);
      since = r.headers.get("X-Version");
      changed = r.headers.get("X-Part") === "changed" && main.querySelector(".boards");
      return r.text();
    }).then((text) => {
      if (changed) patch(text); else main.innerHTML = text;
      document.body.classList.remove("stale");
      layout();
      refresh();
    }).catch(() => {
      document.body.classList.add("stale");
      setTimeout(refresh, 1000);
    });
  }

  // -- the hall's layout ---------------------------------------------------------------------
  function best(tiles, width, height, extraW, extraH) {
    let chosen = null;
    for (let cols = 1; cols <= tiles; cols++) {
      for (let rows = 1; rows <= tiles; rows++) {
        const fit = Math.floor(Math.min((width - (cols - 1) * GAP) / cols - extraW,
                                        (height - (rows - 1) * GAP) / rows - extraH));
        const n = Math.min(tiles, cols * rows);
        if (fit >= MIN_BOARD && (!chosen || n > chosen.n || (n === chosen.n && fit > chosen.fit))) {
          chosen = {cols, rows, n, fit};
        }
      }
    }
    return chosen;
  }

  function layout() {
    const boards = main.querySelector(".boards");
    const aside = main.querySelector("aside");
    if (!boards || !aside || document.body.classList.contains("one-board")) return;
    const tiles = Array.from(boards.querySelectorAll(".tile"));
    tiles.forEach((t) => { t.hidden = false; });
    aside.hidden = false;
    document.body.classList.remove("paged");
    boards.hidden = false;
    if (innerWidth < 700 || !tiles.length) {  // a phone, or no boards: one column, scrolled
      boards.style.removeProperty("--board");
      boards.style.removeProperty("grid-template-columns");
      hall.pages = 1;
      hall.shown = {phone: innerWidth < 700};
      pager();
      return;
    }
    const probe = tiles[0], picture = probe.querySelector(".picture");
    const extraW = probe.offsetWidth - picture.offsetWidth, extraH = probe.offsetHeight - picture.offsetHeight;
    const width = innerWidth - 2 * PAD, height = innerHeight - document.querySelector("header").offsetHeight - 2 * PAD;
    // all the boards and the standings at once, if the standings fit the screen's height too: with the
    // pairings if there is room for them, else the standings alone, narrow (the tiles name the players)
    let chosen = null, beside = false;
    for (const [room, narrow] of [[ASIDE, false], [NARROW, true]]) {
      aside.classList.toggle("narrow", narrow);
      chosen = best(tiles.length, width - room - GAP, height, extraW, extraH);
      beside = Boolean(chosen && chosen.n === tiles.length && aside.offsetHeight <= height);
      if (beside) break;
    }
    if (!beside) {
      aside.classList.remove("narrow");
      chosen = best(tiles.length, width, height, extraW, extraH);
    }
    if (!chosen) chosen = {cols: 1, rows: 1, n: 1, fit: MIN_BOARD};  // a small window: one board a page
    boards.style.setProperty("--board", chosen.fit + "px");
    boards.style.gridTemplateColumns = "repeat(" + chosen.cols + ", auto)";
    const boardPages = Math.ceil(tiles.length / chosen.n);
    const rows = Array.from(aside.querySelectorAll("tbody tr"));
    const tablePages = beside || aside.hasAttribute("data-empty") ? 0 : tablesPaged(aside, height, rows);
    hall.pages = boardPages + tablePages;
    hall.page = Math.min(hall.page, hall.pages - 1);
    hall.shown = {cols: chosen.cols, rows: chosen.rows, perPage: chosen.n, board: chosen.fit, beside,
                  narrow: aside.classList.contains("narrow")};
    if (hall.page < boardPages) {
      tiles.forEach((t, i) => { t.hidden = Math.floor(i / chosen.n) !== hall.page; });
      aside.hidden = !beside;
    } else {  // the standings' and pairings' own pages: their rows, as many as fit
      boards.hidden = true;
      document.body.classList.add("paged");
      const first = (hall.page - boardPages) * hall.tableRows;
      aside.querySelectorAll("tbody").forEach((body) => {
        Array.from(body.rows).forEach((r, i) => { r.hidden = i < first || i >= first + hall.tableRows; });
      });
    }
    pager();
  }

  // How many pages the standings and pairings take on their own, as many rows a page as fit.
  function tablesPaged(aside, height, rows) {
    document.body.classList.add("paged");
    document.querySelector(".boards").hidden = true;
    rows.forEach((r) => { r.hidden = false; });
    const tallest = Math.max(...Array.from(aside.querySelectorAll("section")).map((s) => s.offsetHeight));
    const rowHeight = rows.length ? rows[0].offsetHeight : 1;
    const most = Math.max(...Array.from(aside.querySelectorAll("tbody")).map((b) => b.rows.length), 1);
    const around = tallest - most * rowHeight;  // headings, the key
    hall.tableRows = Math.max(1, Math.floor((height - around) / rowHeight));
    document.querySelector(".boards").hidden = false;
    document.body.classList.remove("paged");
    return Math.ceil(most / hall.tableRows);
  }

  function pager() {
    const nav = document.getElementById("pager");
    nav.hidden = hall.pages < 2;
    document.getElementById("page-at").textContent = "page " + (hall.page + 1) + " of " + hall.pages;
    document.getElementById("rotate").textContent = hall.rotating ? "Pause" : "Rotate";
    document.getElementById("rotate").setAttribute("aria-pressed", String(hall.rotating));
  }

  function turn(by) {
    hall.page = (hall.page + by + hall.pages) % hall.pages;
    layout();
  }

  if (!document.body.classList.contains("one-board")) {
    document.getElementById("page-back").onclick = () => turn(-1);
    document.getElementById("page-on").onclick = () => turn(1);
    document.getElementById("rotate").onclick = () => { hall.rotating = !hall.rotating; pager(); };
    setInterval(() => { if (hall.rotating && hall.pages > 1) turn(1); }, ROTATE_S * 1000);
    addEventListener("resize", layout);
    layout();
  }
  refresh();
})();
