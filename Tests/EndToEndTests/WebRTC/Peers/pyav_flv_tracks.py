"""Reads an FLV file with FFmpeg 8 (bundled in PyAV) and decodes every video stream in it: a multitrack
file (enhanced RTMP v2) shows one video stream per track. Prints one JSON line: the libavformat version
and, per video stream in track order (FFmpeg's stream id is the track id), its codec, size, packets,
key packets with their timestamps (ms), frames decoded, decode errors, corrupt frames and the
burned-in frame codes as pyav_rtmp_server.py reads them. `error` says what went wrong before the
file could be read; errorLogs quotes FFmpeg's error-level log lines.

usage: pyav_flv_tracks.py FILE.flv"""
import json
import sys

import av

from pyav_rtmp_server import errors_logged, tally, too_old

# Multitrack FLV came to FFmpeg's demuxer in 8.0 (libavformat 62).
OLDEST_LIBAVFORMAT = (62, 0)


def main():
    result = {"libavformat": ".".join(map(str, av.library_versions["libavformat"])), "tracks": [], "error": None,
              "errorLogs": []}
    if too_old(result, OLDEST_LIBAVFORMAT, "multitrack FLV: pip install 'av>=16' in the test venv"):
        return
    result["errorLogs"] = ["%s: %s" % logged for logged in errors_logged(result, lambda: read(sys.argv[1], result))]
    print(json.dumps(result))


def read(path, result):
    container = av.open(path, format="flv")
    try:
        streams = sorted(container.streams.video, key=lambda stream: stream.id)
        tracks = {}
        for stream in streams:
            tracks[stream.index] = {"track": stream.id, "codec": stream.codec_context.name, "width": 0, "height": 0,
                                    "packets": 0, "bytes": 0, "keyMillis": [], "lastMillis": 0, "frames": 0,
                                    "decodeErrors": 0, "corruptFrames": 0, "codes": 0, "unreadable": [],
                                    "firstCode": None, "lastCode": None, "codesIncrease": True}
        last = {stream.index: None for stream in streams}
        for packet in container.demux(streams):
            track = tracks[packet.stream.index]
            if packet.size == 0:
                frames = packet.stream.codec_context.decode(None)
            else:
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
                    continue
            for frame in frames:
                last[packet.stream.index] = tally(frame, track, last[packet.stream.index])
        result["tracks"] = [tracks[stream.index] for stream in streams]
    finally:
        container.close()


if __name__ == "__main__":
    main()
