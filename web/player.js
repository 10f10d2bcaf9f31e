// The WebRTC player page (player.html), beside it so the page works under a CSP without 'unsafe-inline'.
// ?whep=URL (default: this server's /whep), ?token=BEARER, ?autoplay=0 to wait for the button,
// ?capturetime=0 to offer what the browser offers (no abs-capture-time, so no capture-time figure),
// ?latency=default to watch without asking for low latency (the browser's own jitter buffer).
const params = new URLSearchParams(location.search);
const endpoint = params.get("whep") || "whep";
const token = params.get("token");
const video = document.getElementById("video");
let player = null, monitor = null;
const chart = new LatencyChart(document.getElementById("latencyChart"), 60);
const consent = document.getElementById("reportLatency");

function show(stats) {
  document.getElementById("state").textContent = stats.state;
  document.getElementById("resolution").textContent = stats.width ? stats.width + "×" + stats.height : "–";
  document.getElementById("fps").textContent = stats.fps ? stats.fps.toFixed(1) + " fps" : "–";
  document.getElementById("bitrate").textContent = stats.bitrateKbps + " kbit/s";
  document.getElementById("packetsLost").textContent = String(stats.packetsLost);
  document.getElementById("rtt").textContent = stats.rttMs === null ? "–" : stats.rttMs + " ms";
  document.getElementById("latency").textContent = latencyText(stats);
  document.getElementById("reportStatus").textContent = stats.reports && (stats.reports.sent || stats.reports.refused)
    ? stats.reports.sent + " reports sent" + (stats.reports.refused ? ", " + stats.reports.refused + " refused (" + stats.reports.last + ")" : "") : "";
}

async function play() {
  await stop();
  player = new WHEPPlayer(video, endpoint, token);
  player.requestCaptureTime = params.get("capturetime") !== "0";
  player.lowLatency = params.get("latency") !== "default";
  const reporter = new LatencyReporter(LatencyReporter.endpointFor(endpoint), token, () => consent.checked);
  monitor = new StatsMonitor(player, show, { chart, reporter });
  try {
    await player.start();
    monitor.start();
  } catch (error) {
    window.whepStats.state = "failed";
    window.whepStats.error = String(error);
    document.getElementById("state").textContent = "failed: " + error;
  }
}

async function stop() {
  if (monitor) monitor.stop();
  if (player) await player.stop();
  player = null;
}

document.getElementById("play").onclick = play;
document.getElementById("stop").onclick = stop;
window.addEventListener("pagehide", () => { stop(); });
if (params.get("autoplay") !== "0") play();
