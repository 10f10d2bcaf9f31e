"""aiortc watches livepush over WHEP while the test stalls the link: after FRAMES_BEFORE decoded
frames it creates STALL_FILE (the test's script then stalls and writes the epoch time the link came
back to STALL_END_FILE), and it keeps decoding until FRAMES_AFTER frames received after that time
(or TIMEOUT_SECONDS in all). Prints one JSON line:
every decoded frame as [received at (time.time()), frame number, wall-clock capture ms] (both
null when the frame carries no valid code: it decoded to something else than was captured), and
the decoder's complaints: FFmpeg errors (a missing reference, a broken macroblock) and aiortc's
"failed to decode" warnings.
Usage: aiortc_stall.py WHEP_URL STALL_FILE STALL_END_FILE FRAMES_BEFORE FRAMES_AFTER TIMEOUT_SECONDS"""
import asyncio
import json
import logging
import sys
import time

import av.logging

from aiortc_viewer import connect_whep, read_code  # also points aioice at 127.0.0.1
from stall_timeline import StallTimeline


class Complaints(logging.Handler):
    """Counts what FFmpeg's decoder (the libav.* loggers) and aiortc's receiver report as errors."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        decoder = record.name.startswith("libav") and record.levelno >= logging.ERROR
        if decoder or "failed to decode" in record.getMessage():
            self.messages.append("%s: %s" % (record.name, record.getMessage()))


async def main(url, stall_file, stall_end_file, before, after, timeout):
    complaints = Complaints()
    logging.getLogger().addHandler(complaints)
    av.logging.set_level(av.logging.ERROR)
    deadline = time.time() + timeout
    pc, track, status, _, answer = await connect_whep(url, None, timeout)
    result = {"postStatus": status, "frames": []}
    if track is None:
        result["error"] = answer
        await pc.close()
        return result
    timeline = StallTimeline(stall_file, stall_end_file, before)
    stall_end, after_stall = None, 0
    while time.time() < deadline and (stall_end is None or after_stall < after):
        try:
            frame = await asyncio.wait_for(track.recv(), 1)
        except asyncio.TimeoutError:  # the stall: nothing decodes for a while
            frame = None
        now = time.time()
        if frame is not None:
            code = read_code(frame.to_ndarray(format="yuv420p")[: frame.height])
            result["frames"].append([now, code[0], code[2]] if code else [now, None, None])
            if stall_end is not None and now > stall_end:
                after_stall += 1
        stall_end = timeline.observe(len(result["frames"]))
    result["decoderComplaints"] = complaints.messages[:20]
    result["decoderComplaintCount"] = len(complaints.messages)
    await pc.close()
    return result


if __name__ == "__main__":
    url, stall_file, stall_end_file = sys.argv[1:4]
    before, after, timeout = int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6])
    try:
        output = asyncio.run(main(url, stall_file, stall_end_file, before, after, timeout))
    except Exception as error:  # report, do not hang: the test reads the JSON line
        output = {"error": repr(error)}
    print(json.dumps(output), flush=True)
