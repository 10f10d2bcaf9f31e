import Capture
import Codec
import Foundation
import Logging
import Synchronization

/// The audio half of a stream: one capture thread reads the source (ALSA, tone, silence), encodes
/// each chunk with one encoder per codec the outputs want (AAC and/or Opus), and hands the frames
/// to those outputs, which only enqueue. Audio and video share CLOCK_MONOTONIC timestamps.
final class AudioPipeline: @unchecked Sendable {
    /// One encoder per codec some output wanted at start; fixed after init.
    private let routes: [(codec: AudioCodec, encoder: AudioEncoder, track: AudioTrack)]
    /// The outputs each codec's frames go to; a reload may add or remove one while running.
    private let listeners: Mutex<[AudioCodec: [any StreamOutput]]>
    private let source: any AudioSource
    private let logger: Logger
    private let state = Mutex((stopRequested: false, running: false, encoded: 0, errors: 0))
    private let exited = NSCondition()
    private var hasExited = false

    /// Opens an encoder for each codec in use and describes the track to its outputs.
    init(source: any AudioSource, outputs: [any StreamOutput], logger: Logger) throws(CodecError) {
        self.source = source
        self.logger = logger
        var routes: [(codec: AudioCodec, encoder: AudioEncoder, track: AudioTrack)] = []
        var listeners: [AudioCodec: [any StreamOutput]] = [:]
        for codec in AudioCodec.allCases {
            let wanting = outputs.filter { $0.audioCodec == codec }
            guard !wanting.isEmpty else { continue }
            let encoder = try AudioEncoder(settings: AudioEncoderSettings(codec: codec, format: source.format))
            let track = AudioTrack(codec: codec, format: source.format, audioSpecificConfig: encoder.audioSpecificConfig)
            wanting.forEach { $0.prepareAudio(track) }
            routes.append((codec, encoder, track))
            listeners[codec] = wanting
        }
        self.routes = routes
        self.listeners = Mutex(listeners)
    }

    /// Whether `output` can join the running track: it carries no audio, or its codec's encoder
    /// runs. (An encoder is opened only at start, for the codecs the outputs then wanted.)
    func canServe(_ output: any StreamOutput) -> Bool {
        output.audioCodec.map { codec in routes.contains { $0.codec == codec } } ?? true
    }

    /// Tells `output` the track and sends it frames from the next chunk on (see ``canServe(_:)``).
    func attach(_ output: any StreamOutput) {
        guard let codec = output.audioCodec, let route = routes.first(where: { $0.codec == codec }) else { return }
        output.prepareAudio(route.track)
        listeners.withLock { $0[codec, default: []].append(output) }
    }

    /// No more frames go to `output` once this returns.
    func detach(_ output: any StreamOutput) {
        guard let codec = output.audioCodec else { return }
        listeners.withLock { $0[codec]?.removeAll { $0 === output } }
    }

    var isNeeded: Bool { !routes.isEmpty }
    var encodedFrames: Int { state.withLock { $0.encoded } }

    func start() {
        state.withLock { $0.running = true }
        let thread = Thread { [self] in run() }
        thread.name = "livepush.audio"
        thread.start()
    }

    /// Stops capture, flushes the encoders into the outputs and waits for the thread.
    func stop() {
        let running = state.withLock { state -> Bool in
            state.stopRequested = true
            return state.running
        }
        guard running else { return }
        exited.lock()
        while !hasExited { exited.wait() }
        exited.unlock()
    }

    private func run() {
        while !state.withLock({ $0.stopRequested }) {
            do {
                let chunk = try source.read()
                for route in routes {
                    try route.encoder.encode(chunk) { frame in deliver(frame, codec: route.codec) }
                }
            } catch {
                logger.error("audio stopped", metadata: ["error": "\(error)"])
                break
            }
        }
        for route in routes {
            try? route.encoder.flush { frame in deliver(frame, codec: route.codec) }
        }
        source.close()
        state.withLock { $0.running = false }
        exited.lock()
        hasExited = true
        exited.broadcast()
        exited.unlock()
    }

    private func deliver(_ frame: EncodedAudioFrame, codec: AudioCodec) {
        state.withLock { $0.encoded += 1 }
        let outputs = listeners.withLock { $0[codec] ?? [] }
        outputs.forEach { $0.onEncodedAudio(frame) }
    }
}
