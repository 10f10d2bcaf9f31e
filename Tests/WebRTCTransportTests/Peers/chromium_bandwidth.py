"""Headless Chromium watches livepush over WHEP for a fixed time and records every decoded frame's
code: when the page read it, its frame number and its glass-to-glass latency (the player's
FrameCodeReader), plus the decoded size every half second, so a test can tell which rendition
played when and whether decoding ever stopped. With RELAY_PORT, the answer's candidate is pointed
at that relay (chromium.REWRITE_ANSWER_PORT). Prints one JSON line.
Usage: chromium_bandwidth.py PLAYER_URL SECONDS [WHEP_UDP_PORT RELAY_PORT]"""
import json
import sys
import time

import chromium

url, seconds = sys.argv[1], float(sys.argv[2])
relay = (int(sys.argv[3]), int(sys.argv[4])) if len(sys.argv) > 4 else None

# Wraps the page's per-frame code reading: each newly read code is kept as [ms, number, latency ms].
RECORD_CODES = """
window.codes = [];
const readCode = StatsMonitor.prototype.readCode;
StatsMonitor.prototype.readCode = function () {
  const before = this.stats.frameCodesRead;
  readCode.call(this);
  if (this.stats.frameCodesRead > before) window.codes.push([Date.now(), this.stats.lastFrameNumber, this.stats.latencyMs]);
};
document.getElementById("play").click();
"""

driver = chromium.start()
result = {"sizes": [], "codes": []}
try:
    driver.set_script_timeout(5)
    driver.get(url + ("&" if "?" in url else "?") + "autoplay=0")
    if relay:
        driver.execute_script(chromium.REWRITE_ANSWER_PORT, relay[0], relay[1])
    driver.execute_script(RECORD_CODES)
    started = time.time()
    while time.time() - started < seconds:
        stats = driver.execute_async_script(chromium.INBOUND_VIDEO) or {}
        result["sizes"].append([int(time.time() * 1000), stats.get("frameWidth"), stats.get("framesDecoded")])
        time.sleep(0.5)
    result["codes"] = driver.execute_script("return window.codes || []")
    result["rewrittenCandidates"] = driver.execute_script("return window.rewrittenCandidates || 0")
    page = driver.execute_script("return window.whepStats || {}") or {}
    result["page"] = {key: page.get(key) for key in ["state", "frameCodesRead", "frameOrderErrors", "latencyP50Ms", "latencyP99Ms"]}
    driver.execute_script("document.getElementById('stop').click()")
    time.sleep(1)
finally:
    driver.quit()
print(json.dumps(result), flush=True)
