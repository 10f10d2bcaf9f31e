"""Reads an FLV file with FFmpeg 8 (bundled in PyAV), or with --listen takes one RTMP publisher as
FFmpeg's RTMP server, and decodes every video stream in it: a multitrack stream (enhanced RTMP v2)
shows one video stream per track. Prints one JSON line: the libavformat version
and, per video stream in track order (FFmpeg's stream id is the track id), its codec, size, packets,
key packets with their timestamps (ms), frames decoded, decode errors, corrupt frames and the
burned-in frame codes as pyav_rtmp_server.py reads them. `error` says what went wrong before the
file could be read; errorLogs quotes FFmpeg's error-level log lines.

With --listen, `streamEnd` says how the stream ended (FFmpeg's RTMP server reads the publisher's
close as an I/O error).

usage: pyav_flv_tracks.py FILE.flv
       pyav_flv_tracks.py --listen rtmp://127.0.0.1:PORT/app/key [--wait SECONDS]"""
import argparse
import json

import av

from pyav_rtmp_server import errors_logged, tally, too_old

# Multitrack FLV came to FFmpeg's demuxer in 8.0 (libavformat 62).
OLDEST_LIBAVFORMAT = (62, 0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("source", help="an FLV file, or with --listen the rtmp:// URL to listen on")
    parser.add_argument("--listen", action="store_true", help="take one RTMP publisher on the URL")
    parser.add_argument("--wait", type=int, default=30, help="with --listen: seconds to wait for the publisher")
    args = parser.parse_args()
    result = {"libavformat": ".".join(map(str, av.library_versions["libavformat"])), "tracks": [], "error": None,
              "errorLogs": []}
    if too_old(result, OLDEST_LIBAVFORMAT, "multitrack FLV: pip install 'av>=16' in the test venv"):
        return
    if args.listen:
        open_source = lambda: av.open(args.source, options={"listen": "1", "timeout": str(args.wait)})
    else:
        open_source = lambda: av.open(args.source, format="flv")
    result["errorLogs"] = ["%s: %s" % logged for logged in errors_logged(result, lambda: read(open_source, result, args.listen))]
    print(json.dumps(result))


def read(open_source, result, listening):
    container = open_source()
    try:
        streams = sorted(container.streams.video, key=lambda stream: stream.id)
        tracks = {}
        for stream in streams:
            tracks[stream.index] = {"track": stream.id, "codec": stream.codec_context.name, "width": 0, "height": 0,
                                    "packets": 0, "bytes": 0, "keyMillis": [], "lastMillis": 0, "frames": 0,
                                    "decodeErrors": 0, "corruptFrames": 0, "codes": 0, "unreadable": [],
                                    "firstCode": None, "lastCode": None, "codesIncrease": True}
        last = {stream.index: None for stream in streams}
        try:
            for packet in container.demux(streams):
                last[packet.stream.index] = count(packet, tracks[packet.stream.index], last[packet.stream.index])
        except av.error.FFmpegError as error:
            if not listening:
                raise
            result["streamEnd"] = str(error)
        for stream in streams:
            for frame in stream.codec_context.decode(None):
                last[stream.index] = tally(frame, tracks[stream.index], last[stream.index])
        result["tracks"] = [tracks[stream.index] for stream in streams]
    finally:
        container.close()


def count(packet, track, last):
    """Counts one demuxed packet of a track and decodes it; returns the last frame code read."""
    if packet.size == 0:
        return last
    track["packets"] += 1
    track["bytes"] += packet.size
    millis = int(packet.pts * packet.time_base * 1000)
    track["lastMillis"] = millis
    if packet.is_keyframe:
        track["keyMillis"].append(millis)
    try:
        frames = packet.stream.codec_context.decode(packet)
    except av.error.FFmpegError:
        track["decodeErrors"] += 1
        return last
    for frame in frames:
        last = tally(frame, track, last)
    return last


if __name__ == "__main__":
    main()
