// livepush viewer latency display: plain JavaScript, no build step (docs/capture-time.md).
// LatencyChart draws the page's two glass-to-glass figures (whep.js measures them: StatsMonitor) over
// the last minute; LatencyReporter posts them back to the server, only while the viewer consents.
// Only the classes below are global: pages and test scripts share the script scope.
"use strict";

// A small rolling chart of the last `seconds` (one point a second per series) on a <canvas>.
class LatencyChart {
  constructor(canvas, seconds) {
    this.canvas = canvas;
    this.seconds = seconds || 60;
    this.points = []; // { captureMs, codeMs } per second, null where a series had no figure
  }

  add(point) {
    this.points.push(point);
    if (this.points.length > this.seconds) this.points.shift();
    this.draw();
  }

  draw() {
    const canvas = this.canvas, context = canvas.getContext("2d");
    const width = canvas.width, height = canvas.height;
    context.clearRect(0, 0, width, height);
    const values = this.points.flatMap((point) => [point.captureMs, point.codeMs]).filter((value) => value !== null);
    if (values.length === 0) return;
    const top = Math.max(50, ...values) * 1.2;
    context.fillStyle = "#888";
    context.font = "10px sans-serif";
    context.fillText(Math.round(top) + " ms", 2, 10);
    const series = [["captureMs", "#2a7ae2"], ["codeMs", "#e2802a"]];
    for (const [key, color] of series) {
      context.strokeStyle = color;
      context.beginPath();
      let drawing = false;
      this.points.forEach((point, index) => {
        const value = point[key];
        if (value === null) { drawing = false; return; }
        const x = width - (this.points.length - 1 - index) * width / (this.seconds - 1);
        const y = height - value / top * height;
        if (drawing) context.lineTo(x, y); else context.moveTo(x, y);
        drawing = true;
      });
      context.stroke();
    }
  }
}

// Posts the page's figures to the server every `intervalMs`, only while `consent()` is true (the
// page's opt-in box, off by default): `{consent, viewer, clock, latencies_ms}`, the capture-time
// figures when there are any, else the frame-code ones. Only to the page's own origin (the server
// refuses others); a random viewer id per page, nothing else about the viewer.
class LatencyReporter {
  constructor(endpoint, token, consent, intervalMs) {
    this.endpoint = endpoint;
    this.token = token || null;
    this.consent = consent;
    this.intervalMs = intervalMs || 5000;
    this.viewer = Array.from(crypto.getRandomValues(new Uint8Array(12)), (byte) => byte.toString(16).padStart(2, "0")).join("");
    this.pending = { capture_time: [], frame_code: [] };
    this.status = { sent: 0, refused: 0, last: null };
  }

  // The report URL beside a WHEP endpoint: /whep/CAMERA → /api/cameras/CAMERA/viewer-latency
  // (livepush serve), …/whep → …/api/viewer-latency (stream --web); null on another origin.
  static endpointFor(whepEndpoint) {
    const url = new URL(whepEndpoint, document.baseURI);
    if (url.origin !== location.origin) return null;
    const camera = url.pathname.match(/^(.*)\/whep\/([^/]+)$/);
    url.pathname = camera ? camera[1] + "/api/cameras/" + camera[2] + "/viewer-latency" : url.pathname.replace(/whep\/?$/, "api/viewer-latency");
    url.search = "";
    return url.href;
  }

  add(clock, latencyMs) {
    if (!this.consent() || !(latencyMs >= 0 && latencyMs <= 60000)) return;
    const list = this.pending[clock];
    list.push(Math.round(latencyMs * 10) / 10);
    if (list.length > 300) list.shift();
  }

  start() { this.timer = setInterval(() => this.send(), this.intervalMs); }

  stop() { clearInterval(this.timer); }

  async send() {
    const clock = this.pending.capture_time.length ? "capture_time" : "frame_code";
    const latencies = this.pending[clock];
    this.pending = { capture_time: [], frame_code: [] };
    if (!this.consent() || latencies.length === 0 || !this.endpoint) return;
    const headers = { "Content-Type": "application/json" };
    if (this.token) headers["Authorization"] = "Bearer " + this.token;
    try {
      const response = await fetch(this.endpoint, { method: "POST", headers,
        body: JSON.stringify({ consent: true, viewer: this.viewer, clock, latencies_ms: latencies }) });
      if (response.ok) this.status.sent++; else this.status.refused++;
      this.status.last = response.status;
    } catch (error) {
      this.status.refused++;
      this.status.last = String(error);
    }
  }
}

window.LatencyChart = LatencyChart;
window.LatencyReporter = LatencyReporter;
