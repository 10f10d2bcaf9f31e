import Foundation
import Testing
import TestSupport

/// `on_demand: true` on a camera with a microphone (`audio:`), on the real `livepush serve`: while the
/// camera idles its audio captures nothing and its `mic:` thread is gone; an output started through
/// the API starts both, and the audio recorded after the start runs alongside the video.
///
/// The microphone is the paced `tone` source. ALSA's `null` PCM would take the same path (the pause
/// closes the source, the start opens it again: AudioSourceTests checks that on `null`), but it hands
/// out samples as fast as they are read, faster than real time, so its recording could not show a clock.
@Suite(.serialized, .timeLimit(.minutes(3))) struct OnDemandAudioProcessTests {
    @Test func theMicrophoneIdlesWithTheCameraAndComesBackOnItsClock() throws {
        let directory = try TemporaryDirectory()
        let recording = directory.file("door.mp4")
        let yaml = ServeYAML.config([ServeYAML.camera("door", size: "320x240", fps: 15, encoder: "{name: libx264, bitrate: 500k, keyint: 1}",
                                                      keys: ["on_demand: true", "on_demand_idle: 1s"], outputs: ["record: {path: \(recording)}"])])
            + "audio: {device: tone}\n"
        let serve = try ServeUnderTest(yaml: yaml, in: directory)
        let audio = { (try? serve.cameraStatus("door"))?["audio"] as? [String: Any] }
        let chunks = { audio()?["chunksCaptured"] as? Int ?? 0 }
        let threads = { ThreadNames.of(serve.process) }

        // The recording runs, so the camera and its microphone do.
        #expect(serve.process.waitUntil(timeoutSeconds: 15) { chunks() > 100 }, "\(String(describing: audio()))")
        #expect(audio()?["state"] as? String == "capturing" && audio()?["device"] as? String == "tone", "\(String(describing: audio()))")
        #expect(threads().isSuperset(of: ["cap:door", "mic:door"]), "\(threads())")

        // The recording stopped through the API: after the 1 s grace the camera idles, and its microphone with it.
        let api = "\(serve.baseURL)/api/cameras/door/outputs/record"
        #expect(try Curl.status(["-X", "POST", "\(api)/stop"]) == "200")
        #expect(serve.process.waitUntil(timeoutSeconds: 10) { (try? serve.cameraStatus("door"))?["state"] as? String == "idle" })
        #expect(audio()?["state"] as? String == "paused", "\(String(describing: audio()))")
        let idleChunks = chunks()
        Thread.sleep(forTimeInterval: 2)
        #expect(chunks() == idleChunks, "nothing captured while idle: \(idleChunks) then \(chunks())")
        #expect(threads().isDisjoint(with: ["cap:door", "mic:door"]), "no capture thread while idle: \(threads())")
        let metrics = try Curl.body(["\(serve.baseURL)/metrics"])
        #expect(metrics.contains("livepush_audio_capturing{camera=\"door\"} 0"), "\(metrics.prefix(3000))")

        // Started again, the recording wakes the camera, and the microphone captures again.
        #expect(try Curl.status(["-X", "POST", "\(api)/start"]) == "200")
        #expect(serve.process.waitUntil(timeoutSeconds: 10) { chunks() > idleChunks + 200 }, "\(String(describing: audio()))")
        #expect(audio()?["state"] as? String == "capturing")
        #expect(threads().isSuperset(of: ["cap:door", "mic:door"]), "\(threads())")
        #expect(serve.stop() == 0, "\(serve.process.errorOutput.suffix(1500))")

        // The recording made after the start: audio packets throughout, on the video's clock (without
        // the jump over the idle time the audio would trail the video by the seconds the camera idled).
        let audioTimes = try FFmpegCLI.packetTimes(recording), videoTimes = try FFmpegCLI.packetTimes(recording, stream: "v:0")
        #expect(audioTimes.count > 80, "\(audioTimes.count) audio packets")
        #expect(zip(audioTimes, audioTimes.dropFirst()).allSatisfy { $1 > $0 && $1 - $0 < 0.2 }, "audio packets continue without a hole")
        let (audioStart, videoStart) = (audioTimes.min() ?? -1, videoTimes.min() ?? 99)
        let (audioEnd, videoEnd) = (audioTimes.max() ?? -1, videoTimes.max() ?? 99)
        #expect(abs(audioStart - videoStart) < 0.5 && abs(audioEnd - videoEnd) < 0.5,
                "audio \(audioStart)…\(audioEnd) s, video \(videoStart)…\(videoEnd) s")
    }
}
