import CFFmpeg

/// FFmpeg's own stderr chatter, which would garble livepush's status line.
public enum FFmpegLogging {
    /// Keeps FFmpeg to errors only (livepush reports what matters through its own typed errors).
    public static func quiet() { av_log_set_level(AV_LOG_ERROR) }
}
