// livepush dashboard: polls /api/status every second, draws a bitrate/fps graph per camera
// (last 5 minutes, canvas), and drives the API's controls. Plain JS, no build step.
"use strict";

const HISTORY_SECONDS = 300;
const history = new Map(); // camera id -> [{t, bitrate, fps}]
const cards = new Map();   // camera id -> section element

// Credentials travel in the server's HttpOnly session cookie (set by POST /api/login), never in
// script-readable storage; same-origin fetches send it by themselves.
async function api(path, options = {}) {
  const headers = Object.assign({}, options.headers || {});
  if (options.body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, Object.assign({}, options, { headers }));
  if (response.status === 401) {
    document.getElementById("token-form").hidden = false;
    throw new Error("log in with a token");
  }
  if (!response.ok) {
    let message = response.status + " " + response.statusText;
    try { message = (await response.json()).error.message; } catch (_) { /* not JSON */ }
    throw new Error(message);
  }
  return response;
}

function say(text, isError) {
  const element = document.getElementById("message");
  element.textContent = text;
  element.className = isError ? "badge error" : "";
}

async function post(path, body) {
  try {
    const response = await api(path, { method: "POST", body: body === undefined ? undefined : JSON.stringify(body) });
    const answer = await response.json();
    say(answer.message || "done");
    await refresh();
    return answer;
  } catch (error) {
    say(error.message, true);
    return null;
  }
}

const formatBits = (bits) => bits >= 1e6 ? (bits / 1e6).toFixed(2) + " Mbit/s" : (bits / 1e3).toFixed(0) + " kbit/s";
const formatSeconds = (seconds) => {
  if (seconds == null) return "–";
  const s = Math.floor(seconds);
  return s >= 3600 ? Math.floor(s / 3600) + "h " + Math.floor(s % 3600 / 60) + "m" : s >= 60 ? Math.floor(s / 60) + "m " + (s % 60) + "s" : s + "s";
};

function cardFor(camera) {
  if (cards.has(camera.id)) return cards.get(camera.id);
  const card = document.getElementById("camera-template").content.firstElementChild.cloneNode(true);
  card.dataset.camera = camera.id;
  card.querySelector(".camera-id").textContent = camera.id;
  const video = card.querySelector("video.whep-preview");
  video.dataset.whepUrl = "/whep/" + encodeURIComponent(camera.id);
  const base = "/api/cameras/" + encodeURIComponent(camera.id);
  card.querySelector(".bitrate-form").addEventListener("submit", (event) => {
    event.preventDefault();
    post(base + "/bitrate", { bitrate: event.target.bitrate.value.trim() });
  });
  card.querySelector(".source-form").addEventListener("submit", (event) => {
    event.preventDefault();
    post(base + "/source", { source: event.target.source.value.trim() });
  });
  card.querySelector(".keyframe").addEventListener("click", () => post(base + "/keyframe"));
  card.querySelector(".snapshot").addEventListener("click", () => snapshot(card, base));
  card.querySelector(".load-controls").addEventListener("click", () => loadControls(card, base));
  document.getElementById("cameras").appendChild(card);
  cards.set(camera.id, card);
  if (typeof window.attachWHEP === "function") window.attachWHEP(video, video.dataset.whepUrl);
  return card;
}

async function snapshot(card, base) {
  try {
    const blob = await (await api(base + "/snapshot.jpg")).blob();
    const image = card.querySelector(".snapshot-image");
    if (image.src) URL.revokeObjectURL(image.src);
    image.src = URL.createObjectURL(blob);
    image.hidden = false;
    say("snapshot taken");
  } catch (error) { say(error.message, true); }
}

async function loadControls(card, base) {
  const container = card.querySelector(".camera-controls");
  container.textContent = "";
  try {
    const answer = await (await api(base + "/controls")).json();
    for (const control of answer.controls) {
      if (control.isReadOnly) continue;
      const label = document.createElement("label");
      label.textContent = control.label + " ";
      const input = document.createElement("input");
      if (control.kind === "boolean") { input.type = "checkbox"; input.checked = control.value === 1; }
      else if (control.menu && control.menu.length) {
        input.type = "number"; input.value = control.value;
      } else { input.type = "range"; input.min = control.minimum; input.max = control.maximum; input.step = control.step || 1; input.value = control.value; }
      input.addEventListener("change", () => post(base + "/controls", { name: control.key, value: String(input.type === "checkbox" ? (input.checked ? 1 : 0) : input.value) }));
      label.appendChild(input);
      container.appendChild(label);
    }
  } catch (error) { say(error.message, true); }
}

