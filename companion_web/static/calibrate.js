// Calibration wizard: snapshot, draggable corners (pointer events), orientation, test read, save.

const SVG = "http://www.w3.org/2000/svg";
const DOT = { blue: "#1f5fd1", green: "#1c9a48", red: "#d7263d", yellow: "#f2c230", empty: "#ffffff",
  free: "#b8a66a", flipped: "#eeeeee", unknown: "#888888" };

// Homography mapping the unit square's corners (0,0),(1,0),(1,1),(0,1) onto quad q (TL, TR, BR, BL).
export function squareToQuad(q) {
  const [[x0, y0], [x1, y1], [x2, y2], [x3, y3]] = q;
  const dx1 = x1 - x2, dx2 = x3 - x2, dx3 = x0 - x1 + x2 - x3;
  const dy1 = y1 - y2, dy2 = y3 - y2, dy3 = y0 - y1 + y2 - y3;
  const den = dx1 * dy2 - dx2 * dy1 || 1e-9;
  const g = (dx3 * dy2 - dx2 * dy3) / den, h = (dx1 * dy3 - dx3 * dy1) / den;
  const a = x1 - x0 + g * x1, b = x3 - x0 + h * x3, c = x0;
  const d = y1 - y0 + g * y1, e = y3 - y0 + h * y3, f = y0;
  return (u, v) => { const w = g * u + h * v + 1; return [(a * u + b * v + c) / w, (d * u + e * v + f) / w]; };
}

function el(name, attrs, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.append(node);
  return node;
}

export class Calibration {
  constructor({ act, api, $ }) {
    this.act = act; this.api = api; this.$ = $;
    this.svg = $("cal-svg");
    this.corners = null; this.size = null; this.labels = null; this.teachCells = null; this.teaching = false;
    $("cal-snap").addEventListener("click", () => this.snap());
    $("cal-rotate").addEventListener("click", () => this.rotate());
    $("cal-test").addEventListener("click", () => this.test());
    $("cal-teach").addEventListener("click", () => this.teach());
    $("cal-save").addEventListener("click", () => this.save());
  }

  say(text) { this.$("cal-msg").textContent = text; }

  async snap() {
    this.say("Taking a snapshot…");
    try {
      const d = await this.act("POST", "/api/setup/calibration/snapshot");
      this.size = [d.width, d.height];
      const [w, h] = this.size;
      this.corners = d.corners || [[w * 0.2, h * 0.2], [w * 0.8, h * 0.2], [w * 0.8, h * 0.8], [w * 0.2, h * 0.8]];
      this.teachCells = d.teach_cells || {};
      this.labels = null;
      const img = this.$("cal-img");
      await new Promise((resolve) => { img.onload = resolve; img.onerror = resolve; img.src = `/api/setup/calibration/snapshot.jpg?t=${Date.now()}`; });
      this.svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
      this.$("cal-stage").classList.remove("hidden");
      for (const id of ["cal-rotate", "cal-test", "cal-teach", "cal-save"]) this.$(id).disabled = false;
      this.say(d.corners ? "Grid found. Check the corners and the card names, then save."
        : `Grid not found (${d.reason || "no board"}); drag the handles onto the board's corners.`);
      this.draw();
    } catch (err) { this.say(err.message); }
  }

  rotate() {
    const q = this.corners;
    this.corners = [q[3], q[0], q[1], q[2]];
    this.labels = null;
    this.draw();
  }

  async test() {
    try {
      const d = await this.act("POST", "/api/setup/calibration/test", { corners: this.corners });
      this.labels = d.labels;
      if (d.corners) this.corners = d.corners;  // the handles go where the grid was read
      this.say(d.message || "Read done: the dots show what each cell holds.");
      this.draw();
    } catch (err) { this.say(err.message); }
  }

  async teach() {
    if (!this.teaching) {
      this.teaching = true;
      this.$("cal-teach").textContent = "Capture colours";
      const where = Object.entries(this.teachCells).map(([team, [r, c]]) => `${team} on row ${r + 1}, column ${c + 1}`);
      this.say(`Put one chip: ${where.join("; ")}. Then press Capture colours.`);
      this.draw();
      return;
    }
    try {
      const d = await this.act("POST", "/api/setup/calibration/colours", { corners: this.corners });
      this.say(d.message || "Colours learned.");
      this.teaching = false;
      this.$("cal-teach").textContent = "Teach colours";
      this.draw();
    } catch (err) { this.say(err.message); }
  }

