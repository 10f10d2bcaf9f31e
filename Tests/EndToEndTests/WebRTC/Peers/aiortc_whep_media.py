"""aiortc offering what a WHEP viewer without browser extras offers: H.264 (with RTX), no video
orientation extension, and with --audio a recvonly Opus track. Prints one JSON line: the POST
status (and the error text when refused), video frames decoded and their size, and with --audio
the decoded audio frames and the tone's frequency (numpy FFT). With --via PORT:RELAY the answer's
host candidate on PORT is pointed at a relay listening on RELAY (the loss tests' LossyUDPRelay).
With --turned DEGREES the pictures are expected turned that far clockwise (a rotated stream whose
pixels livepush turns): frame codes are read after turning each picture back. With --cvo the offer
also names the video orientation extension (aiortc ignores it on receipt), so livepush may pass
rotation as metadata and leave the pixels as captured.
Usage: aiortc_whep_media.py [--audio] [--cvo] [--via PORT:RELAY] [--turned DEGREES] WHEP_URL FRAMES TIMEOUT_SECONDS"""
import asyncio
import json
import sys
import time
import urllib.request

from aiortc import RTCConfiguration, RTCPeerConnection, RTCRtpReceiver, RTCSessionDescription

from aiortc_audio import receive_audio
from aiortc_viewer import receive_frames, request  # also points aioice at 127.0.0.1


CVO_EXTMAP = "a=extmap:13 urn:3gpp:video-orientation\r\n"


def with_orientation_extension(sdp):
    """The offer with the orientation extension named in its video section."""
    head, video = sdp.split("m=video", 1)
    section, rest = (video.split("m=", 1) + [None])[:2]
    section = section + CVO_EXTMAP
    return head + "m=video" + section + ("m=" + rest if rest is not None else "")


async def main(url, wanted, timeout, audio, via, turned, cvo):
    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    video = pc.addTransceiver("video", direction="recvonly")
    video.setCodecPreferences([c for c in RTCRtpReceiver.getCapabilities("video").codecs if c.mimeType in ("video/H264", "video/rtx")])
    if audio:
        pc.addTransceiver("audio", direction="recvonly").setCodecPreferences(
            [c for c in RTCRtpReceiver.getCapabilities("audio").codecs if c.mimeType == "audio/opus"])
    loop = asyncio.get_running_loop()
    tracks = {"video": loop.create_future(), "audio": loop.create_future()}
    pc.on("track", lambda track: tracks[track.kind].done() or tracks[track.kind].set_result(track))
    await pc.setLocalDescription(await pc.createOffer())
    started = time.time()
    deadline = started + timeout
    offer = with_orientation_extension(pc.localDescription.sdp) if cvo else pc.localDescription.sdp
    status, headers, answer = await asyncio.to_thread(request, "POST", url, offer)
    result = {"postStatus": status, "answerHasRTX": " rtx/90000" in answer, "answerHasOpus": " opus/48000/2" in answer,
              "answerHasCVO": "urn:3gpp:video-orientation" in answer}
    if status != 201:
        result["error"] = answer
        await pc.close()
        return result
    if via:
        port, relay = via.split(":")
        answer = answer.replace(" 127.0.0.1 %s typ host" % port, " 127.0.0.1 %s typ host" % relay)
        result["viaRelay"] = (" %s typ host" % relay) in answer
    await pc.setRemoteDescription(RTCSessionDescription(sdp=answer, type="answer"))
    jobs = [receive_frames(await asyncio.wait_for(tracks["video"], timeout), wanted, started, deadline, turned=turned)]
    if audio:
        jobs.append(receive_audio(await asyncio.wait_for(tracks["audio"], timeout), deadline))
    for part in await asyncio.gather(*jobs):
        result.update(part)
    location = urllib.request.urljoin(url, headers.get("Location", ""))
    result["deleteStatus"] = (await asyncio.to_thread(request, "DELETE", location))[0]
    await pc.close()
    return result


if __name__ == "__main__":
    arguments = sys.argv[1:]
    audio = "--audio" in arguments
    cvo = "--cvo" in arguments
    via = arguments[arguments.index("--via") + 1] if "--via" in arguments else None
    turned = arguments[arguments.index("--turned") + 1] if "--turned" in arguments else "0"
    arguments = [argument for i, argument in enumerate(arguments)
                 if argument not in ("--audio", "--cvo", "--via", "--turned") and arguments[i - 1] not in ("--via", "--turned")]
    try:
        output = asyncio.run(main(arguments[0], int(arguments[1]), float(arguments[2]), audio, via, int(turned), cvo))
    except Exception as error:  # report, do not hang: the test reads the JSON line
        output = {"error": repr(error)}
    print(json.dumps(output), flush=True)
