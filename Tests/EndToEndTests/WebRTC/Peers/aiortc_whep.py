"""aiortc as an independent WHEP client: POSTs a recvonly H.264 offer, decodes frames, reads the
burned-in frame code (docs/frame-code.md) from the luma plane, DELETEs the session, and prints one
JSON line: frames decoded, codes read and whether they came in order, time to the first frame,
latency percentiles, when the connection came up (connectedAt, time.time()), and the DELETE statuses.
Usage: aiortc_whep.py WHEP_URL FRAMES TIMEOUT_SECONDS [TOKEN]"""
import asyncio
import json
import sys
import time

from aiortc_viewer import connect_whep, receive_frames, request


async def main(url, wanted, timeout, token):
    started = time.time()
    pc, track, status, location, answer = await connect_whep(url, token, timeout)
    result = {"postStatus": status}
    if track is None:
        result["error"] = answer
        await pc.close()
        return result
    result.update(await receive_frames(track, wanted, started, started + timeout))
    result["connectedAt"] = pc.connected_at
    result["deleteStatus"] = (await asyncio.to_thread(request, "DELETE", location, None, token))[0]
    result["deleteAgainStatus"] = (await asyncio.to_thread(request, "DELETE", location, None, token))[0]
    await pc.close()
    return result


if __name__ == "__main__":
    token = sys.argv[4] if len(sys.argv) > 4 else None
    try:
        output = asyncio.run(main(sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), token))
    except Exception as error:  # report, do not hang: the test reads the JSON line
        output = {"error": repr(error)}
    print(json.dumps(output), flush=True)