function render(camera) {
  const card = cardFor(camera);
  const state = card.querySelector(".state");
  state.textContent = camera.state;
  state.className = "state badge " + camera.state;
  const set = (field, text) => { card.querySelector(`[data-field="${field}"]`).textContent = text; };
  set("source", camera.source + " (" + camera.encoder + ")");
  set("size", camera.width + "×" + camera.height);
  set("fps", camera.captureFps.toFixed(1) + " / " + camera.encodedFps.toFixed(1));
  const held = camera.encoderBitrateBitsPerSecond < camera.targetBitrateBitsPerSecond
    ? " (adapting: " + formatBits(camera.encoderBitrateBitsPerSecond) + ")" : "";
  set("bitrate", formatBits(camera.bitrateBitsPerSecond) + " / " + formatBits(camera.targetBitrateBitsPerSecond) + held);
  set("frames", camera.framesEncoded + " / " + camera.keyFrames);
  set("dropped", camera.droppedFrames.capture + " / " + camera.droppedFrames.encoder + " / " + camera.droppedFrames.outputs);
  set("queue", String(camera.queueDepth));
  set("uptime", formatSeconds(camera.uptimeSeconds));
  set("error", camera.lastError || "–");
  const body = card.querySelector(".outputs tbody");
  for (const output of camera.outputs) renderOutput(body, camera.id, output);
  const renditions = card.querySelector(".renditions tbody");
  for (const rendition of camera.renditions || []) renderRendition(renditions, rendition);
  const points = history.get(camera.id) || [];
  const now = Date.now() / 1000;
  points.push({ t: now, bitrate: camera.bitrateBitsPerSecond, fps: camera.encodedFps });
  while (points.length && points[0].t < now - HISTORY_SECONDS) points.shift();
  history.set(camera.id, points);
  drawGraph(card.querySelector("canvas.graph"), points, now);
}

// One row per rendition (camera → renditions → outputs): its encode, its own drops, who takes it.
function renderRendition(body, rendition) {
  let row = body.querySelector(`tr[data-rendition="${CSS.escape(rendition.name)}"]`);
  if (!row) {
    row = body.insertRow();
    row.dataset.rendition = rendition.name;
    for (let i = 0; i < 8; i++) row.insertCell();
  }
  const held = rendition.encoderBitrateBitsPerSecond < rendition.targetBitrateBitsPerSecond
    ? " (adapting: " + formatBits(rendition.encoderBitrateBitsPerSecond) + ")" : "";
  [rendition.name, rendition.width + "×" + rendition.height, rendition.fps + " / " + rendition.encodedFps.toFixed(1),
    formatBits(rendition.bitrateBitsPerSecond) + " / " + formatBits(rendition.targetBitrateBitsPerSecond) + held, rendition.encoder,
    rendition.droppedFrames + " / " + rendition.framesThinned,
    rendition.framesAsCaptured + " / " + rendition.framesScaled + " / " + rendition.framesScaledBySibling,
    rendition.outputs.join(", ") || "–"]
    .forEach((text, index) => { row.cells[index].textContent = text; });
}

