"""aiortc as a WHEP viewer that reads abs-capture-time itself: aiortc does not know the extension
(it neither offers it nor parses it), so the offer gets an a=extmap line for it and every RTP
packet's raw one-byte header extension block is searched for the answered id before aiortc parses
it. Each decoded frame's RTP timestamp (its pts, counted from the first frame's) then names the
capture time its first packet carried, compared with the frame's burned-in frame code (capture on livepush's CLOCK_MONOTONIC,
made wall clock with this machine's CLOCK_REALTIME − CLOCK_MONOTONIC, as livepush samples it).
Prints one JSON line: frames decoded, codes read, packets that carried a capture time, frames with
a code and a capture time, and the errors
(extension − frame code, ms) as min/p50/max/maxAbs.
Usage: aiortc_capture_time.py WHEP_URL SECONDS"""
import asyncio
import json
import re
import struct
import sys
import time

from aiortc.rtp import RtpPacket

from aiortc_viewer import connect_whep, read_code

ABS_CAPTURE_TIME = "http://www.webrtc.org/experiments/rtp-hdrext/abs-capture-time"
OFFERED_ID = 13
NTP_UNIX_OFFSET_SECONDS = 2_208_988_800
ONE_BYTE_PROFILE = 0xBEDE

capture_times = {}  # RTP timestamp → capture time (Unix ns) from abs-capture-time
answered_id = None
original_parse = RtpPacket.parse.__func__


def abs_capture_time(data):
    """The abs-capture-time element's NTP time in `data` (a raw RTP packet), as Unix ns, or None."""
    if len(data) < 12 or not data[0] & 0x10:
        return None
    position = 12 + 4 * (data[0] & 0x0F)
    profile, words = struct.unpack_from("!HH", data, position)
    if profile != ONE_BYTE_PROFILE:
        return None
    block = data[position + 4: position + 4 + 4 * words]
    index = 0
    while index < len(block):
        if block[index] == 0:
            index += 1
            continue
        element_id, length = block[index] >> 4, (block[index] & 0x0F) + 1
        if element_id == 15:
            return None
        if element_id == answered_id and length in (8, 16):
            ntp = int.from_bytes(block[index + 1: index + 9], "big")
            return ((ntp >> 32) - NTP_UNIX_OFFSET_SECONDS) * 1_000_000_000 + ((ntp & 0xFFFFFFFF) * 1_000_000_000 >> 32)
        index += 1 + length
    return None


def parse_keeping_capture_time(cls, data, *args, **kwargs):
    packet = original_parse(cls, data, *args, **kwargs)
    if answered_id is not None:
        captured = abs_capture_time(data)
        if captured is not None:
            capture_times[packet.timestamp] = captured
    return packet


RtpPacket.parse = classmethod(parse_keeping_capture_time)


def with_extension(sdp):
    """The offer with abs-capture-time in its video section (after the m=video line)."""
    return re.sub(r"(m=video [^\r\n]*\r\n)", r"\1a=extmap:%d %s\r\n" % (OFFERED_ID, ABS_CAPTURE_TIME), sdp, count=1)


async def main(url, seconds):
    global answered_id
    pc, track, status, location, answer = await connect_whep(url, None, seconds, edit_offer=with_extension)
    result = {"postStatus": status, "frames": 0, "codes": 0, "matched": 0}
    if track is None:
        result["error"] = answer
        await pc.close()
        return result
    found = re.search(r"a=extmap:(\d+)(?:/\w+)? " + re.escape(ABS_CAPTURE_TIME), answer)
    answered_id = int(found.group(1)) if found else None
    result["answeredID"] = answered_id
    before = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    wall = time.time_ns()
    after = time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    offset_nanos = wall - (before + (after - before) // 2)
    errors = []
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            frame = await asyncio.wait_for(track.recv(), max(0.1, deadline - time.time()))
        except Exception:  # the deadline passed or the stream ended
            break
        result["frames"] += 1
        code = read_code(frame.to_ndarray(format="yuv420p")[: frame.height])
        # aiortc counts pts from the first frame's RTP timestamp (its TimestampMapper): the first
        # packet livepush sent, a key frame's. A wrong guess shows as errors of whole frame intervals.
        origin = next(iter(capture_times), 0)
        captured = capture_times.get((origin + frame.pts) % 2**32)
        result["codes"] += 1 if code else 0
        if code and captured is not None:
            errors.append((captured - (code[1] + offset_nanos)) / 1e6)
    await pc.close()
    result["packetsWithCaptureTime"] = len(capture_times)
    ordered = sorted(errors)
    result["matched"] = len(ordered)
    if ordered:
        result["errorMs"] = {"min": ordered[0], "p50": ordered[len(ordered) // 2], "max": ordered[-1], "maxAbs": max(map(abs, ordered))}
    return result


if __name__ == "__main__":
    try:
        output = asyncio.run(main(sys.argv[1], float(sys.argv[2])))
    except Exception as error:  # report, do not hang: the test reads the JSON line
        output = {"error": repr(error)}
    print(json.dumps(output), flush=True)
