"""Two aiortc WHEP viewers of one stream: one keeps watching, the other stops sending RTCP (its
receiver reports) SILENT_AFTER seconds after its first decoded frame while its ICE stack still
answers consent, and watches until livepush ends its track (or SECONDS in all). The steady one
watches until STEADY_AFTER seconds past that end. Prints one JSON line: each viewer's tally
(frames, codes in order, first and last frame numbers), and for the silent one when it went silent,
when its track ended and whether livepush ended it, when it sent its last receiver report before the
silence and the longest gap between its reports before it (epoch seconds, time.time()).
Usage: aiortc_whep_silent.py WHEP_URL SILENT_AFTER SECONDS [STEADY_AFTER]"""
import asyncio
import json
import sys
import time

from aiortc.rtp import RtcpRrPacket

from aiortc_viewer import connect_whep, receive_frames


async def watch(url, seconds, silent_after, silent_ended=None, steady_after=0):
    started = time.time()
    pc, track, status, location, answer = await connect_whep(url, None, 20)
    result = {"postStatus": status}
    if track is None:
        result["error"] = answer
        await pc.close()
        return result
    if silent_after is not None:
        reports = []

        def record_reports(transceiver):
            send = transceiver.receiver._send_rtcp

            async def recorded(packet):
                if isinstance(packet, RtcpRrPacket):
                    reports.append(time.time())
                return await send(packet)
            transceiver.receiver._send_rtcp = recorded

        async def nothing(packet):
            return None

        def silence():
            for transceiver in pc.getTransceivers():
                transceiver.receiver._send_rtcp = nothing
            result["silencedAt"] = time.time()
            result["lastReportAt"] = reports[-1] if reports else None
            result["longestReportGap"] = max((b - a for a, b in zip(reports, reports[1:])), default=None)
            result["reportsBeforeSilence"] = len(reports)

        for transceiver in pc.getTransceivers():
            record_reports(transceiver)
        first_frame = FirstFrame(track, lambda: asyncio.get_running_loop().call_later(silent_after, silence))
        tally = await receive_frames(first_frame, 100000, started, started + seconds)
        result.update(tally)
        result["endedAt"] = time.time()
        silent_ended.set()
    else:
        def done():
            return silent_ended.is_set() and time.time() >= silent_ended.at + steady_after
        result.update(await receive_frames(track, 100000, started, started + seconds, until=done))
    await pc.close()
    return result


class FirstFrame:
    """The track, calling `on_first` once its first frame has decoded."""

    def __init__(self, track, on_first):
        self.track, self.on_first = track, on_first

    async def recv(self):
        frame = await self.track.recv()
        if self.on_first is not None:
            self.on_first()
            self.on_first = None
        return frame


class Ended(asyncio.Event):
    def set(self):
        self.at = time.time()
        super().set()


async def main(url, silent_after, seconds, steady_after):
    silent_ended = Ended()
    steady, silent = await asyncio.gather(watch(url, seconds, None, silent_ended, steady_after),
                                          watch(url, seconds, silent_after, silent_ended))
    return {"steady": steady, "silent": silent}


if __name__ == "__main__":
    steady_after = float(sys.argv[4]) if len(sys.argv) > 4 else 2
    print(json.dumps(asyncio.run(main(sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), steady_after))))