// Rows are made once and updated in place, so a button is never replaced under the user's finger.
function renderOutput(body, cameraID, output) {
  let row = body.querySelector(`tr[data-output="${CSS.escape(output.id)}"]`);
  if (!row) {
    row = body.insertRow();
    row.dataset.output = output.id;
    for (let i = 0; i < 8; i++) row.insertCell();
    const badge = document.createElement("span");
    row.cells[1].appendChild(badge);
    const button = document.createElement("button");
    button.addEventListener("click", () => {
      const action = button.dataset.action;
      post(`/api/cameras/${encodeURIComponent(cameraID)}/outputs/${encodeURIComponent(output.id)}/${action}`);
    });
    row.insertCell().appendChild(button);
  }
  // An output with backup ingests names the live one when it is not the primary; with backup_mode
  // both, each ingest is its own output and says which it is.
  const ingest = !output.ingest ? ""
    : output.ingest.mode === "both" ? (output.ingest.index > 0 ? " · backup ingest " + output.ingest.index : " · primary ingest") + " (both)"
    : output.ingest.index > 0 ? " · on backup " + output.ingest.index : "";
  const texts = [output.id + " → " + output.target + (output.rendition ? " [" + output.rendition + "]" : "") + ingest, null, output.fps.toFixed(1), formatBits(output.bitrateBitsPerSecond),
    output.framesSent + " / " + output.droppedFrames, String(output.reconnects),
    output.rttMilliseconds == null ? "–" : output.rttMilliseconds.toFixed(0) + " ms", formatSeconds(output.uptimeSeconds)];
  texts.forEach((text, index) => { if (text !== null) row.cells[index].textContent = text; });
  // A recording names its files (segments, a new file at each picture-size change) on hover.
  row.cells[0].title = output.files && output.files.length ? "files:\n" + output.files.join("\n")
    : output.ingest ? `live ingest ${output.ingest.index}: ${output.ingest.url} since ${new Date(output.ingest.sinceUnixSeconds * 1000).toLocaleTimeString()} (${output.ingest.mode}: ${output.ingest.reason})` : "";
  const srt = output.srt;
  row.cells[6].title = srt ? `SRT send buffer ${srt.sendBufferMilliseconds} ms of ${srt.latencyMilliseconds} ms latency, ` +
    `${srt.packetsLost} lost, ${srt.packetsRetransmitted} retransmitted, ${srt.packetsDroppedTooLate} dropped too late, ${srt.acknowledgementsReceived} ACKs` : "";
  const badge = row.cells[1].firstChild;
  // Delivery health (receiver acknowledgements) colours a running output: green, amber, red.
  const health = output.health && output.state === "running" ? output.health : null;
  badge.className = "badge output-state " + output.state + (health ? " health-" + health : "");
  badge.textContent = output.state + (health ? " · " + health : "");
  badge.title = [output.stateReason, output.lastError, output.delivery && output.delivery.longestGapSeconds != null
    ? "longest gap between " + output.delivery.evidence + "s " + output.delivery.longestGapSeconds.toFixed(1) + " s" : null]
    .filter(Boolean).join("\n");
  const running = ["running", "connecting", "reconnecting", "starting"].includes(output.state);
  const button = row.cells[8].firstChild;
  button.dataset.action = running ? "stop" : "start";
  button.className = running ? "output-stop" : "output-start";
  button.textContent = running ? "Stop" : "Start";
}

function drawGraph(canvas, points, now) {
  const context = canvas.getContext("2d");
  const width = canvas.width, height = canvas.height;
  context.clearRect(0, 0, width, height);
  context.strokeStyle = "#2a323b";
  for (let i = 1; i < 4; i++) { context.beginPath(); context.moveTo(0, height * i / 4); context.lineTo(width, height * i / 4); context.stroke(); }
  const maxBitrate = Math.max(1, ...points.map((p) => p.bitrate)) * 1.1;
  const maxFps = Math.max(1, ...points.map((p) => p.fps)) * 1.1;
  const line = (key, max, color) => {
    context.strokeStyle = color; context.lineWidth = 2; context.beginPath();
    points.forEach((p, index) => {
      const x = width - (now - p.t) / HISTORY_SECONDS * width, y = height - p[key] / max * height;
      if (index === 0) context.moveTo(x, y); else context.lineTo(x, y);
    });
    context.stroke();
  };
  line("bitrate", maxBitrate, "#4aa3ff");
  line("fps", maxFps, "#2fbf71");
  context.fillStyle = "#8b96a1"; context.font = "11px system-ui";
  context.fillText("max " + formatBits(maxBitrate / 1.1) + ", " + (maxFps / 1.1).toFixed(1) + " fps", 6, 13);
}

async function refresh() {
  const connection = document.getElementById("connection");
  try {
    const status = await (await api("/api/status")).json();
    connection.textContent = "live"; connection.className = "badge ok";
    document.getElementById("process").textContent =
      "CPU " + status.process.cpuPercent.toFixed(0) + "% · RSS " + (status.process.residentBytes / 1048576).toFixed(1) + " MB · up " + formatSeconds(status.uptimeSeconds);
    status.cameras.forEach(render);
    window.livepushStatus = status;
  } catch (error) {
    connection.textContent = "offline: " + error.message; connection.className = "badge error";
  }
}

// The role decides which controls show: a viewer's page has no buttons that would only get 403.
async function learnRole() {
  try {
    const answer = await (await api("/api/session")).json();
    document.body.dataset.role = answer.role;
  } catch (_) { document.body.dataset.role = ""; }
}

document.getElementById("token-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const field = document.getElementById("token");
  try {
    const answer = await (await api("/api/login", { method: "POST", body: JSON.stringify({ token: field.value }) })).json();
    field.value = "";
    event.target.hidden = true;
    document.body.dataset.role = answer.role;
    say(answer.message);
    await refresh();
  } catch (error) { say(error.message, true); }
});

learnRole();
refresh();
setInterval(refresh, 1000);
