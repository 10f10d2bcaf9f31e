"""aiortc watches a Janus streaming mountpoint through Janus's HTTP API, as a viewer of a demo that
scales past one machine would: create a session, attach janus.plugin.streaming, `watch` the
mountpoint, take Janus's JSEP offer from the session's long poll, answer, `start`; then decode
frames and read their burned-in frame codes. Prints one JSON line: the tally of decoded frames
(aiortc_viewer.receive_frames) and Janus's replies along the way.
Usage: janus_watch.py JANUS_URL MOUNTPOINT_ID FRAMES TIMEOUT_SECONDS"""
import asyncio
import json
import sys
import time
import urllib.request

from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription
from aiortc_viewer import receive_frames


def post(url, body):
    body = dict(body, transaction=str(time.monotonic_ns()))
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def next_offer(session_url, deadline):
    """Long-polls the session (Janus holds each GET up to 30 s; ours give up sooner) until an
    event carries a JSEP offer; returns (event, offer SDP)."""
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"{session_url}?maxev=1", timeout=max(1.0, min(5.0, deadline - time.time()))) as response:
                event = json.loads(response.read())
        except TimeoutError:
            continue
        jsep = event.get("jsep") if isinstance(event, dict) else None
        if jsep and jsep.get("type") == "offer":
            return event, jsep["sdp"]
    raise TimeoutError("Janus sent no JSEP offer in time")


async def main(janus_url, mountpoint, wanted, timeout):
    started = time.time()
    deadline = started + timeout
    session = post(janus_url, {"janus": "create"})["data"]["id"]
    session_url = f"{janus_url}/{session}"
    handle = post(session_url, {"janus": "attach", "plugin": "janus.plugin.streaming"})["data"]["id"]
    handle_url = f"{session_url}/{handle}"
    result = {"watchReply": post(handle_url, {"janus": "message", "body": {"request": "watch", "id": mountpoint}})["janus"]}
    event, offer = await asyncio.to_thread(next_offer, session_url, deadline)
    result["offerStatus"] = event.get("plugindata", {}).get("data", {}).get("result", {}).get("status")

    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    track_ready = asyncio.get_running_loop().create_future()
    pc.on("track", lambda track: track_ready.set_result(track) if not track_ready.done() and track.kind == "video" else None)
    await pc.setRemoteDescription(RTCSessionDescription(sdp=offer, type="offer"))
    await pc.setLocalDescription(await pc.createAnswer())
    start = post(handle_url, {"janus": "message", "body": {"request": "start"},
                              "jsep": {"type": "answer", "sdp": pc.localDescription.sdp}})
    result["startReply"] = start["janus"]
    # The answer carries every candidate aiortc has: tell Janus no more will trickle in.
    post(handle_url, {"janus": "trickle", "candidate": {"completed": True}})
    track = await asyncio.wait_for(track_ready, max(0.1, deadline - time.time()))
    result.update(await receive_frames(track, wanted, started, deadline))
    result["stopReply"] = post(handle_url, {"janus": "message", "body": {"request": "stop"}})["janus"]
    post(session_url, {"janus": "destroy"})
    await pc.close()
    return result


if __name__ == "__main__":
    try:
        output = asyncio.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])))
    except Exception as error:  # report, do not hang: the test reads the JSON line
        output = {"error": repr(error)}
    print(json.dumps(output), flush=True)
