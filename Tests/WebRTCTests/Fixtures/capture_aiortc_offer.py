# Captures an aiortc recvonly offer (H.264 video + audio), as the aiortc WHEP test client sends it.
import asyncio, sys
import aioice.ice
aioice.ice.get_host_addresses = lambda use_ipv4, use_ipv6: ["127.0.0.1"]
from aiortc import RTCPeerConnection, RTCConfiguration, RTCRtpReceiver
async def main():
    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    t = pc.addTransceiver("video", direction="recvonly")
    t.setCodecPreferences([c for c in RTCRtpReceiver.getCapabilities("video").codecs if c.mimeType in ("video/H264", "video/rtx")])
    pc.addTransceiver("audio", direction="recvonly")
    await pc.setLocalDescription(await pc.createOffer())
    sys.stdout.write(pc.localDescription.sdp)
    await pc.close()
asyncio.run(main())
