// livepush WHEP player: plain JavaScript, no build step.
// WHEPPlayer connects a <video> to a WHEP endpoint (RFC 9725-style: POST offer → 201 answer + Location,
// DELETE to leave); FrameCodeReader reads the burned-in frame code (docs/frame-code.md) for
// glass-to-glass latency; StatsMonitor publishes getStats() figures, the frame-code latency and the
// capture-time latency to window.whepStats and the DOM (web/latency.js, when the page loads it, adds
// the chart and the opt-in report to the server).
//
// The capture-time figure: abs-capture-time (the RTP header extension livepush sends to WHEP viewers)
// reaches the page as the video receiver's synchronization source `captureTimestamp`: the picture's
// capture instant on the SENDER's wall clock (NTP epoch, ms). The page takes it against its own wall
// clock (Date.now()) when the frame is shown. On one machine both are one clock; across machines the
// figure includes the offset between the two clocks (keep both on NTP). requestVideoFrameCallback's
// `captureTime` would be the natural source, but Chromium leaves it empty for this stream.
"use strict";

// Chromium leaves abs-capture-time out of its offers: ask for it on the video transceiver. True when asked.
function requestAbsCaptureTime(transceiver) {
  const uri = "http://www.webrtc.org/experiments/rtp-hdrext/abs-capture-time";
  if (!transceiver.getHeaderExtensionsToNegotiate || !transceiver.setHeaderExtensionsToNegotiate) return false;
  try {
    const extensions = transceiver.getHeaderExtensionsToNegotiate();
    if (!extensions.some((entry) => entry.uri === uri)) return false;
    transceiver.setHeaderExtensionsToNegotiate(extensions.map((entry) =>
      entry.uri === uri ? Object.assign({}, entry, { direction: "sendrecv" }) : entry));
    return true;
  } catch (_) {
    return false;
  }
}

// The shown frame's capture time (Unix ms, the sender's clock) from the receiver's synchronization
// source, or null without one. The source names the latest packet's RTP timestamp; the shown frame's
// (requestVideoFrameCallback's metadata) may be older, so the 90 kHz difference is taken off.
// `offsetMs` is Chromium's senderCaptureTimeOffset (estimated-capture-clock-offset) when present.
function captureTimeOfFrame(receiver, metadata) {
  const source = receiver && receiver.getSynchronizationSources ? receiver.getSynchronizationSources()[0] : null;
  if (!source || source.captureTimestamp === undefined || source.captureTimestamp === null) return null;
  const ntpToUnixMs = 2208988800000;
  let captureMs = source.captureTimestamp - ntpToUnixMs;
  if (metadata && metadata.rtpTimestamp !== undefined && source.rtpTimestamp !== undefined) {
    captureMs -= ((source.rtpTimestamp - metadata.rtpTimestamp) | 0) / 90; // signed, across the 2^32 wrap
  }
  const offsetMs = source.senderCaptureTimeOffset === undefined ? null : source.senderCaptureTimeOffset;
  return { captureMs, offsetMs };
}

// The last `size` figures, with their percentiles.
class LatencyWindow {
  constructor(size) { this.size = size; this.values = []; }

  push(value) {
    this.values.push(value);
    if (this.values.length > this.size) this.values.shift();
  }

  percentile(fraction) {
    if (this.values.length === 0) return null;
    const sorted = [...this.values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))];
  }
}

class WHEPPlayer {
  constructor(video, endpoint, token) {
    this.video = video;
    this.endpoint = endpoint;
    this.token = token || null;
    this.pc = null;
    this.location = null;
    // Ask for abs-capture-time (the capture-time latency); false offers what the browser offers.
    this.requestCaptureTime = true;
    // Ask for low latency (POST ?latency=low, unless the endpoint names a latency itself): the
    // server's playout-delay keeps the browser's jitter buffer to a few frames (docs/webrtc-media.md).
    // False: the browser's own jitter buffer, steadier on a jittery network, about 50 ms later.
    this.lowLatency = true;
    this.captureTimeRequested = false;
    this.videoReceiver = null;
  }

  headers(contentType) {
    const headers = {};
    if (contentType) headers["Content-Type"] = contentType;
    if (this.token) headers["Authorization"] = "Bearer " + this.token;
    return headers;
  }

