import Capture
import Foundation
import FuzzCore
import MediaCore
import Server

/// The JSON bodies of the control API (web/openapi.yaml) and what the routes do with them before
/// touching a camera: source specs and the API's source policy, bitrates, overlay settings, camera
/// controls and login tokens. Every body is tried as each request type, as a client can send any
/// body to any route. Beyond "no trap", the security invariant: no body may switch a camera to a
/// file, or to a device path that is not a camera.
func checkAPIBodies(_ input: [UInt8]) throws(FuzzInvariantBroken) {
    let body = Data(input)
    let decoder = JSONDecoder()
    if let request = try? decoder.decode(SourceRequest.self, from: body), let spec = try? SourceSpec(parsing: request.source) {
        try requireRefusedOverAPI(spec)
    }
    if let request = try? decoder.decode(BitrateRequest.self, from: body) {
        _ = try? BitrateParser.bitsPerSecond(parsing: request.bitrate)
    }
    if let request = try? decoder.decode(OverlayRequest.self, from: body), let settings = try? request.applied(to: nil) {
        try fuzzRequire(settings.text.utf8.count <= 200, "overlay text of \(settings.text.utf8.count) bytes accepted")
    }
    if let request = try? decoder.decode(ControlRequest.self, from: body) {
        _ = try? RpicamControls.validate(key: request.name, value: request.value)
    }
    if let request = try? decoder.decode(LoginRequest.self, from: body) {
        let tokens = AccessTokens(admin: "0123456789abcdef0123456789abcdef", viewer: nil)
        let role = tokens.role(presenting: request.token)
        try fuzzRequire(role == nil || request.token == tokens.admin, "token \(request.token.debugDescription) accepted")
    }
    return
}

/// Files, and camera selectors that are not cameras, must be refused whatever else the spec says;
/// checked without the device list, which the policy consults only for real camera selectors.
func requireRefusedOverAPI(_ spec: SourceSpec) throws(FuzzInvariantBroken) {
    let mustRefuse: Bool
    switch spec {
    case .file: mustRefuse = true
    case .camera(let selector): mustRefuse = !APISourcePolicy.isCameraSelector(selector)
    default: mustRefuse = false
    }
    guard mustRefuse else { return }
    let refused: Bool
    do {
        try APISourcePolicy.check(spec, configured: .testPattern, listed: { [] })
        refused = false
    } catch {
        refused = true
    }
    try fuzzRequire(refused, "\(spec) accepted over the API")
}

extension FuzzTarget {
    public static let apiBodies = FuzzTarget(name: "FuzzAPIBodies", check: checkAPIBodies)
}
