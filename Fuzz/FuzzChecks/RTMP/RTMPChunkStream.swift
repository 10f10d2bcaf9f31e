import FuzzCore
import NIOCore
import RTMP

/// A publisher's session, as `rtmp://server/app/key` starts it.
private let configuration = RTMPPublishStateMachine.Configuration(url: try! RTMPURL("rtmp://server/app/key"))

/// What an RTMP server sends a publisher after the handshake: chunks on interleaved chunk streams,
/// reassembled by `RTMPChunkReader`, and each message handed to the publish state machine, which
/// decodes protocol control messages, user control events and AMF0 commands (`_result`, `_error`,
/// `onStatus`). The first input byte sets how many bytes arrive per read, so the fuzzer also tries
/// partial chunks. Each message must survive a trip through `RTMPChunkWriter` and back unchanged.
func checkRTMPChunkStream(_ input: [UInt8]) throws(FuzzInvariantBroken) {
    var buffer = FuzzInput.byteBuffer(input)
    guard let pieceByte = buffer.readInteger(as: UInt8.self) else { return }
    let pieceSize = Int(pieceByte) + 1
    let limits = RTMPChunkReader.Limits(maximumMessageLength: 64 << 10, maximumChunkStreams: 16, maximumBufferedBytes: 256 << 10)
    var reader = RTMPChunkReader(limits: limits)
    var session = RTMPPublishStateMachine(configuration: configuration)
    _ = session.handle(.handshakeDone)
    var pending = ByteBuffer()
    do {
        while buffer.readableBytes > 0 {
            pending.writeImmutableBuffer(buffer.readSlice(length: min(pieceSize, buffer.readableBytes))!)
            while let message = try reader.decode(buffer: &pending) {
                try fuzzRequire(reader.bufferedBytes <= limits.maximumBufferedBytes, "buffered \(reader.bufferedBytes) past the limit")
                try requireChunkRoundTrip(message, limits: limits)
                _ = session.handle(.messageReceived(message))
                _ = session.handle(.bytesReceived(message.payload.readableBytes))
            }
        }
    } catch is RTMPError {
        return
    } catch let broken as FuzzInvariantBroken {
        throw broken
    } catch {
        throw FuzzInvariantBroken(message: "untyped error \(error)", file: #fileID, line: #line)
    }
    return
}

/// Writes `message` as chunks and reads it back with a fresh reader.
func requireChunkRoundTrip(_ message: RTMPMessage, limits: RTMPChunkReader.Limits) throws(FuzzInvariantBroken) {
    var writer = RTMPChunkWriter()
    var chunks = ByteBuffer()
    do {
        try writer.write(message, into: &chunks)
    } catch {
        return  // larger than a chunk stream can carry: nothing to compare
    }
    var reader = RTMPChunkReader(limits: limits)
    let again = try? reader.decode(buffer: &chunks)
    try fuzzRequire(again == message, "chunk round trip changed \(message) into \(String(describing: again))")
}

extension FuzzTarget {
    public static let rtmpChunkStream = FuzzTarget(name: "FuzzRTMPChunkStream", check: checkRTMPChunkStream)
}
