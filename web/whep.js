// livepush WHEP player: plain JavaScript, no build step.
// WHEPPlayer connects a <video> to a WHEP endpoint (RFC 9725-style: POST offer → 201 answer + Location,
// DELETE to leave); FrameCodeReader reads the burned-in frame code (docs/frame-code.md) for
// glass-to-glass latency; StatsMonitor publishes getStats() figures to window.whepStats and the DOM.
"use strict";

class WHEPPlayer {
  constructor(video, endpoint, token) {
    this.video = video;
    this.endpoint = endpoint;
    this.token = token || null;
    this.pc = null;
    this.location = null;
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
    pc.addTransceiver("video", { direction: "recvonly" });
    pc.addTransceiver("audio", { direction: "recvonly" });
    pc.ontrack = (event) => {
      const stream = event.streams[0] || new MediaStream([event.track]);
      if (this.video.srcObject !== stream) this.video.srcObject = stream;
      this.video.play().catch(() => {});
    };
    await pc.setLocalDescription(await pc.createOffer());
    await this.gatheringComplete(2000);
    const response = await fetch(this.endpoint, { method: "POST", headers: this.headers("application/sdp"), body: pc.localDescription.sdp });
    if (response.status !== 201) throw new Error("WHEP POST answered " + response.status + ": " + (await response.text()));
    const location = response.headers.get("Location");
    this.location = location ? new URL(location, new URL(this.endpoint, document.baseURI)).href : null;
    await pc.setRemoteDescription({ type: "answer", sdp: await response.text() });
    return pc;
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

function percentile(sorted, fraction) {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))];
}

// Samples getStats() every second and every decoded frame's code; publishes window.whepStats.
class StatsMonitor {
  constructor(player, onUpdate) {
    this.player = player;
    this.onUpdate = onUpdate;
    this.reader = new FrameCodeReader();
    this.latencies = [];
    this.lastBytes = null;
    this.stats = { state: "connecting", width: 0, height: 0, fps: 0, framesDecoded: 0, bitrateKbps: 0,
                   packetsLost: 0, rttMs: null, latencyMs: null, latencyP50Ms: null, latencyP99Ms: null,
                   latencySamples: 0, frameCodesRead: 0, lastFrameNumber: null, frameOrderErrors: 0, error: null,
                   videoWidth: 0, videoHeight: 0, nackCount: 0, retransmittedPacketsReceived: 0,
                   audioPacketsReceived: 0, audioSamplesReceived: 0, audioLevel: 0, audioConcealedSamples: 0 };
    window.whepStats = this.stats;
  }

  start() {
    this.timer = setInterval(() => this.sample().catch((error) => { this.stats.error = String(error); }), 1000);
    const video = this.player.video;
    const onFrame = () => {
      this.readCode();
      if (video.requestVideoFrameCallback) video.requestVideoFrameCallback(onFrame);
    };
    if (video.requestVideoFrameCallback) video.requestVideoFrameCallback(onFrame);
    else this.codeTimer = setInterval(() => this.readCode(), 33);
  }

  stop() {
    clearInterval(this.timer);
    clearInterval(this.codeTimer);
  }

  readCode() {
    const code = this.reader.read(this.player.video);
    if (!code) return;
    const stats = this.stats;
    if (stats.lastFrameNumber !== null && code.frameNumber <= stats.lastFrameNumber) stats.frameOrderErrors++;
    stats.lastFrameNumber = code.frameNumber;
    stats.frameCodesRead++;
    const latency = Date.now() - code.wallClockMs;
    stats.latencyMs = latency;
    this.latencies.push(latency);
    if (this.latencies.length > 600) this.latencies.shift();
    const sorted = [...this.latencies].sort((a, b) => a - b);
    stats.latencyP50Ms = percentile(sorted, 0.5);
    stats.latencyP99Ms = percentile(sorted, 0.99);
    stats.latencySamples = this.latencies.length;
  }

  async sample() {
    const pc = this.player.pc;
    if (!pc) return;
    const stats = this.stats;
    stats.state = pc.connectionState;
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

window.WHEPPlayer = WHEPPlayer;
window.FrameCodeReader = FrameCodeReader;
window.StatsMonitor = StatsMonitor;

// The dashboard's hook (web/app.js): plays `endpoint` in `video`, or labels the slot when the
// camera has no WHEP output (404) or the connection fails.
window.attachWHEP = (video, endpoint, token) => {
  const player = new WHEPPlayer(video, endpoint, token);
  const label = video.parentElement && video.parentElement.querySelector(".preview-label");
  player.start().then(() => {
    if (label) label.textContent = "Live preview (WebRTC/WHEP)";
  }).catch((error) => {
    if (label) label.textContent = "No live preview: " + error.message;
  });
  return player;
};
