"""Where a Chromium viewer's latency goes: headless Chromium plays livepush's player page over WHEP
and, for FRAMES frames shown after a 3 s warm-up, records the page's frame-code figure (Date.now() at
requestVideoFrameCallback − the code's wall-clock capture ms, as the page shows it) and
capture → last packet received (rVFC receiveTime), and takes getStats() of the video receiver
before and after, so the window's jitter-buffer, decode and assembly figures are per frame of that
window. Also: how many frames' rVFC metadata had captureTime and the same figure from it (Date.now() −
captureTime, no frame code needed), the answer's extmap and rtcp-fb lines,
and the remote-outbound-rtp round trip (which a receive-only peer has only from RTCP XR DLRR).

With LATENCY_FRAMES_FILE set, each frame's number and frame-code latency go to that file as JSON.
The player page asks for low latency unless PLAYER_URL carries ?latency=default (docs/webrtc-media.md).
It prints one JSON line. Usage: chromium_latency.py PLAYER_URL FRAMES [TIMEOUT_SECONDS]"""
import json
import os
import sys
import time

import chromium

url, frames_wanted = sys.argv[1], int(sys.argv[2])
timeout = float(sys.argv[3]) if len(sys.argv) > 3 else frames_wanted / 20 + 30

RECORD = chromium.FRAME_METADATA + """
window.latencySamples = { recording: false, code: [], arrival: [], fromCaptureTime: [], numbers: [], withCaptureTime: 0, frames: 0 };
document.addEventListener("DOMContentLoaded", () => {
  const read = FrameCodeReader.prototype.read;
  FrameCodeReader.prototype.read = function (video) {
    const code = read.call(this, video);
    const samples = window.latencySamples, metadata = frameMetadata;
    if (code && metadata && samples.recording) {
      samples.frames++;
      samples.code.push(Date.now() - code.wallClockMs);
      samples.numbers.push(code.frameNumber);
      if (metadata.receiveTime) samples.arrival.push(performance.timeOrigin + metadata.receiveTime - code.wallClockMs);
      if (metadata.captureTime !== undefined) {
        samples.withCaptureTime++;
        samples.fromCaptureTime.push(Date.now() - (performance.timeOrigin + metadata.captureTime));
      }
    }
    return code;
  };
});
"""

# The video inbound-rtp and its remote-outbound-rtp (the sender reports as Chromium read them).
STATS = """
const done = arguments[arguments.length - 1];
if (typeof player === "undefined" || !player || !player.pc) { done(null); return; }
player.pc.getStats().then((report) => {
  let inbound = null, remote = null;
  report.forEach((entry) => { if (entry.type === "inbound-rtp" && entry.kind === "video") inbound = entry; });
  report.forEach((entry) => { if (inbound && entry.type === "remote-outbound-rtp" && entry.id === inbound.remoteId) remote = entry; });
  done({ inbound: inbound ? JSON.parse(JSON.stringify(inbound)) : null, remote: remote ? JSON.parse(JSON.stringify(remote)) : null });
}).catch(() => done(null));
"""


def percentiles(values):
    ordered = sorted(values)
    if not ordered:
        return None
    return {"count": len(ordered), "p50": round(ordered[len(ordered) // 2], 1),
            "p99": round(ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))], 1), "max": round(ordered[-1], 1)}


def per_frame(before, after, total, count):
    """ms per frame of the window for a cumulative seconds total over a cumulative count."""
    frames = after.get(count, 0) - before.get(count, 0)
    return round((after.get(total, 0) - before.get(total, 0)) * 1000 / frames, 1) if frames > 0 else None


driver = chromium.start()
try:
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD})
    driver.set_script_timeout(5)
    driver.get(url)
    started = time.time()
    first_code = None
    before = after = None
    while time.time() - started < timeout:
        stats = driver.execute_script("return window.whepStats || {}") or {}
        if first_code is None and stats.get("frameCodesRead", 0) > 0:
            first_code = time.time()
        if first_code is not None and before is None and time.time() - first_code >= 3:
            before = driver.execute_async_script(STATS)
            driver.execute_script("window.latencySamples.recording = true")
        if before is not None and driver.execute_script("return window.latencySamples.frames") >= frames_wanted:
            break
        time.sleep(0.2)
    if before is not None:
        driver.execute_script("window.latencySamples.recording = false")
        after = driver.execute_async_script(STATS)
    samples = driver.execute_script("return window.latencySamples")
    remote_sdp = driver.execute_script("return player && player.pc && player.pc.remoteDescription ? player.pc.remoteDescription.sdp : ''") or ""
    result = {"state": (driver.execute_script("return window.whepStats") or {}).get("state"),
              "frames": samples["frames"], "withCaptureTime": samples["withCaptureTime"],
              "codeMs": percentiles(samples["code"]), "arrivalMs": percentiles(samples["arrival"]),
              "captureTimeMs": percentiles(samples["fromCaptureTime"]),
              "answerExtensions": [line for line in remote_sdp.split("\r\n") if line.startswith("a=extmap")],
              "answerFeedback": sorted({line.split(" ", 1)[1] for line in remote_sdp.split("\r\n") if line.startswith("a=rtcp-fb")})}
    if before and after and before.get("inbound") and after.get("inbound"):
        b, a = before["inbound"], after["inbound"]
        result["window"] = {
            "jitterBufferDelayMs": per_frame(b, a, "jitterBufferDelay", "jitterBufferEmittedCount"),
            "jitterBufferTargetDelayMs": per_frame(b, a, "jitterBufferTargetDelay", "jitterBufferEmittedCount"),
            "jitterBufferMinimumDelayMs": per_frame(b, a, "jitterBufferMinimumDelay", "jitterBufferEmittedCount"),
            "decodeMs": per_frame(b, a, "totalDecodeTime", "framesDecoded"),
            "processingDelayMs": per_frame(b, a, "totalProcessingDelay", "framesDecoded"),
            "assemblyMs": per_frame(b, a, "totalAssemblyTime", "framesAssembledFromMultiplePackets"),
            "interFrameDelayMs": per_frame(b, a, "totalInterFrameDelay", "framesDecoded"),
            "framesDecoded": a.get("framesDecoded", 0) - b.get("framesDecoded", 0),
            "framesDropped": a.get("framesDropped", 0) - b.get("framesDropped", 0),
            "keyFramesDecoded": a.get("keyFramesDecoded", 0) - b.get("keyFramesDecoded", 0),
            "freezeCount": a.get("freezeCount", 0) - b.get("freezeCount", 0),
            "freezesMs": round((a.get("totalFreezesDuration", 0) - b.get("totalFreezesDuration", 0)) * 1000),
            "nackCount": a.get("nackCount", 0) - b.get("nackCount", 0),
            "pliCount": a.get("pliCount", 0) - b.get("pliCount", 0),
            "packetsLost": a.get("packetsLost", 0) - b.get("packetsLost", 0),
            "jitterMs": round(a.get("jitter", 0) * 1000, 1),
        }
        remote = after.get("remote") or {}
        result["remoteOutbound"] = {key: remote.get(key) for key in ["roundTripTime", "totalRoundTripTime", "roundTripTimeMeasurements", "reportsSent"]}
    if os.environ.get("LATENCY_FRAMES_FILE"):
        with open(os.environ["LATENCY_FRAMES_FILE"], "w") as handle:
            json.dump({"numbers": samples["numbers"], "codeMs": samples["code"]}, handle)
    driver.execute_script("document.getElementById('stop').click()")
    time.sleep(0.3)
    print(json.dumps(result), flush=True)
finally:
    driver.quit()
