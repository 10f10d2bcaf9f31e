import Config
import Testing

/// `renditions: [hd, sd, ld]` on an rtmp output: the camera's renditions as the tracks of one
/// enhanced-RTMP connection, top first; the output takes the first as its own rendition (what a
/// server without multitrack gets), and the errors name their line.
@Suite struct RTMPTracksConfigTests {
    let parser = ConfigParser(file: "livepush.yaml", environment: [:])

    static func camera(outputs: String, renditions: String = "      - {name: hd}\n      - {name: sd, size: 640x360, bitrate: 1M}\n      - {name: ld, size: 320x180, bitrate: 300k}\n") -> String {
        "cameras:\n  - id: a\n    encoder: {bitrate: 3M, keyint: 1s}\n    renditions:\n" + renditions + "    outputs:\n" + outputs
    }

    @Test func tracksAreTheNamedRenditionsTopFirst() throws {
        let camera = try parser.parse(Self.camera(outputs: "      - rtmp: {url: rtmp://127.0.0.1/live/k, renditions: [hd, ld]}\n")).cameras[0]
        let output = camera.outputs[0]
        #expect(output.tracks == ["hd", "ld"])
        #expect(output.rendition == nil)
        #expect(camera.trackRenditionIndices(of: output) == [0, 2])
        #expect(camera.renditionIndex(of: output) == 0, "the top track is the rendition the output takes")
        let lowFirst = try parser.parse(Self.camera(outputs: "      - rtmp: {url: rtmp://127.0.0.1/live/k, renditions: [sd, ld]}\n")).cameras[0]
        #expect(lowFirst.renditionIndex(of: lowFirst.outputs[0]) == 1)
    }

    @Test func withoutTracksAnOutputHasNone() throws {
        let camera = try parser.parse(Self.camera(outputs: "      - rtmp: {url: rtmp://127.0.0.1/live/k, rendition: sd}\n")).cameras[0]
        #expect(camera.outputs[0].tracks.isEmpty && camera.trackRenditionIndices(of: camera.outputs[0]).isEmpty)
    }

    @Test(arguments: [
        (camera(outputs: "      - rtmp: {url: rtmp://127.0.0.1/live/k, renditions: [hd, xd]}\n"),
         "livepush.yaml:9: cameras[0].outputs[0].rtmp.renditions: no rendition 'xd' in this camera; it has hd, sd, ld"),
        (camera(outputs: "      - rtmp: {url: rtmp://127.0.0.1/live/k, renditions: [hd, sd, hd]}\n"),
         "livepush.yaml:9: cameras[0].outputs[0].rtmp.renditions[2]: rendition 'hd' is listed twice; each goes as one track"),
        (camera(outputs: "      - rtmp: {url: rtmp://127.0.0.1/live/k, renditions: [hd]}\n"),
         "livepush.yaml:9: cameras[0].outputs[0].rtmp.renditions: list two or more of the camera's renditions, top first"),
        (camera(outputs: "      - rtmp: {url: rtmp://127.0.0.1/live/k, rendition: sd, renditions: [hd, sd]}\n"),
         "livepush.yaml:9: cameras[0].outputs[0].rtmp.renditions: give either rendition: (one stream) or renditions: (tracks of one connection), not both"),
        (camera(outputs: "      - record: {path: a.mp4, renditions: [hd, sd]}\n"),
         "livepush.yaml:9: cameras[0].outputs[0].record.renditions: unknown key 'renditions'"),
        (camera(outputs: "      - rtmp: {url: rtmp://127.0.0.1/live/k, renditions: [hd, ld]}\n",
                renditions: "      - {name: hd}\n      - {name: ld, size: 320x180, bitrate: 300k, fps: 15}\n"),
         "livepush.yaml:8: cameras[0].outputs[0].rtmp.renditions: renditions hd and ld have different frame rates or keyframe intervals"),
        (camera(outputs: "      - rtmp: {url: rtmp://127.0.0.1/live/k, renditions: [hd, ld]}\n",
                renditions: "      - {name: hd}\n      - {name: ld, size: 320x180, bitrate: 300k, keyint: 2s}\n"),
         "livepush.yaml:8: cameras[0].outputs[0].rtmp.renditions: renditions hd and ld have different frame rates or keyframe intervals"),
    ])
    func badTracksNameTheLine(yaml: String, expected: String) {
        parser.expectRefused(yaml, expected)
    }
}
