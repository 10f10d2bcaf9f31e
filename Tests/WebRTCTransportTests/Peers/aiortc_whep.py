"""aiortc as an independent WHEP client: POSTs a recvonly H.264 offer, decodes frames, reads the
burned-in frame code (docs/frame-code.md) from the luma plane, DELETEs the session, and prints one
JSON line: frames decoded, codes read and whether they came in order, time to the first frame,
latency percentiles, and the DELETE statuses.
Usage: aiortc_whep.py WHEP_URL FRAMES TIMEOUT_SECONDS [TOKEN]"""
import asyncio
import json
import sys
import time
import urllib.error
import urllib.request

import aioice.ice
# A loopback-only network namespace: aioice skips 127.0.0.1 unless told otherwise.
aioice.ice.get_host_addresses = lambda use_ipv4, use_ipv6: ["127.0.0.1"]

from aiortc import RTCConfiguration, RTCPeerConnection, RTCRtpReceiver, RTCSessionDescription


def crc8(data):
    crc = 0
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = ((crc << 1) ^ 0x07) & 0xFF if crc & 0x80 else (crc << 1) & 0xFF
    return crc


def read_code(luma):
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
    if crc8(data[:18]) != data[18]:
        return None
    return int.from_bytes(data[0:4], "big"), int.from_bytes(data[12:18], "big")


def request(method, url, body=None, token=None):
    headers = {"Content-Type": "application/sdp"} if body is not None else {}
    if token:
        headers["Authorization"] = "Bearer " + token
    req = urllib.request.Request(url, data=body.encode() if body is not None else None, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=10) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode()


async def main(url, wanted, timeout, token):
    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    transceiver = pc.addTransceiver("video", direction="recvonly")
    transceiver.setCodecPreferences([c for c in RTCRtpReceiver.getCapabilities("video").codecs if c.mimeType == "video/H264"])
    track_ready = asyncio.get_running_loop().create_future()
    pc.on("track", lambda track: track_ready.set_result(track) if not track_ready.done() else None)
    await pc.setLocalDescription(await pc.createOffer())
    started = time.time()
    status, headers, answer = await asyncio.to_thread(request, "POST", url, pc.localDescription.sdp, token)
    result = {"postStatus": status, "frames": 0, "codes": 0, "inOrder": True, "firstFrameSeconds": None,
              "width": 0, "height": 0, "latencies": []}
    if status != 201:
        result["error"] = answer
        return result
    location = urllib.request.urljoin(url, headers.get("Location", ""))
    await pc.setRemoteDescription(RTCSessionDescription(sdp=answer, type="answer"))
    track = await asyncio.wait_for(track_ready, timeout)
    last = None
    deadline = started + timeout
    while result["frames"] < wanted and time.time() < deadline:
        frame = await asyncio.wait_for(track.recv(), max(0.1, deadline - time.time()))
        if result["firstFrameSeconds"] is None:
            result["firstFrameSeconds"] = time.time() - started
        result["frames"] += 1
        result["width"], result["height"] = frame.width, frame.height
        luma = frame.to_ndarray(format="yuv420p")[: frame.height]
        code = read_code(luma)
        if code is None:
            continue
        number, wall_ms = code
        result["codes"] += 1
        result["latencies"].append(time.time() * 1000 - wall_ms)
        if last is not None and number <= last:
            result["inOrder"] = False
        last = number
    result["deleteStatus"] = (await asyncio.to_thread(request, "DELETE", location, None, token))[0]
    result["deleteAgainStatus"] = (await asyncio.to_thread(request, "DELETE", location, None, token))[0]
    await pc.close()
    latencies = sorted(result.pop("latencies"))
    if latencies:
        result["latencyP50Ms"] = latencies[len(latencies) // 2]
        result["latencyP99Ms"] = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    return result


if __name__ == "__main__":
    token = sys.argv[4] if len(sys.argv) > 4 else None
    try:
        output = asyncio.run(main(sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), token))
    except Exception as error:  # report, do not hang: the test reads the JSON line
        output = {"error": repr(error)}
    print(json.dumps(output), flush=True)
