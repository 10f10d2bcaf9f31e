import Capture
import Codec
import Foundation
import Logging
import MediaCore
import Output
import Synchronization

/// The audio half of a stream: one capture thread reads the source (ALSA, tone, silence), encodes
/// each chunk with one encoder per codec the outputs want (AAC and/or Opus), and hands the frames
/// to those outputs, which only enqueue. Audio and video share CLOCK_MONOTONIC timestamps.
///
/// An on-demand camera's audio pauses with it (``pause()``): the thread ends and the source closes
/// (an ALSA device is free), while the encoders and the outputs' tracks stay; ``resume()`` opens the
/// source again and the encoders go on at the new chunks' capture times, as the video does.
///
/// Before the encoders, ``AudioClockSync`` measures the source's sample clock against the capture
/// clock and inserts or drops single frames so the audio timestamps stay on the video's clock.
final class AudioPipeline: @unchecked Sendable {
    /// One encoder per codec some output wanted at start; fixed after init.
    private let routes: [(codec: AudioCodec, encoder: AudioEncoder, track: AudioTrack)]
    /// The outputs each codec's frames go to; a reload may add or remove one while running.
    private let listeners: Mutex<[AudioCodec: [any StreamOutput]]>
    private let source: any AudioSource
    private let threadName: ThreadName
    private let logger: Logger
    private let state = Mutex(State())
    /// Guards `threadRunning`; broadcast when the capture thread ends.
    private let exited = NSCondition()
    private var threadRunning = false
    /// Touched only by the capture thread (and by ``resume()`` while no thread runs).
    private var clockSync: AudioClockSync

    private struct State {
        var stopRequested = false
        var status = AudioStatus()
        /// ``stop()`` flushed the encoders: the track has ended.
        var finished = false
    }

    /// Opens an encoder for each codec in use (each output learns its track at start: ``track(for:)``);
    /// `threadName` names the capture thread ("mic:door"); `clockCorrection` off only measures the skew.
    init(source: any AudioSource, outputs: [any StreamOutput], threadName: ThreadName, clockCorrection: Bool = true,
         logger: Logger) throws(CodecError) {
        self.source = source
        clockSync = AudioClockSync(format: source.format, tuning: AudioClockControl.Tuning(correcting: clockCorrection))
        self.threadName = threadName
        self.logger = logger
        var routes: [(codec: AudioCodec, encoder: AudioEncoder, track: AudioTrack)] = []
        var listeners: [AudioCodec: [any StreamOutput]] = [:]
        for codec in AudioCodec.allCases {
            let wanting = outputs.filter { $0.audioCodec == codec }
            guard !wanting.isEmpty else { continue }
            let encoder = try AudioEncoder(settings: AudioEncoderSettings(codec: codec, format: source.format))
            let track = AudioTrack(codec: codec, format: source.format, audioSpecificConfig: encoder.audioSpecificConfig)
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

    /// The track `output` carries: the one in its codec, if that codec is encoded.
    func track(for output: any StreamOutput) -> AudioTrack? {
        output.audioCodec.flatMap { codec in routes.first { $0.codec == codec }?.track }
    }

    /// Sends `output`, started with its ``track(for:)``, frames from the next chunk on (see ``canServe(_:)``).
    func attach(_ output: any StreamOutput) {
        guard let codec = output.audioCodec, routes.contains(where: { $0.codec == codec }) else { return }
        listeners.withLock { $0[codec, default: []].append(output) }
    }

    /// No more frames go to `output` once this returns.
    func detach(_ output: any StreamOutput) {
        guard let codec = output.audioCodec else { return }
        listeners.withLock { $0[codec]?.removeAll { $0 === output } }
    }

    var isNeeded: Bool { !routes.isEmpty }
    var status: AudioStatus { state.withLock { $0.status } }

    func start() { launch() }

    /// Stops capture and closes the source until ``resume()``; the encoders keep what they hold.
    func pause() {
        endThread()
        state.withLock { state in
            if state.status.state == .capturing { state.status.state = .paused }
        }
    }

    /// Opens the source again after ``pause()`` and captures from now on; the encoders place the
    /// next chunk at its capture time (``AudioEncoder/resumeAfterPause()``). Throws, staying paused,
    /// when the source does not open (the device went away or another program holds it).
    func resume() throws(CaptureError) {
        guard state.withLock({ $0.status.state == .paused && !$0.finished }) else { return }
        do {
            try source.reopen()
        } catch {
            state.withLock { $0.status.lastError = "\(error)" }
            throw error
        }
        for route in routes { route.encoder.resumeAfterPause() }
        clockSync.restartTimeline()
        launch()
    }

    /// Stops capture, flushes the encoders into the outputs and closes the source.
    func stop() {
        endThread()
        let flush = state.withLock { state -> Bool in
            defer { state.finished = true; state.status.state = .stopped }
            return !state.finished
        }
        guard flush else { return }
        for route in routes {
            try? route.encoder.flush { frame in deliver(frame, codec: route.codec) }
        }
        source.close()
    }

    private func launch() {
        state.withLock { state in
            state.stopRequested = false
            state.status.state = .capturing
            state.status.lastError = nil
        }
        exited.lock()
        threadRunning = true
        exited.unlock()
        let thread = Thread { [self] in run() }
        thread.start()
    }

    /// Asks the capture thread to end and waits for it (at most one chunk's read).
    private func endThread() {
        state.withLock { $0.stopRequested = true }
        exited.lock()
        while threadRunning { exited.wait() }
        exited.unlock()
    }

    private func run() {
        threadName.applyToCurrentThread()
        while !state.withLock({ $0.stopRequested }) {
            do {
                let chunk = clockSync.process(try source.read(), logger: logger)
                let clock = (skew: clockSync.skewMillis, drift: clockSync.driftPPM, correction: clockSync.correctionPPM)
                state.withLock { state in
                    state.status.chunksCaptured += 1
                    (state.status.clockSkewMillis, state.status.clockDriftPPM, state.status.clockCorrectionPPM) = clock
                }
                for route in routes {
                    try route.encoder.encode(chunk) { frame in deliver(frame, codec: route.codec) }
                }
            } catch {
                logger.error("audio stopped", metadata: ["error": "\(error)"])
                state.withLock { state in
                    state.status.state = .stopped
                    state.status.lastError = "\(error)"
                }
                break
            }
        }
        source.close()
        exited.lock()
        threadRunning = false
        exited.broadcast()
        exited.unlock()
    }

    private func deliver(_ frame: EncodedAudioFrame, codec: AudioCodec) {
        state.withLock { $0.status.framesEncoded += 1 }
        let outputs = listeners.withLock { $0[codec] ?? [] }
        outputs.forEach { $0.onEncodedAudio(frame) }
    }
}