  async save() {
    try {
      const d = await this.act("POST", "/api/setup/calibration/save", { name: this.$("cal-name").value, corners: this.corners });
      this.say(`Saved profile “${d.name}”. ${d.message || ""}`);
      document.body.dataset.savedProfile = d.name;
    } catch (err) { this.say(err.message); }
  }

  draw() {
    const svg = this.svg;
    svg.textContent = "";
    if (!this.corners) return;
    const [w, h] = this.size;
    const H = squareToQuad(this.corners);
    const at = (r, c) => H(c / 10, r / 10);
    const stroke = Math.max(1, Math.max(w, h) / 500);
    const grid = el("g", { class: "grid", "stroke-width": stroke }, svg);
    for (let i = 0; i <= 10; i++) {
      const [ax, ay] = at(i, 0), [bx, by] = at(i, 10);
      el("line", { x1: ax, y1: ay, x2: bx, y2: by }, grid);
      const [cx, cy] = at(0, i), [dx, dy] = at(10, i);
      el("line", { x1: cx, y1: cy, x2: dx, y2: dy }, grid);
    }
    const layout = this.layout || window.__layout;
    const side = Math.hypot(this.corners[1][0] - this.corners[0][0], this.corners[1][1] - this.corners[0][1]);
    const font = Math.max(8, side / 10 * 0.32);
    for (let r = 0; r < 10; r++) {
      for (let c = 0; c < 10; c++) {
        const [x, y] = at(r + 0.5, c + 0.5);
        if (this.labels) {
          el("circle", { cx: x, cy: y, r: font * 0.7, fill: DOT[this.labels[r][c]] || "#888", stroke: "#000" }, svg);
        } else if (layout) {
          const t = el("text", { x, y, "font-size": font, "text-anchor": "middle", "dominant-baseline": "middle" }, svg);
          t.textContent = layout.cards[r][c] === "FREE" ? "★" : layout.cards[r][c];
        }
      }
    }
    if (this.teaching) {
      for (const [team, [r, c]] of Object.entries(this.teachCells)) {
        const [x, y] = at(r + 0.5, c + 0.5);
        el("circle", { class: "teach", cx: x, cy: y, r: font * 1.6, stroke: DOT[team], "stroke-width": stroke * 3 }, svg);
      }
    }
    const radius = Math.max(w, h) / 40;
    this.corners.forEach(([x, y], i) => {
      const handle = el("circle", { class: "handle" + (i === 0 ? " origin" : ""), cx: x, cy: y, r: radius,
        "stroke-width": stroke * 2, "data-corner": String(i) }, svg);
      this.dragHandle(handle, i);
    });
    const [ox, oy] = this.corners[0];
    const t = el("text", { x: ox, y: oy - radius * 1.3, "font-size": font * 1.6, "text-anchor": "middle" }, svg);
    t.textContent = "(0,0)";
  }

  dragHandle(handle, index) {
    const toSvg = (ev) => {
      const pt = this.svg.createSVGPoint();
      pt.x = ev.clientX; pt.y = ev.clientY;
      const p = pt.matrixTransform(this.svg.getScreenCTM().inverse());
      const [w, h] = this.size;
      return [Math.min(Math.max(p.x, 0), w), Math.min(Math.max(p.y, 0), h)];
    };
    handle.addEventListener("pointerdown", (ev) => {
      ev.preventDefault();
      handle.setPointerCapture(ev.pointerId);
      const move = (e) => {
        this.corners[index] = toSvg(e);
        handle.setAttribute("cx", this.corners[index][0]);
        handle.setAttribute("cy", this.corners[index][1]);
      };
      const up = (e) => {
        move(e);
        handle.removeEventListener("pointermove", move);
        handle.removeEventListener("pointerup", up);
        handle.removeEventListener("pointercancel", up);
        this.labels = null;
        this.draw();
      };
      handle.addEventListener("pointermove", move);
      handle.addEventListener("pointerup", up);
      handle.addEventListener("pointercancel", up);
    });
  }
}
