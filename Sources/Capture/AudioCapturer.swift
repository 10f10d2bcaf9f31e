import CALSA
import Foundation
import MediaCore

/// Captures PCM from an ALSA device (`default`, `hw:1,0`, `plughw:1,0`, `null`) in 10 ms chunks,
/// timestamped on CLOCK_MONOTONIC like video frames.
///
/// A chunk's capture time is "now" minus what is still buffered in ALSA minus the chunk itself, so
/// the time refers to the first sample's arrival at the device, not to when we got around to read it.
/// An overrun (we read too late and ALSA overwrote samples) is recovered and counted, not fatal.
/// A device that never blocks (ALSA's `null`, a plugin reading a file) is held to the clock, so it
/// cannot spin the capture thread. Owned by one capture thread.
public final class AudioCapturer: AudioSource {
    public let device: String
    public let format: AudioFormat
    public let chunkFrames: Int
    /// Times ALSA overran its buffer because reads came too late.
    public private(set) var overruns = 0
    private var handle: OpaquePointer?
    private var samples: [Int16]
    /// When the device was (re)opened and how many frames it gave since: a real device cannot run
    /// ahead of the clock by more than ``aheadAllowanceNanos`` plus 0.5 % (crystals are off by
    /// 0.01 %), so reads that do are held back to it.
    private var openedNanos: Int64 = 0
    private var framesSinceOpen = 0
    static let aheadAllowanceNanos: Int64 = 200_000_000

    /// Opens and configures the device. `hw:` devices must support the rate and channels natively;
    /// `plughw:` and `default` convert.
    public init(device: String = "default", format: AudioFormat = AudioFormat(), chunkDurationMillis: Int = 10) throws(CaptureError) {
        do throws(MediaError) { try format.validate() } catch { throw .media(error) }
        self.device = device
        self.format = format
        chunkFrames = format.sampleRate * max(1, chunkDurationMillis) / 1000
        samples = [Int16](repeating: 0, count: chunkFrames * format.channels)
        handle = try Self.open(device: device, format: format)
        (openedNanos, framesSinceOpen) = (MonotonicClock.nowNanos(), 0)
    }

    deinit { close() }

    /// Releases the device (another program, or ``reopen()``, can then open it).
    public func close() {
        if let handle { snd_pcm_close(handle) }
        handle = nil
    }

    /// Opens the device again after ``close()``; ALSA starts capturing afresh, so the first chunk's
    /// time is its own capture time, not the end of the last chunk before the pause.
    public func reopen() throws(CaptureError) {
        guard handle == nil else { return }
        handle = try Self.open(device: device, format: format)
        (openedNanos, framesSinceOpen) = (MonotonicClock.nowNanos(), 0)
    }

    private static func open(device: String, format: AudioFormat) throws(CaptureError) -> OpaquePointer {
        var pcm: OpaquePointer?
        let opened = snd_pcm_open(&pcm, device, SND_PCM_STREAM_CAPTURE, 0)
        guard opened >= 0, let pcm else { throw Self.openError(device: device, code: opened) }
        let latencyMicros: UInt32 = 100_000
        let configured = snd_pcm_set_params(pcm, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED,
                                            UInt32(format.channels), UInt32(format.sampleRate), 1, latencyMicros)
        guard configured >= 0 else {
            snd_pcm_close(pcm)
            throw .audioDeviceFailed(device: device, operation: "set \(format), S16_LE interleaved",
                                     detail: "\(Self.message(configured)); try plughw:… or default, which convert")
        }
        return pcm
    }

    /// Blocks until a chunk has been captured.
    public func read() throws(CaptureError) -> AudioChunk {
        guard let handle else { throw .audioSourceClosed(device: device) }
        var filled = 0
        while filled < chunkFrames {
            let count = samples.withUnsafeMutableBufferPointer { buffer -> snd_pcm_sframes_t in
                guard let base = buffer.baseAddress else { return 0 }
                return snd_pcm_readi(handle, base + filled * format.channels, snd_pcm_uframes_t(chunkFrames - filled))
            }
            if count >= 0 {
                filled += Int(count)
                continue
            }
            if count == -snd_pcm_sframes_t(EPIPE) { overruns += 1 }
            let recovered = snd_pcm_recover(handle, Int32(count), 1)
            guard recovered >= 0 else {
                throw .audioDeviceFailed(device: device, operation: "read", detail: Self.message(Int32(count)))
            }
        }
        let now = holdToTheClock()
        var delay: snd_pcm_sframes_t = 0
        if snd_pcm_delay(handle, &delay) < 0 { delay = 0 }
        let captureTime = now - format.nanos(forFrames: Int(delay) + chunkFrames)
        return AudioChunk(format: format, samples: samples, captureTimeNanos: captureTime)
    }

    /// Counts the chunk just read and, when the device has given more than the time since it opened
    /// allows, sleeps until it does. Returns the time after.
    private func holdToTheClock() -> Int64 {
        framesSinceOpen += chunkFrames
        let now = MonotonicClock.nowNanos()
        let elapsed = now - openedNanos
        let ahead = format.nanos(forFrames: framesSinceOpen) - elapsed - Self.aheadAllowanceNanos - elapsed / 200
        guard ahead > 0 else { return now }
        let deadline = now + ahead
        while !Pacing.sleep(until: deadline) {}
        return MonotonicClock.nowNanos()
    }

    /// PCM devices that can capture, for `livepush devices` (ALSA's name hints).
    public static func availableDevices() -> [String] {
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        guard snd_device_name_hint(-1, "pcm", &hints) >= 0, let hints else { return [] }
        defer { snd_device_name_free_hint(hints) }
        var names = [String](), index = 0
        while let hint = hints[index] {
            index += 1
            guard let name = snd_device_name_get_hint(hint, "NAME") else { continue }
            defer { free(name) }
            let direction = snd_device_name_get_hint(hint, "IOID")
            defer { free(direction) }
            // No IOID means both directions.
            if direction.map({ String(cString: $0) == "Input" }) ?? true { names.append(String(cString: name)) }
        }
        return names
    }

    private static func openError(device: String, code: Int32) -> CaptureError {
        switch -code {
        case EBUSY, EAGAIN: return .audioDeviceBusy(device: device)
        case ENOENT, ENODEV, ENXIO: return .audioDeviceNotFound(device: device, detail: message(code))
        default: return .audioDeviceFailed(device: device, operation: "open for capture", detail: message(code))
        }
    }

    private static func message(_ code: Int32) -> String { snd_strerror(code).map { String(cString: $0) } ?? "error \(code)" }
}
