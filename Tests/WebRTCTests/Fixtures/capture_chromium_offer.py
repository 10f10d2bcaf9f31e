# Captures a real Chromium recvonly offer (video + audio), as a WHEP player sends it.
import sys
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
o = Options()
o.binary_location = "/usr/bin/chromium"
for f in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
          "--allow-loopback-in-peer-connection", "--disable-features=WebRtcHideLocalIpsWithMdns"]:
    o.add_argument(f)
d = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=o)
try:
    sdp = d.execute_async_script("""
      const done = arguments[arguments.length - 1];
      const pc = new RTCPeerConnection();
      pc.addTransceiver('video', {direction: 'recvonly'});
      pc.addTransceiver('audio', {direction: 'recvonly'});
      pc.onicegatheringstatechange = () => { if (pc.iceGatheringState === 'complete') done(pc.localDescription.sdp); };
      pc.createOffer().then(o => pc.setLocalDescription(o));
      setTimeout(() => done(pc.localDescription.sdp), 5000);
    """)
    sys.stdout.write(sdp)
    sys.stderr.write(d.capabilities.get("browserVersion", "?") + "\n")
finally:
    d.quit()
