// The live page: one EventSource for every change, the same JSON API scripts use for actions.
import { buildBoard, renderBoard, renderCards, renderLog, renderTeams, eventText, teamsOf } from "./board.js";
import { Alerts, alertOf } from "./alerts.js";
import { Calibration } from "./calibrate.js";

const $ = (id) => document.getElementById(id);
const page = {
  layout: null, cells: [], state: null, seq: -1, csrf: null, source: null, pendingPin: null,
};
const alerts = new Alerts($("banner"), $("banner-text"), $("banner-more"), $("banner-close"));

// ---------------------------------------------------------------- API
export async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (page.csrf) headers["X-CSRF-Token"] = page.csrf;
  const response = await fetch(path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: "same-origin",
  });
  let data = {};
  try { data = await response.json(); } catch (err) { data = { error: `HTTP ${response.status}` }; }
  if (!response.ok) {
    const error = new Error(data.error || `HTTP ${response.status}`);
    error.status = response.status;
    throw error;
  }
  return data;
}

// Run a state-changing action; on 403 ask for the PIN once and retry.
export async function act(method, path, body) {
  try {
    return await api(method, path, body);
  } catch (err) {
    if (err.status !== 403) throw err;
    await askPin();
    return api(method, path, body);
  }
}

function askPin() {
  return new Promise((resolve, reject) => {
    $("pin-error").textContent = "";
    $("pin-input").value = "";
    page.pendingPin = { resolve, reject };
    $("pin-dialog").showModal();
    $("pin-input").focus();
  });
}

$("pin-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  if (ev.submitter && ev.submitter.value === "cancel") {
    $("pin-dialog").close();
    page.pendingPin?.reject(new Error("PIN entry cancelled"));
    page.pendingPin = null;
    return;
  }
  try {
    page.csrf = null;
    const data = await api("POST", "/api/login", { pin: $("pin-input").value });
    page.csrf = data.csrf;
    setLocked(false);
    $("pin-dialog").close();
    page.pendingPin?.resolve();
    page.pendingPin = null;
  } catch (err) {
    $("pin-error").textContent = err.message;
  }
});

function setLocked(locked) {
  $("lock").textContent = locked ? "Enter PIN" : "Unlocked";
  $("lock").classList.toggle("unlocked", !locked);
}

$("lock").addEventListener("click", () => { if (!page.csrf) askPin().catch(() => {}); });

// ---------------------------------------------------------------- live updates
// A silent Wi-Fi drop may never close the stream: with no update or ping for this long, reconnect.
const STALE_MS = 25000;
let lastHeard = Date.now();
setInterval(() => {
  if (Date.now() - lastHeard > STALE_MS) { lastHeard = Date.now(); setLink(false); connect(); }
}, 5000);

function connect() {
  if (page.source) page.source.close();
  const source = new EventSource("/api/events");
  page.source = source;
  source.addEventListener("update", (ev) => { lastHeard = Date.now(); onUpdate(JSON.parse(ev.data)); });
  source.addEventListener("ping", () => { lastHeard = Date.now(); });
  source.addEventListener("open", () => setLink(true));
  source.addEventListener("error", () => {
    setLink(false);
    // The browser retries by itself while CONNECTING; a refused stream (CLOSED) needs a new one.
    if (source.readyState === EventSource.CLOSED) setTimeout(connect, 3000);
  });
}

function setLink(ok) {
  document.body.dataset.connected = ok ? "yes" : "no";
  $("link").dataset.ok = ok ? "yes" : "no";
  $("link").textContent = ok ? "live" : "reconnecting…";
}

function onUpdate(msg) {
  const previous = page.state;
  const receivedAt = performance.timeOrigin + performance.now();  // ms since the epoch, sub-ms
  page.state = msg.state;
  page.seq = msg.seq;
  render(msg.state);
  if (msg.reason === "sync") missedWhileAway(previous, msg.state);
  for (const e of msg.events || []) {
    const kind = alertOf(e);
    if (kind) alerts.show(kind, eventText(e));
  }
  document.body.dataset.seq = String(msg.seq);
  window.__lastUpdate = { seq: msg.seq, sent: msg.sent, receivedAt, events: msg.events || [] };
  window.dispatchEvent(new CustomEvent("companion-update", { detail: window.__lastUpdate }));
}

// After a reconnect, the resync may show sequences or a win that happened while we were away.
function missedWhileAway(before, after) {
  if (!before) return;
  const was = Object.fromEntries(teamsOf(before).map((t) => [t.colour, t.done]));
  for (const team of teamsOf(after)) {
    if (team.done > (was[team.colour] ?? 0)) alerts.show("sequence", `${capital(team.colour)} completed a sequence`);
  }
  if (after.winner && !before.winner) alerts.show("win", `${capital(after.winner)} wins!`);
}

