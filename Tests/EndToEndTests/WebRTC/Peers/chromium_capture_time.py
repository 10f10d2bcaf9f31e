"""Headless Chromium plays livepush's player page over WHEP and reads, for each frame it shows,
what requestVideoFrameCallback's metadata says (captureTime, receiveTime, rtpTimestamp) beside the
frame's burned-in frame code (its capture instant on livepush's CLOCK_MONOTONIC), and the video
receiver's getSynchronizationSources() entry (captureTimestamp comes from abs-capture-time there).
With MODE "extension" the page asks to negotiate abs-capture-time (setHeaderExtensionsToNegotiate:
Chromium leaves it out of its offers by default); with "default" it offers what Chromium offers.

It prints one JSON line: the samples' agreement with the frame codes. A sample counts only when its
rtpTimestamp belongs to the code read (RTP ticks − capture ticks is the stream's one offset): the
canvas may draw the picture shown before on a busy machine. Capture instants go to wall-clock time
with this machine's CLOCK_REALTIME − CLOCK_MONOTONIC (livepush's own mapping, sampled the same way);
Chromium's times are DOMHighResTimeStamps on the page's timeline, made wall clock with
performance.timeOrigin; captureTimestamp is NTP-epoch milliseconds. The *ErrorMs figures are
Chromium's time minus the frame code's capture time (a synchronization source's only when it names
the frame's RTP timestamp); errorsMs lists the first rVFC captureTime ones.
Usage: chromium_capture_time.py PLAYER_URL SECONDS MODE"""
import collections
import json
import sys
import time

import chromium

url, seconds, mode = sys.argv[1], float(sys.argv[2]), sys.argv[3]

RECORD = """
const wantExtension = %s;
const ABS_CAPTURE_TIME = "http://www.webrtc.org/experiments/rtp-hdrext/abs-capture-time";
window.captureSamples = [];
window.extensionRequested = false;
const addTransceiver = RTCPeerConnection.prototype.addTransceiver;
RTCPeerConnection.prototype.addTransceiver = function (kind, init) {
  const transceiver = addTransceiver.call(this, kind, init);
  if (kind === "video") window.videoReceiver = transceiver.receiver;
  if (wantExtension && kind === "video") {
    const extensions = transceiver.getHeaderExtensionsToNegotiate().map((entry) =>
      entry.uri === ABS_CAPTURE_TIME ? Object.assign({}, entry, { direction: "sendrecv" }) : entry);
    transceiver.setHeaderExtensionsToNegotiate(extensions);
    window.extensionRequested = transceiver.getHeaderExtensionsToNegotiate().some((entry) => entry.uri === ABS_CAPTURE_TIME && entry.direction !== "stopped");
  }
  return transceiver;
};
""" + chromium.FRAME_METADATA + """const wall = (stamp) => (stamp === undefined || stamp === null ? null : performance.timeOrigin + stamp);
document.addEventListener("DOMContentLoaded", () => {
  const read = FrameCodeReader.prototype.read;
  FrameCodeReader.prototype.read = function (video) {
    const code = read.call(this, video);
    const metadata = frameMetadata;
    if (code && metadata && window.captureSamples.length < 3000) {
      const sources = window.videoReceiver ? window.videoReceiver.getSynchronizationSources() : [];
      const source = sources.length ? sources[0] : null;
      window.captureSamples.push({
        frameNumber: code.frameNumber, captureTimeNanos: code.captureTimeNanos,
        rtpTimestamp: metadata.rtpTimestamp === undefined ? null : metadata.rtpTimestamp,
        captureTime: wall(metadata.captureTime), receiveTime: wall(metadata.receiveTime),
        sourceRtpTimestamp: source ? source.rtpTimestamp : null,
        sourceCaptureTimestamp: source && source.captureTimestamp !== undefined ? source.captureTimestamp : null,
        sourceSenderCaptureTimeOffset: source && source.senderCaptureTimeOffset !== undefined ? source.senderCaptureTimeOffset : null,
      });
    }
    return code;
  };
});
"""

NTP_UNIX_OFFSET_MS = 2_208_988_800_000


def monotonic_to_wall_nanos():
    """CLOCK_REALTIME − CLOCK_MONOTONIC now, as livepush's WallClockMapping samples it."""
    before = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    wall = time.time_ns()
    after = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    return wall - (before + (after - before) // 2)


def summary(samples, offset_nanos):
    # The stream's RTP offset: RTP ticks minus capture ticks (90 kHz), the most common value.
    def rtp_offset(sample):
        return (sample["rtpTimestamp"] - sample["captureTimeNanos"] * 90_000 // 1_000_000_000) % 2**32
    timed = [sample for sample in samples if sample["rtpTimestamp"] is not None]
    offsets = collections.Counter(rtp_offset(sample) for sample in timed)
    offset = offsets.most_common(1)[0][0] if offsets else None
    matched = [sample for sample in timed if rtp_offset(sample) == offset]
    errors, source_errors, receive_ms = [], [], []
    for sample in matched:
        captured_ms = (sample["captureTimeNanos"] + offset_nanos) / 1e6
        if sample["captureTime"] is not None:
            errors.append(sample["captureTime"] - captured_ms)
        if sample["receiveTime"] is not None:
            receive_ms.append(sample["receiveTime"] - captured_ms)
        if sample["sourceCaptureTimestamp"] is not None and sample["sourceRtpTimestamp"] == sample["rtpTimestamp"]:
            source_errors.append(sample["sourceCaptureTimestamp"] - NTP_UNIX_OFFSET_MS - captured_ms)

    def spread(values):
        ordered = sorted(values)
        return {"count": len(ordered), "min": ordered[0], "p50": ordered[len(ordered) // 2], "max": ordered[-1],
                "maxAbs": max(abs(value) for value in ordered)} if ordered else {"count": 0}
    first_with_capture = next((index for index, sample in enumerate(matched) if sample["captureTime"] is not None), None)
    return {"samples": len(samples), "matched": len(matched), "withCaptureTime": len(errors),
            "firstMatchedWithCaptureTime": first_with_capture,
            "captureTimeErrorMs": spread(errors), "sourceCaptureTimestampErrorMs": spread(source_errors),
            "receiveMinusCaptureMs": spread(receive_ms), "errorsMs": [round(error, 3) for error in errors[:40]]}


driver = chromium.start()
try:
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": RECORD % ("true" if mode == "extension" else "false")})
    driver.get(url)
    started = time.time()
    while time.time() - started < seconds:
        time.sleep(0.25)
    samples = driver.execute_script("return window.captureSamples") or []
    result = summary(samples, monotonic_to_wall_nanos())
    result["mode"] = mode
    result["extensionRequested"] = driver.execute_script("return window.extensionRequested")
    remote = driver.execute_script("return player && player.pc && player.pc.remoteDescription ? player.pc.remoteDescription.sdp : ''") or ""
    result["answerHasAbsCaptureTime"] = "abs-capture-time" in remote
    result["state"] = driver.execute_script("return (window.whepStats || {}).state")
    driver.execute_script("document.getElementById('stop').click()")
    time.sleep(0.5)
    print(json.dumps(result), flush=True)
finally:
    driver.quit()
