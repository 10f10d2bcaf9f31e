import Capture
import Engine
import Testing
@testable import Server

/// Which camera names the API lets through, against a fixed list of "present" cameras (this
/// machine has none): udev links and nodes that are listed pass; anything else, or any `..`, does not.
@Suite struct APISourcePolicyTests {
    @Test(arguments: [("/dev/v4l/by-path/pci-0000:00:14.0-usb-0:1:1.0-video-index0", true), ("/dev/v4l/by-id/usb-Cam_0001-video-index0", true),
                      ("/dev/video2", true), ("/dev/video3", false), ("/dev/v4l/by-id/..", false), ("/dev/v4l/by-id/a/../../video2", false),
                      ("/dev/v4l/other/video2", false), ("/dev/video2x", false)])
    func namesOfListedCamerasPass(selector: String, accepted: Bool) throws {
        let listed = ["/dev/v4l/by-path/pci-0000:00:14.0-usb-0:1:1.0-video-index0", "/dev/v4l/by-id/usb-Cam_0001-video-index0", "/dev/video2"]
        let result = Result { () throws(EngineError) in try APISourcePolicy.check(.camera(selector), configured: .testPattern, listed: { listed }) }
        #expect((try? result.get()) != nil ? accepted : !accepted, "\(selector): \(result)")
    }

    @Test func theConfiguredSourceAlwaysPasses() throws {
        try APISourcePolicy.check(.camera("/dev/video5"), configured: .camera("/dev/video5"), listed: { [] })
    }
}
