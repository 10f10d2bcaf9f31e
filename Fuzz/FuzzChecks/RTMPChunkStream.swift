import FuzzSupport
import NIOCore
import RTMP

/// A publisher's session, as `rtmp://server/app/key` starts it.
let configuration = RTMPPublishStateMachine.Configuration(url: try! RTMPURL("rtmp://server/app/key"))

/// What an RTMP server sends a publisher after the handshake: chunks on interleaved chunk streams,
/// reassembled by `RTMPChunkReader`, and each message handed to the publish state machine, which
/// decodes protocol control messages, user control events and AMF0 commands (`_result`, `_error`,
/// `onStatus`). The first input byte sets how many bytes arrive per read, so the fuzzer also tries
/// partial chunks. Each message must survive a trip through `RTMPChunkWriter` and back unchanged.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzRTMPChunkStream(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput.byteBuffer(data, size)
    guard let pieceByte = input.readInteger(as: UInt8.self) else { return 0 }
    let pieceSize = Int(pieceByte) + 1
    let limits = RTMPChunkReader.Limits(maximumMessageLength: 64 << 10, maximumChunkStreams: 16, maximumBufferedBytes: 256 << 10)
    var reader = RTMPChunkReader(limits: limits)
    var session = RTMPPublishStateMachine(configuration: configuration)
    _ = session.handle(.handshakeDone)
    var pending = ByteBuffer()
    do {
        while input.readableBytes > 0 {
            pending.writeImmutableBuffer(input.readSlice(length: min(pieceSize, input.readableBytes))!)
            while let message = try reader.decode(buffer: &pending) {
                fuzzRequire(reader.bufferedBytes <= limits.maximumBufferedBytes, "buffered \(reader.bufferedBytes) past the limit")
                requireChunkRoundTrip(message, limits: limits)
                _ = session.handle(.messageReceived(message))
                _ = session.handle(.bytesReceived(message.payload.readableBytes))
            }
        }
    } catch is RTMPError {
        return 0
    } catch {
        fuzzRequire(false, "untyped error \(error)")
    }
    return 0
}

/// Writes `message` as chunks and reads it back with a fresh reader.
func requireChunkRoundTrip(_ message: RTMPMessage, limits: RTMPChunkReader.Limits) {
    var writer = RTMPChunkWriter()
    var chunks = ByteBuffer()
    do {
        try writer.write(message, into: &chunks)
    } catch {
        return  // larger than a chunk stream can carry: nothing to compare
    }
    var reader = RTMPChunkReader(limits: limits)
    let again = try? reader.decode(buffer: &chunks)
    fuzzRequire(again == message, "chunk round trip changed \(message) into \(String(describing: again))")
}

// Last: the globals above are initialised in order as top-level code runs, and this never returns.
runLibFuzzer(fuzzRTMPChunkStream)
