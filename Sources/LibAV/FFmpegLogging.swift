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
}
