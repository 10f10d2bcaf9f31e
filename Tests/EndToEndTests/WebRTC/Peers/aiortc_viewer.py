"""What the aiortc viewers share: aioice told which address to use (the tests run in a
loopback-only network namespace, where aioice would otherwise gather no candidate; 127.0.0.1
unless AIORTC_HOST_ADDRESS says otherwise), a WHEP connection, the burned-in frame code
(docs/frame-code.md) read from a decoded frame's luma plane, and a tally of decoded frames."""
import asyncio
import os
import time
import urllib.error
import urllib.request

import aioice.ice
import numpy

aioice.ice.get_host_addresses = lambda use_ipv4, use_ipv6: [os.environ.get("AIORTC_HOST_ADDRESS", "127.0.0.1")]

from aiortc import RTCConfiguration, RTCPeerConnection, RTCRtpReceiver, RTCSessionDescription  # noqa: E402
from aiortc.mediastreams import MediaStreamError  # noqa: E402


def request(method, url, body=None, token=None):
    """One WHEP request; (status, headers, body text), HTTP errors included."""
    headers = {"Content-Type": "application/sdp"} if body is not None else {}
    if token:
        headers["Authorization"] = "Bearer " + token
    req = urllib.request.Request(url, data=body.encode() if body is not None else None, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=10) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode()


async def connect_whep(url, token, timeout, edit_offer=None):
    """POSTs a recvonly H.264 offer (through `edit_offer(sdp)` when given); returns (peer connection,
    video track or None, POST status, session URL, answer or error text). The connection's
    `connected_at` is when it came up (time.time())."""
    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    pc.connected_at = None

    @pc.on("connectionstatechange")
    def note_connected():
        if pc.connectionState == "connected" and pc.connected_at is None:
            pc.connected_at = time.time()

    transceiver = pc.addTransceiver("video", direction="recvonly")
    transceiver.setCodecPreferences([c for c in RTCRtpReceiver.getCapabilities("video").codecs if c.mimeType == "video/H264"])
    track_ready = asyncio.get_running_loop().create_future()
    pc.on("track", lambda track: track_ready.set_result(track) if not track_ready.done() else None)
    await pc.setLocalDescription(await pc.createOffer())
    offer = edit_offer(pc.localDescription.sdp) if edit_offer else pc.localDescription.sdp
    status, headers, answer = await asyncio.to_thread(request, "POST", url, offer, token)
    if status != 201:
        return pc, None, status, None, answer
    location = urllib.request.urljoin(url, headers.get("Location", ""))
    await pc.setRemoteDescription(RTCSessionDescription(sdp=answer, type="answer"))
    track = await asyncio.wait_for(track_ready, timeout)
    return pc, track, status, location, answer


def crc8(data):
    crc = 0
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = ((crc << 1) ^ 0x07) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
    return crc


def read_code(luma):
    """(frame number, monotonic capture ns, wall-clock capture ms) from a 2-D numpy luma array, or
    None when the frame carries no valid code."""
    height, width = luma.shape
    size = width // 76
    if size < 2 or height < 2 * size:
        return None
    data = bytearray(19)
    for i in range(152):
        column, row = i % 76, i // 76
        y0, x0 = row * size + size // 4, column * size + size // 4
        span = max(1, size // 2)
        if luma[y0:y0 + span, x0:x0 + span].mean() >= 126:
            data[i >> 3] |= 0x80 >> (i & 7)
    if not any(data) or crc8(data[:18]) != data[18]:  # all zeros (a black band) passes the CRC
        return None
    return int.from_bytes(data[0:4], "big"), int.from_bytes(data[4:12], "big"), int.from_bytes(data[12:18], "big")


def percentile(ordered, fraction):
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))] if ordered else None


async def receive_frames(track, wanted, started, deadline, last_packet_ns=None, turned=0, until=None):
    """Decodes up to `wanted` frames from `track` (anything with an async recv() giving PyAV video
    frames) until `deadline` (time.time()) and tallies them: frames, frame codes read, whether the
    codes came in order, seconds from `started` to the first frame, the size, and capture →
    decoded latency percentiles in ms on CLOCK_MONOTONIC (sender and receiver share the machine).
    With `last_packet_ns(frame)` (when the frame's last packet arrived), the latency is split into
    the sender's share (capture → last packet received) and the receiver's (→ decoded).
    With `turned` (degrees), the pictures are expected turned that far clockwise from the capture:
    each is turned back before its code is read, so codes read only from pictures turned exactly so.
    `sizes` lists each distinct decoded size ("WxH") in order of appearance; `firstCode` and `lastCode`
    the first and last frame numbers read, `firstCaptureMs` the first one's wall-clock capture time,
    `lastFrameAt` when the last frame decoded (time.time()), and `trackEnded` whether the sender ended
    the track (rather than the count, the deadline or `until()`, checked between frames, ending the tally)."""
    tally = {"frames": 0, "codes": 0, "inOrder": True, "firstFrameSeconds": None, "width": 0, "height": 0, "sizes": [],
             "firstCode": None, "lastCode": None, "firstCaptureMs": None, "lastFrameAt": None, "trackEnded": False}
    latencies, sender, receiver, last = [], [], [], None
    while tally["frames"] < wanted and time.time() < deadline and not (until and until()):
        wait = deadline - time.time()
        try:
            frame = await asyncio.wait_for(track.recv(), max(0.1, min(wait, 1) if until else wait))
        except asyncio.TimeoutError:  # no frame in time (or a look at `until`)
            continue
        except MediaStreamError:  # the sender ended the stream
            tally["trackEnded"] = True
            break
        decoded_ns = time.monotonic_ns()
        tally["lastFrameAt"] = time.time()
        if tally["firstFrameSeconds"] is None:
            tally["firstFrameSeconds"] = time.time() - started
        tally["frames"] += 1
        tally["width"], tally["height"] = frame.width, frame.height
        if "%dx%d" % (frame.width, frame.height) not in tally["sizes"]:
            tally["sizes"].append("%dx%d" % (frame.width, frame.height))
        code = read_code(numpy.rot90(frame.to_ndarray(format="yuv420p")[: frame.height], turned // 90))
        if code is None:
            continue
        number, capture_ns, capture_ms = code
        tally["codes"] += 1
        if tally["firstCode"] is None:
            tally["firstCode"], tally["firstCaptureMs"] = number, capture_ms
        tally["lastCode"] = number
        latencies.append((decoded_ns - capture_ns) / 1e6)
        arrived_ns = last_packet_ns(frame) if last_packet_ns else None
        if arrived_ns is not None:
            sender.append((arrived_ns - capture_ns) / 1e6)
            receiver.append((decoded_ns - arrived_ns) / 1e6)
        if last is not None and number <= last:
            tally["inOrder"] = False
        last = number
    for name, values in [("latency", latencies), ("senderShare", sender), ("receiverShare", receiver)]:
        if values or name == "latency":
            values.sort()
            tally[name + "P50Ms"], tally[name + "P99Ms"] = percentile(values, 0.5), percentile(values, 0.99)
    return tally
