import CFFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// FFmpeg's own stderr chatter, which would garble livepush's status line.
public enum FFmpegLogging {
    /// Keeps FFmpeg to errors only (livepush reports what matters through its own typed errors).
    public static func quiet() { av_log_set_level(AV_LOG_ERROR) }

    /// Nothing at all, for probes whose failures are expected answers (which encoders open here).
    /// SVT-AV1 logs on its own, governed by `SVT_LOG` (0 = fatal only).
    public static func silent() {
        av_log_set_level(AV_LOG_QUIET)
        setenv("SVT_LOG", "0", 0)
    }

    /// Runs `body` with FFmpeg's log off, then puts the level back: for a probe whose failure is an
    /// expected answer in the middle of a run (FFmpeg's log level is process-wide).
    public static func silenced<Result>(_ body: () -> Result) -> Result {
        let level = av_log_get_level()
        av_log_set_level(AV_LOG_QUIET)
        defer { av_log_set_level(level) }
        return body()
    }
}
