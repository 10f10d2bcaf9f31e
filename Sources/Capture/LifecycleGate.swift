/// Serializes start and stop of a capturer: a `start` while another is running shares its
/// outcome, and `stop` waits for a start in progress before stopping.
actor LifecycleGate {
    private enum Phase {
        case idle
        case starting(Task<CaptureFormat, any Error>)
        case running(CaptureFormat)
    }
    private var phase = Phase.idle

    func start(_ body: @escaping @Sendable () throws(CaptureError) -> CaptureFormat) async throws(CaptureError) -> CaptureFormat {
        switch phase {
        case let .running(format):
            return format
        case let .starting(task):
            return try await Self.result(of: task)
        case .idle:
            let task = Task<CaptureFormat, any Error> { try body() }
            phase = .starting(task)
            do {
                let format = try await Self.result(of: task)
                phase = .running(format)
                return format
            } catch {
                phase = .idle
                throw error
            }
        }
    }

    func stop(_ body: @Sendable () async -> Void) async {
        if case let .starting(task) = phase { _ = try? await task.value }
        guard case .running = phase else { return }
        await body()
        phase = .idle
    }

    private static func result(of task: Task<CaptureFormat, any Error>) async throws(CaptureError) -> CaptureFormat {
        do { return try await task.value } catch let error as CaptureError { throw error } catch {
            throw .invalidSetting(name: "start", value: "", hint: "\(error)")
        }
    }
}
