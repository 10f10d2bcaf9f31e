"""A small WHIP endpoint (RFC 9725) on aiortc, to receive livepush's WHIP output: POST /whip/cam
answers the SDP offer (201, a relative Location, a STUN Link header), the video is decoded and its
burned-in frame codes (docs/frame-code.md) checked for order per session, Opus frames counted; DELETE
and PATCH are recorded. POST /moved/cam answers 307 to /whip/cam. Every event rewrites RESULT_FILE (JSON), so a
test can read it even after killing the server.

Usage: aiortc_whip_server.py PORT RESULT_FILE [--token T] [--tls CERT KEY] [--patch-status 405] [--freeze-after S]
                            [--silence-rtcp-after S]
  --token         require "Authorization: Bearer T" (401 otherwise)
  --tls           serve https with this PEM certificate and key
  --patch-status  the answer to PATCH (ICE restart): 405 or 501 say "not supported"
  --freeze-after  S seconds after the first session's first frame, stop answering its ICE checks
                  (consent is lost at the client; the HTTP side stays up)
  --silence-rtcp-after  S seconds after the first session's first frame, its receivers send no more
                  RTCP (receiver reports, NACK, PLI) while it still answers ICE and decodes what arrives;
                  the record's rtcpSilencedAt says when, lastReportAt when it sent its last receiver report
  --close-after   S seconds after the first session's first frame, close its peer connection
                  (DTLS close_notify) without telling the client over HTTP
  --stun-port     answer STUN Binding requests on this UDP port (the Link header names it) with
                  127.0.0.2 as the mapped address, so the client can offer a srflx candidate"""
import argparse
import asyncio
import http.server
import json
import os
import ssl
import threading
import time
import urllib.parse

from aiortc_viewer import read_code
from http_reply import reply
from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription
from aiortc.rtp import RtcpRrPacket


class Endpoint:
    def __init__(self, args, loop):
        self.args, self.loop = args, loop
        self.lock = threading.Lock()
        self.state = {"posts": [], "redirects": 0, "deletes": [], "patches": [], "authorizations": [], "sessions": {},
                      "offerCandidateTypes": [], "stunRequests": 0}
        self.peers = {}
        self.first_frame_at = None

    def save(self):
        with self.lock:
            text = json.dumps(self.state)
        temporary = self.args.result + ".tmp"
        with open(temporary, "w") as handle:
            handle.write(text)
        os.replace(temporary, self.args.result)

    async def answer(self, offer):
        pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
        session = "s%d" % (len(self.state["sessions"]) + 1)
        tally = {"frames": 0, "codes": 0, "inOrder": True, "firstCode": None, "lastCode": None, "width": 0, "height": 0,
                 "audioFrames": 0, "audioRate": 0,
                 "firstFrameKey": None}
        with self.lock:
            self.state["sessions"][session] = tally
        self.peers[session] = pc

        @pc.on("track")
        def on_track(track):
            if track.kind == "video":
                asyncio.ensure_future(self.consume(session, pc, track, tally))
            else:
                asyncio.ensure_future(self.count_audio(track, tally))

        await pc.setRemoteDescription(RTCSessionDescription(sdp=offer, type="offer"))
        await pc.setLocalDescription(await pc.createAnswer())
        for transceiver in pc.getTransceivers():
            self.note_reports(pc, transceiver.receiver)
        return session, pc.localDescription.sdp

    def note_reports(self, pc, receiver):
        """Keeps when the receiver last sent a receiver report (pc.last_report_at, time.time())."""
        send = receiver._send_rtcp

        async def noted(packet):
            if isinstance(packet, RtcpRrPacket):
                pc.last_report_at = time.time()
            return await send(packet)
        receiver._send_rtcp = noted

    async def consume(self, session, pc, track, tally):
        while True:
            try:
                frame = await track.recv()
            except Exception:
                return
            code = read_code(frame.to_ndarray(format="yuv420p")[: frame.height])
            with self.lock:
                if tally["frames"] == 0:
                    tally["firstFrameKey"] = bool(frame.key_frame)
                tally["frames"] += 1
                tally["width"], tally["height"] = frame.width, frame.height
                if code is not None:
                    number = code[0]
                    tally["codes"] += 1
                    if tally["lastCode"] is not None and number <= tally["lastCode"]:
                        tally["inOrder"] = False
                    if tally["firstCode"] is None:
                        tally["firstCode"] = number
                    tally["lastCode"] = number
            if self.first_frame_at is None:
                self.first_frame_at = time.time()
                if self.args.silence_rtcp_after is not None:
                    asyncio.get_running_loop().call_later(self.args.silence_rtcp_after, self.silence_rtcp, pc)
                if self.args.freeze_after is not None:
                    asyncio.get_running_loop().call_later(self.args.freeze_after, self.freeze, pc)
                if self.args.close_after is not None:
                    asyncio.get_running_loop().call_later(self.args.close_after, lambda: asyncio.ensure_future(self.close(session)))
            if tally["frames"] % 10 == 1:
                self.save()

    async def count_audio(self, track, tally):
        while True:
            try:
                frame = await track.recv()
            except Exception:
                return
            with self.lock:
                tally["audioFrames"] += 1
                tally["audioRate"] = frame.sample_rate

    def freeze(self, pc):
        """Ignore the client's ICE checks from now on: its consent checks go unanswered."""
        connection = pc.getTransceivers()[0].receiver.transport.transport._connection
        connection.request_received = lambda *arguments, **keywords: None
        with self.lock:
            self.state["frozenAt"] = time.time()
        self.save()

    def silence_rtcp(self, pc):
        """Send no RTCP from now on: the client sees no receiver report advance, while consent still answers."""
        async def nothing(packet):
            return None
        for transceiver in pc.getTransceivers():
            transceiver.receiver._send_rtcp = nothing
        with self.lock:
            self.state["rtcpSilencedAt"] = time.time()
            self.state["lastReportAt"] = getattr(pc, "last_report_at", None)
        self.save()

    async def close(self, session):
        pc = self.peers.pop(session, None)
        if pc is not None:
            await pc.close()

    def run(self, coroutine):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout=10)


