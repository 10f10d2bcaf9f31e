"""Headless Chromium opens livepush's player page, watches over WHEP, and prints window.whepStats
as one JSON line once frames with readable frame codes have decoded for a while (or on timeout);
with FRAMES, once that many frames have decoded (for pictures whose code is not on top, e.g. rotated).
For a test that runs another viewer beside it: with WHEP_FIRST_FRAME_FILE set, that file is created
once the first frame has decoded; with WHEP_STOP_FILE set, it stops as soon as that file exists.
With WHEP_OFFER_WITHOUT_TRANSPORT_CC set, the offer the page POSTs has no transport-cc lines (the
extension and its feedback), as a browser that does not support it would send, so the answer leaves
it out and Chromium falls back to REMB.
Usage: chromium_whep.py PLAYER_URL SECONDS [FRAMES]"""
import json
import os
import sys
import time

import chromium

url, seconds = sys.argv[1], float(sys.argv[2])
frames_wanted = int(sys.argv[3]) if len(sys.argv) > 3 else None
driver = chromium.start()
try:
    if os.environ.get("WHEP_OFFER_WITHOUT_TRANSPORT_CC"):
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": chromium.OFFER_WITHOUT_TRANSPORT_CC})
    driver.get(url)
    started = time.time()
    first_frame = None
    stats = {}
    while time.time() - started < seconds:
        stats = driver.execute_script("return window.whepStats || {}") or {}
        if first_frame is None and stats.get("framesDecoded", 0) > 0:
            first_frame = time.time() - started
            if os.environ.get("WHEP_FIRST_FRAME_FILE"):
                open(os.environ["WHEP_FIRST_FRAME_FILE"], "w").close()
        if os.environ.get("WHEP_STOP_FILE") and os.path.exists(os.environ["WHEP_STOP_FILE"]):
            break
        if frames_wanted is None and stats.get("latencySamples", 0) >= 150 and stats.get("fps", 0) > 0:
            break
        if frames_wanted is not None and stats.get("framesDecoded", 0) >= frames_wanted:
            break
        time.sleep(0.25)
    stats["secondsToFirstFrame"] = first_frame
    stats["offerLinesRemoved"] = driver.execute_script("return window.offerLinesRemoved")
    stats["dom"] = {key: driver.find_element("id", key).text for key in ["resolution", "fps", "latency", "rtt", "packetsLost"]}
    # Leave through the page's Stop button: the player sends the WHEP DELETE.
    driver.execute_script("document.getElementById('stop').click()")
    time.sleep(1)
    print(json.dumps(stats), flush=True)
finally:
    driver.quit()
