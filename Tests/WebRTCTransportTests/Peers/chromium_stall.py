"""Headless Chromium plays livepush's player page while the test stalls the link: after
SECONDS_BEFORE of decoded video it creates STALL_FILE (the test's script then stalls and writes
STALL_END_FILE when the link is back), and it keeps watching until SECONDS_AFTER past that. Every
frame the page presents (requestVideoFrameCallback) is recorded as [when its last packet was
received (epoch seconds), frame number, wall-clock capture ms], both null when the picture carries
no valid code (docs/frame-code.md, read with the page's own FrameCodeReader): it decoded to
something else than was captured. Prints one JSON line with them and the video inbound-rtp stats.
Usage: chromium_stall.py PLAYER_URL STALL_FILE STALL_END_FILE SECONDS_BEFORE SECONDS_AFTER TIMEOUT_SECONDS"""
import json
import os
import sys
import time

import chromium

url, stall_file, stall_end_file = sys.argv[1:4]
before, after, timeout = (float(value) for value in sys.argv[4:7])

RECORD_FRAMES = """
window.stallFrames = [];
const video = document.querySelector("video");
const reader = new FrameCodeReader();
const onFrame = (now, metadata) => {
  const code = reader.read(video);
  const received = performance.timeOrigin + (metadata.receiveTime || now);
  window.stallFrames.push([received / 1000, code ? code.frameNumber : null, code ? code.wallClockMs : null]);
  video.requestVideoFrameCallback(onFrame);
};
video.requestVideoFrameCallback(onFrame);
"""

FIELDS = ["framesDecoded", "keyFramesDecoded", "framesDropped", "nackCount", "pliCount", "firCount", "packetsLost",
          "freezeCount", "totalFreezesDuration"]

driver = chromium.start()
result = {"frames": []}
try:
    driver.set_script_timeout(5)
    driver.get(url)
    driver.execute_script(RECORD_FRAMES)
    started = time.time()
    first, stall_end = None, None
    while time.time() - started < timeout and (stall_end is None or time.time() < stall_end + after):
        if first is None and driver.execute_script("return window.stallFrames.length") > 0:
            first = time.time()
        if first and time.time() - first >= before and not os.path.exists(stall_file):
            open(stall_file, "w").close()
        if stall_end is None and os.path.exists(stall_end_file):
            stall_end = time.time()
        time.sleep(0.05)
    result["frames"] = driver.execute_script("return window.stallFrames")
    stats = driver.execute_async_script(chromium.INBOUND_VIDEO) or {}
    result["stats"] = {key: stats.get(key) for key in FIELDS}
    driver.execute_script("document.getElementById('stop').click()")
    time.sleep(1)
finally:
    driver.quit()
print(json.dumps(result), flush=True)
