"""Headless Chromium for the Python peers, with the flags WebRTC needs in a loopback-only network
namespace (../shared/peers/README.md): 127.0.0.1 host candidates instead of mDNS names, and
autoplay without a gesture."""
from selenium import webdriver
from selenium.webdriver.chrome.service import Service


# For driver.execute_async_script: the player page's video inbound-rtp stats, or null before it plays.
INBOUND_VIDEO = """
const done = arguments[arguments.length - 1];
if (typeof player === "undefined" || !player || !player.pc) { done(null); return; }
player.pc.getStats().then((report) => {
  let found = null;
  report.forEach((entry) => { if (entry.type === "inbound-rtp" && entry.kind === "video") found = entry; });
  done(found ? JSON.parse(JSON.stringify(found)) : null);
}).catch(() => done(null));
"""

# For driver.execute_script(REWRITE_ANSWER_PORT, whep_port, relay_port): livepush is ICE-lite and
# names its own UDP port in the answer; this points that candidate at a relay instead (counted in
# window.rewrittenCandidates), so every packet goes through it. Run before the player connects.
REWRITE_ANSWER_PORT = """
const [whepPort, relayPort] = arguments;
const setRemote = RTCPeerConnection.prototype.setRemoteDescription;
window.rewrittenCandidates = 0;
RTCPeerConnection.prototype.setRemoteDescription = function (description) {
  if (description && description.type === "answer") {
    const sdp = description.sdp.replace(new RegExp(" " + whepPort + " typ host", "g"),
      () => { window.rewrittenCandidates++; return " " + relayPort + " typ host"; });
    description = { type: "answer", sdp };
  }
  return setRemote.call(this, description);
};
"""

# For Page.addScriptToEvaluateOnNewDocument: the WHEP offer the player POSTs loses its transport-cc
# lines (a=extmap for the transport-wide sequence number, a=rtcp-fb ... transport-cc), as from a
# browser without it; counted in window.offerLinesRemoved.
OFFER_WITHOUT_TRANSPORT_CC = """
const originalFetch = window.fetch;
window.offerLinesRemoved = 0;
window.fetch = function (input, init) {
  if (init && init.method === "POST" && typeof init.body === "string" && init.body.startsWith("v=0")) {
    const lines = init.body.split("\\r\\n");
    const kept = lines.filter((line) => !/transport-cc|transport-wide-cc/.test(line));
    window.offerLinesRemoved += lines.length - kept.length;
    init = Object.assign({}, init, { body: kept.join("\\r\\n") });
  }
  return originalFetch.call(this, input, init);
};
"""


def start(extra_flags=()):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--allow-loopback-in-peer-connection", "--disable-features=WebRtcHideLocalIpsWithMdns",
                 "--autoplay-policy=no-user-gesture-required", *extra_flags]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(15)
    return driver
