"""Plays MP4 files in headless Chromium's <video> element and reports what it showed.

usage: chromium_mp4.py DIR FILE [FILE ...]
Serves DIR on 127.0.0.1 (an ephemeral port) and plays the FILEs one after the other in one <video>
element, twice: by `src` (Chromium's own demuxer) and through Media Source Extensions (the strict
ISO BMFF parser browsers' players use; each file's fragments appended whole, each file its own
SourceBuffer). Prints one JSON object: for each mode, whether it played to the end, the error if
any, the picture sizes in the order shown (from requestVideoFrameCallback), the frames decoded
(getVideoPlaybackQuality), and the seconds played. Every wait is bounded.
"""
import functools
import http.server
import json
import sys
import threading

import chromium

PLAY = """
const [mode, urls] = arguments;
const done = arguments[arguments.length - 1];
const video = document.createElement("video");
video.muted = true;
document.body.appendChild(video);
const result = {mode, sizes: [], framesShown: 0, framesDecoded: 0, framesDropped: 0, timePlayed: 0, error: null, ended: false};
// The counters restart with each new src; they are summed over the files.
const count = () => {
  const quality = video.getVideoPlaybackQuality();
  result.framesDecoded += quality.totalVideoFrames;
  result.framesDropped += quality.droppedVideoFrames;
  result.timePlayed += video.currentTime;
};
let shownBefore = 0;
const finish = () => {
  count();
  video.remove();
  done(result);
};
const onFrame = (now, meta) => {
  result.framesShown = shownBefore + meta.presentedFrames;
  const last = result.sizes[result.sizes.length - 1];
  if (!last || last[0] !== meta.width || last[1] !== meta.height) result.sizes.push([meta.width, meta.height]);
  video.requestVideoFrameCallback(onFrame);
};
video.requestVideoFrameCallback(onFrame);
video.onerror = () => { result.error = video.error ? video.error.code + " " + video.error.message : "error"; finish(); };
let index = 0;
const next = () => {
  if (index >= urls.length) { result.ended = true; finish(); return; }
  if (index > 0) { count(); shownBefore = result.framesShown; }
  const url = urls[index++];
  video.src = url;
  video.play().catch((e) => { result.error = "play: " + e; finish(); });
};
const typeOf = (bytes) => {
  // The codecs string from the first video sample entry and any mp4a track in the moov.
  const text = new TextDecoder("latin1").decode(bytes.slice(0, 4096));
  const codecs = [];
  for (const entry of ["avc1", "avc3", "hvc1", "hev1"]) {
    const at = text.indexOf(entry);
    if (at < 0) continue;
    const config = text.indexOf(entry.startsWith("avc") ? "avcC" : "hvcC", at);
    const c = bytes.slice(config + 5, config + 8);
    codecs.push(entry.startsWith("avc") ? entry + "." + [...c].map((b) => b.toString(16).padStart(2, "0")).join("") : entry);
    break;
  }
  if (text.indexOf("mp4a") >= 0) codecs.push("mp4a.40.2");
  return 'video/mp4; codecs="' + codecs.join(",") + '"';
};
const playMSE = async () => {
  const source = new MediaSource();
  video.src = URL.createObjectURL(source);
  await new Promise((resolve) => source.addEventListener("sourceopen", resolve, {once: true}));
  let offset = 0;
  for (const url of urls) {
    const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
    const type = typeOf(bytes);
    result.types = (result.types || []).concat([type]);
    let buffer = source.sourceBuffers[0];
    if (buffer) buffer.changeType(type); else buffer = source.addSourceBuffer(type);
    buffer.timestampOffset = offset;
    buffer.appendBuffer(bytes);
    await new Promise((resolve, reject) => {
      buffer.addEventListener("updateend", resolve, {once: true});
      buffer.addEventListener("error", () => reject(new Error("append failed")), {once: true});
    });
    offset = buffer.buffered.length ? buffer.buffered.end(buffer.buffered.length - 1) : offset;
  }
  result.buffered = [...Array(video.buffered.length).keys()].map((i) => [video.buffered.start(i), video.buffered.end(i)]);
  source.endOfStream();
  video.onended = () => { result.ended = true; finish(); };
  await video.play();
};
if (mode === "src") {
  video.onended = next;
  next();
} else {
  playMSE().catch((e) => { result.error = result.error || String(e); finish(); });
}
"""


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def main():
    directory, files = sys.argv[1], sys.argv[2:]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=directory))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = "http://127.0.0.1:%d/" % server.server_address[1]
    result = {}
    driver = chromium.start()
    try:
        driver.set_script_timeout(60)
        driver.get(base)
        for mode in ["src", "mse"]:
            result[mode] = driver.execute_async_script(PLAY, mode, [base + name for name in files])
        result["ok"] = True
    except Exception as error:  # reported, and the Swift test fails on it
        result["ok"] = False
        result["error"] = repr(error)
    finally:
        driver.quit()
        server.shutdown()
    print(json.dumps(result))


main()
