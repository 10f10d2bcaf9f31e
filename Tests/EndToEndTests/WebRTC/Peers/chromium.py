"""Headless Chromium for the Python peers, with the flags WebRTC needs in a loopback-only network
namespace (../shared/peers/README.md): 127.0.0.1 host candidates instead of mDNS names, and
autoplay without a gesture."""
from selenium import webdriver
from selenium.webdriver.chrome.service import Service


# For driver.execute_async_script: the player page's video inbound-rtp stats, or null before it plays.
INBOUND_VIDEO = """
const done = arguments[arguments.length - 1];
if (typeof player === "undefined" || !player || !player.pc) { done(null); return; }
player.pc.getStats().then((report) => {
  let found = null;
  report.forEach((entry) => { if (entry.type === "inbound-rtp" && entry.kind === "video") found = entry; });
  done(found ? JSON.parse(JSON.stringify(found)) : null);
}).catch(() => done(null));
"""

# For driver.execute_script(REWRITE_ANSWER_PORT, whep_port, relay_port): livepush is ICE-lite and
# names its own UDP port in the answer; this points that candidate at a relay instead (counted in
# window.rewrittenCandidates), so every packet goes through it. Run before the player connects.
REWRITE_ANSWER_PORT = """
const [whepPort, relayPort] = arguments;
const setRemote = RTCPeerConnection.prototype.setRemoteDescription;
window.rewrittenCandidates = 0;
RTCPeerConnection.prototype.setRemoteDescription = function (description) {
  if (description && description.type === "answer") {
    const sdp = description.sdp.replace(new RegExp(" " + whepPort + " typ host", "g"),
      () => { window.rewrittenCandidates++; return " " + relayPort + " typ host"; });
    description = { type: "answer", sdp };
  }
  return setRemote.call(this, description);
};
"""

# For Page.addScriptToEvaluateOnNewDocument: the WHEP offer the player POSTs loses its transport-cc
# lines (a=extmap for the transport-wide sequence number, a=rtcp-fb ... transport-cc), as from a
# browser without it; counted in window.offerLinesRemoved.
OFFER_WITHOUT_TRANSPORT_CC = """
const originalFetch = window.fetch;
window.offerLinesRemoved = 0;
window.fetch = function (input, init) {
  if (init && init.method === "POST" && typeof init.body === "string" && init.body.startsWith("v=0")) {
    const lines = init.body.split("\\r\\n");
    const kept = lines.filter((line) => !/transport-cc|transport-wide-cc/.test(line));
    window.offerLinesRemoved += lines.length - kept.length;
    init = Object.assign({}, init, { body: kept.join("\\r\\n") });
  }
  return originalFetch.call(this, input, init);
};
"""

# Part of a script for Page.addScriptToEvaluateOnNewDocument: while a requestVideoFrameCallback
# callback runs, frameMetadata is that frame's metadata (null otherwise), for code the callback calls.
FRAME_METADATA = """
let frameMetadata = null;
const requestFrame = HTMLVideoElement.prototype.requestVideoFrameCallback;
HTMLVideoElement.prototype.requestVideoFrameCallback = function (callback) {
  return requestFrame.call(this, (now, metadata) => {
    frameMetadata = metadata;
    try { callback(now, metadata); } finally { frameMetadata = null; }
  });
};
"""

# For Page.addScriptToEvaluateOnNewDocument, before the player page's scripts: window.timeline, with
# when the page POSTed its offer and when the connection came up (epoch ms), and what the page's own
# reader reads in each frame callback beside that frame's metadata (its RTP timestamp, when its last
# packet arrived), so no second canvas read adds to the page's work: the first code, codes that went
# back, stale reads (the code read before, for a frame of another RTP timestamp: the canvas drew the
# picture shown before, on a busy machine), repeats, and each frame's capture → received ms;
# readRtpTimestamp is the RTP timestamp of the frame the latest read was made for (null without a code).
RECORD_TIMELINE = """
window.timeline = { postedAt: null, connectedAt: null, firstCode: null, lastNumber: null, lastRtpTimestamp: null,
                    readRtpTimestamp: null, orderErrors: 0, staleReads: 0, repeats: 0, arrivals: [] };
const timelineFetch = window.fetch;
window.fetch = function (input, init) {
  if (init && init.method === "POST" && window.timeline.postedAt === null) window.timeline.postedAt = Date.now();
  return timelineFetch.apply(this, arguments);
};
const TimelinePeerConnection = window.RTCPeerConnection;
window.RTCPeerConnection = function (...args) {
  const pc = new TimelinePeerConnection(...args);
  pc.addEventListener("connectionstatechange", () => {
    if (pc.connectionState === "connected" && window.timeline.connectedAt === null) window.timeline.connectedAt = Date.now();
  });
  return pc;
};
window.RTCPeerConnection.prototype = TimelinePeerConnection.prototype;
""" + FRAME_METADATA + """document.addEventListener("DOMContentLoaded", () => {
  const read = FrameCodeReader.prototype.read;
  FrameCodeReader.prototype.read = function (video) {
    const code = read.call(this, video);
    const t = window.timeline, metadata = frameMetadata;
    const rtp = metadata && metadata.rtpTimestamp !== undefined ? metadata.rtpTimestamp : null;
    t.readRtpTimestamp = code ? rtp : null;
    if (!code || !metadata) return code;
    if (t.firstCode === null) t.firstCode = { wallClockMs: code.wallClockMs, frameNumber: code.frameNumber, at: Date.now() };
    if (t.lastNumber !== null && code.frameNumber < t.lastNumber) t.orderErrors++;
    // The same code for a frame of another capture instant: the canvas drew the picture shown before.
    if (t.lastNumber !== null && code.frameNumber === t.lastNumber) {
      if (rtp !== null && rtp !== t.lastRtpTimestamp) t.staleReads++; else t.repeats++;
    }
    t.lastNumber = code.frameNumber;
    t.lastRtpTimestamp = rtp;
    if (metadata.receiveTime) t.arrivals.push(performance.timeOrigin + metadata.receiveTime - code.wallClockMs);
    return code;
  };
});
"""


def start(extra_flags=()):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--allow-loopback-in-peer-connection", "--disable-features=WebRtcHideLocalIpsWithMdns",
                 "--autoplay-policy=no-user-gesture-required", *extra_flags]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(15)
    return driver
