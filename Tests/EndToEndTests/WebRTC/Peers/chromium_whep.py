"""Headless Chromium opens livepush's player page, watches over WHEP, and prints window.whepStats
as one JSON line once frames with readable frame codes have decoded for a while (or on timeout);
with FRAMES, once that many frames have decoded (for pictures whose code is not on top, e.g. rotated).
For a test that runs another viewer beside it: with WHEP_FIRST_FRAME_FILE set, that file is created
once the first frame has decoded; with WHEP_STOP_FILE set, it stops as soon as that file exists;
with WHEP_SIZE_FILE set, that file always holds the latest decoded and shown sizes
("1280x720 shown 720x1280"), for a test that waits on what the page shows.
With WHEP_OFFER_WITHOUT_TRANSPORT_CC set, the offer the page POSTs has no transport-cc lines (the
extension and its feedback), as a browser that does not support it would send, so the answer leaves
it out and Chromium falls back to REMB.
Besides the page's own figures it prints chromium.RECORD_TIMELINE's (the arrival latencies as their
median: wall-clock capture → last packet received, the sender's and the network's share without the
page's jitter buffer, decoding and drawing), the audio inbound-rtp figures, and two snapshots, at the
first code and at the end, of frames decoded beside the frame number then shown.
Usage: chromium_whep.py PLAYER_URL SECONDS [FRAMES]"""
import json
import os
import sys
import time

import chromium

url, seconds = sys.argv[1], float(sys.argv[2])
frames_wanted = int(sys.argv[3]) if len(sys.argv) > 3 else None

# For driver.execute_async_script: the player's audio inbound-rtp stats, or null without audio.
INBOUND_AUDIO = chromium.INBOUND_VIDEO.replace('entry.kind === "video"', 'entry.kind === "audio"')


def snapshot():
    """[frames decoded, frame number shown] now, or None before a code was read."""
    number = driver.execute_script("return window.timeline ? window.timeline.lastNumber : null")
    stats = driver.execute_async_script(chromium.INBOUND_VIDEO) or {}
    return [stats.get("framesDecoded"), number] if number is not None and stats.get("framesDecoded") else None


driver = chromium.start()
try:
    if os.environ.get("WHEP_OFFER_WITHOUT_TRANSPORT_CC"):
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": chromium.OFFER_WITHOUT_TRANSPORT_CC})
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": chromium.RECORD_TIMELINE})
    driver.set_script_timeout(5)
    driver.get(url)
    started = time.time()
    first_frame = None
    stats = {}
    snapshots = []
    while time.time() - started < seconds:
        stats = driver.execute_script("return window.whepStats || {}") or {}
        if not snapshots:
            snapshots = [value for value in [snapshot()] if value]
        if first_frame is None and stats.get("framesDecoded", 0) > 0:
            first_frame = time.time() - started
            if os.environ.get("WHEP_FIRST_FRAME_FILE"):
                open(os.environ["WHEP_FIRST_FRAME_FILE"], "w").close()
        if os.environ.get("WHEP_SIZE_FILE"):
            with open(os.environ["WHEP_SIZE_FILE"] + ".tmp", "w") as handle:
                handle.write("%sx%s shown %sx%s\n" % (stats.get("width"), stats.get("height"), stats.get("videoWidth"), stats.get("videoHeight")))
            os.replace(os.environ["WHEP_SIZE_FILE"] + ".tmp", os.environ["WHEP_SIZE_FILE"])
        if os.environ.get("WHEP_STOP_FILE") and os.path.exists(os.environ["WHEP_STOP_FILE"]):
            break
        if frames_wanted is None and stats.get("latencySamples", 0) >= 150 and stats.get("fps", 0) > 0:
            break
        if frames_wanted is not None and stats.get("framesDecoded", 0) >= frames_wanted:
            break
        time.sleep(0.25)
    stats["secondsToFirstFrame"] = first_frame
    snapshots += [value for value in [snapshot()] if value]
    timeline = driver.execute_script("return window.timeline") or {}
    arrivals = sorted(timeline.pop("arrivals", None) or [])
    stats["timeline"] = timeline
    stats["decodeSnapshots"] = snapshots
    stats["arrivalP50Ms"] = arrivals[len(arrivals) // 2] if arrivals else None
    stats["arrivalSamples"] = len(arrivals)
    audio = driver.execute_async_script(INBOUND_AUDIO) or {}
    stats["audioInbound"] = {key: audio.get(key) for key in [
        "packetsReceived", "totalSamplesReceived", "concealedSamples", "silentConcealedSamples", "concealmentEvents",
        "insertedSamplesForDeceleration", "removedSamplesForAcceleration", "jitterBufferDelay", "jitterBufferEmittedCount"]}
    stats["offerLinesRemoved"] = driver.execute_script("return window.offerLinesRemoved")
    stats["dom"] = {key: driver.find_element("id", key).text for key in ["resolution", "fps", "latency", "rtt", "packetsLost"]}
    # Leave through the page's Stop button: the player sends the WHEP DELETE.
    driver.execute_script("document.getElementById('stop').click()")
    time.sleep(1)
    print(json.dumps(stats), flush=True)
finally:
    driver.quit()
