import Codec
import Config
import Pipeline
import Recording

/// How each output kind in the config becomes a running ``StreamOutput``: the extension point
/// for output modules.
///
/// The server knows `record` itself. Another module adds its kind by registering a builder
/// before the server starts, e.g. the RTMP client:
///
/// ```swift
/// var builders = OutputBuilders.builtIn
/// builders.register(.rtmp) { output, camera in
///     guard case let .rtmp(url, key, _) = output.settings else { throw ServerError.badRequest("not rtmp") }
///     return RTMPOutput(url: url, streamKey: key?.value, logger: camera.logger)
/// }
/// ```
///
/// A kind without a builder fails at start with ``ServerError/outputNotAvailable(kind:camera:output:)``
/// ("rtmp output is not available in this build"), never with a silent stand-in.
public struct OutputBuilders: Sendable {
    /// Makes one output; called again each time the output is started from the API.
    public typealias Builder = @Sendable (OutputConfig, CameraConfig) throws -> any StreamOutput

    private var builders: [OutputConfig.Kind: (make: Builder, audioCodec: AudioCodec?)] = [:]

    public init() {}

    /// `audioCodec` is what the kind carries (AAC for RTMP and MP4), or nil for video only.
    public mutating func register(_ kind: OutputConfig.Kind, audioCodec: AudioCodec? = nil, _ builder: @escaping Builder) {
        builders[kind] = (builder, audioCodec)
    }

    public func isAvailable(_ kind: OutputConfig.Kind) -> Bool { builders[kind] != nil }

    /// What this build can run out of the box: recordings.
    public static var builtIn: OutputBuilders {
        var builders = OutputBuilders()
        builders.register(.record, audioCodec: .aac) { output, _ in
            guard case let .record(path, segment, _) = output.settings else { throw ServerError.badRequest("output \(output.id) is not a recording") }
            return RecordingOutput(settings: RecordingSettings(path: path, segmentSeconds: segment))
        }
        return builders
    }

    /// The output wrapped for start/stop from the API; throws when the kind is not in this build.
    func make(_ output: OutputConfig, for camera: CameraConfig) throws(ServerError) -> ControlledOutput {
        guard let builder = builders[output.kind] else {
            throw .outputNotAvailable(kind: output.kind.rawValue, camera: camera.id, output: output.id)
        }
        return ControlledOutput(id: output.id, kind: output.kind.rawValue, target: output.maskedTarget, audioCodec: builder.audioCodec) {
            try builder.make(output, camera)
        }
    }
}
