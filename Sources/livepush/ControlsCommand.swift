import ArgumentParser
import Capture
import Foundation

/// `livepush controls DEVICE [--set name=value ...]`: a camera's controls with ranges and current
/// values, set by the names v4l2-ctl uses (old and new UVC names both work).
struct ControlsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "controls",
        abstract: "List a camera's controls, or set them (brightness, exposure, focus, white balance…).",
        discussion: "Examples: livepush controls /dev/video0 --set brightness=140 --set auto_exposure=1 --set exposure_time_absolute=200"
    )

    @Argument(help: "The camera: /dev/video0, a /dev/v4l/by-id name, camera:INDEX or camera:NAME.")
    var device: String

    @Option(name: .customLong("set"), help: "NAME=VALUE, repeatable; VALUE is a number, on/off, or a menu entry such as '50 Hz'.")
    var settings: [String] = []

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    func run() async throws {
        let camera = try V4L2Device(path: V4L2Discovery.resolve(device))
        defer { camera.close() }
        for setting in settings {
            let (name, value) = try V4L2Control.assignment(setting)
            let control = try camera.setControl(named: name, to: value)
            if !json { print("set \(control.key) = \(control.value.map(String.init) ?? "?")") }
        }
        let controls = try camera.controls()
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(controls), as: UTF8.self))
            return
        }
        for control in controls {
            let value = control.value.map { " value=\($0)" } ?? ""
            let flags = (control.isInactive ? " (inactive: its auto control is on)" : "") + (control.isReadOnly ? " (read-only)" : "")
            print("\(control.key) (\(control.kind.rawValue)): \(control.rangeDescription) default=\(control.defaultValue)\(value)\(flags)")
        }
    }
}
