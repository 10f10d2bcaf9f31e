"""Headless Chromium watches livepush over WHEP through a lossy UDP relay (the test's
LossyUDPRelay). livepush is ICE-lite and names its own UDP port in the answer, so the page rewrites
that candidate to the relay's port before setRemoteDescription: every packet then goes through
the relay. Samples the video inbound-rtp stats (NACKs, PLIs, frames and key frames decoded,
freezes, loss, retransmissions) on the page's own timeline: STEADY_FROM and STEADY_TO seconds after
the first decoded frame; at OUTAGE_AT it creates OUTAGE_FILE (the test then takes the link down)
and waits (bounded) for OUTAGE_OVER_FILE (the link is back), then samples RECOVERED_AFTER and
END_AFTER seconds after that. Prints the samples as one JSON line, with the page's frame-code
figures (and chromium.RECORD_TIMELINE's order counts) and whether RTX was negotiated. With --no-rtx
the page leaves RTX out of its offer (setCodecPreferences), so repairs are plain NACK retransmissions.
Without the outage files it only samples at the given seconds after the first decoded frame (a link
the test changes on its own schedule).
Usage: chromium_loss.py [--no-rtx] PLAYER_URL WHEP_UDP_PORT RELAY_PORT OUTAGE_FILE OUTAGE_OVER_FILE
                        STEADY_FROM STEADY_TO OUTAGE_AT RECOVERED_AFTER END_AFTER
       chromium_loss.py [--no-rtx] PLAYER_URL WHEP_UDP_PORT RELAY_PORT SAMPLE_SECONDS..."""
import json
import os
import sys
import time

import chromium

arguments = [value for value in sys.argv[1:] if value != "--no-rtx"]
without_rtx = len(arguments) < len(sys.argv) - 1
url, whep_port, relay_port = arguments[0], int(arguments[1]), int(arguments[2])

def is_seconds(value):
    try:
        float(value)
        return True
    except ValueError:
        return False


with_outage = len(arguments) > 3 and not is_seconds(arguments[3])
if with_outage:
    outage_file, outage_over_file = arguments[3], arguments[4]
    steady_from, steady_to, outage_at, recovered_after, end_after = (float(value) for value in arguments[5:10])
else:
    sample_times = [float(value) for value in arguments[3:]]

LEAVE_OUT_RTX_AND_PLAY = """
const [withoutRtx] = arguments;
if (withoutRtx) {
  const addTransceiver = RTCPeerConnection.prototype.addTransceiver;
  RTCPeerConnection.prototype.addTransceiver = function (kind, init) {
    const transceiver = addTransceiver.call(this, kind, init);
    if (kind === "video") {
      transceiver.setCodecPreferences(RTCRtpReceiver.getCapabilities("video").codecs.filter((c) => c.mimeType !== "video/rtx"));
    }
    return transceiver;
  };
}
document.getElementById("play").click();
"""

FIELDS = ["framesDecoded", "keyFramesDecoded", "framesDropped", "nackCount", "pliCount", "firCount",
          "packetsLost", "packetsReceived", "retransmittedPacketsReceived", "freezeCount",
          "totalFreezesDuration", "pauseCount", "framesPerSecond", "frameWidth", "frameHeight"]

driver = chromium.start()
result = {"samples": []}
try:
    driver.set_script_timeout(5)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": chromium.RECORD_TIMELINE})
    driver.get(url + "?autoplay=0")
    driver.execute_script(chromium.REWRITE_ANSWER_PORT, whep_port, relay_port)
    driver.execute_script(LEAVE_OUT_RTX_AND_PLAY, without_rtx)
    started = time.time()
    first_frame = None
    while first_frame is None and time.time() - started < 15:
        stats = driver.execute_async_script(chromium.INBOUND_VIDEO)
        if stats and stats.get("framesDecoded", 0) > 0:
            first_frame = time.time()
        time.sleep(0.1)
    result["secondsToFirstFrame"] = None if first_frame is None else first_frame - started

    def sample_at(at):
        time.sleep(max(0, at - time.time()))
        stats = driver.execute_async_script(chromium.INBOUND_VIDEO) or {}
        result["samples"].append(dict({key: stats.get(key) for key in FIELDS}, at=at - first_frame))

    if first_frame and not with_outage:
        for at in sample_times:
            sample_at(first_frame + at)
    elif first_frame:
        sample_at(first_frame + steady_from)
        sample_at(first_frame + steady_to)
        time.sleep(max(0, first_frame + outage_at - time.time()))
        open(outage_file, "w").close()
        # The outage's own length is the test's; this only bounds a test that never ends it.
        waited = time.time()
        while not os.path.exists(outage_over_file) and time.time() - waited < 20:
            time.sleep(0.05)
        over = time.time()
        result["outageSeconds"] = over - waited
        sample_at(over + recovered_after)
        sample_at(over + end_after)
    result["rewrittenCandidates"] = driver.execute_script("return window.rewrittenCandidates")
    result["rtxNegotiated"] = driver.execute_script(
        "return !!(player && player.pc && player.pc.remoteDescription.sdp.includes(' rtx/'))")
    page = driver.execute_script("return window.whepStats || {}") or {}
    result["page"] = {key: page.get(key) for key in ["state", "frameCodesRead", "frameOrderErrors", "latencyP50Ms", "latencyP99Ms", "packetsLost"]}
    timeline = driver.execute_script("return window.timeline") or {}
    result["page"]["timeline"] = {key: timeline.get(key) for key in ["orderErrors", "staleReads", "repeats"]}
    driver.execute_script("document.getElementById('stop').click()")
    time.sleep(1)
finally:
    driver.quit()
print(json.dumps(result), flush=True)
