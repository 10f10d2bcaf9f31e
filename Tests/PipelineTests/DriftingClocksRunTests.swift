import Testing

/// `LIVEPUSH_DRIFT_RUN` (``DriftingClocksRun``): the issue's case is read as written, and a value
/// that cannot be read fails the drifting-clock tests by name instead of running the 10 s case.
@Suite struct DriftingClocksRunTests {
    @Test func unsetIsTheTenSecondCase() throws {
        let run = DriftingClocksRun(environment: [:])
        #expect(run.seconds == 10 && run.driftPPM == 10_000)
        try run.requireWellFormed()
    }

    @Test(arguments: ["600s@1000ppm", "600@1000"])
    func theIssuesCaseIsRead(value: String) throws {
        let run = DriftingClocksRun(environment: ["LIVEPUSH_DRIFT_RUN": value])
        #expect(run.seconds == 600 && run.driftPPM == 1_000)
        try run.requireWellFormed()
    }

    @Test(arguments: ["", "10m@1000ppm", "600s", "600s@", "@1000ppm", "2s@1000ppm", "600s@0ppm", "600s@-5ppm", "600s@1000ppm@1", "inf@1000ppm"])
    func anUnreadableValueFailsNamingTheVariable(value: String) {
        let run = DriftingClocksRun(environment: ["LIVEPUSH_DRIFT_RUN": value])
        #expect(throws: DriftingClocksRun.DriftingClocksRunError.self) { try run.requireWellFormed() }
        #expect(run.malformed?.hasPrefix("LIVEPUSH_DRIFT_RUN=\(value) ") == true, "\(run.malformed ?? "nil")")
    }
}
