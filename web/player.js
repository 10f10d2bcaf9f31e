// The WebRTC player page (player.html), beside it so the page works under a CSP without 'unsafe-inline'.
// ?whep=URL (default: this server's /whep), ?token=BEARER, ?autoplay=0 to wait for the button.
const params = new URLSearchParams(location.search);
const endpoint = params.get("whep") || "whep";
const token = params.get("token");
const video = document.getElementById("video");
let player = null, monitor = null;

function show(stats) {
  document.getElementById("state").textContent = stats.state;
  document.getElementById("resolution").textContent = stats.width ? stats.width + "×" + stats.height : "–";
  document.getElementById("fps").textContent = stats.fps ? stats.fps.toFixed(1) + " fps" : "–";
  document.getElementById("bitrate").textContent = stats.bitrateKbps + " kbit/s";
  document.getElementById("packetsLost").textContent = String(stats.packetsLost);
  document.getElementById("rtt").textContent = stats.rttMs === null ? "–" : stats.rttMs + " ms";
  document.getElementById("latency").textContent = stats.latencyMs === null ? "– (no frame code)"
    : stats.latencyMs + " ms (p50 " + stats.latencyP50Ms + ", p99 " + stats.latencyP99Ms + ", " + stats.latencySamples + " frames)";
}

async function play() {
  await stop();
  player = new WHEPPlayer(video, endpoint, token);
  monitor = new StatsMonitor(player, show);
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
