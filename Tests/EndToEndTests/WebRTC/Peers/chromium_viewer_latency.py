"""Headless Chromium opens livepush's player page, ticks its consent box (so the page posts its
latency back every 5 s), watches over WHEP, and prints one JSON line: for every shown frame whose
frame code the page read, the page's two glass-to-glass figures taken against the same reading of
its clock — the capture-time one (abs-capture-time, the receiver's captureTimestamp) and the
frame-code one — as their difference's spread (capture-time − frame-code ms, `differenceMs`), each
figure's median, the page's report counts, and what the server then says: its /metrics
livepush_viewer_latency_seconds count per output and /api/status's viewerLatency per output.
Usage: chromium_viewer_latency.py PLAYER_URL SECONDS"""
import json
import re
import sys
import time
import urllib.request
from urllib.parse import urljoin

import chromium

url, seconds = sys.argv[1], float(sys.argv[2])

# Pairs [frame-code ms, capture-time ms] of frames that have both, read in one frame callback (the
# monitor passes both readers the same Date.now()); the frame's RTP timestamp for stale-read checks.
RECORD_PAIRS = """
window.latencyPairs = [];
document.addEventListener("DOMContentLoaded", () => {
  let code = null;
  const readCode = StatsMonitor.prototype.readCode;
  StatsMonitor.prototype.readCode = function (nowMs) {
    const before = this.stats.frameCodesRead;
    readCode.call(this, nowMs);
    code = this.stats.frameCodesRead > before ? { nowMs, latency: this.stats.latencyMs } : null;
  };
  const readCaptureTime = StatsMonitor.prototype.readCaptureTime;
  StatsMonitor.prototype.readCaptureTime = function (nowMs, metadata) {
    const before = this.stats.captureTimesRead;
    readCaptureTime.call(this, nowMs, metadata);
    if (code && code.nowMs === nowMs && this.stats.captureTimesRead > before && window.latencyPairs.length < 5000) {
      window.latencyPairs.push([code.latency, this.stats.captureLatencyMs]);
    }
    code = null;
  };
});
"""


def spread(values):
    ordered = sorted(values)
    if not ordered:
        return {"count": 0}
    return {"count": len(ordered), "min": ordered[0], "p50": ordered[len(ordered) // 2],
            "p90": ordered[int(len(ordered) * 0.9)], "p99": ordered[int(len(ordered) * 0.99)], "max": ordered[-1]}


def fetch(path):
    with urllib.request.urlopen(urljoin(url, path), timeout=5) as response:
        return response.read().decode()


driver = chromium.start()
try:
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": chromium.RECORD_TIMELINE + RECORD_PAIRS})
    driver.get(url)
    consent = driver.find_element("id", "reportLatency")
    consent.click()
    started = time.time()
    while time.time() - started < seconds:
        time.sleep(0.25)
    stats = driver.execute_script("return window.whepStats || {}") or {}
    pairs = driver.execute_script("return window.latencyPairs") or []
    result = {key: stats.get(key) for key in ["state", "framesDecoded", "fps", "captureTimeRequested", "latencySamples",
                                              "captureLatencySamples", "captureTimesRead", "latencyP50Ms", "captureLatencyP50Ms", "captureClockOffsetMs", "reports"]}
    result["consent"] = driver.execute_script("return document.getElementById('reportLatency').checked")
    result["timeline"] = driver.execute_script("return window.timeline ? {staleReads: window.timeline.staleReads, orderErrors: window.timeline.orderErrors} : null")
    result["differenceMs"] = spread([capture - code for code, capture in pairs])
    result["absoluteDifferenceMs"] = spread([abs(capture - code) for code, capture in pairs])
    result["codeMs"] = spread([code for code, _ in pairs])
    result["captureMs"] = spread([capture for _, capture in pairs])
    metrics = fetch("metrics")
    result["histogramCounts"] = {match.group(1): float(match.group(2)) for match in
                                 re.finditer(r'^livepush_viewer_latency_seconds_count\{[^}]*output="([^"]*)"[^}]*\} (\S+)$', metrics, re.M)}
    status = json.loads(fetch("api/status"))
    result["outputs"] = [{"id": output["id"], "kind": output["kind"], "viewerLatency": output.get("viewerLatency")}
                         for camera in status["cameras"] for output in camera["outputs"]]
    driver.execute_script("document.getElementById('stop').click()")
    time.sleep(0.5)
    print(json.dumps(result), flush=True)
finally:
    driver.quit()