// Redraw a part only when its input changed: without a GPU every repaint costs the tablet.
const drawn = {};
function changed(part, value) {
  const key = JSON.stringify(value);
  if (drawn[part] === key) return false;
  drawn[part] = key;
  return true;
}

function capital(text) { return text.charAt(0).toUpperCase() + text.slice(1); }

function render(state) {
  const log = state.log || state.last_events;
  if (page.cells.length && changed("board", [state.board, state.sequences, state.locked, log?.at(-1)])) {
    renderBoard(page.cells, state);
  }
  if (changed("teams", [state.teams, state.turn])) renderTeams($("teams"), state);
  if (changed("dead", state.dead_cards)) renderCards($("dead-cards"), state.dead_cards);
  if (changed("log", log)) renderLog($("log"), log);
  const camera = state.camera || { state: "starting" };
  const status = $("camera-status");
  status.dataset.state = state.paused ? "paused" : camera.state;
  status.textContent = "camera: " + (state.paused ? "paused" : camera.state.replace("_", " "));
  const shown = state.paused ? "paused" : camera.state;
  const help = (CAMERA_HELP[shown] || "") + (camera.detail && !state.paused ? ` (${camera.detail})` : "");
  // While the board is read, a standing warning about the view (glare, cells past the picture's edge) is what to show.
  const advice = shown === "live" && camera.advice ? capital(camera.advice) : "";
  status.title = advice || help;
  $("camera-help").textContent = advice || help;
  $("camera-help").classList.toggle("hidden", !advice && ["live", "starting"].includes(shown));
  $("pause").textContent = state.paused ? "Resume" : "Pause";
  const turn = $("turn");
  turn.classList.toggle("hidden", !state.turn);
  turn.textContent = state.turn ? `${capital(state.turn)} to play` : "";
  $("store-error").classList.toggle("hidden", !state.store_error);
  $("store-error").textContent = state.store_error || "";
  const winner = $("winner");
  winner.classList.toggle("hidden", !state.winner);
  winner.textContent = state.winner ? `${capital(state.winner)} wins!` : "";
}

// What each camera state means at the table, and what to do about it.
const CAMERA_HELP = {
  starting: "Looking for the board…",
  live: "Reading the board.",
  no_board: "The board is not in view: check the camera points at the whole board.",
  occluded: "Something covers the board (a hand?): the game waits until it is clear.",
  relocking: "The board moved: finding it again.",
  camera_lost: "The camera stopped sending pictures: check its cable.",
  reconnecting: "Reconnecting to the camera…",
  frozen: "The picture has not changed at all: the camera may be stuck; unplug and replug it.",
  dark: "The picture is black: turn a light on or uncover the camera.",
  paused: "Camera paused: press Resume to read the board again.",
  ended: "The video has ended.",
};

// ---------------------------------------------------------------- corrections and controls
const LABELS = ["empty", "blue", "green", "red", "yellow", "flipped"];

function onTap(r, c, card) {
  if (card === "FREE") return;
  const teams = page.state ? teamsOf(page.state).map((t) => t.colour) : [];
  const choices = $("cell-choices");
  choices.textContent = "";
  for (const label of LABELS.filter((l) => l === "empty" || teams.includes(l) || (l === "flipped" && page.state?.edition === "jumbo"))) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = label;
    b.dataset.label = label;
    b.textContent = label;
    b.addEventListener("click", async () => {
      try {
        $("cell-error").textContent = "";
        await act("POST", "/api/correct", { cell: [r, c], label });
        $("cell-dialog").close();
      } catch (err) { $("cell-error").textContent = err.message; }
    });
    choices.append(b);
  }
  $("cell-title").textContent = `What is on ${card} (row ${r + 1}, column ${c + 1})?`;
  $("cell-error").textContent = "";
  $("cell-dialog").showModal();
}

async function control(path, button) {
  button.disabled = true;
  try { await act("POST", path); } catch (err) { alerts.show("alert", err.message); } finally { button.disabled = false; }
}
$("undo").addEventListener("click", () => control("/api/undo", $("undo")));
$("pause").addEventListener("click", () => control(page.state?.paused ? "/api/resume" : "/api/pause", $("pause")));
$("sound").addEventListener("click", () => { alerts.enableSound(); $("sound").textContent = "Sound on"; });
document.addEventListener("pointerdown", () => alerts.enableSound(), { once: true });

