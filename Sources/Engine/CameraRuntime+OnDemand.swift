import Config
import MediaCore

/// `on_demand: true`: the camera's side of ``OnDemandController`` — what wants it (running outputs,
/// WHEP viewers) and how it starts and stops (the capturer and the microphone: outputs and the
/// encoders stay up).
extension CameraRuntime {
    /// Hands an on-demand camera to its controller once it started (it opened its source once,
    /// so a missing device fails at start); the first decision idles it if nothing wants it.
    func beginOnDemand(_ settings: OnDemandConfig) {
        let controller = OnDemandController(idleSeconds: settings.idleSeconds, camera: onDemandCamera, logger: logger)
        setOnDemandController(controller)
        controller.begin()
    }

    private var onDemandCamera: OnDemandController.Camera {
        OnDemandController.Camera(
            demand: { [weak self] in self?.demand ?? OnDemandPolicy.Demand() },
            start: { [weak self] in
                guard let self else { return }
                _ = try await capturer.resume()
                resumeAudio()
                pipeline.requestKeyFrame()
            },
            stop: { [weak self] in
                await self?.capturer.suspend()
                self?.pipeline.pauseAudio()
            })
    }

    /// The microphone opens again with the camera; if it does not (unplugged, held by another
    /// program), the picture still starts and the audio status says why it stays paused.
    private func resumeAudio() {
        do {
            try pipeline.resumeAudio()
        } catch {
            logger.error("on demand: audio did not open again; the camera runs without it until its next start", metadata: ["error": "\(error)"])
        }
    }

    /// Outputs running (WHEP's endpoint aside: it runs for viewers to arrive) and WHEP viewers now.
    private var demand: OnDemandPolicy.Demand {
        let active = outputs.filter { $0.kind != OutputConfig.Kind.whep.rawValue && $0.isRunning }.count
        let viewers = factory.whep.service(for: config.id)?.whepStatistics.viewers ?? 0
        return OnDemandPolicy.Demand(activeOutputs: active, viewers: viewers)
    }

    /// Whether an on-demand camera idles now (its capture closed): the watchdog does not expect frames from it.
    public var isIdleOnDemand: Bool { onDemandController?.snapshot.isIdle ?? false }
}