  async start() {
    const pc = new RTCPeerConnection({ iceServers: [] });
    this.pc = pc;
    const video = pc.addTransceiver("video", { direction: "recvonly" });
    this.videoReceiver = video.receiver;
    if (this.requestCaptureTime) this.captureTimeRequested = requestAbsCaptureTime(video);
    pc.addTransceiver("audio", { direction: "recvonly" });
    pc.ontrack = (event) => {
      const stream = event.streams[0] || new MediaStream([event.track]);
      if (this.video.srcObject !== stream) this.video.srcObject = stream;
      this.video.play().catch(() => {});
    };
    await pc.setLocalDescription(await pc.createOffer());
    await this.gatheringComplete(2000);
    const response = await fetch(this.offerURL(), { method: "POST", headers: this.headers("application/sdp"), body: pc.localDescription.sdp });
    if (response.status !== 201) throw new Error("WHEP POST answered " + response.status + ": " + (await response.text()));
    const location = response.headers.get("Location");
    this.location = location ? new URL(location, new URL(this.endpoint, document.baseURI)).href : null;
    await pc.setRemoteDescription({ type: "answer", sdp: await response.text() });
    return pc;
  }

  offerURL() {
    const url = new URL(this.endpoint, document.baseURI);
    if (this.lowLatency && !url.searchParams.has("latency")) url.searchParams.set("latency", "low");
    return url.href;
  }

  // The offer carries every candidate (the server does not take trickled ones).
  gatheringComplete(timeoutMs) {
    const pc = this.pc;
    if (pc.iceGatheringState === "complete") return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      pc.addEventListener("icegatheringstatechange", () => {
        if (pc.iceGatheringState === "complete") { clearTimeout(timer); resolve(); }
      });
    });
  }

  async stop() {
    if (this.location) {
      await fetch(this.location, { method: "DELETE", headers: this.headers(null) }).catch(() => {});
      this.location = null;
    }
    if (this.pc) { this.pc.close(); this.pc = null; }
  }
}

// Reads the 2 × 76-block code in the top rows of a frame: frame number (32 bits), monotonic
// capture ns (64), wall-clock capture ms (48), CRC-8 (poly 0x07) over the 18 bytes before it.
class FrameCodeReader {
  constructor() {
    this.canvas = document.createElement("canvas");
    this.context = this.canvas.getContext("2d", { willReadFrequently: true });
  }

  static crc8(bytes) {
    let crc = 0;
    for (const byte of bytes) {
      crc ^= byte;
      for (let bit = 0; bit < 8; bit++) crc = crc & 0x80 ? ((crc << 1) ^ 0x07) & 0xff : (crc << 1) & 0xff;
    }
    return crc;
  }

  // { frameNumber, captureTimeNanos, wallClockMs } or null when the frame has no valid code;
  // captureTimeNanos is the capture instant on the sender's CLOCK_MONOTONIC (exact below 2^53 ns, 104 days of uptime).
  read(video) {
    const width = video.videoWidth, height = video.videoHeight;
    const size = Math.floor(width / 76);
    if (size < 2 || height < 2 * size) return null;
    this.canvas.width = width;
    this.canvas.height = 2 * size;
    this.context.drawImage(video, 0, 0, width, 2 * size, 0, 0, width, 2 * size);
    const pixels = this.context.getImageData(0, 0, width, 2 * size).data;
    const bytes = new Uint8Array(19);
    for (let i = 0; i < 152; i++) {
      const column = i % 76, row = Math.floor(i / 76);
      // Average the central half of the block.
      const x0 = column * size + Math.floor(size / 4), y0 = row * size + Math.floor(size / 4);
      const span = Math.max(1, Math.floor(size / 2));
      let sum = 0;
      for (let y = y0; y < y0 + span; y++) {
        for (let x = x0; x < x0 + span; x++) {
          const p = (y * width + x) * 4;
          sum += 0.299 * pixels[p] + 0.587 * pixels[p + 1] + 0.114 * pixels[p + 2];
        }
      }
      if (sum / (span * span) >= 128) bytes[i >> 3] |= 0x80 >> (i & 7);
    }
    // All zeros passes the CRC (initial value 0): a black band is no code, not frame 0.
    if (bytes.every((byte) => byte === 0) || FrameCodeReader.crc8(bytes.subarray(0, 18)) !== bytes[18]) return null;
    const field = (from, to) => bytes.subarray(from, to).reduce((value, byte) => value * 256 + byte, 0);
    return { frameNumber: field(0, 4), captureTimeNanos: field(4, 12), wallClockMs: field(12, 18) };
  }
}

