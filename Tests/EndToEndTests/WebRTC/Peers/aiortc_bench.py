"""The receiver of `livepush bench --only webrtc`: aiortc, as a WHEP viewer or, for the plain RTP
streams it is compared with, as the same depacketizer, jitter buffer and decoder thread without
ICE, DTLS and SRTP. For every frame whose burned-in code it reads it splits the capture → decoded
latency (CLOCK_MONOTONIC) into the sender's share (capture → the frame's last packet received)
and aiortc's (→ decoded: its jitter buffer hands a frame on when the next frame's first packet
arrives, so about one frame interval, plus decoding). `--no-decode` viewers only receive (ICE,
DTLS, SRTP, RTCP): the per-viewer CPU measurement attaches several on two cores.
Frames are tallied for SECONDS after a warm-up of WARM_UP_SECONDS from the first frame.
Usage: aiortc_bench.py whep URL SECONDS [--no-decode] | aiortc_bench.py rtp PORT SECONDS
Prints one JSON line: aiortc_viewer.receive_frames' tally, or for --no-decode the RTP packets received."""
import asyncio
import json
import queue
import sys
import threading
import time

from aiortc_viewer import connect_whep, receive_frames, request
from aiortc import rtcrtpreceiver
from aiortc.codecs import depayload
from aiortc.codecs.h264 import H264Decoder
from aiortc.jitterbuffer import JitterBuffer
from aiortc.rtcrtpparameters import RTCRtpCodecParameters
from aiortc.rtp import RtpPacket

WARM_UP_SECONDS = 2

last_packet_ns = {}   # RTP timestamp → when its latest packet arrived
rtp_timestamp = {}    # aiortc's zero-based frame timestamp → RTP timestamp

_map = rtcrtpreceiver.TimestampMapper.map


def _recording_map(self, timestamp):
    mapped = _map(self, timestamp)
    rtp_timestamp[mapped] = timestamp
    return mapped


rtcrtpreceiver.TimestampMapper.map = _recording_map

_handle_rtp = rtcrtpreceiver.RTCRtpReceiver._handle_rtp_packet


async def _recording_handle_rtp(self, packet, arrival_time_ms):
    last_packet_ns[packet.timestamp] = time.monotonic_ns()
    await _handle_rtp(self, packet, arrival_time_ms)


rtcrtpreceiver.RTCRtpReceiver._handle_rtp_packet = _recording_handle_rtp


def arrival_of(frame):
    original = rtp_timestamp.pop(frame.pts, None)
    return last_packet_ns.pop(original, None) if original is not None else None


class PlainRTPTrack(asyncio.DatagramProtocol):
    """H.264 over plain RTP into aiortc's own receive path: depayload, JitterBuffer (as
    RTCRtpReceiver sets it up for video), TimestampMapper and decoder_worker thread."""
    codec = RTCRtpCodecParameters(mimeType="video/H264", clockRate=90000, payloadType=96)

    def __init__(self, loop):
        self.jitter_buffer = JitterBuffer(capacity=512, is_video=True)
        self.mapper = rtcrtpreceiver.TimestampMapper()
        self.encoded = queue.Queue()
        self.decoded = asyncio.Queue()
        threading.Thread(target=rtcrtpreceiver.decoder_worker, args=(loop, self.encoded, self.decoded, threading.Event()),
                         daemon=True).start()

    def datagram_received(self, data, addr):
        arrived = time.monotonic_ns()
        if len(data) < 12 or 72 <= (data[1] & 0x7F) <= 76:  # RTCP (RFC 5761)
            return
        packet = RtpPacket.parse(data)
        last_packet_ns[packet.timestamp] = arrived
        packet._data = depayload(self.codec, packet.payload)
        _, encoded_frame = self.jitter_buffer.add(packet)
        if encoded_frame is not None:
            encoded_frame.timestamp = self.mapper.map(encoded_frame.timestamp)
            self.encoded.put((self.codec, encoded_frame))

    async def recv(self):
        return await self.decoded.get()


async def tally(track, seconds):
    """Frames after the warm-up (the first frames wait for ICE, DTLS and a key frame)."""
    warm_up = await receive_frames(track, 1, time.time(), time.time() + 10, arrival_of)
    await receive_frames(track, 1 << 30, time.time(), time.time() + WARM_UP_SECONDS, arrival_of)
    started = time.time()
    result = await receive_frames(track, 1 << 30, started, started + seconds, arrival_of)
    result["firstFrameSeconds"] = warm_up["firstFrameSeconds"]
    return result


async def watch_whep(url, seconds, decode):
    if not decode:
        H264Decoder.decode = lambda self, encoded_frame: []
    pc, track, status, location, answer = await connect_whep(url, None, 10)
    result = {"postStatus": status}
    if track is None:
        result["error"] = answer
    elif decode:
        result.update(await tally(track, seconds))
    else:
        await asyncio.sleep(seconds)
        stats = await pc.getStats()
        result["packetsReceived"] = sum(s.packetsReceived for s in stats.values() if s.type == "inbound-rtp")
    if location:
        await asyncio.to_thread(request, "DELETE", location)
    await pc.close()
    return result


async def receive_rtp(port, seconds):
    loop = asyncio.get_running_loop()
    transport, track = await loop.create_datagram_endpoint(lambda: PlainRTPTrack(loop), local_addr=("127.0.0.1", port))
    print("listening", file=sys.stderr, flush=True)
    result = await tally(track, seconds)
    transport.close()
    return result


if __name__ == "__main__":
    mode, target, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
    try:
        if mode == "whep":
            output = asyncio.run(watch_whep(target, seconds, "--no-decode" not in sys.argv))
        else:
            output = asyncio.run(receive_rtp(int(target), seconds))
    except Exception as error:  # report, do not hang: the benchmark reads the JSON line
        output = {"error": repr(error)}
    print(json.dumps(output), flush=True)
