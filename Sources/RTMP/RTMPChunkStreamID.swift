/// Chunk stream ids this client uses. All fit the one-byte basic header (2...63, RTMP spec §5.3.1.1) and stay below 32,
/// because nginx-rtmp's default `max_streams 32` drops connections that use larger ids.
/// The numbers follow FFmpeg's choices, which every ingest server has seen.
public enum RTMPChunkStreamID {
    /// §5.4: protocol control and user control messages must use chunk stream 2.
    public static let protocolControl: UInt32 = 2
    /// `connect`, `createStream` and other NetConnection commands.
    public static let command: UInt32 = 3
    /// Audio messages.
    public static let audio: UInt32 = 4
    /// `@setDataFrame` and NetStream commands (`publish`, `deleteStream`).
    public static let stream: UInt32 = 5
    /// Video messages.
    public static let video: UInt32 = 6

    /// The ids `RTMPChunkWriter` accepts.
    public static let writerRange: ClosedRange<UInt32> = 2...31
}
