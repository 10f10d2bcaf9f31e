"""Headless Chromium plays livepush's player page while the test stalls the link: after
FRAMES_BEFORE presented frames it creates STALL_FILE (the test's script then stalls and writes the
epoch time the link came back to STALL_END_FILE), and it keeps watching until FRAMES_AFTER frames
received after that time (or TIMEOUT_SECONDS in all). Every
frame the page presents (requestVideoFrameCallback) is recorded as [when its last packet was
received (epoch seconds), frame number, wall-clock capture ms, RTP timestamp], the two middle ones
null when the picture carries no valid code (docs/frame-code.md, read with the page's own
FrameCodeReader): it decoded to something else than was captured. The RTP timestamp (the frame's
capture time, from the callback's metadata) tells a stale read (the canvas drew the picture shown
before, on a busy machine) from the frame itself. Prints one JSON line with them and the video inbound-rtp stats.
Usage: chromium_stall.py PLAYER_URL STALL_FILE STALL_END_FILE FRAMES_BEFORE FRAMES_AFTER TIMEOUT_SECONDS"""
import json
import sys
import time

import chromium
from stall_timeline import StallTimeline

url, stall_file, stall_end_file = sys.argv[1:4]
before, after, timeout = int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6])

RECORD_FRAMES = """
window.stallFrames = [];
const video = document.querySelector("video");
const reader = new FrameCodeReader();
const onFrame = (now, metadata) => {
  const code = reader.read(video);
  const received = performance.timeOrigin + (metadata.receiveTime || now);
  window.stallFrames.push([received / 1000, code ? code.frameNumber : null, code ? code.wallClockMs : null,
                           metadata.rtpTimestamp === undefined ? null : metadata.rtpTimestamp]);
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
    timeline = StallTimeline(stall_file, stall_end_file, before)
    stall_end, after_stall = None, 0
    while time.time() - started < timeout and (stall_end is None or after_stall < after):
        if stall_end is None:
            stall_end = timeline.observe(driver.execute_script("return window.stallFrames.length"))
        else:
            after_stall = driver.execute_script("return window.stallFrames.filter((f) => f[0] > arguments[0]).length", stall_end)
        time.sleep(0.05)
    result["frames"] = driver.execute_script("return window.stallFrames")
    stats = driver.execute_async_script(chromium.INBOUND_VIDEO) or {}
    result["stats"] = {key: stats.get(key) for key in FIELDS}
    driver.execute_script("document.getElementById('stop').click()")
    time.sleep(1)
finally:
    driver.quit()
print(json.dumps(result), flush=True)