def handler_for(endpoint):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *arguments):
            pass

        def body(self):
            return self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode()

        def authorized(self):
            presented = self.headers.get("Authorization")
            with endpoint.lock:
                endpoint.state["authorizations"].append(presented)
            return endpoint.args.token is None or presented == "Bearer " + endpoint.args.token

        def do_POST(self):
            offer = self.body()
            path = urllib.parse.urlsplit(self.path).path
            if path == "/moved/cam":
                with endpoint.lock:
                    endpoint.state["redirects"] += 1
                endpoint.save()
                return reply(self, 307, headers=[("Location", "/whip/cam")])
            if path != "/whip/cam":
                return reply(self, 404, "no such endpoint")
            if not self.authorized():
                with endpoint.lock:
                    endpoint.state["posts"].append(401)
                endpoint.save()
                return reply(self, 401, "bad token", [("WWW-Authenticate", "Bearer")])
            if self.headers.get("Content-Type", "") != "application/sdp":
                return reply(self, 415, "want application/sdp")
            session, answer = endpoint.run(endpoint.answer(offer))
            with endpoint.lock:
                endpoint.state["posts"].append(201)
                endpoint.state["offerCandidateTypes"].append(
                    [line.split(" typ ")[1].split(" ")[0] for line in offer.splitlines() if line.startswith("a=candidate:")])
            endpoint.save()
            reply(self, 201, answer, [("Content-Type", "application/sdp"), ("Location", "cam/session/" + session),
                                     ("ETag", '"%s"' % session), ("Link", '<stun:127.0.0.1:%d>; rel="ice-server"' % endpoint.args.stun_port)])

        def do_DELETE(self):
            session = self.path.rsplit("/", 1)[-1]
            if not self.authorized() or session not in endpoint.peers:
                return reply(self, 404 if self.authorized() else 401)
            endpoint.run(endpoint.close(session))
            with endpoint.lock:
                endpoint.state["deletes"].append(session)
            endpoint.save()
            reply(self, 200)

        def do_PATCH(self):
            fragment = self.body()
            with endpoint.lock:
                endpoint.state["patches"].append({"path": self.path, "contentType": self.headers.get("Content-Type"),
                                                  "ifMatch": self.headers.get("If-Match"), "hasUfrag": "a=ice-ufrag:" in fragment})
            endpoint.save()
            reply(self, endpoint.args.patch_status, "no ICE restarts here")

    return Handler


class STUNResponder(asyncio.DatagramProtocol):
    """Binding success responses (RFC 8489) with XOR-MAPPED-ADDRESS 127.0.0.2:<source port>."""
    COOKIE = 0x2112A442

    def __init__(self, endpoint):
        self.endpoint = endpoint

    def connection_made(self, transport):
        self.transport = transport

    def datagram_received(self, data, address):
        if len(data) < 20 or int.from_bytes(data[0:2], "big") != 0x0001 or int.from_bytes(data[4:8], "big") != self.COOKIE:
            return
        with self.endpoint.lock:
            self.endpoint.state["stunRequests"] += 1
        mapped_ip = int.from_bytes(bytes([127, 0, 0, 2]), "big") ^ self.COOKIE
        attribute = (0x0020).to_bytes(2, "big") + (8).to_bytes(2, "big") + bytes([0, 1]) \
            + (address[1] ^ (self.COOKIE >> 16)).to_bytes(2, "big") + mapped_ip.to_bytes(4, "big")
        header = (0x0101).to_bytes(2, "big") + len(attribute).to_bytes(2, "big") + data[4:20]
        self.transport.sendto(header + attribute, address)


async def main(args):
    endpoint = Endpoint(args, asyncio.get_running_loop())
    await asyncio.get_running_loop().create_datagram_endpoint(lambda: STUNResponder(endpoint), local_addr=("127.0.0.1", args.stun_port))
    endpoint.save()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), handler_for(endpoint))
    server.daemon_threads = True
    if args.tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*args.tls)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print("listening", flush=True)
    await asyncio.sleep(args.lifetime)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("result")
    parser.add_argument("--token")
    parser.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    parser.add_argument("--patch-status", type=int, default=405)
    parser.add_argument("--freeze-after", type=float)
    parser.add_argument("--close-after", type=float)
    parser.add_argument("--silence-rtcp-after", type=float)
    parser.add_argument("--stun-port", type=int, default=3478)
    parser.add_argument("--lifetime", type=float, default=60)
    asyncio.run(main(parser.parse_args()))
