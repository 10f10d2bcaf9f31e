"""Headless Chromium watches livepush over WHEP for SECONDS (or until the file WHEP_STOP_FILE
exists, when set) and records every decoded frame's code: when the page read it, its frame number,
its glass-to-glass latency (the player's FrameCodeReader) and the RTP timestamp of the frame it was
read for, plus the decoded size every half second, so a test can tell which rendition played when
and whether decoding ever stopped. With WHEP_WIDTH_FILE set, each half-second sample's decoded
width is also written to that file, for a test that waits on what the page shows. With RELAY_PORT, the answer's candidate is pointed at that
relay (chromium.REWRITE_ANSWER_PORT). Prints one JSON line, with the last inbound-rtp figures.
Usage: chromium_bandwidth.py PLAYER_URL SECONDS [WHEP_UDP_PORT RELAY_PORT]"""
import json
import os
import sys
import time

import chromium

url, seconds = sys.argv[1], float(sys.argv[2])
relay = (int(sys.argv[3]), int(sys.argv[4])) if len(sys.argv) > 4 else None

# Wraps the page's per-frame code reading: each newly read code is kept as [ms, number, latency ms,
# RTP timestamp of the frame it was read for (chromium.RECORD_TIMELINE; null where unknown)].
RECORD_CODES = """
window.codes = [];
const readCode = StatsMonitor.prototype.readCode;
StatsMonitor.prototype.readCode = function () {
  const before = this.stats.frameCodesRead;
  readCode.call(this);
  if (this.stats.frameCodesRead > before) {
    window.codes.push([Date.now(), this.stats.lastFrameNumber, this.stats.latencyMs, window.timeline ? window.timeline.readRtpTimestamp : null]);
  }
};
document.getElementById("play").click();
"""

driver = chromium.start()
result = {"sizes": [], "codes": []}
try:
    driver.set_script_timeout(5)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": chromium.RECORD_TIMELINE})
    driver.get(url + ("&" if "?" in url else "?") + "autoplay=0")
    if relay:
        driver.execute_script(chromium.REWRITE_ANSWER_PORT, relay[0], relay[1])
    driver.execute_script(RECORD_CODES)
    started = time.time()
    stop_file, width_file = os.environ.get("WHEP_STOP_FILE"), os.environ.get("WHEP_WIDTH_FILE")
    stats = {}
    while time.time() - started < seconds and not (stop_file and os.path.exists(stop_file)):
        stats = driver.execute_async_script(chromium.INBOUND_VIDEO) or {}
        result["sizes"].append([int(time.time() * 1000), stats.get("frameWidth"), stats.get("framesDecoded")])
        if width_file:
            with open(width_file + ".tmp", "w") as handle:
                handle.write("%s\n" % stats.get("frameWidth"))
            os.replace(width_file + ".tmp", width_file)
        time.sleep(0.5)
    result["inbound"] = {key: stats.get(key) for key in ["framesDecoded", "framesDropped", "keyFramesDecoded", "packetsLost", "pliCount",
                                                          "freezeCount", "totalFreezesDuration"]}
    result["codes"] = driver.execute_script("return window.codes || []")
    result["rewrittenCandidates"] = driver.execute_script("return window.rewrittenCandidates || 0")
    page = driver.execute_script("return window.whepStats || {}") or {}
    result["page"] = {key: page.get(key) for key in ["state", "frameCodesRead", "frameOrderErrors", "latencyP50Ms", "latencyP99Ms"]}
    driver.execute_script("document.getElementById('stop').click()")
    time.sleep(1)
finally:
    driver.quit()
print(json.dumps(result), flush=True)