// Samples getStats() every second, and every shown frame's code and capture time; publishes
// window.whepStats. `options.chart` (a LatencyChart) gets a point a second, `options.reporter` (a
// LatencyReporter) every figure.
class StatsMonitor {
  constructor(player, onUpdate, options) {
    this.player = player;
    this.onUpdate = onUpdate;
    this.chart = options && options.chart || null;
    this.reporter = options && options.reporter || null;
    this.reader = new FrameCodeReader();
    this.latencies = new LatencyWindow(600);
    this.captureLatencies = new LatencyWindow(600);
    this.second = { capture: [], code: [] };
    this.lastBytes = null;
    this.stats = { state: "connecting", width: 0, height: 0, fps: 0, framesDecoded: 0, bitrateKbps: 0,
                   packetsLost: 0, rttMs: null, latencyMs: null, latencyP50Ms: null, latencyP99Ms: null,
                   latencySamples: 0, frameCodesRead: 0, lastFrameNumber: null, frameOrderErrors: 0, error: null,
                   captureTimeRequested: false, captureLatencyMs: null, captureLatencyP50Ms: null,
                   captureLatencyP99Ms: null, captureLatencySamples: 0, captureTimesRead: 0, captureClockOffsetMs: null, reports: null,
                   videoWidth: 0, videoHeight: 0, nackCount: 0, retransmittedPacketsReceived: 0,
                   audioPacketsReceived: 0, audioSamplesReceived: 0, audioLevel: 0, audioConcealedSamples: 0 };
    window.whepStats = this.stats;
  }

  start() {
    this.timer = setInterval(() => this.sample().catch((error) => { this.stats.error = String(error); }), 1000);
    const video = this.player.video;
    // Both figures of a frame against one reading of the page's clock, when the frame is shown.
    const onFrame = (now, metadata) => {
      const nowMs = Date.now();
      this.readCode(nowMs);
      this.readCaptureTime(nowMs, metadata);
      if (video.requestVideoFrameCallback) video.requestVideoFrameCallback(onFrame);
    };
    if (video.requestVideoFrameCallback) video.requestVideoFrameCallback(onFrame);
    else this.codeTimer = setInterval(() => this.readCode(), 33);
    if (this.reporter) this.reporter.start();
  }

  stop() {
    clearInterval(this.timer);
    clearInterval(this.codeTimer);
    if (this.reporter) this.reporter.stop();
  }

  readCode(nowMs = Date.now()) {
    const code = this.reader.read(this.player.video);
    if (!code) return;
    const stats = this.stats;
    if (stats.lastFrameNumber !== null && code.frameNumber <= stats.lastFrameNumber) stats.frameOrderErrors++;
    stats.lastFrameNumber = code.frameNumber;
    stats.frameCodesRead++;
    const latency = nowMs - code.wallClockMs;
    stats.latencyMs = latency;
    this.latencies.push(latency);
    stats.latencyP50Ms = this.latencies.percentile(0.5);
    stats.latencyP99Ms = this.latencies.percentile(0.99);
    stats.latencySamples = this.latencies.values.length;
    this.second.code.push(latency);
    if (this.reporter) this.reporter.add("frame_code", latency);
  }

  // The capture-time figure (web/latency.js): the shown frame's abs-capture-time against this clock.
  readCaptureTime(nowMs, metadata) {
    const capture = captureTimeOfFrame(this.player.videoReceiver, metadata);
    if (!capture) return;
    const stats = this.stats;
    const latency = Math.round((nowMs - capture.captureMs) * 10) / 10;
    stats.captureTimesRead++;
    stats.captureLatencyMs = latency;
    stats.captureClockOffsetMs = capture.offsetMs;
    this.captureLatencies.push(latency);
    stats.captureLatencyP50Ms = this.captureLatencies.percentile(0.5);
    stats.captureLatencyP99Ms = this.captureLatencies.percentile(0.99);
    stats.captureLatencySamples = this.captureLatencies.values.length;
    this.second.capture.push(latency);
    if (this.reporter) this.reporter.add("capture_time", latency);
  }

  // One chart point a second: each series' median over the second.
  chartSecond() {
    const median = (values) => values.length ? [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] : null;
    if (this.chart) this.chart.add({ captureMs: median(this.second.capture), codeMs: median(this.second.code) });
    this.second = { capture: [], code: [] };
  }

