import Glibc

/// Keeps the calling thread's scheduling policy across a library call that changes it.
///
/// SVT-AV1 (libsvtav1) raises the thread that opens it to SCHED_FIFO 99 whenever it is allowed
/// to (as root). Opening or merely probing that encoder would leave the caller — a Swift
/// concurrency thread, an API handler — running real-time, and every thread or process it starts
/// afterwards would inherit it: one busy loop in any of them then owns a core outright.
enum ThreadSchedulingGuard {
    static func preserving<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        var policy: Int32 = 0
        var parameters = sched_param()
        let saved = pthread_getschedparam(pthread_self(), &policy, &parameters) == 0
        defer { if saved { _ = pthread_setschedparam(pthread_self(), policy, &parameters) } }
        return try body()
    }
}
