// The alert banner, with a beep (WebAudio, no sound files) and vibration once the page was tapped.

const PATTERNS = {
  sequence: { tones: [660, 880], vibrate: [120, 60, 120] },
  win: { tones: [523, 659, 784, 1047], vibrate: [200, 80, 200, 80, 400] },
  alert: { tones: [440, 330, 440, 330], vibrate: [400, 100, 400] },
};

export class Alerts {
  constructor(banner, text, more, close) {
    this.banner = banner; this.text = text; this.more = more;
    this.queue = [];
    this.audio = null;
    this.enabled = false;
    this.timer = null;
    close.addEventListener("click", () => this.dismiss());
  }

  // Browsers only allow sound/vibration after a user gesture: call this from a tap.
  enableSound() {
    if (this.enabled) return;
    this.enabled = true;
    const Ctx = window.AudioContext || window.webkitAudioContext;
    if (Ctx) { try { this.audio = new Ctx(); this.audio.resume(); } catch (err) { this.audio = null; } }
  }

  show(kind, message) {
    this.queue.push({ kind, message });
    this.render();
    this.beep(kind);
    if (this.enabled && navigator.vibrate) navigator.vibrate(PATTERNS[kind]?.vibrate || 200);
    clearTimeout(this.timer);
    if (kind === "sequence") this.timer = setTimeout(() => this.dismiss(), 20000);
  }

  render() {
    const top = this.queue[this.queue.length - 1];
    if (!top) { this.banner.classList.add("hidden"); return; }
    this.banner.dataset.kind = top.kind;
    this.text.textContent = top.message;
    this.more.textContent = this.queue.length > 1 ? `+${this.queue.length - 1} more` : "";
    this.banner.classList.remove("hidden");
  }

  dismiss() {
    this.queue.pop();
    this.render();
  }

  beep(kind) {
    if (!this.audio) return;
    const tones = PATTERNS[kind]?.tones || [600];
    const t0 = this.audio.currentTime;
    tones.forEach((freq, i) => {
      const osc = this.audio.createOscillator();
      const gain = this.audio.createGain();
      osc.type = kind === "alert" ? "square" : "sine";
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, t0 + i * 0.18);
      gain.gain.exponentialRampToValueAtTime(0.3, t0 + i * 0.18 + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, t0 + i * 0.18 + 0.16);
      osc.connect(gain).connect(this.audio.destination);
      osc.start(t0 + i * 0.18);
      osc.stop(t0 + i * 0.18 + 0.17);
    });
  }
}

// Which events raise the banner, and how: a completed sequence, a win, and every rule alert.
export function alertOf(event) {
  if (event.type === "sequence") return "sequence";
  if (event.type === "win") return "win";
  if (event.type === "alert") return "alert";
  return null;
}
