"""Two aiortc WHEP viewers of one stream: one keeps watching, the other stops sending RTCP (its
receiver reports) after SILENT_AFTER seconds while its ICE stack still answers consent. Prints one
JSON line: each viewer's tally (frames, codes in order), and for the silent one when its track
ended after the silence (livepush closes a viewer whose reports stop advancing).
Usage: aiortc_whep_silent.py WHEP_URL SILENT_AFTER SECONDS"""
import asyncio
import json
import sys
import time

from aiortc_viewer import connect_whep, receive_frames


async def watch(url, seconds, silent_after):
    started = time.time()
    pc, track, status, location, answer = await connect_whep(url, None, 20)
    result = {"postStatus": status}
    if track is None:
        result["error"] = answer
        await pc.close()
        return result
    if silent_after is not None:
        async def nothing(packet):
            return None

        def silence():
            for transceiver in pc.getTransceivers():
                transceiver.receiver._send_rtcp = nothing
            result["silencedAt"] = time.time() - started
        asyncio.get_running_loop().call_later(silent_after, silence)
    result.update(await receive_frames(track, 100000, started, started + seconds))
    result["endedAt"] = time.time() - started
    await pc.close()
    return result


async def main(url, silent_after, seconds):
    steady, silent = await asyncio.gather(watch(url, seconds, None), watch(url, seconds, silent_after))
    return {"steady": steady, "silent": silent}


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1], float(sys.argv[2]), float(sys.argv[3])))))
