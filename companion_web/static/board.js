// Drawing the board and the side panels from the server's state. No network here.

const SUIT = { S: "♠", H: "♥", D: "♦", C: "♣" };
const LETTER_COLOUR = { B: "blue", G: "green", R: "red", Y: "yellow" };

export function cardText(card) {
  if (card === "FREE") return "FREE";
  return card.slice(0, -1) + SUIT[card.slice(-1)];
}

// Build the 100 cells once from the printed layout (served by /api/layout from engine.layout).
export function buildBoard(root, layout, onTap) {
  root.textContent = "";
  const cells = [];
  for (let r = 0; r < layout.size; r++) {
    for (let c = 0; c < layout.size; c++) {
      const card = layout.cards[r][c];
      const ink = layout.ink[r][c];
      const cell = document.createElement("button");
      cell.className = "cell" + (card === "FREE" ? " free" : "");
      cell.dataset.cell = `${r},${c}`;
      cell.setAttribute("role", "gridcell");
      cell.setAttribute("aria-label", `${cardText(card)} row ${r + 1} column ${c + 1}`);
      const label = document.createElement("span");
      label.className = "card" + (ink ? " " + ink : "");
      label.textContent = cardText(card);
      cell.append(label);
      cell.addEventListener("click", () => onTap(r, c, card));
      root.append(cell);
      cells.push(cell);
    }
  }
  return cells;
}

// "B" -> {colour: "blue", locked: false}; "b" -> locked; "*", "." -> null.
export function parseBoard(text) {
  const rows = String(text || "").trim().split(/\r?\n/);
  return rows.map((row) => Array.from(row.trim()).map((ch) => {
    const colour = LETTER_COLOUR[ch.toUpperCase()];
    if (colour) return { colour, locked: ch !== ch.toUpperCase() };
    if (ch === "?") return { unknown: true };
    return null;
  }));
}

export function teamsOf(state) {
  const raw = state.teams || [];
  const list = Array.isArray(raw) ? raw : Object.entries(raw).map(([k, v]) => ({ colour: k, ...v }));
  return list.map((t) => ({
    colour: t.colour || t.color || t.team || t.name,
    done: t.done ?? t.sequences ?? t.completed ?? 0,
    needed: t.needed ?? t.sequences_needed ?? t.target ?? null,
  }));
}

function cellKey(cell) { return `${cell[0]},${cell[1]}`; }

// Cells of completed sequences with their team: from state.sequences, else from locked chips.
function sequenceCells(state, grid) {
  const seq = new Map();
  // The engine sends {team: [[cell x5], ...]}; a flat list of {team, cells} works too.
  const raw = state.sequences || [];
  const list = Array.isArray(raw) ? raw
    : Object.entries(raw).flatMap(([team, seqs]) => seqs.map((cells) => ({ team, cells })));
  for (const item of list) {
    const cells = Array.isArray(item) ? item : item.cells || [];
    const team = Array.isArray(item) ? null : item.team || item.colour;
    for (const cell of cells) seq.set(cellKey(cell), team);
  }
  for (const cell of state.locked || []) {
    const key = cellKey(cell);
    if (!seq.has(key)) seq.set(key, null);
  }
  grid.forEach((row, r) => row.forEach((chip, c) => {
    if (chip && chip.locked && !seq.has(`${r},${c}`)) seq.set(`${r},${c}`, chip.colour);
  }));
  return seq;
}

export function lastMoveCell(state) {
  const events = state.last_events || state.log || [];
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i];
    if (e && e.cell && ["placed", "removed", "corrected"].includes(e.type)) return cellKey(e.cell);
  }
  return null;
}

export function renderBoard(cells, state) {
  const grid = parseBoard(state.board);
  const seq = sequenceCells(state, grid);
  const last = lastMoveCell(state);
  cells.forEach((cell) => {
    const [r, c] = cell.dataset.cell.split(",").map(Number);
    const chipInfo = (grid[r] || [])[c] || null;
    let chip = cell.querySelector(".chip");
    if (chipInfo && !chipInfo.unknown) {
      if (!chip) { chip = document.createElement("span"); cell.append(chip); }
      chip.className = `chip ${chipInfo.colour}` + (chipInfo.locked ? " locked" : "");
      cell.dataset.chip = chipInfo.colour + (chipInfo.locked ? "-locked" : "");
    } else {
      if (chip) chip.remove();
      delete cell.dataset.chip;
    }
    const key = `${r},${c}`;
    const team = seq.has(key) ? seq.get(key) || (chipInfo && chipInfo.colour) : null;
    cell.classList.toggle("seq", seq.has(key));
    for (const colour of Object.values(LETTER_COLOUR)) cell.classList.toggle(colour, team === colour);
    cell.classList.toggle("last", key === last);
    cell.classList.toggle("unknown", Boolean(chipInfo && chipInfo.unknown));
  });
}

export function renderTeams(root, state) {
  root.textContent = "";
  for (const team of teamsOf(state)) {
    const box = document.createElement("div");
    box.className = `team ${team.colour}` + (state.turn === team.colour ? " turn" : "");
    box.dataset.team = team.colour;
    const name = document.createElement("div");
    name.className = "name";
    name.textContent = team.colour;
    if (state.turn === team.colour) {
      const tag = document.createElement("span");
      tag.className = "to-play";
      tag.textContent = "▶ to play";
      name.append(tag);
    }
    const score = document.createElement("div");
    score.className = "score";
    score.textContent = team.needed ? `${team.done} / ${team.needed}` : `${team.done}`;
    const unit = document.createElement("div");
    unit.textContent = "sequences";
    box.append(name, score, unit);
    root.append(box);
  }
}

export function renderCards(root, cards) {
  root.textContent = "";
  if (!cards || !cards.length) { root.textContent = "none"; return; }
  for (const card of cards) {
    const span = document.createElement("span");
    const suit = String(card).slice(-1);
    span.className = "c " + ("HD".includes(suit) ? "red" : "black");
    span.textContent = cardText(String(card));
    root.append(span);
  }
}

export function eventText(e) {
  if (e.message) return e.message;
  const where = e.cell ? ` at ${e.cell[0]},${e.cell[1]}` : "";
  return `${e.team || ""} ${e.type}${where}`.trim();
}

export function renderLog(root, events) {
  root.textContent = "";
  for (const e of (events || []).slice(-12).reverse()) {
    const li = document.createElement("li");
    li.className = e.type || "";
    li.textContent = eventText(e);
    root.append(li);
  }
}
