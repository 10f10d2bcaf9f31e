"""An enhanced-RTMP receiver that is not livepush: FFmpeg 8 (bundled in PyAV) listens as an RTMP
server on URL, takes one publisher, demuxes its FLV (legacy AVC or enhanced RTMP's hvc1/av01)
and decodes every video frame until the publisher ends the stream.

Prints one JSON line: the FFmpeg versions, the codec, the decoded size, frames decoded, video
packets and key packets demuxed, decode errors (exceptions, frames flagged corrupt, and the
decoder's own error-level log lines, quoted in errorLogs), how the stream ended, and the burned-in
frame codes (docs/frame-code.md): how many read, which decoded frames (by index) had none, the
first and last number, whether they strictly increase. `error` says what went wrong before the stream could be read.

usage: pyav_rtmp_server.py rtmp://127.0.0.1:PORT/app/key [--wait SECONDS]"""
import argparse
import json

import av
import av.logging

from aiortc_viewer import read_code

# Enhanced RTMP's FourCC video (hvc1, av01) came to FFmpeg's FLV demuxer in 6.1 (libavformat 60.16).
OLDEST_LIBAVFORMAT = (60, 16)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--wait", type=int, default=30, help="seconds to wait for the publisher")
    args = parser.parse_args()
    result = {"pyav": av.__version__, "libavformat": ".".join(map(str, av.library_versions["libavformat"])),
              "codec": None, "width": 0, "height": 0, "frames": 0, "packets": 0, "keyPackets": 0,
              "decodeErrors": 0, "corruptFrames": 0, "errorLogs": [], "codes": 0, "unreadable": [], "firstCode": None,
              "lastCode": None, "codesIncrease": True, "streamEnd": "end of stream", "error": None}
    if too_old(result, OLDEST_LIBAVFORMAT, "enhanced RTMP: pip install 'av>=14' in the test venv"):
        return
    # Everything FFmpeg logged at error level or worse while receiving; the decoder's lines count as errors.
    for name, message in errors_logged(result, lambda: receive(args, result)):
        result["errorLogs"].append("%s: %s" % (name, message))
        if name == result["codec"]:
            result["decodeErrors"] += 1
    print(json.dumps(result))


def too_old(result, oldest, needed_for):
    """Whether PyAV's libavformat is older than `oldest`; if so, says so in result and prints it."""
    if av.library_versions["libavformat"][:2] >= oldest:
        return False
    result["error"] = "PyAV's FFmpeg is too old for " + needed_for
    print(json.dumps(result))
    return True


def errors_logged(result, read):
    """Runs read(), an FFmpeg error ending it in result["error"]; the (name, message) of every line
    FFmpeg logged at error level or worse meanwhile."""
    av.logging.set_level(av.logging.ERROR)
    with av.logging.Capture() as logs:
        try:
            read()
        except av.error.FFmpegError as error:
            result["error"] = str(error)
    return [(name, message.strip()) for level, name, message in logs if level <= av.logging.ERROR]


def receive(args, result):
    container = av.open(args.url, options={"listen": "1", "timeout": str(args.wait)})
    try:
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"
        result["codec"] = stream.codec_context.name
        last = None
        try:
            for packet in container.demux(stream):
                if packet.size == 0:  # the demuxer's flush packet at the end
                    continue
                result["packets"] += 1
                result["keyPackets"] += 1 if packet.is_keyframe else 0
                try:
                    frames = stream.codec_context.decode(packet)
                except av.error.FFmpegError as error:
                    result["decodeErrors"] += 1
                    result["errorLogs"].append("decode: %s" % error)
                    continue
                for frame in frames:
                    last = tally(frame, result, last)
        except av.error.FFmpegError as error:
            # FFmpeg's RTMP server reads the publisher's close as an I/O error: the stream has ended.
            result["streamEnd"] = str(error)
        for frame in stream.codec_context.decode(None):
            last = tally(frame, result, last)
    finally:
        container.close()


def tally(frame, result, last):
    """Counts one decoded frame and reads its code; returns the last code number read."""
    result["frames"] += 1
    result["width"], result["height"] = frame.width, frame.height
    if frame.is_corrupt:
        result["corruptFrames"] += 1
    code = read_code(frame.to_ndarray(format="yuv420p")[: frame.height])
    if code is None:
        result["unreadable"].append(result["frames"] - 1)
        return last
    number = code[0]
    result["codes"] += 1
    if result["firstCode"] is None:
        result["firstCode"] = number
    result["lastCode"] = number
    if last is not None and number <= last:
        result["codesIncrease"] = False
    return number


if __name__ == "__main__":
    main()