  async sample() {
    const pc = this.player.pc;
    if (!pc) return;
    const stats = this.stats;
    stats.state = pc.connectionState;
    stats.captureTimeRequested = this.player.captureTimeRequested;
    this.chartSecond();
    if (this.reporter) stats.reports = Object.assign({}, this.reporter.status);
    const report = await pc.getStats();
    // As displayed: the element applies the stream's rotation (video orientation), the decoder does not.
    stats.videoWidth = this.player.video.videoWidth;
    stats.videoHeight = this.player.video.videoHeight;
    report.forEach((entry) => {
      if (entry.type === "inbound-rtp" && entry.kind === "video") {
        stats.width = entry.frameWidth || 0;
        stats.height = entry.frameHeight || 0;
        stats.fps = entry.framesPerSecond || 0;
        stats.framesDecoded = entry.framesDecoded || 0;
        stats.packetsLost = entry.packetsLost || 0;
        stats.nackCount = entry.nackCount || 0;
        stats.retransmittedPacketsReceived = entry.retransmittedPacketsReceived || 0;
        stats.rtxSsrc = entry.rtxSsrc || null;
        if (this.lastBytes) {
          const seconds = (entry.timestamp - this.lastBytes.timestamp) / 1000;
          if (seconds > 0) stats.bitrateKbps = Math.round((entry.bytesReceived - this.lastBytes.bytes) * 8 / seconds / 1000);
        }
        this.lastBytes = { bytes: entry.bytesReceived, timestamp: entry.timestamp };
      } else if (entry.type === "inbound-rtp" && entry.kind === "audio") {
        stats.audioPacketsReceived = entry.packetsReceived || 0;
        stats.audioSamplesReceived = entry.totalSamplesReceived || 0;
        stats.audioLevel = entry.audioLevel || 0;
        stats.audioConcealedSamples = entry.concealedSamples || 0;
      } else if (entry.type === "candidate-pair" && entry.nominated && entry.currentRoundTripTime !== undefined) {
        stats.rttMs = Math.round(entry.currentRoundTripTime * 1000 * 10) / 10;
      }
    });
    this.onUpdate(stats);
  }
}

// Both latency figures as one line of text, for the player page and the dashboard's preview.
function latencyText(stats) {
  const parts = [];
  if (stats.captureLatencyMs !== null) {
    parts.push("capture time " + stats.captureLatencyMs + " ms (p50 " + stats.captureLatencyP50Ms + ", p99 " + stats.captureLatencyP99Ms + ")"
      + (stats.captureClockOffsetMs === null ? "" : ", sender clock offset " + stats.captureClockOffsetMs + " ms"));
  }
  if (stats.latencyMs !== null) {
    parts.push("frame code " + stats.latencyMs + " ms (p50 " + stats.latencyP50Ms + ", p99 " + stats.latencyP99Ms + ", " + stats.latencySamples + " frames)");
  }
  return parts.length ? parts.join(" · ") : "– (no capture time or frame code)";
}

window.latencyText = latencyText;
window.WHEPPlayer = WHEPPlayer;
window.FrameCodeReader = FrameCodeReader;
window.StatsMonitor = StatsMonitor;

// The dashboard's hook (web/app.js): plays `endpoint` in `video`, or labels the slot when the
// camera has no WHEP output (404) or the connection fails.
// With a `.preview-latency` line and `.latency-chart` canvas in its `.preview-column`, it shows both
// latency figures there, and posts them back while the column's `.latency-consent` box is ticked.
window.attachWHEP = (video, endpoint, token) => {
  const player = new WHEPPlayer(video, endpoint, token);
  const label = video.parentElement && video.parentElement.querySelector(".preview-label");
  const column = video.closest(".preview-column");
  const line = column && column.querySelector(".preview-latency");
  const canvas = column && column.querySelector(".latency-chart");
  const consent = column && column.querySelector(".latency-consent");
  const withDisplay = typeof LatencyReporter === "function";
  const reporter = consent && withDisplay ? new LatencyReporter(LatencyReporter.endpointFor(endpoint), token, () => consent.checked) : null;
  const monitor = line ? new StatsMonitor(player, (stats) => { line.textContent = latencyText(stats); },
                                          { chart: canvas && withDisplay ? new LatencyChart(canvas, 60) : null, reporter }) : null;
  player.start().then(() => {
    if (label) label.textContent = "Live preview (WebRTC/WHEP)";
    if (monitor) monitor.start();
  }).catch((error) => {
    if (label) label.textContent = "No live preview: " + error.message;
  });
  return player;
};