// ---------------------------------------------------------------- tabs
const calibration = new Calibration({ act, api, $ });
function showTab(name) {
  document.body.dataset.view = name;
  document.querySelectorAll(".tabs button").forEach((b) => b.classList.toggle("active", b.dataset.tab === name));
  document.querySelectorAll(".view").forEach((v) => v.classList.toggle("active", v.id === `view-${name}`));
  // The MJPEG stream holds a server thread: only open it while the camera tab is shown.
  const img = $("camera-img");
  if (name === "camera") img.src = `/camera/stream.mjpg?t=${Date.now()}`;
  else img.removeAttribute("src");
  if (name === "games") loadGames();
  if (name === "newgame") updateDeal();
  if (name === "calibrate") loadProfiles();
}
document.querySelectorAll(".tabs button").forEach((b) => b.addEventListener("click", () => showTab(b.dataset.tab)));

// ---------------------------------------------------------------- new game
function setupNewGame() {
  const players = $("ng-players");
  for (let n = 2; n <= 12; n++) players.append(new Option(`${n} players`, String(n)));
  players.value = "4";
  players.addEventListener("change", updateDeal);
  $("ng-teams").addEventListener("change", () => { colourPickers(); updateDeal(); });
  $("ng-edition").addEventListener("change", colourPickers);
  colourPickers();
  $("newgame-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    $("ng-error").textContent = "";
    const teams = Array.from(document.querySelectorAll("#ng-colours select")).map((s) => s.value);
    try {
      await act("POST", "/api/setup/new-game", {
        teams, players: Number(players.value), edition: $("ng-edition").value, track_turns: $("ng-turns").checked,
      });
      showTab("board");
    } catch (err) { $("ng-error").textContent = err.message; }
  });
}

function colourPickers() {
  const root = $("ng-colours");
  root.textContent = "";
  const defaults = page.layout?.edition_colours?.[$("ng-edition").value] || ["blue", "green", "red"];
  for (let i = 0; i < Number($("ng-teams").value); i++) {
    const label = document.createElement("label");
    label.textContent = `Team ${i + 1} `;
    const select = document.createElement("select");
    for (const colour of page.layout?.team_colours || defaults) select.append(new Option(colour, colour));
    select.value = defaults[i];
    label.append(select);
    root.append(label);
  }
}

let dealAsked = 0;
async function updateDeal() {
  const out = $("ng-deal");
  const asked = ++dealAsked;  // only the answer to the latest choice is shown
  try {
    const d = await api("GET", `/api/setup/deal?players=${$("ng-players").value}&teams=${$("ng-teams").value}`);
    if (asked !== dealAsked) return;
    out.textContent = `Deal ${d.cards_each} cards to each player; ${d.sequences_needed} sequence(s) to win.`;
    $("ng-error").textContent = "";
  } catch (err) {
    if (asked !== dealAsked) return;
    out.textContent = "";
    $("ng-error").textContent = err.message;
  }
}

async function loadProfiles() {
  try {
    const data = await api("GET", "/api/setup/profiles");
    $("cal-profiles").textContent = data.profiles.length ? `Saved profiles: ${data.profiles.join(", ")}` : "No profile saved yet.";
  } catch (err) { $("cal-profiles").textContent = err.message; }
}

// ---------------------------------------------------------------- past games
async function loadGames() {
  const list = $("games");
  list.textContent = "";
  try {
    const data = await api("GET", "/api/games");
    for (const g of data.games) {
      const li = document.createElement("li");
      const id = g.id ?? g.game_id;
      li.textContent = `Game ${id} · ${g.started || g.created || ""} · ${(g.teams || []).join(" vs ")} ${g.winner ? "· won by " + g.winner : ""}`;
      const a = document.createElement("a");
      a.href = `/api/games/${encodeURIComponent(id)}/export`;
      a.textContent = "export JSON";
      li.append(a);
      list.append(li);
    }
    if (!data.games.length) list.textContent = "No games yet.";
  } catch (err) { list.textContent = err.message; }
}

// ---------------------------------------------------------------- start
async function start() {
  page.layout = await api("GET", "/api/layout");
  window.__layout = page.layout;
  page.cells = buildBoard($("board"), page.layout, onTap);
  setupNewGame();
  try {
    const session = await api("GET", "/api/session");
    if (session.authenticated) { page.csrf = session.csrf; setLocked(false); }
  } catch (err) { /* viewing works without a session */ }
  if (page.state) render(page.state);
  connect();
  document.body.dataset.ready = "yes";
}
start();
